"""``Tensor.set_``: make a tensor (keeping its identity) view another tensor's or a storage's memory, or none.

torchlike's memory is one root buffer per family of views (``tensor._views``): ``x.set_(y)`` makes ``x`` an
``as_strided`` view of ``y``'s root with ``y``'s size, stride and offset, so writes through either show in the
other (torch's shared storage); ``x.set_(storage, offset, size, stride)`` the same over the storage's root;
``x.set_()`` gives ``x`` a new empty root.  What cannot be done faithfully raises NotImplementedError naming it: a
storage of another dtype (torch reinterprets its bytes), a size past the storage's end (torch grows the storage
with uninitialised memory), and any autograd involvement (torch's result then has no usable ``grad_fn``).

>>> import torchlike as torch
>>> x, y = torch.zeros(2), torch.arange(4.)
>>> _ = x.set_(y); x[0] = 9.; y.tolist()
[9.0, 1.0, 2.0, 3.0]
"""
from __future__ import annotations

import jax.numpy as jnp

from .. import _dtype
from .._grad_mode import is_grad_enabled
from .._missing import MissingAPI
from .._storage import TypedStorage
from ..tensor import Tensor
from .signatures import Signature
from .tensor_methods import _MISSING_SIGNATURES

__all__: list = []

_SIG = Signature("set_", _MISSING_SIGNATURES["set_"])
_NOT_GIVEN = object()


def _contiguous(size):
    out, step = [], 1
    for n in reversed(size):
        out.append(step)
        step *= max(int(n), 1)
    return tuple(reversed(out))


def _storage_root(source):
    """The root tensor behind ``source`` (a Tensor, an UntypedStorage or a TypedStorage)."""
    if isinstance(source, Tensor):
        source._value  # noqa: B018  (a lazy or host view materialises first, its root with it)
        return source._vbase if source._vbase is not None else source
    if isinstance(source, TypedStorage):
        source = source._untyped_storage if hasattr(source, "_untyped_storage") else source.untyped_storage()
    root = getattr(source, "_root", None)
    if root is None:
        raise MissingAPI("Tensor.set_ of a storage that is not a tensor's (a file-mapped or byte storage) is not "
                         "implemented in torchlike")
    return root


def _become(self, view):
    """Give ``self`` the state of ``view`` (a view of another root), in place: its identity, autograd flags and
    hooks stay."""
    view._value  # noqa: B018
    for slot in ("_x", "_vbase", "_chain", "_seen", "_ver", "_dev"):
        object.__setattr__(self, slot, getattr(view, slot))
    for k in ("_st", "_multi_view", "_acc_nograd_view", "_fn_view"):  # (per-root and per-view tags of the old state)
        self.__dict__.pop(k, None)


def _set(self, *args, **kwargs):
    err = _SIG.error((self,) + args, kwargs)
    if err is not None:
        raise err
    names = ("source", "storage_offset", "size", "stride")
    given = dict(zip(names, args))
    given.update(kwargs)
    source = given.get("source", _NOT_GIVEN)
    if self._grad_fn is not None or (isinstance(source, Tensor) and source.requires_grad):
        if is_grad_enabled() and self._grad_fn is None and self._rg:
            self._check_inplace_leaf()
        raise MissingAPI("Tensor.set_ with autograd (a source that requires grad, or a self with a grad_fn) is not "
                         "implemented in torchlike")
    if is_grad_enabled() and self._rg:
        self._check_inplace_leaf()  # (a leaf that requires grad: torch's in-place error)
    if source is _NOT_GIVEN:  # x.set_(): a new, empty storage
        v = self._ver
        object.__setattr__(self, "_x", jnp.zeros((0,), self.dtype.np))
        self._vbase = self._chain = None
        self._ver = type(v)([v[0] - (v[1] if len(v) > 1 else 0) + 1])
        self._seen = self._ver[0]
        for k in ("_st", "_multi_view", "_acc_nograd_view", "_fn_view"):
            self.__dict__.pop(k, None)
        return self
    if isinstance(source, Tensor) and source.dtype is not self.dtype:
        raise RuntimeError(f"Could not set tensor of type {_dtype.C_NAMES[source.dtype.name]} to a tensor of type "
                           f"{_dtype.C_NAMES[self.dtype.name]}")
    root = _storage_root(source)
    if root.dtype is not self.dtype:
        raise MissingAPI(f"Tensor.set_ of a {root.dtype} storage into a {self.dtype} tensor (torch reinterprets the "
                         "bytes) is not implemented in torchlike")
    if root is self:
        raise MissingAPI("Tensor.set_ of a tensor to its own storage is not implemented in torchlike")
    if "size" in given:
        size = tuple(int(n) for n in given["size"])
        stride = given.get("stride")
        stride = _contiguous(size) if stride is None else tuple(int(s) for s in stride)
        offset = int(given.get("storage_offset", 0))
    elif isinstance(source, Tensor):
        size, stride, offset = tuple(source.shape), source.stride(), source.storage_offset()
    else:
        size, stride, offset = (root.numel(),), (1,), 0
    if len(stride) != len(size):
        raise RuntimeError(f"unequal size length ({len(size)}) and stride length ({len(stride)})")
    end = offset + sum((n - 1) * s for n, s in zip(size, stride)) + 1 if all(size) else 0
    if end > root.numel():
        raise MissingAPI("Tensor.set_ past the end of the storage (torch grows it with uninitialized memory) is not "
                         "implemented in torchlike")
    # (over the root's detached alias: as torch's, the result shares the memory but is no view in autograd's
    # sense (its ``_base`` is None; a write to it is no in-place op on a leaf that requires grad))
    _become(self, root.detach().as_strided(size, stride, offset))
    return self


_set.__name__ = _set.__qualname__ = "set_"
_set.__doc__ = __doc__.split("\n\n")[0]
Tensor.set_ = _set
