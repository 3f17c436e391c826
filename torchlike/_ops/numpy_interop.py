"""The numpy interop methods of a Tensor: ``numpy()``, ``__array__`` (``np.asarray(t)``) and ``__array_wrap__``
(numpy's ufuncs on tensors give tensors), over the shared storage of ``_numpy_bridge``."""
from __future__ import annotations

import numpy as np

from .. import _dtype, _grad_mode, _views
from .._creation import from_numpy
from .._errors import to_host
from .._numpy_bridge import numpy_of
from .registry import register

__all__ = []

# torch's dtypes numpy has no type for: t.numpy() / np.asarray(t) are torch's TypeError
_NO_NUMPY_TYPE = frozenset({"bfloat16", "complex32"})


def _host_numpy(t):
    """A tensor's numpy array: sharing a CPU tensor's memory where it can, else a writable copy."""
    if t.dtype.name in _NO_NUMPY_TYPE or t.dtype.name.startswith("float8"):  # (ml_dtypes' types, not numpy's)
        raise TypeError(f"Got unsupported ScalarType {_dtype.TYPE_NAMES.get(t.dtype.name, t.dtype.name)}")
    if t._dev.type == "cpu":
        a = numpy_of(t)
        if a is not None:
            return a
    h = t._host_array()
    if h is None:
        x = t._value
        h = _views.host_copy(x)
        if h is None:
            return np.array(to_host(x))
    return h.copy()


def _refuse_grad(t):
    if t.requires_grad and _grad_mode._state.enabled:  # torch allows it under no_grad
        raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.")
    conj, neg = _views.conj_neg_bits(t)  # (numpy would share the root's memory: the unconjugated values)
    if conj:
        raise RuntimeError("Can't call numpy() on Tensor that has conjugate bit set. Use "
                           "tensor.resolve_conj().numpy() instead.")
    if neg:
        raise RuntimeError("Can't call numpy() on Tensor that has negative bit set. Use "
                           "tensor.resolve_neg().numpy() instead.")


@register("numpy", namespaces=())
def numpy(self, *, force=False):
    """The tensor as a numpy array sharing its memory (a CPU tensor; ``force=True``: any tensor, copied to
    the host, and one that requires grad).

    >>> import torchlike
    >>> torchlike.arange(3).numpy()
    array([0, 1, 2])
    """
    if force:
        self = self.detach().resolve_conj().resolve_neg()
    else:
        _refuse_grad(self)
        if self._dev.type != "cpu":
            where = "meta" if self._dev.type == "meta" else f"{self._dev.type}:{self._dev.index or 0}"
            raise TypeError(f"can't convert {where} device type tensor to "
                            "numpy. Use Tensor.cpu() to copy the tensor to host memory first.")
    return _host_numpy(self)


@register("__array__", namespaces=())
def __array__(self, dtype=None):
    """``np.asarray(tensor)``: ``numpy()`` (so the same sharing and the same refusal of a tensor that
    requires grad), converted to ``dtype`` if one is given.  No ``copy`` keyword, as torch's: numpy 2 then
    warns as it does for torch (``np.array(t)``: "__array__ implementation doesn't accept a copy keyword") and
    ``np.array(t, copy=False)`` is its ValueError."""
    a = numpy(self)  # (torch's is ``self.numpy()``: a tensor on the meta or a GPU device is refused too)
    return a.astype(dtype, copy=False) if dtype is not None else a


@register("__array_wrap__", namespaces=())
def __array_wrap__(self, array):
    """numpy's ufuncs on a tensor (``np.exp(t)``, ``t + ndarray``) give a tensor, as torch's do: the result
    array wrapped by ``from_numpy`` (a bool one as uint8, torch's rule). One argument, as torch's: numpy 2
    first passes ``context, return_scalar``, then calls it again with the array alone and gives the same
    DeprecationWarning torch's gives."""
    if array.dtype == np.bool_:
        array = array.astype(np.uint8)
    return from_numpy(np.asarray(array))
