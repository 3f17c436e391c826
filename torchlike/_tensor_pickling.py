"""Copying a Tensor with ``pickle`` and ``copy.deepcopy`` (``torchlike.save`` writes torch's own format).

A pickled tensor is a numpy copy of its data plus its class, ``requires_grad``, device and instance
``__dict__``; unpickling rebuilds it with ``_rebuild_pickled``.  The mixin ``TensorPickling`` is a base of
``Tensor`` (layer 1, like ``tensor.py``: it imports only layer 0).

    >>> import pickle, torchlike as torch
    >>> pickle.loads(pickle.dumps(torch.tensor([1.0, 2.0], requires_grad=True)))
    tensor([1., 2.], requires_grad=True)
"""
from __future__ import annotations

import copy

import numpy as np

from . import _views
from . import _memory_format as _mfmt
from ._device import canonical, device as _device_cls, host_to_jax

__all__ = ["TensorPickling"]

HOST_MAX = 1 << 16  # elements: creation and unpickling keep tensors up to this size host-resident (_from_host)


def _tensor_class(cls):
    """``Tensor`` itself for ``cls`` (Tensor or a subclass): the class that defines ``_wrap``."""
    for c in cls.__mro__:
        if "_wrap" in vars(c):
            return c
    raise TypeError(f"{cls.__name__} is not a Tensor class")


def _rebuild_pickled(cls, arr, requires_grad, dev, extra):
    base = _tensor_class(cls)
    d = canonical(_device_cls(dev))
    arr = np.asarray(arr)
    if cls is base and not requires_grad and d.type == "cpu" and arr.size <= HOST_MAX:
        t = base._from_host(arr, d)  # (unpickled: a fresh array, which the tensor owns)
    else:
        t = base._wrap(host_to_jax(arr, copy=False), d)
    if cls is not base:
        t = t._retype(cls)
    t._rg = requires_grad
    bits = extra.pop(_BITS, (False, False))  # a conjugate/negative view pickles its base's values and its bits
    st = extra.pop("_st", None)  # torch's strides (channels-last, ...): _memory_format
    t.__dict__.update(extra)
    if st is not None:
        t = _mfmt.set_strides(t, st)
    return with_bits(t, *bits)


_BITS = "__torchlike_view_bits__"


def with_bits(t, conj, neg):
    """``t`` as a view with torch's conjugate/negative bits set (unpickled or loaded: the base's values and
    the bits, as torch stores them)."""
    if conj:
        t = t.conj()
    if neg:
        t = t._neg_view()
    return t


# pickles name the function where it has always lived (torchlike.tensor re-exports it): pickled bytes and
# old pickles stay as they were
_rebuild_pickled.__module__ = "torchlike.tensor"


def _deepcopy_view(t, memo):
    """``copy.deepcopy`` of a view, as torch's (which copies the storage, memoised, and sets the copy on it):
    a tensor with the view's size, strides and offset on the copy of its base, so views and bases copied
    together still share their values (``deepcopy([t, t[:, 1]])``) and ``deepcopy(t.T)`` keeps its strides."""
    b = t._base
    if type(b) is type(t):
        root = copy.deepcopy(b, memo)  # (the base's copy: made now, or the one made before)
    else:  # (a Parameter's deepcopy clones its data: torch's view copy has a storage of its own, shared by the
        key = ("storage of", id(b))  # other views of that base copied with it)
        root = memo.get(key)
        if root is None:
            root = memo[key] = b.detach().clone()
    new = t.new_empty(0).set_(root.untyped_storage(), t.storage_offset(), t.size(), t.stride())
    if t.requires_grad:
        new.requires_grad_(True)
    if t._grad is not None:
        new._grad = t._grad.__deepcopy__(memo)
    for k, v in t.__dict__.items():
        if not k.startswith("_acc"):
            new.__dict__[k] = copy.deepcopy(v, memo)
    memo[id(t)] = new
    return new


class TensorPickling:
    """Mixin of ``Tensor`` (no state of its own): ``__reduce_ex__`` and ``__deepcopy__``."""

    __slots__ = ()

    def __reduce_ex__(self, proto):
        # plain pickling (multiprocessing, copy): a numpy copy of the data; torchlike.save writes torch's format
        extra = {k: v for k, v in self.__dict__.items() if not k.startswith("_acc")}
        h = self._host_array(True)  # (a host tensor's array, or a copy of the one it shares with numpy)
        if h is not None and self._chain[0] == ("alias", "numpy"):
            h = h.copy()
        arr = np.asarray(self._value) if h is None else h
        conj, neg = _views.conj_neg_bits(self)
        if conj or neg:  # the base's values and torch's bits (unpickled: a conjugate/negative view again)
            arr = np.conj(arr) if conj else arr
            arr = -arr if neg else arr
            extra[_BITS] = (conj, neg)
        # (a non-leaf that requires grad unpickles as a leaf that requires grad, as torch's)
        return (_rebuild_pickled, (type(self), arr, self.requires_grad, str(self._dev), extra))

    def __deepcopy__(self, memo):
        if not self.is_leaf:
            raise RuntimeError("Only Tensors created explicitly by the user (graph leaves) support the "
                               "deepcopy protocol at the moment.  If you were attempting to deepcopy a module, "
                               "this may be because of a torch.nn.utils.weight_norm usage, see "
                               "https://github.com/pytorch/pytorch/pull/103001")
        if id(self) in memo:
            return memo[id(self)]
        cls = type(self)
        base = _tensor_class(cls)
        if cls is base and self._base is not None and self._base.dtype is self.dtype and \
                not any(_views.conj_neg_bits(self)):
            return _deepcopy_view(self, memo)
        new = base._wrap(self._value, self._dev)
        new = new._retype(cls) if cls is not base else new
        new._rg = self._rg
        if self._grad is not None:
            new._grad = self._grad.__deepcopy__(memo)
        for k, v in self.__dict__.items():
            if not k.startswith("_acc"):
                new.__dict__[k] = copy.deepcopy(v, memo)
        memo[id(self)] = new
        return new

    def __copy__(self):
        """``copy.copy``: torch rebuilds the tensor from its reduction, on the same storage: the copy shares the
        values (a write to one shows in the other), is a leaf with the original's ``requires_grad`` (also for
        a non-leaf), and keeps the class and the instance attributes."""
        new = self.detach()  # (an alias of the same values)
        cls = type(self)
        if type(new) is not cls:
            new = new._retype(cls)
        new._rg = self.requires_grad
        for k, v in self.__dict__.items():
            if not k.startswith("_acc"):
                new.__dict__[k] = v
        return new
