"""torch.testing.assert_close / make_tensor over torchlike tensors (numpy does the comparing)."""
from __future__ import annotations

import collections.abc
import math
import warnings

import numpy as np

from .. import _dtype
from ..tensor import Tensor
from .._creation import as_tensor, empty, from_numpy
from .._ops.complex_ops import view_as_complex
from .._ops.random_ops import randint

__all__ = ["assert_close", "assert_allclose", "make_tensor"]

# default (rtol, atol) per dtype, as torch.testing documents them
_TOLS = {"float16": (1e-3, 1e-5), "bfloat16": (1.6e-2, 1e-5), "float32": (1.3e-6, 1e-5),
         "float64": (1e-7, 1e-7), "complex32": (1e-3, 1e-5), "complex64": (1.3e-6, 1e-5),
         "complex128": (1e-7, 1e-7)}


# assert_allclose's own defaults (torch passes these dtype_precisions to default_tolerances: any other dtype,
# bfloat16 and complex ones included, gets (0, 0))
_ALLCLOSE_TOLS = {"float16": (1e-3, 1e-3), "float32": (1e-4, 1e-5), "float64": (1e-5, 1e-8)}


def _tols(dtypes, rtol, atol, table=_TOLS):
    if (rtol is None) != (atol is None):
        raise ValueError(f"Both 'rtol' and 'atol' must be either specified or omitted, but got no "
                         f"{'rtol' if rtol is None else 'atol'}.")
    if rtol is not None:
        return rtol, atol
    pairs = [table.get(d.name, (0.0, 0.0)) for d in dtypes]
    return max(p[0] for p in pairs), max(p[1] for p in pairs)


def _fail(msg, default, path):
    text = default
    if msg is not None:
        text = msg(default) if callable(msg) else msg
    elif path:
        text += "\n\nThe failure occurred for item " + "".join(f"[{p!r}]" for p in path)
    raise AssertionError(text)


def _fmt_index(i):
    return "(" + ", ".join(str(int(v)) for v in i) + ("," if len(i) == 1 else "") + ")"


def _compare_arrays(a, e, rtol, atol, equal_nan, exact, msg, path, scalar):
    if scalar:  # compared as Python numbers
        work = np.complex128 if np.iscomplexobj(a) or np.iscomplexobj(e) else np.float64
    elif exact:  # integer / bool tensors: differences in int64, relative ones in float32 like torch
        work = np.int64
    else:  # float tensors: differences in the promoted dtype
        work = np.result_type(a.dtype, e.dtype)
    a64, e64 = a.astype(work), e.astype(work)
    if exact:
        ok = a64 == e64
    else:
        with np.errstate(invalid="ignore", over="ignore"):
            ok = np.abs(a64 - e64) <= atol + rtol * np.abs(e64)
        ok |= a64 == e64
        if equal_nan:
            ok |= np.isnan(a64) & np.isnan(e64)
    if ok.all():
        return
    # torch says "equal" (and no tolerances) where both tolerances are 0, whatever the dtype; an integer
    # difference shows as an int
    equality = rtol == 0 and atol == 0
    integral = a.dtype.kind in "biu" and e.dtype.kind in "biu"
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        absdiff = np.abs(a64 - e64)
        if work == np.int64:
            reldiff = absdiff.astype(np.float32) / np.abs(e64).astype(np.float32)
        else:
            reldiff = absdiff / np.abs(e64)
    if scalar:
        av, ev = a64.reshape(-1)[0], e64.reshape(-1)[0]
        cast = (lambda v: v) if np.iscomplexobj(a64) else int if integral else float  # (torch's .item())
        def shown(v, arr):  # each value as its own .item() / Python number
            return {"b": bool, "i": int, "u": int, "c": complex}.get(arr.dtype.kind, float)(v)
        kind = "equal" if equality else "close"
        text = (f"Scalars are not {kind}!\n\nExpected {shown(ev, e)} but got {shown(av, a)}.\n"
                f"Absolute difference: {cast(absdiff.reshape(-1)[0])}"
                + ("" if equality else f" (up to {atol} allowed)")
                + f"\nRelative difference: {(float if integral else cast)(reldiff.reshape(-1)[0])}"
                + ("" if equality else f" (up to {rtol} allowed)"))
        _fail(msg, text, path)
    bad = ~ok
    n_bad, total = int(bad.sum()), ok.size
    masked_abs = np.where(bad, np.nan_to_num(absdiff, nan=np.inf), -1)
    masked_rel = np.where(bad, np.nan_to_num(reldiff, nan=np.inf), -1)
    ia = np.unravel_index(int(np.argmax(masked_abs)), ok.shape)
    ir = np.unravel_index(int(np.argmax(masked_rel)), ok.shape)

    def show(v):
        v = float(v)
        return str(int(v)) if integral and v == int(v) and not math.isinf(v) else str(v)
    kind = "equal" if equality else "close"
    text = (f"Tensor-likes are not {kind}!\n\nMismatched elements: {n_bad} / {total} "
            f"({100.0 * n_bad / total:.1f}%)\n"
            f"Greatest absolute difference: {show(absdiff[ia])} at index {_fmt_index(ia)}"
            + ("" if equality else f" (up to {atol} allowed)")
            + f"\nGreatest relative difference: {float(reldiff[ir])} at index {_fmt_index(ir)}"
            + ("" if equality else f" (up to {rtol} allowed)"))
    _fail(msg, text, path)


def _as_np(t):
    t = t.detach()
    if str(t.layout) != "torch.strided":  # (compared by value: torch's pairs compare the dense values too)
        t = t.to_dense()
    return np.asarray(t._value)  # (bfloat16 stays bfloat16: torch's differences round to it as float16's do)


def _compare(actual, expected, path, opts):
    msg = opts["msg"]
    if isinstance(actual, Tensor) or isinstance(expected, Tensor):
        # torch's TensorLikePair takes two related tensors only (one's class an instance of the other's; the
        # same class where allow_subclasses=False)
        if not (isinstance(actual, Tensor) and isinstance(expected, Tensor)) or not (
                isinstance(actual, type(expected)) or isinstance(expected, type(actual))) or (
                not opts["allow_subclasses"] and type(actual) is not type(expected)):
            raise TypeError(f"No comparison pair was able to handle inputs of type {type(actual)} and "
                            f"{type(expected)}.")
        if actual.shape != expected.shape:
            _fail(msg, f"The values for attribute 'shape' do not match: {actual.shape} != {expected.shape}.", path)
        if actual.layout != expected.layout:  # (torch's order: shape, layout or stride, device, dtype)
            if opts["check_layout"]:
                _fail(msg, f"The values for attribute 'layout' do not match: {actual.layout} != "
                           f"{expected.layout}.", path)
        elif opts["check_stride"] and str(actual.layout) == "torch.strided" and actual.stride() != expected.stride():
            _fail(msg, f"The values for attribute 'stride()' do not match: {actual.stride()} != "
                       f"{expected.stride()}.", path)
        if opts["check_device"] and actual.device != expected.device:
            _fail(msg, f"The values for attribute 'device' do not match: {actual.device} != {expected.device}.",
                  path)
        if opts["check_dtype"] and actual.dtype is not expected.dtype:
            _fail(msg, f"The values for attribute 'dtype' do not match: {actual.dtype} != {expected.dtype}.",
                  path)
        dts = [actual.dtype, expected.dtype]
        exact = all(not (d.is_floating_point or d.is_complex) for d in dts) and opts["rtol"] is None
        rtol, atol = _tols(dts, opts["rtol"], opts["atol"])
        _compare_arrays(_as_np(actual), _as_np(expected), rtol, atol, opts["equal_nan"], exact, msg, path,
                        scalar=actual.ndim == 0)
        return
    numbers = (int, float, complex, bool, np.number, np.bool_)
    if isinstance(actual, numbers) and isinstance(expected, numbers):
        if isinstance(actual, (bool, np.bool_)) and isinstance(expected, (bool, np.bool_)):  # torch's BooleanPair
            if bool(actual) is not bool(expected):
                _fail(msg, f"Booleans mismatch: {actual} is not {expected}", path)
            return
        if opts["check_dtype"] and type(actual) is not type(expected) and not (
                isinstance(actual, np.number) or isinstance(expected, np.number)):
            _fail(msg, f"The values for attribute 'dtype' do not match: {type(actual)} != {type(expected)}.", path)
        is_float = isinstance(actual, (float, complex, np.floating, np.complexfloating)) or \
            isinstance(expected, (float, complex, np.floating, np.complexfloating))
        rtol, atol = (opts["rtol"], opts["atol"]) if opts["rtol"] is not None else \
            ((1e-7, 1e-7) if is_float else (0.0, 0.0))
        _compare_arrays(np.asarray(actual), np.asarray(expected), rtol, atol, opts["equal_nan"],
                        not is_float and opts["rtol"] is None, msg, path, scalar=True)
        return
    if isinstance(actual, np.ndarray) and isinstance(expected, np.ndarray):
        return _compare(from_numpy(actual), from_numpy(expected), path, opts)
    if isinstance(actual, collections.abc.Mapping) and isinstance(expected, collections.abc.Mapping):
        if set(actual) != set(expected):
            _fail(msg, f"The keys of the mappings do not match:\nMissing keys in the actual mapping: "
                       f"{sorted(set(expected) - set(actual), key=str)}\nAdditional keys in the actual mapping: "
                       f"{sorted(set(actual) - set(expected), key=str)}", path)
        for k in expected:
            _compare(actual[k], expected[k], path + [k], opts)
        return
    seq = collections.abc.Sequence
    if isinstance(actual, seq) and isinstance(expected, seq) and not isinstance(actual, str) \
            and not isinstance(expected, str):
        if len(actual) != len(expected):
            _fail(msg, f"The length of the sequences mismatch: {len(actual)} != {len(expected)}", path)
        for i, (a, e) in enumerate(zip(actual, expected)):
            _compare(a, e, path + [i], opts)
        return
    if actual is None and expected is None:
        return
    if type(actual) is type(expected) and actual == expected:
        return
    raise TypeError(f"No comparison pair was able to handle inputs of type {type(actual)} and {type(expected)}.")


def assert_close(actual, expected, *, allow_subclasses=True, rtol=None, atol=None, equal_nan=False,
                 check_device=True, check_dtype=True, check_layout=True, check_stride=False, msg=None):
    """Assert ``actual`` and ``expected`` are close (tensors, scalars, numpy arrays, nested
    sequences/mappings), with torch's default tolerances per dtype and its failure messages.

    >>> import torchlike as torch
    >>> torch.testing.assert_close(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 2.0 + 1e-7]))
    """
    _compare(actual, expected, [], dict(rtol=rtol, atol=atol, equal_nan=equal_nan, check_device=check_device,
                                        check_dtype=check_dtype, check_stride=check_stride, msg=msg,
                                        allow_subclasses=allow_subclasses, check_layout=check_layout))


def assert_allclose(actual, expected, rtol=None, atol=None, equal_nan=True, msg=""):
    """Deprecated torch API: ``assert_close`` without the dtype check."""
    warnings.warn("`torch.testing.assert_allclose()` is deprecated since 1.12 and will be removed in a future "
                  "release. Please use `torch.testing.assert_close()` instead. You can find detailed upgrade "
                  "instructions in https://github.com/pytorch/pytorch/issues/61844.", FutureWarning, stacklevel=2)
    if not isinstance(actual, Tensor):
        actual = as_tensor(actual)
    if not isinstance(expected, Tensor):
        expected = as_tensor(expected, dtype=actual.dtype)
    if rtol is None and atol is None:
        rtol, atol = _tols([actual.dtype, expected.dtype], None, None, _ALLCLOSE_TOLS)
    assert_close(actual, expected, rtol=rtol, atol=atol, equal_nan=equal_nan, check_dtype=False,
                 check_device=True, msg=msg or None)


def make_tensor(*shape, dtype, device=None, low=None, high=None, requires_grad=False, noncontiguous=False,
                exclude_zero=False, memory_format=None):
    """A tensor of ``shape`` filled with uniform values in ``[low, high)`` (default ``[-9, 9)``; integers
    ``[-9, 10)``, bools ``[0, 2)``), as ``torch.testing.make_tensor``: the same draws from the global
    generator (``randint``, ``uniform_``), so a seeded program gets torch's values and later draws.

    >>> import torchlike as torch
    >>> torch.testing.make_tensor(2, 3, dtype=torch.int64, low=0, high=4).shape
    torch.Size([2, 3])
    """
    if len(shape) == 1 and isinstance(shape[0], collections.abc.Sequence):
        shape = tuple(shape[0])
    if noncontiguous and memory_format is not None:
        raise ValueError("The parameters `noncontiguous` and `memory_format` are mutually exclusive, but got "
                         f"noncontiguous={noncontiguous} and memory_format={memory_format}")
    integral = dtype is _dtype.bool or not (dtype.is_floating_point or dtype.is_complex)
    if requires_grad and integral:
        raise ValueError(f"`requires_grad=True` is not supported for boolean and integral dtypes, but got dtype={dtype}")
    noncontiguous = noncontiguous and math.prod(shape) > 1
    if noncontiguous:  # twice the last dimension, then every other element (offset 1), as torch
        shape = (*shape[:-1], 2 * shape[-1])
    if dtype is _dtype.bool:
        low, high = _low_high(low, high, dtype, 0, 2, 0, 2)
        result = randint(low, high, shape, device=device, dtype=dtype)
    elif integral:
        info = _dtype.iinfo(dtype)
        low, high = _low_high(low, high, dtype, info.min, info.max + (dtype is not _dtype.int64), -9, 10)
        result = randint(low, high, shape, device=device, dtype=dtype)
    else:
        fmax = _dtype.finfo(dtype).max
        low, high = _low_high(low, high, dtype, _dtype.finfo(dtype).min, fmax, -9, 9)
        # a complex tensor draws its (real, imaginary) pairs as torch's uniform_ into view_as_real(result)
        real = dtype.to_real() if dtype.is_complex else dtype
        result = empty((*shape, 2) if dtype.is_complex else shape, device=device, dtype=real)
        if high - low >= fmax:  # uniform_ needs to - from within the dtype's range: draw half, then double
            result.uniform_(low / 2, high / 2).mul_(2)
        else:
            result.uniform_(low, high)
        if dtype.is_complex:
            result = view_as_complex(result)
    if noncontiguous:
        result = result[..., 1::2]
    elif memory_format is not None:
        result = result.clone(memory_format=memory_format)
    if exclude_zero:
        result[result == 0] = 1 if integral else _dtype.finfo(dtype).tiny
    if not integral:
        result.requires_grad = requires_grad
    return result


def _low_high(low, high, dtype, lowest, highest, default_low, default_high):
    """torch's checks and clamping of make_tensor's ``[low, high)`` (integral bounds ceiled)."""
    low = default_low if low is None else low
    high = default_high if high is None else high
    floating = dtype.is_floating_point or dtype.is_complex
    if any(isinstance(v, float) and math.isnan(v) for v in (low, high)):
        raise ValueError(f"`low` and `high` cannot be NaN, but got low={low} and high={high}")
    elif low == high and floating:
        warnings.warn("Passing `low==high` to `torch.testing.make_tensor` for floating or complex types is "
                      "deprecated since 2.1 and will be removed in 2.3. Use `torch.full(...)` instead.",
                      FutureWarning, stacklevel=3)
    elif low >= high:
        raise ValueError(f"`low` must be less than `high`, but got {low} >= {high}")
    elif high < lowest or low >= highest:
        raise ValueError(f"The value interval specified by `low` and `high` is [{low}, {high}), but {dtype} only "
                         f"supports [{lowest}, {highest})")
    low, high = min(max(low, lowest), highest), min(max(high, lowest), highest)
    return (low, high) if floating else (math.ceil(low), math.ceil(high))
