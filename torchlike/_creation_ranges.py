"""Tensor creation of ranges and index grids: arange, range, linspace, logspace, eye, tril/triu_indices."""
from __future__ import annotations

import builtins
import ctypes
import functools
import itertools
import math
import numbers

import jax
import jax.numpy as jnp
import numpy as np

from . import _dtype
from ._cpu_features import aten_fma, aten_vector_bytes
from ._creation import _finish, _host_or_put, _out
from ._device import canonical
from ._errors import check_alloc, int_arg, warn_at_caller
from ._global_settings import get_num_threads
from ._scalar_fit import check_numbers_fit, check_scalar_fits
from ._ops.signatures import Signature, parses
from .tensor import Tensor

__all__ = ["arange", "range", "linspace", "logspace", "eye", "tril_indices", "triu_indices"]


_SMALL = 1 << 16  # (arange's fast path: results host tensors hold, bounds far from int64's limits)
_BIG = 1 << 53


def _num(x):
    return x.item() if isinstance(x, Tensor) else x


def arange(start=0, end=None, step=1, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """Values from ``start`` to ``end`` (exclusive) by ``step``; int64 when all are ints.

    >>> import torchlike
    >>> torchlike.arange(3).dtype
    torch.int64
    """
    if type(start) is int and (end is None or type(end) is int) and type(step) is int and dtype is None and \
            out is None and device is None and not requires_grad:  # ``arange(n)``, ``arange(a, b)``: int64, no checks
        a, b = (0, start) if end is None else (start, end)  # that can fail on the way
        n = (b - a + step - 1) // step if step > 0 else (b - a + step + 1) // step if step < 0 else -1
        if 0 <= n <= _SMALL and -_BIG < a < _BIG and -_BIG < b < _BIG and (b >= a if step > 0 else b <= a):
            return _host_or_put(np.arange(a, a + n * step, step, dtype=np.int64), canonical(None), False)
    given = (start,) if end is None else (start, end) if type(step) is int and step == 1 else (start, end, step)
    if any(isinstance(v, Tensor) for v in given):  # (torch's parser takes a 0-dim tensor without grad only)
        ARANGE.raise_if_unparsed(given, {})
    try:
        return _arange(start, end, step, out, dtype, device, requires_grad)
    except Exception:  # torch's parser error where an argument's type is wrong (its parser runs first)
        ARANGE.raise_if_unparsed(given, {})
        raise


# torch's overloads of arange (its parser's error on the slow path's failure)
ARANGE = Signature("arange", [
    "Scalar end, *, Tensor? out=None, ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
    "bool pin_memory=False, bool requires_grad=False",
    "Scalar start, Scalar end, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, "
    "bool pin_memory=False, bool requires_grad=False",
    "Scalar start, Scalar end, Scalar step=1, *, Tensor? out=None, ScalarType? dtype=None, Layout? layout=None, "
    "Device? device=None, bool pin_memory=False, bool requires_grad=False"])


def _arange(start, end, step, out, dtype, device, requires_grad):
    start, end, step = _num(start), _num(end), _num(step)
    if end is None:
        start, end = 0, start
    allint = all(isinstance(v, numbers.Integral) for v in (start, end, step))
    if dtype is None:
        dtype = out.dtype if out is not None else _dtype.int64 if allint else _dtype.get_default_dtype()
    d = _dtype.to_dtype(dtype)
    if d is _dtype.bool or d.is_complex:  # (torch's kernel refuses the dtype before it reads the bounds)
        raise NotImplementedError(f"\"arange_cpu\" not implemented for '{_dtype.TYPE_NAMES[d.name]}'")
    if any(isinstance(v, complex) for v in (start, end, step)):  # (torch reads each bound as a double)
        if any(isinstance(v, complex) and v.imag != 0 for v in (start, end, step)):
            raise RuntimeError("value cannot be converted to type double without overflow")
        start, end, step = (v.real if isinstance(v, complex) else v for v in (start, end, step))
    if not (step > 0 or step < 0):  # NaN too
        raise RuntimeError("step must be nonzero")
    if not (math.isfinite(start) and math.isfinite(end)):
        raise RuntimeError(f"unsupported range: {_fmt_num(start)} -> {_fmt_num(end)}")
    integral = not d.is_floating_point
    if d is _dtype.int64 or allint:
        # torch truncates the bounds and step to integers first for int64 results (length included)
        start, end, step = int(start), int(end), int(step)
        if step == 0:
            raise ValueError("step must be nonzero")
    if (step > 0 and end < start) or (step < 0 and end > start):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    if d is _dtype.int64 or allint:
        n = (end - start + step - (1 if step > 0 else -1)) // step
    else:
        n = math.ceil((end - start) / step)
    if n > 2 ** 63 - 1:
        big = next((v for v in (start, end, step) if type(v) is int and not -2 ** 63 <= v < 2 ** 64), None)
        if big is not None:  # (a bound past int64 and uint64: torch's Scalar conversion of it fails first)
            raise OverflowError("can't convert negative int to unsigned" if big < 0 else "int too big to convert")
        raise RuntimeError("invalid size, possible overflow?")
    n = max(0, n)
    check_alloc((n,), d)
    if integral:  # values start + i * step with both truncated (other integer dtypes keep the float length)
        vals = int(start) + np.arange(n, dtype=np.int64) * int(step)
    else:
        with np.errstate(over="ignore"):  # (float16's inf past 65504, as torch)
            vals = _aten_float_arange(start, step, n, d.np)
    return _out(_host_or_put(vals.astype(d.np), canonical(device), requires_grad), out)


_GRAIN = 32768  # at::internal::GRAIN_SIZE


def _fma_int(i, step, c):
    """``i * step + c`` rounded once (the fused multiply-add the compiler makes of ATen's ``start + step * i``)
    for a float64 array ``i`` of integers below 2**26 and float64 scalars ``step`` and ``c``: Dekker's exact
    product (``i`` needs no split) and Knuth's two-sum, exact but for ties of the final rounding."""
    hi = step * 134217729.0
    hi = hi - (hi - step)
    p = i * step
    e = (i * hi - p) + i * (step - hi)  # i * step == p + e exactly
    s = p + c
    v = s - p
    return s + (e + ((p - (s - v)) + (c - v)))


def _aten_float_arange(start, step, n, np_dtype):
    """torch's CPU arange kernel for a floating dtype, value for value. It computes in the accumulation type
    (double for float32/float64, float for float16/bfloat16) as ``start + step * i`` with one rounding (a fused
    multiply-add), but in vectors of ``Vectorized<T>::size()`` lanes: each vector's first value is rounded to
    the dtype, and lane ``k`` is that base plus ``k * step`` (fused as well, but for bfloat16, whose lanes
    round ``k * step`` to float first: ``arange(-3., 50.4, 0.2, dtype=bfloat16)[15]`` is 0); the tail past the
    last pair of whole vectors is ``start + step * i``. So ``arange(-8., 8., 0.1)[79]`` is -0.10000000894 (not
    float32(-0.1)) and ``[80]`` is 4.4e-16, as in torch (a range of more than 32768 values is split among
    ``get_num_threads()`` chunks, each vectorized from its own start, as ``at::parallel_for`` does). torch's x86
    DEFAULT build fuses nothing: each product and sum is rounded there. ATen registers no AVX512 build of this
    kernel, so its vectors are 32 bytes on AVX-512 CPUs as well: 8 float32 lanes, 4 float64, 16 float16/bfloat16."""
    t = np.dtype(np_dtype)
    if n >= 1 << 26:  # (past the exact products of _fma_int: one rounding of the float64 formula)
        return (start + np.arange(n, dtype=np.float64) * step).astype(t)
    half = t.itemsize < 4  # accumulates in float: a float product is exact in float64, one float64 add
    lanes = aten_vector_bytes(avx512_kernel=False) // t.itemsize  # (AVX2's kernel on AVX-512 CPUs too)
    if half:
        st, s0 = float(np.float32(step)), float(np.float32(start))
    else:
        st, s0 = float(step), float(start)
    i = np.arange(n, dtype=np.float64)
    fused = aten_fma()  # (x86's DEFAULT build rounds the product and the sum each)
    if not fused:
        full = np.float32(s0) + (i * st).astype(np.float32) if half else s0 + i * st
    else:
        full = i * st + s0 if half else _fma_int(i, st, s0)
    full = full.astype(np.float32) if half else full  # start + step * i in the accumulation type
    out = full.astype(t)
    if n < _GRAIN:
        pieces = [(0, n)]
    else:
        threads = max(1, min(get_num_threads(), -(-n // _GRAIN)))
        chunk = -(-n // threads)
        pieces = [(b, min(n, b + chunk)) for b in builtins.range(0, n, chunk)]
    k = np.arange(lanes, dtype=np.float64)
    for b, e in pieces:
        m = ((e - b) // (2 * lanes)) * (2 * lanes)
        if m:
            base = out[b:b + m:lanes, None].astype(np.float64)  # each vector's first value, in the dtype
            if t.name == "bfloat16" or (half and not fused):  # (rounding k * step to float, then the sum)
                vec = base.astype(np.float32) + (k * st).astype(np.float32)
            elif not fused:
                vec = base + k * st
            else:
                vec = k * st + base if half else _fma_int(k, st, base)
            out[b:b + m] = vec.astype(full.dtype).astype(t).reshape(-1)
    return out


def _fmt_num(x):
    """A number as torch's C++ messages print it (``1`` for 1.0, ``inf``, ``0.5``)."""
    return f"{x:g}" if isinstance(x, float) else str(x)


@parses("Scalar start, Scalar end, Scalar step=1, *, Tensor? out=None, ScalarType? dtype=None, Layout? layout=None, "
        "Device? device=None, bool pin_memory=False, bool requires_grad=False")
def range(start=0, end=None, step=1, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """Deprecated torch.range: inclusive of ``end``; float by default."""
    warn_at_caller("torch.range is deprecated and will be removed in a future release because its behavior is "
                   "inconsistent with Python's range builtin. Instead, use torch.arange, which produces values in "
                   "[start, end).")
    if end is None:  # (torch's parser: end has no default)
        raise TypeError('range() missing 1 required positional arguments: "end"')
    d = _dtype.to_dtype(dtype) if dtype is not None else _dtype.get_default_dtype()
    if d is _dtype.bool or d.is_complex:
        raise NotImplementedError(f"\"range_cpu\" not implemented for '{_dtype.TYPE_NAMES[d.name]}'")
    start, end, step = _num(start), _num(end), _num(step)
    # (converted to the accumulation type first: int64 for the integer dtypes, float for float16/bfloat16)
    check_numbers_fit(_dtype.float32 if d in (_dtype.float16, _dtype.bfloat16) else
                      _dtype.float64 if d.is_floating_point else _dtype.int64, start, end, step)
    if not (step > 0 or step < 0):  # (torch's checks on the numbers as given)
        raise RuntimeError("step must be nonzero")
    if not (math.isfinite(start) and math.isfinite(end)):
        raise RuntimeError(f"unsupported range: {_fmt_num(start)} -> {_fmt_num(end)}")
    if (step > 0 and end < start) or (step < 0 and end > start):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    if not d.is_floating_point:  # integers: truncated bounds and step, C's integer division
        s0, e0, st = int(start), int(end), int(step)
        if st == 0:  # (torch divides by zero here)
            raise RuntimeError("step must be nonzero")
        q = abs(e0 - s0) // abs(st)
        n = (q if (e0 - s0 >= 0) == (st > 0) else -q) + 1
        check_alloc((max(n, 0),), d)
        return _out(_host_or_put((s0 + np.arange(max(n, 0), dtype=np.int64) * st).astype(d.np), canonical(device),
                                 requires_grad), out)
    # torch computes the length and the values in the accumulation type: float for float16/bfloat16, so
    # range(0, 1, 0.001, dtype=float16) has 1000 values (1 / 0.001 is 999.99994 in float32), not 1001
    acc = np.float32 if d.itemsize < 4 else np.float64
    s0, e0, st = acc(start), acc(end), acc(step)
    n = int((e0 - s0) / st + acc(1))  # (+ 1 in the accumulation type: 63.999996f + 1 is 65; truncated)
    check_alloc((max(n, 0), 8), 8)  # built in float64 first
    vals = s0 + np.arange(n, dtype=acc) * st
    return _out(_host_or_put(vals.astype(d.np), canonical(device), requires_grad), out)


_NO_STEPS = type("_NoSteps", (), {"__repr__": lambda self: "<required>"})()  # linspace(0, 1): no steps given


def _steps_arg(op, start, end, steps, extra):
    """``steps`` of linspace/logspace as an int: torch's parser takes an int or a 0-d integer tensor (a
    library may pass an element of a levels tensor); anything else is its invalid-combination TypeError."""
    if isinstance(steps, Tensor) and steps.ndim == 0 and not (steps.dtype.is_floating_point or steps.dtype.is_complex
                                                              or steps.dtype == _dtype.bool):
        return int(steps)
    if isinstance(steps, numbers.Integral) and not isinstance(steps, bool):
        return int(steps)
    given = (start, end) if steps is _NO_STEPS else (start, end, steps)  # (no steps: the parser's error too)
    got = ", ".join("Tensor" if isinstance(v, Tensor) else type(v).__name__ for v in given)
    tail = ("*, Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, "
            "bool pin_memory = False, bool requires_grad = False)\n")
    sigs = "".join(f" * ({a} start, {b} end, int steps, {extra}{tail}"
                   for a, b in (("Tensor", "Tensor"), ("Number", "Tensor"), ("Tensor", "Number"), ("Number", "Number")))
    raise TypeError(f"{op}() received an invalid combination of arguments - got ({got}), but expected one of:\n"
                     + sigs)


def _check_complex_bounds(name, start, end, d):
    """torch's error for a complex bound and a real ``dtype``: the dtype it infers (the default complex one)
    cannot be cast to it."""
    if not d.is_complex and any(isinstance(v, complex) for v in (start, end)):
        raise RuntimeError(f"torch.{name}(): inferred dtype {_dtype.C_NAMES[_dtype.default_complex().name]} can't be "
                           f"safely cast to passed dtype {_dtype.TYPE_NAMES[d.name]}")


def _check_0d_bounds(name, start, end):
    """torch's error for tensor bounds that are not 0-d, naming each bound given as a tensor."""
    given = [(k, v.ndim) for k, v in (("start", start), ("end", end)) if isinstance(v, Tensor)]
    if any(nd for _, nd in given):
        got = " and ".join(f"{k} with {nd} dimension(s)" for k, nd in given)
        raise RuntimeError(f"{name} only supports 0-dimensional start and end tensors, but got {got}.")


def linspace(start, end, steps=_NO_STEPS, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """``steps`` evenly spaced values from start to end inclusive."""
    steps = _steps_arg("linspace", start, end, steps, "")
    _check_0d_bounds("linspace", start, end)
    traced = [v._value for v in (start, end) if isinstance(v, Tensor) and isinstance(v._value, jax.core.Tracer)]
    if traced and steps >= 0:  # tensor bounds under vmap / compile: computed on the traced values
        d = _dtype.to_dtype(dtype) if dtype is not None else (
            _dtype.default_complex() if any(jnp.iscomplexobj(v) for v in traced) else _dtype.get_default_dtype())
        return _out(_finish(_linspace_traced(start, end, steps, d), canonical(device), requires_grad), out)
    start, end = _num(start), _num(end)
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    d = _dtype.to_dtype(dtype) if dtype is not None else (
        _dtype.default_complex() if isinstance(start, complex) or isinstance(end, complex)
        else _dtype.get_default_dtype())
    _check_complex_bounds("linspace", start, end, d)
    check_alloc((steps,), d)
    check_alloc((steps, 2), 16)  # the float64 index and value buffers built first
    if d in (_dtype.float32, _dtype.float64) and steps > 1:
        vals = _linspace_fma(start, end, steps, np.dtype(d.np).type)
    elif d in (_dtype.complex64, _dtype.complex128) and steps > 1:  # (each part as a real linspace)
        ft = np.float32 if d is _dtype.complex64 else np.float64
        lo, hi = complex(start), complex(end)
        vals = _linspace_fma(lo.real, hi.real, steps, ft) + 1j * _linspace_fma(lo.imag, hi.imag, steps, ft)
    elif d in (_dtype.float16, _dtype.bfloat16) and steps > 1 and isinstance(start, numbers.Real) and \
            isinstance(end, numbers.Real):
        with np.errstate(over="ignore", invalid="ignore"):
            vals = _linspace_half(start, end, steps, np.dtype(d.np))
    elif d.is_floating_point or d.is_complex:
        # torch computes from both ends for symmetry: first half from start, second half from end
        step = (end - start) / (steps - 1) if steps > 1 else 0
        i = np.arange(steps, dtype=np.float64)
        half = steps // 2
        vals = np.where(i < half, start + step * i, end - step * (steps - 1 - i)) if steps > 1 else \
            np.full(steps, start, dtype=np.float64 if not d.is_complex else np.complex128)
    elif d is _dtype.bool and steps > 1:
        raise NotImplementedError("\"linspace_cpu\" not implemented for 'Bool'")
    elif d._kind == 1 and isinstance(start, numbers.Real) and isinstance(end, numbers.Real) and steps:
        vals = _linspace_int(start, end, steps, d)
    else:
        vals = np.linspace(start, end, steps)
        vals = np.trunc(vals) if d._kind == 1 else vals
    return _out(_host_or_put(np.asarray(vals).astype(d.np), canonical(device), requires_grad), out)


def _linspace_int(start, end, steps, d):
    """torch's integer linspace: the bounds converted to the dtype (checked, truncated; uint8 wraps -1 to
    255), ``step = (double(end) - double(start)) / (steps - 1)``, then ``start + step * i`` up to the middle
    and ``end - step * (steps - 1 - i)`` after it, each one fused multiply-add (but in torch's x86 DEFAULT
    build), truncated."""
    check_numbers_fit(d, start, end)
    lo, hi = (int(v) % 256 if d is _dtype.uint8 else int(v) for v in (start, end))
    if steps == 1:
        return np.asarray([lo])
    step = (float(hi) - float(lo)) / (steps - 1)
    i = np.arange(steps, dtype=np.float64)
    one = np.ones(steps)
    if aten_fma():
        vals = np.where(i < steps // 2, _fma64(step * one, i, lo * one), _fma64(-step * one, steps - 1 - i, hi * one))
    else:  # (x86's DEFAULT build rounds the product and the sum each)
        vals = np.where(i < steps // 2, lo + step * i, hi - step * (steps - 1 - i))
    return np.trunc(vals).astype(np.int64)


def _fma64(a, b, c):
    """``a * b + c`` rounded once, for float64 arrays (Dekker's exact product, then an error-compensated
    sum): torch's CPU linspace kernel uses fused multiply-adds."""
    p = a * b
    ah = a * 134217729.0
    ah = ah - (ah - a)
    bh = b * 134217729.0
    bh = bh - (bh - b)
    al, bl = a - ah, b - bh
    e = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    s = p + c
    v = s - p
    return s + (e + ((p - (s - v)) + (c - v)))


def _linspace_fma(start, end, steps, dt):
    """torch's float32/float64 linspace bit for bit: bounds and step in the output dtype, the first half
    ``start + step * i`` and the second ``end - step * (steps - 1 - i)``, each one fused multiply-add (each
    product and sum rounded to the dtype in torch's x86 DEFAULT build)."""
    lo, hi = dt(start), dt(end)
    step = (hi - lo) / dt(steps - 1)
    if not aten_fma():  # (x86's DEFAULT build: each product and sum rounded to the dtype)
        i = np.arange(steps).astype(dt)
        return np.where(np.arange(steps) < steps // 2, lo + step * i, hi - step * (dt(steps - 1) - i))
    i = np.arange(steps, dtype=np.float64)
    up, down = i, steps - 1 - i
    st, lo64, hi64 = np.float64(step), np.float64(lo), np.float64(hi)
    if dt is np.float32:  # a float32 product is exact in float64: one float64 add, one rounding to float32
        vals = np.where(i < steps // 2, lo64 + st * up, hi64 - st * down)
    else:
        n = np.ones(steps)
        vals = np.where(i < steps // 2, _fma64(st * n, up, lo64 * n), _fma64(-st * n, down, hi64 * n))
    return vals.astype(dt)


def _linspace_half(start, end, steps, t):
    """torch's float16/bfloat16 linspace bit for bit: its kernel does c10::Half/BFloat16 arithmetic, each
    product and sum rounded to the dtype: the bounds, the step ``(end - start) / (steps - 1)`` (each operand
    rounded), the index
    itself (inf past 65504 in float16), ``step * i``, then ``start + step * i`` up to the middle and
    ``end - step * (steps - 1 - i)`` after it."""
    def rnd(x):  # c10's float -> half -> float
        return np.asarray(x, dtype=np.float32).astype(t).astype(np.float32)
    if t == np.float16 and any(math.isfinite(v) and abs(v) > 65504 for v in (start, end)):
        raise RuntimeError("value cannot be converted to type c10::Half without overflow")
    lo, hi = rnd(start), rnd(end)
    step = rnd(rnd(hi - lo) / rnd(np.float32(steps - 1)))  # (steps - 1 too: 1/69999 is 0 in float16, as in torch)
    i = np.arange(steps)
    up = rnd(lo + rnd(step * rnd(i.astype(np.float32))))
    down = rnd(hi - rnd(step * rnd((steps - 1 - i).astype(np.float32))))
    return np.where(i < steps // 2, up, down).astype(t)


def _linspace_traced(start, end, steps, d):
    # linspace's formula (first half up from start, second half down from end) on traced 0-d bounds
    ct = np.complex128 if d.is_complex else np.float64
    lo, hi = (jnp.asarray(v._value if isinstance(v, Tensor) else v).astype(ct) for v in (start, end))
    if steps <= 1:
        return jnp.broadcast_to(lo, (steps,)).astype(d.np)
    step = (hi - lo) / (steps - 1)
    i = np.arange(steps, dtype=np.float64)
    vals = jnp.where(i < steps // 2, lo + step * i, hi - step * (steps - 1 - i))
    return (jnp.trunc(vals) if d._kind == 1 else vals).astype(d.np)


def logspace(start, end, steps=_NO_STEPS, base=10.0, *, out=None, dtype=None, layout=None, device=None,
             requires_grad=False):
    """``base ** linspace(start, end, steps)``."""
    steps = _steps_arg("logspace", start, end, steps, "float base = 10.0, ")
    _check_0d_bounds("logspace", start, end)
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    start, end = _num(start), _num(end)
    d = _dtype.to_dtype(dtype) if dtype is not None else (
        _dtype.default_complex() if isinstance(start, complex) or isinstance(end, complex)
        else _dtype.get_default_dtype())
    check_alloc((steps,), d)
    check_alloc((steps, 2), 8)  # the float64 buffers built first
    _check_complex_bounds("logspace", start, end, d)
    if not d.is_complex and steps:
        with np.errstate(all="ignore"):
            vals = _logspace_real(start, end, steps, float(base), d)
    elif d in (_dtype.complex64, _dtype.complex128) and steps > 1 and float(base) > 0:
        with np.errstate(all="ignore"):
            vals = _logspace_complex(complex(start), complex(end), steps, float(base), d)
    else:
        lin = np.linspace(start, end, steps) if steps != 1 else np.asarray([start], np.result_type(start, 1.0))
        with np.errstate(all="ignore"):  # (0 ** complex: NaN as in torch, no warning)
            vals = np.power(complex(base) if d.is_complex else float(base), lin)
    return _out(_host_or_put(vals.astype(d.np), canonical(device), requires_grad), out)


@functools.cache
def _libm():
    """The C library's float functions (expf, sinf, cosf, logf) torch's complex64 logspace calls; None where
    there is no glibc to load."""
    try:
        lib = ctypes.CDLL("libm.so.6")
        for name in ("expf", "sinf", "cosf", "logf"):
            fn = getattr(lib, name)
            fn.restype, fn.argtypes = ctypes.c_float, [ctypes.c_float]
        return lib
    except (OSError, AttributeError):
        return None


def _logspace_complex(lo, hi, steps, base, d):
    """torch's complex logspace: each part of the bounds in the part's dtype, the step ``(end - start) *
    (1 / (steps - 1))`` (c10's complex division), the exponents ``z`` from both ends in that dtype (each
    product and sum rounded), then ``exp(z * log(base))`` in the dtype: glibc's expf/cosf/sinf for complex64
    (its cexpf), exp/cos/sin for complex128."""
    ft = np.float32 if d is _dtype.complex64 else np.float64
    ar, ai, er, ei = ft(lo.real), ft(lo.imag), ft(hi.real), ft(hi.imag)
    scl = ft(1) / ft(steps - 1)
    sr, si = (er - ar) * scl, (ei - ai) * scl
    i = np.arange(steps)
    up, down = i.astype(ft), (steps - 1 - i).astype(ft)
    zr = np.where(i < steps // 2, ar + sr * up, er - sr * down)
    zi = np.where(i < steps // 2, ai + si * up, ei - si * down)
    lib = _libm() if ft is np.float32 else None
    if lib is not None:
        lb = ft(lib.logf(float(ft(base))))
        exp, cos, sin = (lambda x: float(ft(lib.expf(x)))), lib.cosf, lib.sinf
    else:
        lb = ft(math.log(float(ft(base))))
        exp, cos, sin = (lambda x: math.exp(x) if x < 709.0 else math.inf), math.cos, math.sin
    out = []
    for wr, wi in zip((zr * lb).tolist(), (zi * lb).tolist()):
        e = exp(wr)
        out.append((e * cos(wi), e * sin(wi)) if wi else (e, wi))  # (C's cexp of a real: the imaginary 0 kept)
    parts = np.array(out, dtype=np.float64).astype(ft).reshape(steps, 2)
    vals = np.empty(steps, np.complex64 if ft is np.float32 else np.complex128)
    vals.real, vals.imag = parts[:, 0], parts[:, 1]  # (not re + 1j * im: 0 * inf would be NaN)
    return vals


def _c_pow(base, exponents):
    """C's ``pow(base, x)`` for each float64 ``x`` (correctly rounded here; NumPy's vectorized power is not
    always: it may use SIMD approximations)."""
    try:
        return np.fromiter(map(math.pow, itertools.repeat(base), exponents), np.float64, len(exponents))
    except (OverflowError, ValueError):  # (inf, NaN: NumPy's scalar power calls C's pow too)
        b = np.float64(base)
        return np.array([b ** np.float64(x) for x in exponents], np.float64)


def _logspace_real(start, end, steps, base, d):
    """torch's CPU logspace for a real dtype, value for value. One step is ``pow(base, start)`` written as by
    ``fill_``. Otherwise the bounds are converted to the dtype first (checked; integers truncated),
    ``step = double(end - start) / (steps - 1)`` (the difference in the dtype's arithmetic), the exponents
    ``start + step * i`` up to the middle and ``end - step * (steps - 1 - i)`` after it, in double (product and
    sum rounded each), then ``pow(base, exponent)`` converted to the dtype: through float for
    float16/bfloat16, for integers truncated as x86 converts (through int32 for the narrow types: out of range
    is its lowest value, wrapped)."""
    t = np.dtype(d.np)
    if steps == 1:
        vals = _c_pow(base, [float(start)])
        if d not in (_dtype.float16, _dtype.bfloat16):  # (fill_'s check: but a float16 of 1e300 is inf)
            check_scalar_fits(float(vals[0]), d)
        if d is _dtype.bool:
            return vals != 0
    elif d is _dtype.bool:
        raise NotImplementedError("\"logspace_cpu\" not implemented for 'Bool'")
    elif d.is_floating_point:
        check_numbers_fit(d, start, end)
        lo, hi = np.asarray(start).astype(t), np.asarray(end).astype(t)
        if t.itemsize < 4:  # (c10 half arithmetic: in float, rounded to the dtype)
            diff = (hi.astype(np.float32) - lo.astype(np.float32)).astype(t)
        else:
            diff = hi - lo
        lo, hi, step = float(lo), float(hi), float(diff) / (steps - 1)
    else:
        check_numbers_fit(d, start, end)
        lo, hi = (int(v) % 256 if d is _dtype.uint8 else int(v) for v in (start, end))
        step = float(hi - lo) / (steps - 1)  # (C's integer promotion: no wrap)
    if steps > 1:
        i = np.arange(steps, dtype=np.float64)
        vals = _c_pow(base, np.where(i < steps // 2, lo + step * i, hi - step * (steps - 1 - i)).tolist())
    if d is _dtype.bfloat16:  # (c10's BFloat16 of a NaN is the positive quiet NaN, whatever its sign)
        return np.where(np.isnan(vals), np.float32(np.nan), vals.astype(np.float32)).astype(t)
    if d.is_floating_point:
        return vals.astype(np.float32).astype(t) if t.itemsize < 4 else vals.astype(t)
    lim = 2.0 ** 63 if t.itemsize == 8 or t == np.uint32 else 2.0 ** 31
    ints = np.where((vals < lim) & (vals > -lim), np.trunc(np.nan_to_num(vals)), -lim)  # (NaN too)
    return ints.astype(np.int64).astype(t)


_EYE = Signature("eye", [f"int n, {m}*, Tensor? out=None, ScalarType? dtype=None, Layout? layout=None, "
                         "Device? device=None, bool pin_memory=False, bool requires_grad=False" for m in ("", "int m, ")])


class _NoM:
    def __repr__(self):
        return "<not given>"


_NO_M = _NoM()  # (eye's m not given: an explicit None is torch's parser error)


def eye(n, m=_NO_M, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """The identity matrix (n x m)."""
    args = (n,) if m is _NO_M else (n, m)
    try:
        if any(a is True or a is False or a is None for a in args):  # (torch's parser takes no bool or None
            raise TypeError("eye")  # for an int)
        n, m = int_arg(n, "n", 1), None if m is _NO_M else int_arg(m, "m", 2)
    except TypeError:  # torch's parser error: the overload listing where both overloads could take the call
        given = {k: v for k, v in (("out", out), ("dtype", dtype), ("layout", layout), ("device", device))
                 if v is not None}
        err = _EYE.error(args, {**given, **({"requires_grad": True} if requires_grad else {})})
        if err is not None:
            raise TypeError(err.as_function) from None
        raise
    if n < 0:
        raise RuntimeError(f"n must be greater or equal to 0, got {n}")
    m = n if m is None else m
    d = _dtype.to_dtype(dtype) if dtype is not None else \
        out.dtype if isinstance(out, Tensor) else _dtype.get_default_dtype()  # (torch fills out= in its dtype)
    if m < 0:
        raise RuntimeError(f"m must be greater or equal to 0, got {m}")
    check_alloc((n, m), d)
    return _out(_host_or_put(np.eye(n, m, dtype=d.np), canonical(device), requires_grad), out)


def _tri_indices(numpy_fn, row, col, offset, dtype, device):
    row, col, offset = int_arg(row, "row", 1), int_arg(col, "col", 2), int_arg(offset, "offset", 3)
    for name, v in (("row", row), ("col", col)):
        if v < 0:  # (torch's words, its missing space included)
            raise RuntimeError(f"{name} must be non-negative, got{v}")
    check_alloc((row, col), 8)
    r, c = numpy_fn(row, offset, col)
    d = _dtype.to_dtype(dtype) if dtype is not None else _dtype.int64
    return _host_or_put(np.stack([r, c]).astype(d.np), canonical(device), False)


def tril_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    """The (row, column) indices of the lower triangle of a ``row`` x ``col`` matrix, as a 2 x N tensor.

    >>> import torchlike as torch
    >>> torch.tril_indices(2, 2).tolist()
    [[0, 1, 1], [0, 0, 1]]
    """
    return _tri_indices(np.tril_indices, row, col, offset, dtype, device)


def triu_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    """The (row, column) indices of the upper triangle of a ``row`` x ``col`` matrix, as a 2 x N tensor.

    >>> import torchlike as torch
    >>> torch.triu_indices(2, 3, 1).tolist()
    [[0, 0, 1], [1, 2, 2]]
    """
    return _tri_indices(np.triu_indices, row, col, offset, dtype, device)
