"""Shared plumbing of the torch.func transforms: pytrees of Tensors <-> pytrees of JAX arrays, the
guard that runs a user function inside a JAX transform, and torch's error messages for values a
transform cannot see (``.item()``, data-dependent control flow)."""
from __future__ import annotations

import threading
import weakref

import jax
from jax._src import core as _jax_core

from .. import _grad_mode, _mutation
from .._device import CPU
from ..compile import _trace
from .._errors import GraphBreak
from ..tensor import Tensor

__all__ = ["is_leaf", "flatten", "flatten_arrays", "unflatten", "plain", "to_arrays", "to_tensors", "inner",
           "restoring", "in_transform", "eager_autograd", "tensor_device", "spec_repr"]


def is_leaf(x):
    return x is None or isinstance(x, Tensor)


class _InOrder(dict):
    """A dict whose keys JAX's pytrees keep in insertion order. JAX flattens a plain dict in sorted key order;
    torch's pytree keeps the order the keys were inserted in, so the transforms carry each plain dict through
    JAX as this and hand the user a plain dict again (``grad(f)(params)`` lists its keys as ``params`` does)."""


jax.tree_util.register_pytree_node(_InOrder, lambda d: (list(d.values()), tuple(d)),
                                   lambda keys, values: _InOrder(zip(keys, values)))


def _in_order(tree):
    """``tree`` with every plain dict in it an ``_InOrder``."""
    def conv(x):
        return _InOrder((k, _in_order(v)) for k, v in x.items()) if type(x) is dict else x
    return jax.tree_util.tree_map(conv, tree, is_leaf=lambda x: type(x) is dict or is_leaf(x))


def _plain(tree):
    """``tree`` with every ``_InOrder`` in it a plain dict again (keys in the same order)."""
    def conv(x):
        return {k: _plain(v) for k, v in x.items()} if type(x) is _InOrder else x
    return jax.tree_util.tree_map(conv, tree, is_leaf=lambda x: type(x) is _InOrder or is_leaf(x))


def flatten(tree):
    """(leaves, treedef) with Tensors and None as leaves; a dict's leaves in its key order, as torch's pytree."""
    return jax.tree_util.tree_flatten(_in_order(tree), is_leaf=is_leaf)


def flatten_arrays(tree):
    """(leaves, treedef) of a pytree of JAX arrays (None is an empty subtree, as in JAX), dicts in key order."""
    return jax.tree_util.tree_flatten(_in_order(tree))


def plain(tree):
    """``tree`` as the user sees it: the insertion-ordered dicts the transforms carry are plain dicts again."""
    return _plain(tree)


def unflatten(treedef, leaves):
    """The pytree of ``treedef`` (from ``flatten``) holding ``leaves``, with plain dicts."""
    return _plain(jax.tree_util.tree_unflatten(treedef, leaves))


def to_arrays(tree):
    """The JAX arrays of a pytree of Tensors (its dicts carried in key order)."""
    return jax.tree_util.tree_map(lambda t: t._value if isinstance(t, Tensor) else t, _in_order(tree),
                                  is_leaf=is_leaf)


def to_tensors(tree, dev=CPU):
    """The Tensors of a pytree of JAX arrays, with plain dicts."""
    def w(x):
        if isinstance(x, (jax.Array, jax.core.Tracer)):
            return Tensor._wrap(x, dev)
        return x
    return _plain(jax.tree_util.tree_map(w, tree, is_leaf=is_leaf))


def tensor_device(tree):
    for t in flatten(tree)[0]:
        if isinstance(t, Tensor):
            return t._dev
    return CPU


_DATA_DEP = ("{t}: It looks like you're attempting to use a Tensor in some data-dependent control flow. "
             "We don't support that yet, please file an issue at https://github.com/pytorch/pytorch/issues .")
_ITEM = ("{t}: It looks like you're calling .item() on a Tensor. We don't support {t} over calling .item() on a "
         "Tensor, please try to rewrite what you're doing with other operations. If error is occurring somewhere "
         "inside PyTorch internals, please file a bug report.")

_DYNAMIC = ("vmap: We do not support batching operators that can output dynamic shape. Attempted to vmap over "
            "{op}. Please file an issue at https://github.com/pytorch/pytorch/issues if you need this feature.")

# torch.func.vmap's error for each data-dependent-shape op, keyed by the start of the op's GraphBreak text
_VMAP_DYNAMIC = (
    ("nonzero()", _DYNAMIC.format(op="aten::nonzero")),
    ("nonzero(as_tuple=True)", "Batching rule not implemented for aten::nonzero_numpy. We could not generate a "
                               "fallback."),
    ("where(condition)", _DYNAMIC.format(op="aten::where")),
    ("unique()", _DYNAMIC.format(op="aten::_unique2")),
    ("unique(dim=...)", _DYNAMIC.format(op="aten::unique_dim")),
    ("unique_consecutive()", _DYNAMIC.format(op="aten::unique_consecutive")),
    ("boolean mask indexing", "vmap: We do not support batching operators that can support dynamic shape. "
                              "Attempting to batch over indexing with a boolean mask."),
    ("masked_select", "vmap: Attempted to vmap over `mask` in torch.masked_select(self, mask) We cannot support "
                      "this because for each batch this would return a differently shaped Tensor. Please file an "
                      "issue at https://github.com/pytorch/pytorch/issues if you need this feature."),
)

_VMAP_INPLACE = ("vmap: inplace arithmetic(self, *extra_args) is not possible because there exists a Tensor `other` "
                 "in extra_args that has more elements than `self`. This happened due to `other` being vmapped over "
                 "but `self` not being vmapped over in a vmap. Please try to use out-of-place operators instead of "
                 "inplace arithmetic. If said operator is being called inside the PyTorch framework, please file a "
                 "bug report instead.")
_GRAD_CAPTURED = ("During a grad (vjp, jvp, grad, etc) transform, the function provided attempted to call in-place "
                  "operation ({op}) that would mutate a captured Tensor. This is not supported; please rewrite the "
                  "function being transformed to explicitly accept the mutated Tensor(s) as inputs.")

_local = threading.local()


def _of_trace(x, tr):
    return isinstance(x, jax.core.Tracer) and getattr(x, "_trace", None) is tr


def _check_write(self, new):
    """torch.func's rule for an in-place write inside a transform: a tensor from outside the function (a
    captured one) cannot take a value the transform traces: under vmap it has no batch dimension, under
    grad/vjp/jvp it is captured, and here it would leak the transform's tracer. A tensor made inside the
    function may take one (torch allows it under grad, and for ``new_zeros``-style tensors under vmap), so the
    write is noted and decided when the function returns (``inner._captured_writes``)."""
    frame = _local.frames[-1]
    if frame.what == "to_jax":  # a pure-JAX call of a module: its buffers are the call's own copies
        return
    if not _of_trace(new._value, frame.trace) or _of_trace(self._value, frame.trace):
        return
    owner = self if self._vbase is None else self._vbase  # a write into a view rewrites its root
    frame.written.append((weakref.ref(owner), owner._value))


def _pending():
    p = getattr(_local, "pending", None)
    if p is None:
        p = _local.pending = []
    return p


class restoring:
    """Context around a whole transform call: a tensor the user's function wrote a traced value into and
    returned (so ``inner`` could not put it back while the transform still read it) gets its old value back
    when the call ends; the transform's result holds new tensors, so no tracer stays behind."""

    def __enter__(self):
        self.n = len(_pending())

    def __exit__(self, *exc):
        p = _pending()
        while len(p) > self.n:
            t, old = p.pop()
            t._set_value(old)
        return False


def in_transform() -> bool:
    """True while this thread runs a user function inside a torchlike.func transform."""
    return getattr(_local, "depth", 0) > 0


def eager_autograd() -> bool:
    """True where a transform's result should join eager autograd: grad mode on, and neither a
    torchlike.compile trace nor another transform is running in this thread."""
    return _grad_mode.is_grad_enabled() and _trace.current() is None and not in_transform()


class inner:
    """Context for calling the user's function inside a JAX transform named ``what`` ('vmap', 'grad', ...).

    Tensors made inside are dropped from an enclosing torchlike.compile trace's bookkeeping (they hold
    the inner transform's tracers, which never escape), and a concrete-value request (``.item()``,
    ``bool(t)``) becomes torch's RuntimeError for that transform.
    """

    def __init__(self, what):
        self.what = what
        self.out = None  # the user's function's result: its tensors may hold the transform's values

    def __enter__(self):
        _local.depth = getattr(_local, "depth", 0) + 1
        self.tr = _trace.current()
        self.n = len(self.tr.created) if self.tr is not None else 0
        self.trace, self.written = _jax_core.trace_ctx.trace, []
        frames = getattr(_local, "frames", None)
        if frames is None:
            frames = _local.frames = []
        frames.append(self)
        if len(frames) == 1:
            _mutation.on_inplace.append(_check_write)
        return self

    def __exit__(self, et, e, tb):
        _local.depth -= 1
        _local.frames.pop()
        if not _local.frames:
            _mutation.on_inplace.remove(_check_write)
        if self.tr is not None:
            del self.tr.created[self.n:]
        if et is None:
            self._captured_writes()
            return False
        if issubclass(et, GraphBreak) or issubclass(et, (jax.errors.ConcretizationTypeError, jax.errors.JAXTypeError)):
            msg = str(e)
            if self.what == "vmap":
                for start, text in _VMAP_DYNAMIC:
                    if msg.startswith(start):
                        raise RuntimeError(text) from None
            tmpl = _ITEM if (msg.startswith("Tensor.item()") or msg.startswith("Tensor.tolist()")) else _DATA_DEP
            raise RuntimeError(tmpl.format(t=self.what)) from None
        return False

    def _captured_writes(self):
        """Raise torch's error when a tensor that outlives the function (a captured one) took a traced value;
        the tensor gets its value from before the write back."""
        if not self.written:
            return
        returned = {id(t) for t in flatten(self.out)[0] if isinstance(t, Tensor)}
        for ref, old in self.written:
            t = ref()
            if t is None or not _of_trace(t._value, self.trace):
                continue
            if id(t) in returned:  # the transform reads its value yet; put back once the transform is done
                _pending().append((t, old))
                continue
            t._set_value(old)
            raise RuntimeError(_VMAP_INPLACE if self.what == "vmap" else _GRAD_CAPTURED.format(op="aten::copy_"))


def spec_repr(tree, indent=0):
    """torch.utils._pytree's TreeSpec repr of ``tree`` (Tensors and non-containers are leaves ``*``)."""
    if isinstance(tree, (tuple, list)) and not hasattr(tree, "_fields"):
        kids, ctx, name = list(tree), None, type(tree).__name__
    elif isinstance(tree, dict):
        kids, ctx, name = list(tree.values()), list(tree.keys()), type(tree).__name__
    else:
        return "*"
    s = f"TreeSpec({name}, {ctx}, ["
    if kids:
        indent += 2
        s += spec_repr(kids[0], indent) + ("," if len(kids) > 1 else "")
        s += ",".join("\n" + " " * indent + spec_repr(k, indent) for k in kids[1:])
    return s + "])"
