"""``torch.utils.flop_counter``: ``FlopCounterMode`` counts the floating-point operations of matrix products.

Inside ``with FlopCounterMode():`` every ``mm``/``addmm``/``bmm``/``baddbmm``/``matmul``/``linear`` counts
``2 * M * K * N`` (per batch), as torch counts them; the counts are kept globally and per module (by the
module's qualified name from its class, ``Sequential.0``), to ``depth``. Convolutions and attention are not
counted (see docs/differences.md). Counting uses the profiler's op events, so it cannot run while a
``torch.profiler.profile`` records.

>>> import torchlike as torch
>>> from torchlike.utils.flop_counter import FlopCounterMode
>>> counter = FlopCounterMode(display=False)
>>> with counter:
...     _ = torch.nn.Linear(4, 3)(torch.ones(5, 4))
>>> counter.get_total_flops()
120
"""
from __future__ import annotations

import math
from collections import defaultdict

from .. import _profiler_state as _prof
from ..nn.modules import _module_hooks

__all__ = ["FlopCounterMode"]


def _matmul_flops(a, b):
    """torch's count for ``matmul(a, b)`` of shapes a, b (vector products decompose to uncounted mv/dot)."""
    if len(b) == 1 and len(a) <= 2:
        return 0
    if len(a) == 1:
        a = [1] + list(a)
    if len(b) == 1:
        b = list(b) + [1]
    batch = math.prod(a[:-2]) if len(a) > len(b) else math.prod(b[:-2])
    if len(a) > 2 and len(b) > 2:
        batch = math.prod(max(x, y) for x, y in zip(a[-3::-1], b[-3::-1])) * \
            math.prod((a if len(a) > len(b) else b)[:-2][:abs(len(a) - len(b))])
    return 2 * batch * a[-2] * a[-1] * b[-1]


def _flops(name, shapes):
    """(torch's op name, flop count) of one profiler event, or None for ops torch does not count."""
    try:
        if name in ("aten::mm", "aten::addmm") and len(shapes) >= 2:
            a, b = (shapes[-2], shapes[-1]) if name == "aten::addmm" else shapes[:2]
            return "aten.addmm" if name == "aten::addmm" else "aten.mm", 2 * a[0] * a[1] * b[1]
        if name in ("aten::bmm", "aten::baddbmm"):
            a, b = (shapes[-2], shapes[-1]) if name == "aten::baddbmm" else shapes[:2]
            return name.replace("::", "."), 2 * a[0] * a[1] * a[2] * b[2]
        if name == "aten::linear" and len(shapes) >= 2 and len(shapes[0]) >= 1:
            x, w = shapes[0], shapes[1]
            rows = math.prod(x[:-1])
            op = "aten.addmm" if len(shapes) > 2 and shapes[2] and len(x) == 2 else "aten.mm"
            return op, 2 * rows * x[-1] * w[0]
        # matmul's event carries its autograd node's name (unsafe_view) and both operands' shapes
        if name in ("aten::matmul", "aten::unsafe_view") and len(shapes) == 2 and all(shapes):
            n = _matmul_flops(list(shapes[0]), list(shapes[1]))
            if n:
                return ("aten.bmm" if len(shapes[0]) > 2 and len(shapes[1]) > 2 else "aten.mm"), n
    except (IndexError, TypeError):
        return None
    return None


class FlopCounterMode:
    """Counts the flops of the matrix products run inside it (``get_total_flops``, ``get_flop_counts``)."""

    def __init__(self, mods=None, depth: int = 2, display: bool = True, custom_mapping=None):
        self.depth = depth
        self.display = display
        self.flop_counts = defaultdict(lambda: defaultdict(int))
        self._collector = None
        self._hooks = []
        self._stack = []

    def get_total_flops(self) -> int:
        return sum(self.flop_counts["Global"].values())

    def get_flop_counts(self) -> dict:
        """{"Global" or module name: {op name: flops}}."""
        return {k: dict(v) for k, v in self.flop_counts.items()}

    def get_table(self, depth=None):
        rows = [f"{'Module':<30}{'FLOP':>12}"]
        for mod, counts in self.flop_counts.items():
            rows.append(f"{mod:<30}{sum(counts.values()):>12}")
            rows += [f"{' - ' + str(op):<30}{n:>12}" for op, n in counts.items()]
        return "\n".join(rows)

    def _pre(self, module, args):
        parent = self._stack[-1] if self._stack else None
        if parent is None:
            name = type(module).__name__
        else:
            child = next((n for n, m in parent[1].named_children() if m is module), type(module).__name__)
            name = f"{parent[0]}.{child}"
        self._stack.append((name, module, len(self._collector.events)))

    def _post(self, module, args, output):
        if not self._stack or self._stack[-1][1] is not module:
            return
        name, _, start = self._stack.pop()
        if name.count(".") + 1 > self.depth:
            return
        for ev in self._collector.events[start:]:
            fl = _flops(ev[0], ev[3])
            if fl is not None:
                self.flop_counts[name][fl[0]] += fl[1]

    def __enter__(self):
        self.flop_counts.clear()
        self._collector = _prof.start(record_shapes=True)
        self._hooks = [_module_hooks.register_module_forward_pre_hook(self._pre),
                       _module_hooks.register_module_forward_hook(self._post)]
        return self

    def __exit__(self, *exc):
        for h in self._hooks:
            h.remove()
        self._hooks, self._stack = [], []
        collector, self._collector = _prof.stop(), None
        for ev in collector.events:
            fl = _flops(ev[0], ev[3])
            if fl is not None:
                self.flop_counts["Global"][fl[0]] += fl[1]
        if self.display:
            print(self.get_table(self.depth))
        return False
