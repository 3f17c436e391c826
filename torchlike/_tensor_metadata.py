"""Tensor's metadata: dtype, device, dimensions, element counts, strides and contiguity.

A part of ``Tensor`` written in its own file: ``tensor.py`` copies these members into the class body
(``_class_parts.built_from``), so ``vars(Tensor)`` and the functions' ``__qualname__`` are as if they were
written there, as torch's are. The members read ``_x`` (the array) without refreshing a stale view: a view's
shape and dtype never change. Imports layer 0 only.

>>> import torchlike
>>> t = torchlike.zeros(2, 3).t()
>>> t.dtype, t.dim(), t.numel(), t.stride(), t.is_contiguous()
(torch.float32, 2, 6, (1, 3), False)
"""
from __future__ import annotations

import jax
import numpy as np

from . import _dtype, _views
from . import _memory_format as _mfmt
from ._errors import argument_error, renamed, torch_index
from ._layout import strided as _strided

__all__ = ["TensorMetadata", "wrap_dim"]

_NP2DT = _dtype._BY_NP


class TensorMetadata:
    """The members copied into ``Tensor`` (see the module docstring)."""

    @property
    def dtype(self):
        try:
            return _NP2DT[self._x.dtype]
        except KeyError:
            return _dtype.from_np(self._x.dtype)

    @property
    def device(self):
        return self._dev

    @property
    def is_cuda(self):
        return self._dev.type == "cuda"

    @property
    def is_cpu(self):
        return self._dev.type == "cpu"

    @property
    def is_meta(self):
        return self._dev.type == "meta"

    is_sparse = False
    is_quantized = False
    is_mkldnn = False
    is_nested = False
    layout = _strided

    @property
    def ndim(self):
        return self._x.ndim

    def dim(self):  # (an argument given: Python's words, not CPython's for torch's C method: a parameter to see it
        return self._x.ndim  # would cost x.dim(), a hot call, 10%)

    ndimension = renamed(dim, "ndimension", "Tensor.ndimension")  # (its own name in argument errors)

    def numel(self):
        n = self._x.size
        if type(n) is int:
            return n
        return n if not isinstance(n, (int, np.integer)) and jax.export.is_symbolic_dim(n) else int(n)

    nelement = renamed(numel, "nelement", "Tensor.nelement")

    def element_size(self):
        return self.dtype.itemsize

    @property
    def itemsize(self):
        return self.dtype.itemsize

    @property
    def nbytes(self):
        return self.numel() * self.dtype.itemsize

    def is_floating_point(self):
        return self.dtype.is_floating_point

    def is_complex(self):
        return self.dtype.is_complex

    def is_signed(self):
        return self.dtype.is_signed

    def stride(self, d=None, /, dim=None):  # (d: a dim given by position, whose parser error gives it)
        b = self._vbase
        if b is None:
            st = self._st
            if st is None or len(st) != self._x.ndim:
                st = _views.contiguous_strides(self._x.shape)
        else:
            st = _views.strides_of(self._chain, tuple(b._x.shape), b._st)[0]
        if d is None:
            return st if dim is None else st[wrap_dim(dim, len(st))]
        if dim is not None:  # (no keyword-only parameter nor *args: they would cost the call its specialisation)
            raise TypeError("stride() takes from 0 to 1 positional arguments but 2 were given")
        try:
            return st[wrap_dim(d, len(st))]
        except TypeError:
            raise argument_error(d, "int", "dim", "stride", 1) from None

    def storage_offset(self):
        b = self._vbase
        if b is None:
            return 0
        return _views.strides_of(self._chain, tuple(b._x.shape), b._st)[1]

    def is_contiguous(self, *, memory_format=None):
        if self._vbase is None and memory_format is None and self._st is None:
            return True  # (the common call: a plain tensor's own array is row-major)
        return _mfmt.is_contiguous(self, memory_format)


def wrap_dim(dim, ndim):
    n = max(ndim, 1)
    if dim.__class__ is int and -n <= dim < n:
        return dim % n
    try:  # not a plain int in range: numpy's integers and 0-d tensors index; torch's parser rejects the rest
        dim = torch_index(dim)
    except TypeError:
        raise argument_error(dim, "int", "dim") from None
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    return dim % n
