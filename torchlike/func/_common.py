"""Shared plumbing of the torch.func transforms: pytrees of Tensors <-> pytrees of JAX arrays, the
guard that runs a user function inside a JAX transform, and torch's error messages for values a
transform cannot see (``.item()``, data-dependent control flow)."""
from __future__ import annotations

import threading

import jax

from .. import _grad_mode
from .._device import CPU
from ..compile import _trace
from .._errors import GraphBreak
from ..tensor import Tensor

__all__ = ["is_leaf", "flatten", "flatten_arrays", "unflatten", "plain", "to_arrays", "to_tensors", "inner", "in_transform", "eager_autograd",
           "tensor_device", "spec_repr"]


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

_local = threading.local()


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

    def __enter__(self):
        _local.depth = getattr(_local, "depth", 0) + 1
        self.tr = _trace.current()
        self.n = len(self.tr.created) if self.tr is not None else 0
        return self

    def __exit__(self, et, e, tb):
        _local.depth -= 1
        if self.tr is not None:
            del self.tr.created[self.n:]
        if et is None:
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
