"""Eager fast paths on the host for numbers: ``i + 8`` on the rows of a small int tensor (lazy views, see
``Tensor._lazy_view``) computed in Python, and ``t[k] = number`` written into the root by one program.
Both fall back (return None/False) to the general dispatch wherever autograd, tracing or an unusual dtype
is involved."""
from __future__ import annotations

import math

import numpy as np

from .. import _views
from .._dispatch import HOST_SCALAR_OPS
from ..tensor import _CONCRETE, _PLAIN_VALUE, Tensor, _concrete
from .pointwise import _alpha_impl

__all__ = ["set_number"]

_INT64 = np.dtype(np.int64)
_I64_MIN, _I64_MAX = -2 ** 63, 2 ** 63 - 1


def set_number(self, index, value):
    """``t[k] = number`` for a tensor outside autograd (``losses[k] = loss.item()``): one program writes the
    number into the root; no view, no value tensor.  False where the general path must run."""
    x = self._x
    shape = x.shape
    dt = x.dtype
    if not shape or not (dt.kind == "f" or (dt == _INT64 and type(value) is int and _I64_MIN <= value <= _I64_MAX)):
        return False
    n = shape[0]
    b = self._vbase
    root = self if b is None else b
    if not -n <= index < n or self._rg or self._grad_fn is not None or root._rg or root._grad_fn is not None or \
            (b is not None and self._ver is not b._ver) or Tensor._value is not _PLAIN_VALUE or \
            math.prod(shape[1:]) > 4096 or (type(root._x) not in _CONCRETE and not _concrete(root._x)):
        return False
    chain = (("index", (index % n,)),) if b is None else self._chain + (("index", (index % n,)),)
    if chain[0][0] == "alias":
        chain = chain[1:]
    root._x = _views.write_back_fn(chain)(root._value, np.full(shape[1:], value, dt))
    self._ver[0] += 1
    return True


def _host_add_sub(args, statics):
    """``i + 8`` / ``i - j`` of int64 scalars readable on the host (lazy rows of a small tensor, earlier
    such sums): computed there, the result moved to the device only if an op needs it; None otherwise."""
    (_, alpha), (_, dt), (_, sub) = statics
    if dt is not _INT64 or type(alpha) is not int or Tensor._value is not _PLAIN_VALUE:
        return None
    vals, dev = [], None
    for a in args:
        if type(a) is int:
            vals.append(a)
            continue
        if type(a) is not Tensor:
            return None
        h = a._host_scalar()
        if h is None or h.ndim or h.dtype != _INT64:
            return None
        vals.append(int(h))
        dev = a._dev
    r = vals[0] - alpha * vals[1] if sub else vals[0] + alpha * vals[1]
    if not _I64_MIN <= r <= _I64_MAX:
        return None
    return Tensor._from_host(np.array(r, _INT64), dev)


HOST_SCALAR_OPS[_alpha_impl] = _host_add_sub
