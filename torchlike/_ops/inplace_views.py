"""In-place view ops (``squeeze_``, ``t_``, ``transpose_``, ``as_strided_``, ...: the tensor itself takes the
new shape) and ``Tensor.fill_diagonal_`` (an in-place write through the diagonal).
"""
from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from ._util import Tensor, register
from . import views as _v
from .index_put import index_put
from .indexing import _value_tensor
from .. import _grad_mode as grad_mode
from .._errors import argument_error, bool_arg

__all__ = []


# --- in-place view ops: the tensor itself takes the new shape ------------------------------------
def _check_leaf(self):
    if grad_mode.is_grad_enabled() and self._grad_fn is None and self._rg:
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")


def _rebind(self, v, keep_storage=False):
    """Make ``self`` take over ``v``, a view of ``self`` (its shape, strides and autograd history).

    A root whose strides must change (t_, transpose_, as_strided_) keeps its old array as a hidden
    storage root and becomes a view of it; squeeze_/unsqueeze_ simply reshape a root's array.  Views
    made of ``self`` before the call keep reading ``self``'s (new) value.
    """
    val = v._value
    self._ver[0] += 1  # torch counts a metadata change as a write
    if self._vbase is None and keep_storage:
        root = Tensor._wrap(self._x, self._dev)
        root._ver = self._ver
        root._grad_fn, root._oi = self._grad_fn, self._oi
        self._vbase = root
    elif self._vbase is None:
        self._x = val
        if v._grad_fn is not None:
            self._grad_fn, self._oi = v._grad_fn, v._oi
        return self
    self._chain = v._chain
    self._x = val
    self._seen = self._ver[0]
    if v._grad_fn is not None:
        self._grad_fn, self._oi = v._grad_fn, v._oi
    return self


@register("squeeze_", namespaces=(), promote="none", method_varargs=True)
def _squeeze_(self, dim=None):
    """In-place squeeze: this tensor's own shape changes."""
    _check_leaf(self)
    return _rebind(self, _v.squeeze(self) if dim is None else _v.squeeze(self, dim))  # (squeeze(x, None) is an error)


@register("unsqueeze_", namespaces=(), promote="none")
def _unsqueeze_(self, dim):
    """In-place unsqueeze: this tensor's own shape changes."""
    _check_leaf(self)
    return _rebind(self, _v.unsqueeze(self, dim))


@register("t_", namespaces=(), promote="none")
def _t_(self):
    """In-place t(): this tensor becomes its transpose."""
    _check_leaf(self)
    return _rebind(self, _v.t(self), True)


@register("transpose_", namespaces=(), promote="none", aliases=("swapdims_", "swapaxes_"))
def _transpose_(self, dim0, dim1):
    """In-place transpose: this tensor becomes its transpose."""
    _check_leaf(self)
    return _rebind(self, _v.transpose(self, dim0, dim1), True)


@register("as_strided_", promote="none")  # torch.as_strided_ too
def _as_strided_(self, size, stride, storage_offset=None):
    """In-place as_strided: this tensor becomes the strided view of its storage."""
    _check_leaf(self)
    return _rebind(self, _v.as_strided(self, size, stride, storage_offset), True)


@register("fill_diagonal_", namespaces=(), promote="none")
def _fill_diagonal_(self, fill_value, wrap=False):
    """Fill the main diagonal in place (torch.Tensor.fill_diagonal_)."""
    bool_arg(wrap, "wrap", "fill_diagonal_", 2)
    if self.ndim < 2:
        raise RuntimeError("dimensions must larger than 1")
    if self.ndim > 2 and len(set(self.shape)) != 1:
        raise RuntimeError("all dimensions of input must be of equal length")
    n = min(self.shape)
    idx = np.arange(n)
    if self.ndim == 2 and wrap and self.shape[0] > self.shape[1] + 1:
        rows = np.arange(0, self.shape[0])
        keep = rows % (self.shape[1] + 1) != self.shape[1]
        rows = rows[keep]
        cols = np.arange(rows.size) % self.shape[1]
        index = (Tensor._wrap(jnp.asarray(rows)), Tensor._wrap(jnp.asarray(cols)))
    else:
        index = tuple(Tensor._wrap(jnp.asarray(idx)) for _ in range(self.ndim))
    # (torch writes an expanded self with no check nor warning: each location keeps the last value written)
    try:
        value = _value_tensor(fill_value, self)
    except TypeError:  # (a str, None, a list: torch's parser error, not __setitem__'s)
        raise argument_error(fill_value, "Number", "fill_value", "fill_diagonal_", 1) from None
    return self._inplace_update(index_put(self, index, value.to(self.dtype)), True)
