"""Tensor subclasses with their own ``__torch_dispatch__`` (wrapper subclasses made by
``torch.Tensor._make_wrapper_subclass``, and ``_make_subclass``/``as_subclass`` ones): every aten op that
touches an instance calls ``cls.__torch_dispatch__(func, types, args, kwargs)`` with the ``torch.ops.aten``
overload torch runs (``aten.add.Tensor``, ``aten.t.default``, ``aten.detach.default``), as in torch.

How: while such an op runs, a dispatcher object sits at the *bottom* of the dispatch-mode stack (torch's
Python dispatch key, below the modes), so the machinery that shows ops to ``TorchDispatchMode``s
(``_aten_calls``: names, aten's arguments, torch's decompositions; ``_aten_backward``: the backward formulas)
shows them to the subclass too; active modes see each op first, and what a mode forwards reaches the
subclass. Views of an instance (``t()``, ``view``, indexing, ``detach``), which do not reach torchlike's
dispatcher for plain tensors, come here from ``_ops.views._view_step``/``Tensor.detach``. Autograd sits above
the subclass: an op on instances records a node whose backward runs torch's formula as aten calls, which reach
the subclass again (``aten.ones_like`` for the seed, ``threshold_backward``, ``mm``, ``t``...). With no such
class the dispatcher tests one flag (``_profiler_state.SUBCLASSES``, empty).

>>> import torchlike
>>> from torchlike.utils._pytree import tree_map
>>> class Logged(torchlike.Tensor):
...     @staticmethod
...     def __new__(cls, elem):
...         r = torchlike.Tensor._make_wrapper_subclass(cls, elem.shape, dtype=elem.dtype)
...         r.elem = elem
...         return r
...     __torch_function__ = torchlike._C._disabled_torch_function_impl
...     @classmethod
...     def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
...         print(func)
...         un = lambda t: t.elem if isinstance(t, Logged) else t
...         out = func(*tree_map(un, args), **tree_map(un, kwargs or {}))
...         return tree_map(lambda t: Logged(t) if isinstance(t, torchlike.Tensor) else t, out)
>>> y = Logged(torchlike.ones(2, 3)).t() * 2
aten.t.default
aten.mul.Tensor
"""
from __future__ import annotations

import contextlib
import weakref

from .. import _creation, _grad_mode, _profiler_state as _prof
from .._dispatch import _NODE_CLASSES, OTHERS
from .._tape import node_class
from .._torch_function import DisableTorchFunctionSubclass as _DisableTF
from ..autograd import grad as _autograd_grad
from ..nn import functional as F
from ..tensor import Tensor
from . import _aten_backward as _ab, _aten_calls
from ._subclass_views import VIEW_NODES, subclass_view

__all__ = ["install", "dispatcher"]

aten = _aten_calls.aten
PENDING = _aten_calls.PENDING
_MODES = _prof.MODES
_state = _grad_mode._state
_SUBCLASSES = _prof.SUBCLASSES


def _types(args, kwargs):
    """The subclass types among the arguments, in order, each once (torch's ``types``)."""
    seen = []
    for a in _aten_calls.tensors_in(args, kwargs):
        t = type(a)
        if t in _SUBCLASSES and t not in seen:
            seen.append(t)
    return tuple(seen)


def _failed(func, types):
    lines = "".join(f"  - tensor subclass {t}\n" for t in types)
    return TypeError(f"Multiple dispatch failed for 'torch._ops.{func}'; all __torch_dispatch__ handlers returned "
                     f"NotImplemented:\n\n{lines}\nFor more information, try re-running with "
                     f"TORCH_LOGS=not_implemented")


class _Dispatcher:
    """The subclasses' turn at an aten call: the bottom entry of ``_profiler_state.MODES`` while an op on an
    instance runs (torch's Python key: after every mode)."""

    recorded = False   # an op on an instance recorded an autograd node (backward passes need this dispatcher)

    def __repr__(self):
        return "<torchlike tensor subclass dispatch>"

    # --- the dispatcher's entry points -------------------------------------------------------------------------
    def present(self):
        for m in _MODES:
            if m is self:
                return True
        return False

    def takes(self, args):
        """Whether dispatcher call ``args`` holds an instance and this dispatcher is not yet on the stack."""
        for a in args:
            t = type(a)
            if t in _SUBCLASSES or (t is list or t is tuple) and any(type(x) in _SUBCLASSES for x in a):
                return not self.present()
        return False

    @contextlib.contextmanager
    def pushed(self):
        """This dispatcher at the bottom of the mode stack (if it is not there already)."""
        if self.present():
            yield
            return
        _MODES.insert(0, self)
        _prof.modes_changed()
        try:
            yield
        finally:
            for i, m in enumerate(_MODES):
                if m is self:
                    del _MODES[i]
                    break
            _prof.modes_changed()

    def op(self, f, args, statics, name, diff, jit, saves):
        if _CAPTURING[0]:
            raise _Captured(f, args, statics, name, diff, saves)
        if f in _aten_calls._VIEWS:   # a view read by the dispatcher (recorded for autograd): torch's view call
            step = dict(statics).get("step")
            if step is None:
                raise NotImplementedError("torchlike: this view of a __torch_dispatch__ tensor subclass is not "
                                          "supported (see docs/differences.md)")
            return self.view(args[0], step, name)
        with self.pushed():
            return _prof.MODE_HANDLER[0](f, args, statics, name, diff, jit, saves)

    def view(self, t, step, name):
        with self.pushed():
            return subclass_view(t, step, name)

    def detach(self, t):
        with self.pushed():
            return _aten_calls._emit(aten.detach.default, lambda x: x.detach(), t)

    def item(self, t):
        with self.pushed():
            return _aten_calls._emit(_aten_calls._overload("_local_scalar_dense"), lambda x: x.item(), t)

    def register(self, cls):
        """A new subclass: the factories given an instance (``zeros_like``, ``new_empty``, ``rand_like``...) go to it
        too (``_creation.class_factory``), unless its class answers them itself (``_creation.class_like``)."""
        if cls not in _creation.class_like:
            _creation.class_factory[cls] = self.factory

    def factory(self, name, overload, t, args, kwargs, compute):
        """``t.new_zeros(...)``, ``empty_like(t)``, ``rand_like(t)``... (``_creation.class_factory``) as torch's aten
        call ``name.overload(t, *args, **kwargs)``, to the modes and then the subclass."""
        with self.pushed():
            return _aten_calls._emit(_aten_calls._overload(name, overload), compute, t, *args, **kwargs)

    def inplace(self, method, name, self_, args, kwargs):
        """An in-place method (``_profiler_state.MODE_INPLACE``): its in-place overload, to the modes and then,
        when it writes an instance, the subclass.  As torch's autograd does above the subclass: a leaf that
        requires grad is refused, the original value is cloned first where the formula reads it, the written
        instance gets the out-of-place op's node (``AddBackward0`` for ``add_``) and a new version, and the call
        returns the instance itself."""
        if type(self_) not in _SUBCLASSES:
            return _INPLACE[0](method, name, self_, args, kwargs)
        grad = _state.enabled and any(isinstance(t, Tensor) and (t._rg or t._grad_fn is not None)
                                      for t in (self_, *args, *kwargs.values()))
        op = _capture(name[:-1], self_, args, kwargs) if grad else None
        if op is not None:
            self_._check_inplace_leaf()
        old = None
        if op is not None and (op[5] is True or op[5] is OTHERS or type(op[5]) is tuple) and \
                _reads_self(op[3], self_, op[1]):  # (saves: True, a product's OTHERS, div's per-argument tuple)
            with self.pushed():   # (torch keeps the value its formula reads: a clone, made before the write)
                old = _aten_calls._emit(aten.clone.default, lambda x: x.clone(), self_)
        v = self_._ver[0]
        with self.pushed():
            _INPLACE[0](method, name, self_, args, kwargs)
        if self_._ver[0] == v:   # (a wrapper's own counter: the subclass wrote the tensors it holds)
            self_._ver[0] += 1
        if op is not None:
            _inplace_node(self_, op, old)
        return self_

    def backward_needs(self, tensors):
        """Whether a backward pass from ``tensors`` needs this dispatcher: a root is an instance, or the graph
        holds a node recorded above a subclass."""
        if self.present():
            return False
        roots = tensors if isinstance(tensors, (tuple, list)) else (tensors,)
        return any(type(t) in _SUBCLASSES for t in roots) or self.recorded and _reaches_subclass(roots)

    def around_backward(self, fn, *args):
        """``fn(*args)`` (a backward pass) with this dispatcher on the stack: the engine's calls (the seed's
        ``ones_like``, each formula, AccumulateGrad's ``detach``) reach the subclasses."""
        with self.pushed():
            return fn(*args)

    # --- the call -------------------------------------------------------------------------------------------
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        subs = _types(args, kwargs)
        if not subs:   # no instance in this call (a plain op inside a decomposition): run it
            return func(*args, **kwargs)
        run = PENDING[-1][1] if PENDING and PENDING[-1][0] is func else None
        grad, below = _state.enabled, _state.below_autograd
        _state.enabled = False   # (torch runs __torch_dispatch__ below autograd: what it computes records nothing)
        _state.below_autograd = grad or below
        try:
            for cls in subs:
                out = cls.__torch_dispatch__(func, subs, args, kwargs)
                if out is not NotImplemented:
                    break
            else:
                raise _failed(func, subs)
        finally:
            _state.enabled, _state.below_autograd = grad, below
        if grad:
            _record(func, run, args, kwargs, out)
        return out


DISPATCHER = _Dispatcher()
_INPLACE = [None]


def dispatcher():
    return DISPATCHER


# --- autograd above the subclass -----------------------------------------------------------------------------------
_NODES = weakref.WeakSet()   # the nodes recorded above a subclass (a backward pass reaching one needs the dispatcher)


def _reaches_subclass(roots):
    """Whether the graph behind ``roots`` holds a node recorded above a subclass (walked once per backward pass,
    only in a process where such a node was recorded)."""
    stack = [t._grad_fn for t in roots if isinstance(t, Tensor) and t._grad_fn is not None]
    seen = set()
    while stack:
        n = stack.pop()
        if id(n) in seen:
            continue
        seen.add(id(n))
        if n in _NODES:
            return True
        for e in getattr(n, "inputs", None) or ():
            if e is not None and e[0] is not None and id(e[0]) not in seen:
                stack.append(e[0])
    return False


def _record(func, run, args, kwargs, out):
    """The autograd node of aten call ``func`` on instances: torchlike's own op's node (its formula runs as aten
    calls in backward), or a view's."""
    info = getattr(run, "torchlike", None)
    if info is not None:
        f, targs, statics, name, diff, slots = info
        if not diff or type(diff) is str:
            return
        call = list(targs)
        for i, j in enumerate(slots):
            if j is not None and i < len(args):
                call[j] = args[i]
        _node(f, statics, call, name, out, name in _aten_calls._SAVES_RESULT)
        return
    spec = VIEW_NODES.get(str(func))
    if spec is not None:
        name, back = spec(*args, **kwargs)
        _node(subclass_view, (("back", back),), [args[0]], name, out, False)


def _node(f, statics, call, name, out, saves_result):
    inputs, diff_in = [], []
    for i, a in enumerate(call):
        if isinstance(a, Tensor) and (a._rg or a._grad_fn is not None):
            diff_in.append(i)
            inputs.append((a._grad_fn, a._oi) if a._grad_fn is not None else (a._accumulator(), 0))
        else:
            inputs.append(None)
    if not diff_in:
        return
    outs = list(out) if isinstance(out, (tuple, list)) else [out]
    diff_out = tuple(j for j, o in enumerate(outs) if isinstance(o, Tensor) and o._x.dtype.kind in "fcV"
                     and not any(o is a for a in call))
    if not diff_out:
        return
    meta = tuple((tuple(outs[j].shape), outs[j]._x.dtype) for j in diff_out)
    node = (_NODE_CLASSES.get(name) or node_class(name))(f, statics, tuple(call), tuple(inputs), tuple(diff_in),
                                                        diff_out, meta, name, ())
    if saves_result:   # torch's formula reads the result (relu, tanh, ...): the saved output
        node.saved = ((outs[diff_out[0]], outs[diff_out[0]]._version),)
        node.saves_outputs = True
    for k, j in enumerate(diff_out):
        outs[j]._grad_fn = node
        outs[j]._oi = k
    _NODES.add(node)
    DISPATCHER.recorded = True


class _Captured(Exception):
    """Raised by ``_Dispatcher.op`` while ``_capture`` asks what an out-of-place op would dispatch."""


_CAPTURING = [False]
# ops whose gradient for ``self`` reads no value of ``self`` when the other operand is a number or needs no gradient
_LINEAR_IN_SELF = frozenset({"AddBackward0", "AddBackward1", "SubBackward0", "SubBackward1", "MulBackward0",
                             "MulBackward1", "DivBackward0", "DivBackward1", "NegBackward0"})


def _capture(base, self_, args, kwargs):
    """What out-of-place op ``base`` (``add`` for ``add_``) on these arguments dispatches: ``(f, args, statics,
    node name, diff, saves)``, computing nothing; None where it has no such op."""
    method = getattr(Tensor, base, None)
    if method is None:
        return None
    _CAPTURING[0] = True
    try:
        with _DisableTF():
            method(self_, *args, **kwargs)
    except _Captured as c:
        f, targs, statics, name, diff, saves = c.args
        return None if not diff or type(diff) is str else (f, targs, statics, name, diff, saves)
    except Exception:
        return None
    finally:
        _CAPTURING[0] = False
    return None


def _reads_self(name, self_, targs):
    """Whether the formula of node ``name`` reads ``self``'s value (so an in-place op keeps a clone of it)."""
    others = [a for a in targs if isinstance(a, Tensor) and a is not self_]
    if any(a._rg or a._grad_fn is not None for a in others):
        return True
    return name not in _LINEAR_IN_SELF and name not in _aten_calls._SAVES_RESULT


def _inplace_node(self_, op, old):
    """Rebase ``self_``'s history on the node of the out-of-place op its in-place write computed (``op`` from
    ``_capture``; ``old``: the clone of the value before the write, where the formula reads it)."""
    f, targs, statics, name, diff, saves = op
    inputs, diff_in = [], []
    for i, a in enumerate(targs):
        if isinstance(a, Tensor) and (a._rg or a._grad_fn is not None):
            diff_in.append(i)
            inputs.append((a._grad_fn, a._oi) if a._grad_fn is not None else (a._accumulator(), 0))
        else:
            inputs.append(None)
    if not diff_in or self_._x.dtype.kind not in "fcV":
        return
    call = tuple(old if a is self_ and old is not None else a for a in targs)
    node = (_NODE_CLASSES.get(name) or node_class(name))(f, statics, call, tuple(inputs), tuple(diff_in), (0,),
                                                        ((tuple(self_.shape), self_._x.dtype),), name, ())
    self_._grad_fn = node
    self_._oi = 0
    if name in _aten_calls._SAVES_RESULT:   # torch saves the written tensor (its formula reads the result)
        node.saved = ((self_, self_._version),)
        node.saves_outputs = True
        DISPATCHER.detach(self_)   # (torch's SavedVariable of an in-place op's output: one aten.detach)
    _NODES.add(node)
    DISPATCHER.recorded = True


def _view_back(node, prims, cts, want):
    return {0: dict(node.statics)["back"](cts[0])}


def _fn_backward(fn):
    """A one-kernel backward (``gelu_backward(g, x)``) computed by differentiating ``fn`` at the plain ``x``."""
    def kernel(g, x, *args, **kwargs):
        with _grad_mode.enable_grad():
            xr = x.detach().requires_grad_()
            y = fn(xr, *args, **kwargs)
        return _autograd_grad(y, xr, g)[0]
    return kernel


def _log_softmax_back(g, out, dim, dtype):
    return g - out.exp() * g.sum(dim, keepdim=True)


def _softmax_back(g, out, dim, dtype):
    return out * (g - (g * out).sum(dim, keepdim=True))


def _nll_back(g, x, target, weight, reduction, ignore_index, total_weight):
    red = ("none", "mean", "sum")[reduction]
    return _fn_backward(lambda xr: F.nll_loss(xr, target, weight, ignore_index=ignore_index, reduction=red))(g, x)


def _mse_back(g, x, target, reduction):
    return _fn_backward(lambda xr: F.mse_loss(xr, target, reduction=("none", "mean", "sum")[reduction]))(g, x)


_PLAIN_KERNELS = {
    "aten.nll_loss_backward.default": _nll_back,
    "aten.mse_loss_backward.default": _mse_back,
    "aten.threshold_backward.default": lambda g, x, th: g.masked_fill(x <= th, 0),
    "aten.tanh_backward.default": lambda g, y: g * (1 - y * y),
    "aten.sigmoid_backward.default": lambda g, y: g * y * (1 - y),
    "aten.gelu_backward.default": _fn_backward(lambda x, approximate="none": F.gelu(x, approximate=approximate)),
    "aten.silu_backward.default": _fn_backward(F.silu),
    "aten._softmax_backward_data.default": _softmax_back,
    "aten._log_softmax_backward_data.default": _log_softmax_back,
}


def install():
    """Route the ops on instances of subclasses with a ``__torch_dispatch__`` here."""
    _prof.SUBCLASS_HANDLER[0] = DISPATCHER
    _INPLACE[0] = _prof.MODE_INPLACE[0]
    _prof.MODE_INPLACE[0] = DISPATCHER.inplace
    _ab.F_FIRST[subclass_view] = _view_back
    _ab.PLAIN_KERNELS.update(_PLAIN_KERNELS)
