"""Eager pointwise ops on host-resident tensors, computed with numpy.

A small CPU tensor made outside a trace without ``requires_grad`` stays a numpy array until an op needs it on
the device (``Tensor._from_host``).  When *every* tensor argument of ``add``/``sub``/``mul``/true ``div``, a
comparison or a bitwise op is such a tensor (the rest Python numbers), no gradient is recorded and nothing traces, the
dispatcher asks the handlers here (``_dispatch.HOST_SCALAR_OPS``) first: they compute the result with numpy in
the dtype torch's promotion chose (the op's ``dt`` static argument) and return another host tensor, so
``ix + 1`` or ``mask = t > 0`` of small CPU tensors run no XLA program.  numpy's IEEE float32/float64
``+ - *`` and comparisons and its wrapping integer arithmetic give the device program's (torch's) exact
values (a float ``add``/``sub`` with ``alpha != 1`` is a fused multiply-add there, so it stays on the device);
float16/bfloat16/complex/unsigned wider than 8 bits, out-of-range Python integers and results above
``HOST_MAX`` elements fall back to the device (a handler returns None).

>>> import torchlike
>>> a = torchlike.tensor([1, 2, 3])
>>> (a * 2 + 1) > 4
tensor([False,  True,  True])
"""
from __future__ import annotations

import math

import numpy as np

from ._dispatch import HOST_SCALAR_OPS
from ._ops import division as _division, indexing as _indexing, matmul as _products, pointwise as _pw, reduction as _reductions, \
    registry as _registry
from .tensor import _ALIAS_CHAIN, _PLAIN_VALUE, HOST_MAX, Tensor

try:  # JAX transforms (jax.vmap/grad around torchlike code) keep the device path
    from jax._src.core import EvalTrace as _EvalTrace, trace_state_strong_ref as _trace_ref
except ImportError:  # pragma: no cover - an internal API moved: no host fast path
    _EvalTrace = _trace_ref = None
try:  # numpy's "ignore every floating-point error" state, made once: ``np.errstate`` rebuilds it per call
    # (measured: ~3 us of a 4x4 ``a + b``'s ~10); torch gives no overflow/invalid warnings
    from numpy._core._ufunc_config import _extobj_contextvar as _ERR_VAR, _make_extobj
    _QUIET = _make_extobj(all="ignore")
except ImportError:  # pragma: no cover - a numpy without them: the public context manager
    _ERR_VAR = _QUIET = None

__all__ = ["HOST_UFUNCS"]

_OK = frozenset(np.dtype(d) for d in (np.bool_, np.uint8, np.int8, np.int16, np.int32, np.int64, np.float32,
                                      np.float64))
_INT_RANGE = {np.dtype(d): (np.iinfo(d).min, np.iinfo(d).max) for d in (np.uint8, np.int8, np.int16, np.int32,
                                                                         np.int64)}
_BOOL = np.dtype(np.bool_)
_INT64 = np.dtype(np.int64)
_F32 = np.dtype(np.float32)
_F32_MAX = float(np.finfo(np.float32).max)


def _operands(args, dt):
    """``(arrays in dtype dt, device)`` when every tensor in ``args`` is host-resident and the rest are Python
    numbers numpy converts to ``dt`` exactly as the device program does; None otherwise."""
    if Tensor._value is not _PLAIN_VALUE or _EvalTrace is None or type(_trace_ref.value) is not _EvalTrace:
        return None
    out, dev, shape, mixed = [], None, None, False
    for a in args:
        t = type(a)
        if t is Tensor:
            # (Tensor._host_array inlined: this is the per-op hot path)
            h = a._x
            if a._chain is not _ALIAS_CHAIN or a._seen != -2 - a._ver[0] or type(h) is not np.ndarray or \
                    a._rg or a._grad_fn is not None:
                return None
            if dev is None:
                dev = a._dev
            elif a._dev is not dev and a._dev != dev:  # (``is`` first: device equality is a Python method)
                return None
            if shape is not None and h.shape != shape:
                mixed = True
            shape = h.shape
            out.append(h if h.dtype is dt or h.dtype == dt else h.astype(dt))
        elif t is int:
            r = _INT_RANGE.get(dt)
            if r is not None and not r[0] <= a <= r[1] or not -2 ** 53 <= a <= 2 ** 53:
                return None
            out.append(dt.type(a))  # (a numpy scalar of dt: the value np.asarray(a, dt) holds, made faster)
        elif t is float:
            if dt.kind != "f" or dt is _F32 and not -_F32_MAX < a < _F32_MAX and a == a:
                return None  # (a float past float32's range: numpy's cast warns; the device path gives inf quietly)
            out.append(dt.type(a))
        elif t is bool:
            out.append(dt.type(a))
        else:
            return None
    if dev is None or (mixed and not _broadcast_ok(out)):
        return None
    return out, dev


def _broadcast_ok(arrays):
    """Whether the shapes broadcast (else the device path raises torch's error) to at most HOST_MAX elements."""
    try:
        shape = np.broadcast_shapes(*(a.shape for a in arrays))
    except ValueError:
        return False
    n = 1
    for s in shape:
        n *= s
    return n <= HOST_MAX


def _quiet(ufunc, x, y):
    """``ufunc(x, y)`` without numpy's floating-point warnings (torch gives none)."""
    if _ERR_VAR is None:  # pragma: no cover - see the import
        with np.errstate(all="ignore"):
            return ufunc(x, y)
    tok = _ERR_VAR.set(_QUIET)
    try:
        return ufunc(x, y)
    finally:
        _ERR_VAR.reset(tok)


def _result(r, dt, dev):
    if type(r) is not np.ndarray:  # a 0-d result comes back as a numpy scalar
        r = np.asarray(r)
    if r.dtype is not dt and r.dtype != dt:  # (``is`` first: numpy's dtype ``!=`` is a slow rich compare)
        r = r.astype(dt)
    return Tensor._from_host(r, dev)


def _alpha(prev):
    """``add``/``sub`` (``x + alpha * y``; bool addition is ``or``), then the handler registered before."""
    def handler(args, statics):
        (_, alpha), (_, dt), (_, sub) = statics
        if prev is not None and dt is _INT64:  # ``i + 8`` of 0-d int64 tensors: Python arithmetic first
            r = prev(args, statics)
            if r is not None:
                return r
            prev_tried = True
        else:
            prev_tried = False
        if dt in _OK and type(alpha) in (int, float, bool):
            ops = _operands(args, dt)
            # (a float ``x + alpha * y`` is one fused multiply-add in the device program and in torch's
            # kernel: numpy's separate multiply and add round twice, so that case stays on the device)
            if ops is not None and (alpha == 1 or dt.kind != "f") and (type(alpha) is not float or dt.kind == "f"):
                (x, y), dev = ops
                if dt.kind == "f":  # (alpha is 1 here; no numpy overflow/invalid warnings: torch gives none)
                    r = _quiet(np.subtract if sub else np.add, x, y)
                else:  # integers wrap, without warnings, in both; bool: ``y * alpha`` is an and, ``+`` an or
                    if alpha != 1:
                        y = np.multiply(y, np.asarray(alpha, dt))
                    if dt == _BOOL:
                        r = np.logical_or(x, y)
                    else:
                        r = np.subtract(x, y) if sub else np.add(x, y)
                return _result(r, dt, dev)
        return prev(args, statics) if prev is not None and not prev_tried else None
    return handler


def _binary(ufunc):
    """A ``binary`` op (``_ops/_util.binary``: ``jfn(cast(x, dt), cast(y, dt))``, then ``out_dt``)."""
    def handler(args, statics):
        (_, dt), (_, out_dt) = statics
        if dt not in _OK:
            return None
        ops = _operands(args, dt)
        if ops is None:
            return None
        (x, y), dev = ops
        r = _quiet(ufunc, x, y) if dt.kind == "f" else ufunc(x, y)
        return _result(r, dt if out_dt is None else np.dtype(out_dt), dev)
    return handler


def _true_div(args, statics):
    """``div`` without a rounding mode in float32/float64: numpy's IEEE quotient, which is torch's (also by a
    Python number: torch divides, it does not multiply by the reciprocal)."""
    (_, dt), (_, mode) = statics
    # (``number / t`` is torch's ``t.reciprocal() * number``: that one keeps the device path)
    if mode is not None or dt.kind != "f" or dt not in _OK or type(args[0]) is not Tensor:
        return None
    ops = _operands(args, dt)
    if ops is None:
        return None
    (x, y), dev = ops
    return _result(_quiet(np.true_divide, x, y), dt, dev)


def _gather(args, statics):
    """``x[idx]`` (advanced indexing, ``indexing._adv_get_impl``) of a host-resident ``x`` by index arrays that
    ``indexing.prepare_adv`` already bounds-checked and wrapped (numpy int64, or host tensors' arrays): numpy's
    advanced indexing with the device program's key (JAX follows numpy's rules, so the result, a copy, is the
    same), kept on the host.  Index tensors still on the device, or a result above HOST_MAX, keep the device
    path."""
    if Tensor._value is not _PLAIN_VALUE or _EvalTrace is None or type(_trace_ref.value) is not _EvalTrace:
        return None
    x = args[0]
    if type(x) is not Tensor:
        return None
    h = x._x
    if x._chain is not _ALIAS_CHAIN or x._seen != -2 - x._ver[0] or type(h) is not np.ndarray or x._rg or \
            x._grad_fn is not None:
        return None
    pos = statics[0][1]
    for a in args[1:]:
        if type(a) is not np.ndarray:
            return None
    if len(pos) == 1:  # (``take`` is numpy's one-array case without the general indexing machinery: ~20x faster)
        r = h.take(args[1], axis=pos[0])
    else:
        key = [slice(None)] * h.ndim
        for p, a in zip(pos, args[1:]):
            key[p] = a
        r = h[tuple(key)]
    if type(r) is not np.ndarray:  # (a 0-d index array gives a numpy scalar)
        r = np.asarray(r)
    if r.size > HOST_MAX:
        return None
    return Tensor._from_host(r, x._dev)


def _resident(args):
    """``(arrays, device)`` when every argument is a host-resident tensor (as ``_operands``, no cast), else None."""
    if Tensor._value is not _PLAIN_VALUE or _EvalTrace is None or type(_trace_ref.value) is not _EvalTrace:
        return None
    out, dev = [], None
    for a in args:
        if type(a) is not Tensor:
            return None
        h = a._x
        if a._chain is not _ALIAS_CHAIN or a._seen != -2 - a._ver[0] or type(h) is not np.ndarray or \
                a._rg or a._grad_fn is not None:
            return None
        if dev is None:
            dev = a._dev
        elif a._dev is not dev and a._dev != dev:
            return None
        out.append(h)
    return out, dev


_PRODUCT_OK = frozenset(np.dtype(d) for d in (np.int32, np.int64, np.float32, np.float64))


def _matmul(args, statics):
    """``matmul`` of host-resident tensors of one dtype (``matmul`` checked the shapes and dtypes) in
    float32/float64/int32/int64: numpy's ``matmul`` (numpy's and JAX's shape rules are the same).  Floats
    sum the products in BLAS's order (XLA's and torch's kernels each have their own: last-bit differences,
    docs/differences.md); integers wrap alike."""
    ops = _resident(args)
    if ops is None:
        return None
    (x, y), dev = ops
    dt = x.dtype
    if not (dt is _F32 or dt in _PRODUCT_OK) or y.dtype is not dt and y.dtype != dt:
        return None
    xs, ys = x.shape, y.shape
    if len(xs) == 2 and len(ys) == 2:
        n = xs[0] * ys[1]
    elif not xs or not ys:
        return None
    else:
        n = math.prod(np.broadcast_shapes(xs[:-2], ys[:-2])) * (xs[-2] if len(xs) > 1 else 1) * \
            (ys[-1] if len(ys) > 1 else 1)
    if n > HOST_MAX:
        return None
    return _result(_quiet(np.matmul, x, y) if dt.kind == "f" else np.matmul(x, y), dt, dev)


def _sum(args, statics):
    """``sum`` of a host-resident tensor into float32/float64 or int64 (ints and bools): numpy's
    ``add.reduce`` (pairwise float sums: another order than XLA's or torch's, last bit; integers wrap alike)."""
    (_, dims), (_, keepdim), (_, dt) = statics
    if not (dt is _F32 or dt is _INT64 or dt in _OK and dt.kind in "fi"):
        return None
    ops = _resident(args)
    if ops is None:
        return None
    (x,), dev = ops
    if x.dtype is not dt and x.dtype != dt:
        if x.dtype.kind == "f" and dt.kind != "f":  # (a float summed into ints: the device's cast saturates)
            return None
        x = x.astype(dt)
    if dt.kind != "f":
        return _result(np.add.reduce(x, axis=dims, keepdims=keepdim), dt, dev)
    if _ERR_VAR is None:  # pragma: no cover - see the import
        with np.errstate(all="ignore"):
            return _result(np.add.reduce(x, axis=dims, keepdims=keepdim), dt, dev)
    tok = _ERR_VAR.set(_QUIET)
    try:
        r = np.add.reduce(x, axis=dims, keepdims=keepdim)
    finally:
        _ERR_VAR.reset(tok)
    return _result(r, dt, dev)


# op name -> the numpy ufunc computing it (in the promoted dtype)
HOST_UFUNCS = {"mul": np.multiply, "eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal,
               "gt": np.greater, "ge": np.greater_equal, "bitwise_and": np.bitwise_and,
               "bitwise_or": np.bitwise_or, "bitwise_xor": np.bitwise_xor, "logical_and": np.logical_and,
               "logical_or": np.logical_or, "logical_xor": np.logical_xor}


def _impl_of(fn, name, depth=4):
    """The ``binary`` op function (``<name>_impl``) a registered op closes over, or None."""
    for c in getattr(fn, "__closure__", None) or ():
        try:
            v = c.cell_contents
        except ValueError:
            continue
        if callable(v) and getattr(v, "__name__", None) == f"{name}_impl" and \
                getattr(v, "__qualname__", "").startswith("binary."):
            return v
        if depth and callable(v) and getattr(v, "__closure__", None):
            r = _impl_of(v, name, depth - 1)
            if r is not None:
                return r
    return None


def _install():
    found = {}
    HOST_SCALAR_OPS[_pw._alpha_impl] = _alpha(HOST_SCALAR_OPS.get(_pw._alpha_impl))
    HOST_SCALAR_OPS.setdefault(_indexing._adv_get_impl, _gather)
    if _division._div_impl not in HOST_SCALAR_OPS:
        HOST_SCALAR_OPS[_division._div_impl] = _true_div
    HOST_SCALAR_OPS.setdefault(_products._matmul_impl, _matmul)
    HOST_SCALAR_OPS.setdefault(_reductions._sum_impl, _sum)
    for name, uf in HOST_UFUNCS.items():
        entry = _registry.TABLE.get(("torch", name))
        impl = _impl_of(entry.fn, name) if entry is not None else None
        if impl is not None and impl not in HOST_SCALAR_OPS:
            HOST_SCALAR_OPS[impl] = _binary(uf)
            found[name] = impl
    return found


INSTALLED = _install()  # name -> impl function handled here (tests check every HOST_UFUNCS entry is found)
