"""``torch.utils.flop_counter``: ``FlopCounterMode`` counts the floating-point operations of a program.

Inside ``with FlopCounterMode():`` every matrix product and convolution counts as torch counts it — the
aten op torch's dispatcher would run (``mm``, ``addmm``, ``bmm``, ``baddbmm``, ``convolution``) and, when
``backward`` runs inside the mode, the products of the gradients (``mm``/``bmm`` per input that requires grad,
``convolution_backward``). Counts are kept for ``"Global"`` and per module by qualified name
(``Sequential.0``), a backward's under the modules whose forward recorded it; ``get_flop_counts()`` keys them
by ``torch.ops.aten`` packets. Counting reads the profiler's op stream, so it cannot run while a
``torch.profiler.profile`` records (see docs/differences.md).

>>> import torchlike as torch
>>> from torchlike.utils.flop_counter import FlopCounterMode
>>> layer = torch.nn.Linear(4, 3)
>>> with FlopCounterMode(display=False) as counter:
...     layer(torch.ones(5, 4)).sum().backward()
>>> counter.get_total_flops()
240
>>> counter.get_flop_counts()["Global"][torch.ops.aten.addmm]
120
"""
from __future__ import annotations

import warnings
import weakref
from collections import defaultdict

from .. import _profiler_state as _prof
from ..autograd import grad_mode
from ..library import aten_packet
from ..nn.modules import _module_hooks
from ._flop_rules import RULES
from ._flop_rules import (  # torch's formula helpers, importable from here as from torch
    bmm_flop as bmm_flop, conv_backward_flop as conv_backward_flop, conv_flop_count as conv_flop_count,
    mm_flop as mm_flop, sdpa_flop_count as sdpa_flop_count)

__all__ = ["FlopCounterMode", "register_flop_formula"]

_REGISTERED = {}


def register_flop_formula(targets, get_raw=False):
    """Register ``formula`` for aten ops ``targets`` (kept in ``flop_registry``; torchlike's own ops count
    by the rules in ``_flop_rules``, so a formula for an op torchlike does not run is never called)."""
    def register(formula):
        for t in (targets if isinstance(targets, (list, tuple)) else [targets]):
            _REGISTERED[t] = formula
        return formula
    return register


flop_registry = _REGISTERED
_SUFFIXES = ["", "K", "M", "B", "T"]


def get_suffix_str(number):
    """torch's unit for a total: 1.01 billion shows as 1001M, not 1.001B."""
    return _SUFFIXES[max(0, min(len(_SUFFIXES) - 1, (len(str(number)) - 2) // 3))]


def convert_num_with_suffix(number, suffix):
    return f"{number / 1000 ** _SUFFIXES.index(suffix):.3f}" + suffix


def convert_to_percent_str(num, denom):
    return "0%" if denom == 0 else f"{num / denom:.2%}"


def _number(cell):
    """(type, value) of a cell as tabulate parses it: int, float or text."""
    try:
        return int, int(cell)
    except ValueError:
        pass
    try:
        return float, float(cell)
    except ValueError:
        return str, cell


def _tabulate(rows, headers, aligns):
    """tabulate's "simple" table (its number parsing, cells stripped, two spaces between columns, header
    padding 2): the table torch's ``get_table`` prints through tabulate."""
    rows = [[c.strip() for c in r] for r in rows]
    cols = []
    for j, head in enumerate(headers):
        cells = [_number(r[j]) for r in rows]
        kinds = {k for k, _ in cells}
        if str in kinds:
            text = [str(r[j]) for r in rows]
        elif float in kinds:
            text = [format(float(v), "g") for _, v in cells]
        else:
            text = [str(v) for _, v in cells]
        width = max([len(head) + 2] + [len(t) for t in text])
        pad = str.ljust if aligns[j] == "left" else str.rjust
        cols.append([pad(head, width), "-" * width] + [pad(t, width) for t in text])
    return "\n".join("  ".join(col[i] for col in cols) for i in range(len(rows) + 2))


class FlopCounterMode:
    """Counts the flops run inside it (``get_total_flops``, ``get_flop_counts``, ``get_table``)."""

    def __init__(self, mods=None, depth: int = 2, display: bool = True, custom_mapping=None):
        self.flop_counts = defaultdict(lambda: defaultdict(int))
        self.depth = depth
        self.display = display
        if mods is not None:
            warnings.warn("mods argument is not needed anymore, you can stop passing it", stacklevel=2)
        self.flop_registry = {**_REGISTERED, **(custom_mapping or {})}
        self._names = weakref.WeakKeyDictionary()   # module -> qualified name (torch's ModuleTracker)
        self._seen = weakref.WeakSet()
        self._parents = []
        self._backward = weakref.WeakKeyDictionary()   # autograd node -> (modules, [(op, flops)])
        self._sticky = {}   # modules every later node of this backward counts under (see _post)
        self._grad_hooks = []
        self._collector = None
        self._hooks = []
        self.paused = 0   # inside a region torch runs as one fused kernel (_profiler_state.fused_kernel)

    def get_total_flops(self) -> int:
        return sum(self.flop_counts["Global"].values())

    def get_flop_counts(self) -> dict:
        """{"Global" or module name: {aten op packet: flops}}."""
        return {k: dict(v) for k, v in self.flop_counts.items()}

    def get_table(self, depth=None):
        depth = self.depth if depth is None else depth
        if depth is None:
            depth = 999999
        total = self.get_total_flops()
        suffix = get_suffix_str(total)
        subsumed = False

        def rows_of(mod, indent):
            nonlocal subsumed
            mod_total = sum(self.flop_counts[mod].values())
            subsumed |= mod_total >= total
            pad = " " * indent
            rows = [[pad + mod, convert_num_with_suffix(mod_total, suffix), convert_to_percent_str(mod_total, total)]]
            rows += [[pad + " - " + str(op), convert_num_with_suffix(n, suffix), convert_to_percent_str(n, total)]
                     for op, n in self.flop_counts[mod].items()]
            return rows

        rows = []
        for mod in sorted(self.flop_counts):
            if mod != "Global" and mod.count(".") + 1 <= depth:
                rows += rows_of(mod, mod.count("."))
        if "Global" in self.flop_counts and not subsumed:
            rows = rows_of("Global", 0) + [[" " + r[0]] + r[1:] for r in rows]
        if not rows:
            rows = [["Global", "0", "0%"]]
        return _tabulate(rows, ["Module", "FLOP", "% Total"], ("left", "right", "right"))

    # --- module tracking (torch's ModuleTracker: the root by its class name, children by attribute path) ---
    def _name(self, module):
        if module not in self._names:
            self._names[module] = type(module).__name__
        name = self._names[module]
        if module not in self._seen:
            self._seen.add(module)
            for child_name, child in module.named_children():
                self._names[child] = f"{name}.{child_name}"
                self._name(child)
        return name

    def _pre(self, module, args):
        self._parents.append(self._name(module))

    def _post(self, module, args, output):
        name = self._names.get(module)
        if name in self._parents:
            del self._parents[len(self._parents) - 1 - self._parents[::-1].index(name)]
        # torch's tracker leaves the module "entered" for the rest of a backward when it returned its own input
        # (a Dropout(0.0), an eval-mode Dropout, an Identity): the gradient of that one tensor first fires the
        # hook that exits it (registered on its inputs), then the one that enters it (on its outputs)
        inputs = [a for a in args if hasattr(a, "register_hook") and a.requires_grad]
        if len(inputs) == 1 and output is inputs[0] and grad_mode.is_grad_enabled():
            self._grad_hooks.append(output.register_hook(lambda g, name=name: self._sticky.setdefault(name)))

    def _add(self, where, counts):
        for op, n in counts:
            key = aten_packet(op)
            for mod in where:
                self.flop_counts[mod][key] += n

    # --- the profiler's observer ---------------------------------------------------------------------------
    def op(self, f, name, args, statics, out):
        rule = RULES.get(f)
        if rule is None or self.paused:
            return
        fwd, bwd = rule(args, dict(statics), name or "", out)
        where = ("Global",) + tuple(dict.fromkeys(self._parents))
        self._add(where, fwd)
        if bwd:
            for t in (out if isinstance(out, (tuple, list)) else (out,)):
                node = getattr(t, "grad_fn", None)
                if node is not None:
                    self._backward[node] = (where, bwd)
                    break

    def node(self, node):
        entry = self._backward.get(node)
        if entry is not None:
            where, counts = entry
            self._add(tuple(dict.fromkeys(where + tuple(self._sticky))), counts)

    def backward_end(self):
        self._sticky = {}

    def __enter__(self):
        self.flop_counts.clear()
        self._collector = _prof.start()
        self._collector.observer = self
        self._hooks = [_module_hooks.register_module_forward_pre_hook(self._pre),
                       _module_hooks.register_module_forward_hook(self._post)]
        return self

    def __exit__(self, *exc):
        for h in self._hooks + self._grad_hooks:
            h.remove()
        self._hooks, self._grad_hooks, self._parents, self._sticky = [], [], [], {}
        self._collector.observer = None
        self._collector = None
        _prof.stop()
        if self.display:
            print(self.get_table(self.depth))
        return False

