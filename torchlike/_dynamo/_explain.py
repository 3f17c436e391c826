"""``torch._dynamo.explain``: where a function's graph would break, without compiling it.

torch's dynamo splits a function into graphs at each point it cannot trace (a branch on a tensor's value,
``Tensor.item()``, ``print`` between traced ops) and reports them. torchlike.compile traces a function
whole or runs it eagerly, so ``explain`` runs the function once eagerly and splits its op stream where
dynamo would: a tensor read on the host (``bool(t)``, ``item``, ``tolist``, ``float``/``int``) ends a graph,
and so does ``print`` after ops. The ops are the dispatched aten ops (dynamo lists torch-level calls) and
``getitem`` for indexing (other views do not reach a dispatch mode, so a graph of views alone is not seen).

>>> import torchlike
>>> from torchlike._dynamo import explain
>>> def f(x):
...     if x.sum() > 0:
...         return x + 1
...     return x - 1
>>> e = explain(f)(torchlike.ones(3))
>>> e.graph_count, e.graph_break_count
(2, 1)
"""
from __future__ import annotations

import builtins
import traceback
import warnings

from ..tensor import Tensor
from ..utils._python_dispatch import TorchDispatchMode

__all__ = ["explain", "ExplainOutput", "GraphCompileReason"]

_BRANCH = "generic_jump TensorVariable()"
_ITEM = "Unsupported Tensor.item() call with capture_scalar_outputs=False"
_TOLIST = "Unsupported Tensor.tolist() call"
_PRINT = ("Failed to trace builtin operator\n  Explanation: Dynamo does not know how to trace builtin operator "
          "`print` with argument types ['str'] (has_kwargs False)")
_HOST_READS = {"__bool__": _BRANCH, "item": _ITEM, "tolist": _TOLIST, "__float__": _ITEM, "__int__": _ITEM,
               "__index__": _ITEM}


class GraphCompileReason:
    """Why a graph ended: ``reason`` (dynamo's text), ``user_stack`` (the user's frames), ``graph_break``."""

    def __init__(self, reason, user_stack, graph_break=True):
        self.reason, self.user_stack, self.graph_break = reason, user_stack, graph_break

    def __repr__(self):
        return f"GraphCompileReason(reason={self.reason!r}, user_stack={self.user_stack!r}, " \
               f"graph_break={self.graph_break!r})"


class _Graph:
    """One graph of the split function: its ops (``ops``), in call order."""

    def __init__(self, ops):
        self.ops = ops

    def __repr__(self):
        return f"<graph of {len(self.ops)} ops: {', '.join(map(str, self.ops))}>"


class ExplainOutput:
    """The result of :func:`explain`: graphs, counts, break reasons and ops per graph, as torch's."""

    def __init__(self, graphs, graph_count, graph_break_count, break_reasons, op_count, ops_per_graph=None,
                 out_guards=None, compile_times=None):
        self.graphs, self.graph_count, self.graph_break_count = graphs, graph_count, graph_break_count
        self.break_reasons, self.op_count, self.ops_per_graph = break_reasons, op_count, ops_per_graph
        self.out_guards, self.compile_times = out_guards, compile_times

    def __str__(self):
        s = f"Graph Count: {self.graph_count}\nGraph Break Count: {self.graph_break_count}\n" \
            f"Op Count: {self.op_count}\nBreak Reasons:\n"
        for i, r in enumerate(self.break_reasons):
            s += f"  Break Reason {i + 1}:\n    Reason: {r.reason}\n    User Stack:\n"
            s += "".join(f"      {frame}\n" for frame in r.user_stack)
        if self.ops_per_graph is not None:
            s += "Ops per Graph:\n"
            for i, ops in enumerate(self.ops_per_graph):
                s += f"  Ops {i + 1}:\n" + "".join(f"    {op}\n" for op in ops)
        if self.out_guards is not None:
            s += "Out Guards:\n" + "".join(f"  Guard {i + 1}:\n    {g}\n" for i, g in enumerate(self.out_guards))
        if self.compile_times is not None:
            s += f"Compile Times: {self.compile_times}\n"
        return s


class _Split(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.graphs, self.reasons, self.current = [], [], []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.current.append(func)
        return func(*args, **(kwargs or {}))

    def cut(self, reason, always=True):
        if not self.current and not always:
            return
        stack = [f for f in traceback.extract_stack()[:-3] if "torchlike" not in f.filename.replace("\\", "/")]
        self.reasons.append(GraphCompileReason(reason, stack[-1:]))
        if self.current:
            self.graphs.append(self.current)
            self.current = []


def explain(f, *extra_args, **extra_kwargs):
    """``explain(f)(*args, **kwargs)``: run ``f`` once and report the graphs dynamo would split it into
    (an :class:`ExplainOutput`; see the module docstring for how torchlike finds them)."""
    def inner(*args, **kwargs):
        split = _Split()
        names = list(_HOST_READS) + ["__getitem__"]
        own = {name: name in Tensor.__dict__ for name in names}  # a method may come from a base class
        originals = {name: getattr(Tensor, name, None) for name in names}
        real_print = builtins.print

        def host_read(name, fn):
            def read(self, *a, **k):
                split.cut(_HOST_READS[name])
                return fn(self, *a, **k)
            return read

        def traced_print(*a, **k):
            split.cut(_PRINT, always=False)
            return real_print(*a, **k)

        getitem = originals.pop("__getitem__")

        def indexed(self, idx):  # views do not reach a dispatch mode; dynamo's graph holds the getitem
            split.current.append("getitem")
            return getitem(self, idx)

        for name, fn in originals.items():
            if fn is not None:
                setattr(Tensor, name, host_read(name, fn))
        Tensor.__getitem__ = indexed
        builtins.print = traced_print
        try:
            with split:
                f(*args, **kwargs)
        finally:
            builtins.print = real_print
            for name, fn in dict(originals, __getitem__=getitem).items():
                if own[name]:
                    setattr(Tensor, name, fn)
                elif name in Tensor.__dict__:
                    delattr(Tensor, name)
        graphs = split.graphs + ([split.current] if split.current else [])
        return ExplainOutput([_Graph(g) for g in graphs], len(graphs), len(split.reasons), split.reasons,
                             sum(map(len, graphs)), graphs, [], "")

    if extra_args or extra_kwargs:
        warnings.warn("explain(f, *args, **kwargs) is deprecated, use explain(f)(*args, **kwargs) instead.  If "
                      "you don't migrate, we may break your explain call in the future if your user defined "
                      "kwargs conflict with future kwargs added to explain(f).", FutureWarning, stacklevel=2)
        return inner(*extra_args, **extra_kwargs)
    return inner
