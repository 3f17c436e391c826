"""The numpy bridge: ``Tensor.numpy()``, ``np.asarray(tensor)`` and ``torch.from_numpy`` share memory.

In torch a CPU tensor and the numpy array made from it (or that it was made from) are one buffer: a write
through either is seen by the other (the "Bridge with NumPy" of torch's first tutorial, ``arr = t.numpy();
arr[arr < 0] = 0``). A torchlike tensor's value is an immutable ``jax.Array``, so for a tensor of at most
``SHARE_LIMIT`` bytes the numpy array is made the storage of record, as ``share_memory_()`` does with a
mapping (``_shared_memory``):

- the tensor becomes an alias (``_NUMPY_CHAIN``) of a hidden root (``_NumpyRoot``) whose ``_x`` reads and
  writes the array: a read returns a JAX copy of the array's current bytes, made again only when the bytes
  differ from those of the last read (one ``memcmp`` per read), a write (an in-place op, an optimizer step)
  copies into the array;
- the root keeps the tensor's version counter, so views made from the tensor refresh after its writes;
  views and aliases see writes made through numpy when they are next read (they re-read the root).

Larger tensors give a writable copy (``numpy()``) or a copy (``from_numpy``): comparing a large array on
every read would cost more than the sharing is worth (docs/differences.md, Storage and memory).

>>> import torchlike as torch
>>> t = torch.ones(3)
>>> n = t.numpy()
>>> _ = t.add_(1)
>>> n
array([2., 2., 2.], dtype=float32)
>>> n[0] = 7
>>> t
tensor([7., 2., 2.])
"""
from __future__ import annotations

import numpy as np

from . import _memory_format as _mfmt
from ._device import host_to_jax
from ._errors import is_tracer
from ._torch_function import disabled_torch_function_impl as _disabled_torch_function_impl
from .tensor import _ALIAS_CHAIN, _NUMPY_CHAIN, _SHARED_CHAIN, _SLOT_X, Tensor

__all__ = ["SHARE_LIMIT", "from_numpy_shared", "numpy_of"]

SHARE_LIMIT = 1 << 18  # bytes: arrays up to this size share memory with their tensor (256 KiB)
_NUMPY_DTYPES = frozenset("biufc")  # kinds numpy holds natively (not bfloat16 / float8: ml_dtypes' V kinds)


class _NumpyRoot(Tensor):
    """The hidden root of a tensor sharing memory with a numpy array: its ``_x`` is the array's current value
    (a property over the slot, which caches the last JAX copy together with the bytes it was made from)."""
    __torch_function__ = _disabled_torch_function_impl  # torchlike's own subclass: ops see a plain Tensor
    _rereads = True
    fixed_size = True  # numpy's memory: a resize past it is torch's "not resizable" error (_mutation.write_out)

    __slots__ = ()

    @property
    def _x(self):
        d = self.__dict__
        h = d["_h"]
        b = h.tobytes()
        if b != d["_bytes"]:
            _SLOT_X.__set__(self, host_to_jax(h, copy=True, concrete=True, cpu=True))
            d["_bytes"] = b
        return _SLOT_X.__get__(self)

    @_x.setter
    def _x(self, new):
        d = self.__dict__
        h = d["_h"]
        if is_tracer(new):  # (a compiled function's write: the trace writes the real value back afterwards)
            _SLOT_X.__set__(self, new)
            return
        np.copyto(h, np.asarray(new).astype(h.dtype, copy=False).reshape(h.shape))
        _SLOT_X.__set__(self, new)
        d["_bytes"] = h.tobytes()


def _attach(t, h, value=None):
    """Make tensor ``t`` an alias of a new root over numpy array ``h``; ``value``: its current value as a JAX
    array, or None to make that from ``h`` when an op first needs it (so a DataLoader worker that only builds
    tensors with ``from_numpy`` starts no JAX backend, as with host tensors)."""
    root = Tensor._wrap(h if value is None else value, t._dev)
    root.__class__ = _NumpyRoot
    root.__dict__["_h"] = h
    root.__dict__["_bytes"] = None if value is None else h.tobytes()
    root._ver = t._ver
    t._vbase = root
    t._chain = _NUMPY_CHAIN
    t._seen = -1  # (never current: every read asks the root, which copies again only after a numpy write)
    _SLOT_X.__set__(t, h if value is None else value)  # (metadata reads the slot: a numpy array will do)
    return t


def _shareable(t, x):
    return t._dev.type == "cpu" and x.dtype.kind in _NUMPY_DTYPES and x.size * x.dtype.itemsize <= SHARE_LIMIT


def _root_array(r):
    """The numpy array storage root ``r`` shares (made so now if it can), or None."""
    if r._chain is _NUMPY_CHAIN:
        return r._vbase.__dict__["_h"]
    if r._vbase is not None and r._chain is not _ALIAS_CHAIN:
        return None  # (a shared-memory tensor, or a view: not a root)
    if r._st is not None:  # (torch's strides not row-major: a transposed copy, channels-last)
        return _strided_root_array(r)
    host = r._host_array()
    if host is not None:  # a host tensor: its array (copied: it may be held elsewhere too), no device read
        if not _shareable(r, host):
            return None
        h = host.copy()
        _attach(r, h)
        return h
    x = r._value
    if is_tracer(x) or not _shareable(r, x):
        return None
    h = np.array(x)
    _attach(r, h, x)
    return h


def _strided_root_array(r):
    """``_root_array`` of a root whose torch strides are not row-major: an array laid out in that order (its
    strides are torch's, as ``numpy()``'s are), or None."""
    st = r._st
    x = r._value
    if is_tracer(x) or not _shareable(r, x) or not _mfmt.non_overlapping_and_dense(tuple(x.shape), st):
        return None
    n = x.dtype.itemsize
    h = np.lib.stride_tricks.as_strided(np.empty(x.size, x.dtype), x.shape, tuple(s * n for s in st))
    h[...] = np.asarray(x)
    _attach(r, h, x)
    _mfmt.set_strides(r._vbase, st)
    return h


def _in(h, t):
    """The numpy view of ``h`` (the root array) that tensor ``t`` is, from its strides and offset; None when
    ``h`` is not dense (a user's sliced array given to ``from_numpy``). A dense ``h`` in another order (a
    transposed array) has the root's torch strides, so its memory in address order is the storage."""
    dense = h.flags.c_contiguous
    if not dense:
        if not h.size or not _mfmt.non_overlapping_and_dense(h.shape, _mfmt.numpy_strides(h)):
            return None
    want = np.dtype(t._x.dtype)
    if want != h.dtype:  # a reinterpreting view (``view(dtype)``, ``view_as_complex``): same-size dtypes only
        if want.itemsize != h.dtype.itemsize:
            return None
        h = h.view(want)
    n = h.dtype.itemsize
    flat = h.reshape(-1) if dense else np.lib.stride_tricks.as_strided(h, (h.size,), (n,))
    flat = flat[t.storage_offset():]
    return np.lib.stride_tricks.as_strided(flat, tuple(t.shape), tuple(s * n for s in t.stride()))


def numpy_of(t):
    """``t.numpy()`` for a CPU tensor: an array sharing t's memory, or None where it cannot share.

    >>> import torchlike
    >>> t = torchlike.zeros(4)
    >>> numpy_of(t[1:3])[:] = 5
    >>> t
    tensor([0., 5., 5., 0.])
    """
    b, c = t._vbase, t._chain
    if b is None or c is _ALIAS_CHAIN or c is _NUMPY_CHAIN:  # a storage root (or one in host or numpy memory)
        h = _root_array(t)
        return None if h is None else h.view()
    if c is _SHARED_CHAIN:
        return None
    if type(b) is _NumpyRoot:  # a view made from a tensor that shares memory
        h = b.__dict__["_h"]
    elif b._vbase is None or b._chain is _NUMPY_CHAIN:  # a view or alias (``detach()``, ``.data``) of a root
        h = _root_array(b)
        if h is not None:
            t._seen = -1  # (made before its root shared the array: it re-reads it from now on, see _refresh)
    else:
        return None
    return None if h is None else _in(h, t)


def from_numpy_shared(arr, dev):
    """``torch.from_numpy(arr)`` sharing ``arr``'s memory (writable, numpy dtypes, at most ``SHARE_LIMIT``
    bytes), or None where a copy must do."""
    if not arr.flags.writeable or arr.dtype.kind not in _NUMPY_DTYPES or arr.nbytes > SHARE_LIMIT:
        return None
    t = _attach(Tensor._wrap(arr, dev), arr)
    if not (arr.flags.c_contiguous and arr.size and 1 not in arr.shape) and arr.ndim:  # the array's own
        st = _mfmt.numpy_strides(arr)  # strides where dense (transposed, Fortran-order, empty, size-1 dims)
        if _mfmt.non_overlapping_and_dense(arr.shape, st):
            _mfmt.set_strides(t._vbase, st)
    return t
