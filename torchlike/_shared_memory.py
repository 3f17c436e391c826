"""Tensors in shared memory: ``Tensor.share_memory_()`` and how such tensors cross to other processes.

torch moves a shared tensor's storage into shared memory; processes that receive the tensor (as an argument
of ``multiprocessing.Process``, through a ``Queue``) map the same memory, so a write by any of them is seen by
all (Hogwild training). A torchlike tensor's value is an immutable ``jax.Array``, so here the shared memory
(an anonymous ``memfd``, mapped ``MAP_SHARED``) is the storage of record:

- ``share_memory_()`` copies the value into the mapping and makes the tensor an alias of a hidden root
  (``_SharedRoot``) whose ``_x`` reads and writes the mapping: a read returns a JAX array of the mapping's
  current bytes (re-copied only when some process wrote since the last read), a write copies into it;
- a header word holds a token that every write replaces with one unique to that write (process id and a
  per-process count), so a reader notices any other process's write with one integer compare;
- pickled by ``multiprocessing`` (its ``ForkingPickler``), a shared tensor travels as the mapping's file
  descriptor (``DupFd``), and is rebuilt in the receiver as a shared tensor over the same memory; pickled
  anywhere else (``torch.save``, ``pickle.dumps``) it is an ordinary copy of its value.

Writes are not atomic across processes; as in torch, Hogwild's races are the algorithm's.

>>> import torchlike as torch
>>> t = torch.zeros(3).share_memory_()
>>> t.is_shared()
True
>>> t.add_(1)
tensor([1., 1., 1.])
"""
from __future__ import annotations

import itertools
import mmap
import os
from multiprocessing import reduction as _reduction

import numpy as np

from ._device import host_to_jax
from ._torch_function import disabled_torch_function_impl as _disabled_torch_function_impl
from .tensor import _SHARED_CHAIN, _SLOT_X, Tensor
from ._ops.registry import register

__all__ = []

_HEADER = 64  # bytes before the data: the write token (int64), then padding to keep the data aligned
_WRITES = itertools.count(1)


def _token():
    return (os.getpid() << 32) | (next(_WRITES) & 0xFFFFFFFF)


class _Mapping:
    """One shared mapping: ``fd`` (a memfd), the mmap, the token word and the data as a numpy array."""

    __slots__ = ("fd", "map", "token", "data", "__weakref__")

    def __init__(self, fd, nbytes, dtype, shape):
        self.fd = fd
        self.map = mmap.mmap(fd, _HEADER + max(nbytes, 1), mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
        self.token = np.frombuffer(self.map, np.int64, 1, 0)
        self.data = np.frombuffer(self.map, dtype, int(np.prod(shape, dtype=np.int64)), _HEADER).reshape(shape)

    @classmethod
    def create(cls, arr):
        fd = os.memfd_create("torchlike-shared", getattr(os, "MFD_CLOEXEC", 0))
        os.ftruncate(fd, _HEADER + max(arr.nbytes, 1))
        m = cls(fd, arr.nbytes, arr.dtype, arr.shape)
        np.copyto(m.data, arr)
        m.token[0] = _token()
        return m

    def __del__(self, _close=os.close):
        try:
            _close(self.fd)
        except OSError:
            pass


class _SharedRoot(Tensor):
    """The hidden root of a shared tensor: its ``_x`` is the mapping's current value (a property over the
    slot, which caches the last array read together with the token it was read under)."""
    __torch_function__ = _disabled_torch_function_impl  # torchlike's own subclass: ops see a plain Tensor
    fixed_size = True  # a mapping of fixed size: a resize past it is torch's "not resizable" error

    __slots__ = ()

    @property
    def _x(self):
        m = self.__dict__["_map"]
        tok = int(m.token[0])  # (read before the data: a write that lands during the copy changes it again)
        if tok != self.__dict__["_tok"]:
            _SLOT_X.__set__(self, host_to_jax(m.data, copy=True, concrete=True, cpu=True))
            self.__dict__["_tok"] = tok
        return _SLOT_X.__get__(self)

    @_x.setter
    def _x(self, new):
        m = self.__dict__["_map"]
        np.copyto(m.data, np.asarray(new).astype(m.data.dtype, copy=False).reshape(m.data.shape))
        tok = _token()
        m.token[0] = tok
        _SLOT_X.__set__(self, new)
        self.__dict__["_tok"] = tok


def _attach(t, m):
    """Make tensor ``t`` an alias of a new root over mapping ``m``."""
    root = Tensor._wrap(None, t._dev)
    root.__class__ = _SharedRoot
    root.__dict__["_map"] = m
    root.__dict__["_tok"] = None
    root._ver = t._ver
    t._vbase = root
    t._chain = _SHARED_CHAIN
    t._seen = -1  # (never current: every read asks the root, which re-reads only after a write)
    _SLOT_X.__set__(t, root._x)
    return t


@register("share_memory_", namespaces=())
def share_memory_(self):
    """Move the storage to shared memory: processes this tensor is passed to (``multiprocessing``
    arguments, queues) write into the same memory (Hogwild training).  Returns ``self``.

    >>> import torchlike
    >>> torchlike.ones(2).share_memory_().is_shared()
    True
    """
    return share(self)


def share(t):
    """``Tensor.share_memory_()``: move ``t``'s value into shared memory (a no-op if it is there, or if it
    is not a CPU tensor, as torch's CUDA tensors are already shareable)."""
    if t._chain is _SHARED_CHAIN or t._dev.type != "cpu":
        return t
    arr = np.asarray(t._value)
    if t._vbase is not None and t._chain[0][0] != "alias":
        t._ver = [t._version]  # a view: it gets storage of its own (torch moves the base's; docs/differences.md)
    register(type(t))  # (Parameter and other subclasses: multiprocessing's pickler looks up the exact type)
    return _attach(t, _Mapping.create(arr))


def _rebuild(cls, dupfd, dtype, shape, requires_grad, extra):
    m = _Mapping(dupfd.detach(), int(np.prod(shape, dtype=np.int64)) * dtype.itemsize, dtype, shape)
    t = _attach(Tensor._wrap(None), m)  # (the value is read from the mapping by _attach)
    if cls is not Tensor:
        t = t._retype(cls)
    t._rg = requires_grad
    t.__dict__.update(extra)
    return t


def _reduce(t):
    """How multiprocessing pickles a tensor: a shared one as its mapping's descriptor, others by value."""
    if t.requires_grad and not t.is_leaf:  # (torch.multiprocessing's reduce_tensor)
        raise RuntimeError("Cowardly refusing to serialize non-leaf tensor which requires_grad, since autograd does "
                           "not support crossing process boundaries.  If you just want to transfer the data, call "
                           "detach() on the tensor before serializing (e.g., putting it on the queue).")
    if not t.is_shared():
        return t.__reduce_ex__(4)
    m = t._vbase.__dict__["_map"]
    extra = {k: v for k, v in t.__dict__.items() if not k.startswith("_")}
    return _rebuild, (type(t), _reduction.DupFd(m.fd), m.data.dtype, tuple(m.data.shape), t._rg, extra)


def register(cls):
    """Pickle instances of ``cls`` (a Tensor class) through ``_reduce`` in multiprocessing's pickler."""
    _reduction.ForkingPickler.register(cls, _reduce)


register(Tensor)
