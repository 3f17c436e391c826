"""Eager fast paths on the host for numbers: ``i + 8`` on the rows of a small int tensor (lazy views, see
``Tensor._lazy_view``) computed in Python, and ``t[k] = number`` written into the root by one program.
Both fall back (return None/False) to the general dispatch wherever autograd, tracing or an unusual dtype
is involved."""
from __future__ import annotations

import math

import numpy as np

from .. import _grad_mode, _views
from .._dispatch import HOST_SCALAR_OPS
from .._grad_mode import InferenceVersion
from ..tensor import _ALIAS_CHAIN, _CONCRETE, _PLAIN_VALUE, HOST_MAX, Tensor, _concrete
from .pointwise import _alpha_impl

__all__ = ["set_number", "set_scalar_tensor"]

_INT64 = np.dtype(np.int64)
_F32 = np.dtype(np.float32)
_F32_MAX = float(np.finfo(np.float32).max)
_I64_MIN, _I64_MAX = -2 ** 63, 2 ** 63 - 1


def set_number(self, index, value):
    """``t[k] = number`` for a tensor outside autograd (``losses[k] = loss.item()``): one program writes the
    number into the root; no view, no value tensor.  False where the general path must run."""
    x = self._x
    shape = x.shape
    dt = x.dtype
    if not shape or type(self._ver) is InferenceVersion or not (dt.kind == "f" or (dt == _INT64 and type(value) is int and _I64_MIN <= value <= _I64_MAX)):
        return False
    if dt == _F32 and type(value) is not bool and _F32_MAX < abs(value) < math.inf:
        raise RuntimeError("value cannot be converted to type float without overflow")
    if type(x) is np.ndarray and self._chain is _ALIAS_CHAIN:  # a host tensor
        return _set_number_host(self, x, index, value)
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
    root._store(_views.write_back_fn(chain)(root._value, np.full(shape[1:], value, dt)))
    self._ver[0] += 1
    return True


def _set_number_host(self, x, index, value):
    """``t[k] = number`` into a host tensor (``Tensor._from_host``, no view shares its array: a view moves it to
    the device first): a copy of its small array with the row written, no program.  numpy's cast of the
    number into a float dtype rounds to nearest, as the device's convert does (a finite number beyond float32
    raised torch's overflow error before)."""
    n = x.shape[0]
    if self._seen != -2 - self._ver[0] or self._rg or x.size > HOST_MAX or not -n <= index < n or \
            Tensor._value is not _PLAIN_VALUE:
        return False
    new = x.copy()
    new[index] = value
    ver = self._ver
    ver[0] += 1
    self._x = self._vbase._x = new
    self._seen = -2 - ver[0]
    return True


def set_scalar_tensor(self, index, value):
    """``t[k] = v`` for ``v`` a 0-d tensor of ``t``'s dtype and device into a host tensor ``t`` (``losses[k] = loss``
    in an evaluation loop): ``v``'s value read on the host (``np.asarray`` aliases a CPU device array's buffer:
    a wait for ``v``'s program, no transfer) and written like a number, no program.  The same dtype only (no
    cast to reproduce); False where the general path must run: autograd would record the write (``v`` needs a
    gradient while grad mode is on), tracing, another dtype or device, a tensor that is not a host tensor."""
    x = self._x
    if type(x) is not np.ndarray or self._chain is not _ALIAS_CHAIN or not x.shape or value._dev is not self._dev or \
            type(self._ver) is InferenceVersion or \
            (_grad_mode._state.enabled and (value._rg or value._grad_fn is not None)):
        return False
    v = value._x
    if type(v) is _views.Pending:
        if v.shape or v.dtype != x.dtype:
            return False
        h = value._host_scalar()
    elif v.shape or v.dtype != x.dtype:
        return False
    elif type(v) is np.ndarray:
        h = v if value._seen == -2 - value._ver[0] else None
    elif value._vbase is None and (type(v) in _CONCRETE or _concrete(v)):
        h = np.asarray(v)
    else:
        h = None
    if h is None:
        return False
    return _set_number_host(self, x, index, h[()])


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
