"""The tape: nodes (``grad_fn``) whose pullbacks are cached, jitted ``jax.vjp`` of the op's own function.

A node keeps the op's JAX function and static arguments, the input arrays it was called with and
the edges to its inputs' nodes.  Its pullback is ``jax.jit(lambda primals, cts: vjp(f)(cts))`` built
once per (function, static arguments, which inputs/outputs are differentiable) and reused, so a
training loop pays jit dispatch, never an eager ``jax.vjp``.
"""
from __future__ import annotations

import itertools

import jax
import jax.numpy as jnp

__all__ = ["Node", "AccumulateGrad", "pullback_fn", "node_class"]

_seq = itertools.count()


def _conj_if_complex(x):
    return jnp.conj(x) if jnp.iscomplexobj(x) else x


def _vjp(f, statics, diff_in, diff_out, primals, cts):
    """Cotangents of the differentiable inputs of ``f`` (torch's conjugate convention for complex)."""
    def g(*d):
        full = list(primals)
        for i, v in zip(diff_in, d):
            full[i] = v
        out = f(*full, **statics)
        if not isinstance(out, (tuple, list)):
            out = (out,)
        return tuple(out[j] for j in diff_out)

    _, pull = jax.vjp(g, *[primals[i] for i in diff_in])
    cts = tuple(_conj_if_complex(c) for c in cts)
    return tuple(_conj_if_complex(r) for r in pull(cts))


_pullbacks = None  # (f, statics, diff_in, diff_out) -> jit_cache Entry (bounded, see torchlike._jit_cache)


def pullback_fn(f, statics, diff_in, diff_out):
    """The jitted pullback for ``f`` with static kwargs ``statics`` (a tuple of pairs), as a callable
    cache entry."""
    global _pullbacks
    if _pullbacks is None:
        from .. import _jit_cache
        _pullbacks = _jit_cache.Cache("pullback")
    key = (f, statics, diff_in, diff_out)
    e = _pullbacks.get(key)
    if e is None:
        kw = dict(statics)
        e = _pullbacks.add(key, jax.jit(lambda primals, cts: _vjp(f, kw, diff_in, diff_out, primals, cts)))
    return e


def pullback_impl(*arrays, f, statics, diff_in, diff_out, n_primals):
    """The pullback as an op function of (primals..., cts...), so create_graph can record it."""
    return _vjp(f, dict(statics), diff_in, diff_out, arrays[:n_primals], arrays[n_primals:])


class Node:
    """A recorded operation (``tensor.grad_fn``).

    ``next_functions`` are ``(node, output_index)`` pairs for each input, ``None`` where the input
    needs no gradient, as in torch.
    """

    __slots__ = ("f", "statics", "primals", "inputs", "diff_in", "diff_out", "out_meta", "saved",
                 "seq", "_name", "_hooks", "_pre_hooks", "_tensor_hooks", "_retained", "metadata",
                 "_freed", "__weakref__")

    def __init__(self, f, statics, primals, inputs, diff_in, diff_out, out_meta, name, saved=()):
        self.f = f
        self.statics = statics
        self.primals = primals  # arrays the forward saw (immutable, so later writes can't corrupt them)
        self.inputs = inputs  # per primal: (node, idx) edge or None
        self.diff_in = diff_in
        self.diff_out = diff_out
        self.out_meta = out_meta  # per differentiable output: (shape, np dtype)
        self.saved = saved  # (tensor, version) pairs checked at backward
        self.seq = next(_seq)
        self._name = name
        self._hooks = None
        self._pre_hooks = None
        self._tensor_hooks = None  # {output index: [hooks]} from Tensor.register_hook on non-leaves
        self._retained = None  # {output index: weakref to tensor} for retain_grad
        self.metadata = {}
        self._freed = False

    _display = None  # torch's name() where it differs from the class name (torch::autograd::CopySlices)

    def name(self):
        return type(self)._display or self._name

    def __repr__(self):
        return f"<{type(self).__name__} object at {hex(id(self))}>"

    @property
    def next_functions(self):
        return _next_functions(self)

    @property
    def requires_grad(self):
        return True

    def _sequence_nr(self):
        return self.seq

    def register_hook(self, fn):
        """``fn(grad_inputs, grad_outputs)`` runs after this node computes its input gradients."""
        if self._hooks is None:
            self._hooks = []
        self._hooks.append(fn)
        return _Handle(self._hooks, fn)

    def register_prehook(self, fn):
        """``fn(grad_outputs)`` runs before this node; may return replacement gradients."""
        if self._pre_hooks is None:
            self._pre_hooks = []
        self._pre_hooks.append(fn)
        return _Handle(self._pre_hooks, fn)

    def _add_tensor_hook(self, idx, fn):
        if self._tensor_hooks is None:
            self._tensor_hooks = {}
        lst = self._tensor_hooks.setdefault(idx, [])
        lst.append(fn)
        return _Handle(lst, fn)

    def _check_saved(self):
        if self._freed:
            raise RuntimeError(
                "Trying to backward through the graph a second time (or directly access saved tensors after "
                "they have already been freed). Saved intermediate values of the graph are freed when you "
                "call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward "
                "through the graph a second time or if you need to access saved tensors after calling "
                "backward.")
        for t, v in self.saved:
            if t._version != v:
                raise RuntimeError(
                    "one of the variables needed for gradient computation has been modified by an inplace "
                    f"operation: [{t.type()} {list(t.shape)}], which is output {0} of {self.name()}, is at "
                    f"version {t._version}; expected version {v} instead. Hint: enable anomaly detection to "
                    "find the operation that failed to compute its gradient, with "
                    "torch.autograd.set_detect_anomaly(True).")

    def apply(self, cts):
        """Input cotangents (arrays) for output cotangents ``cts`` (arrays or None, one per diff output)."""
        cts = [c if c is not None else jnp.zeros(m[0], m[1]) for c, m in zip(cts, self.out_meta)]
        return pullback_fn(self.f, self.statics, self.diff_in, self.diff_out)(self.primals, tuple(cts))

    def apply_recorded(self, cts):
        """The same, through the dispatcher so the backward is itself recorded (create_graph)."""
        from .._dispatch import dispatch
        from ..tensor import Tensor
        cts = [c if c is not None else Tensor._wrap(jnp.zeros(m[0], m[1])) for c, m in zip(cts, self.out_meta)]
        prims = []
        for a, e in zip(self.primals, self.inputs):
            t = Tensor._wrap(a)
            if e is not None and e[0] is not None:
                node, idx = e
                if isinstance(node, AccumulateGrad):
                    t = node.variable
                else:
                    t._grad_fn, t._oi = node, idx
            prims.append(t)
        statics = (("f", self.f), ("statics", self.statics), ("diff_in", self.diff_in),
                   ("diff_out", self.diff_out), ("n_primals", len(prims)))
        out = dispatch(pullback_impl, tuple(prims) + tuple(cts), statics, name=self._name + "Backward")
        return out if isinstance(out, tuple) else (out,)

    def free(self):
        self.primals = None
        self.saved = ()
        self._freed = True


_NODE_CLASSES: dict = {}


def node_class(name):
    """The ``Node`` subclass named ``name`` (``MulBackward0``, ...), made once and cached, so that
    ``type(t.grad_fn).__name__`` is torch's backward node name."""
    cls = _NODE_CLASSES.get(name)
    if cls is None:
        from ._node_names import torch_name
        ident, full = torch_name(name)
        ident = ident if ident.isidentifier() else "".join(c if c.isalnum() else "_" for c in ident)
        cls = _NODE_CLASSES[name] = type(ident, (Node,), {"__slots__": (), "__module__": "builtins",
                                                           "_display": full})
    return cls


def _next_functions(node):
    from ._node_names import edges
    return edges(node)


class AccumulateGrad(Node):
    """The node at a leaf tensor: accumulates incoming gradients into ``variable.grad``."""

    __slots__ = ("variable",)

    def __init__(self, variable):
        self.variable = variable
        self.inputs = ()
        self.diff_in = ()
        self.diff_out = (0,)
        self.out_meta = ((tuple(variable.shape), variable.dtype.np),)
        self.saved = ()
        self.seq = next(_seq)
        self._name = "torch::autograd::AccumulateGrad"
        self._hooks = self._pre_hooks = self._tensor_hooks = self._retained = None
        self.metadata = {}
        self._freed = False
        self.primals = ()

    def name(self):
        return "torch::autograd::AccumulateGrad"

    def __repr__(self):
        return f"<AccumulateGrad object at {hex(id(self))}>"

    def _check_saved(self):
        pass

    def free(self):
        pass


class _Handle:
    """A removable hook handle (``handle.remove()``)."""

    _ids = itertools.count()

    def __init__(self, lst, fn):
        self._lst, self._fn = lst, fn
        self.id = next(self._ids)

    def remove(self):
        try:
            self._lst.remove(self._fn)
        except ValueError:
            pass

    def __enter__(self):
        return self

    def __exit__(self, *a):
        self.remove()

