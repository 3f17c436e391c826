"""torch dtypes as objects over numpy/JAX dtypes, and torch's type promotion.

One function owns promotion: :func:`result_type`.  Every op asks it for the result dtype and
passes that dtype to JAX explicitly (x64 is enabled, so JAX's own defaults would widen).
"""
from __future__ import annotations

import math

import ml_dtypes
import numpy as np

from ._errors import TYPE_NAMES, argument_error

__all__ = [
    "dtype", "float32", "float", "float64", "double", "float16", "half", "bfloat16", "int8", "int16",
    "int32", "int", "int64", "long", "short", "uint8", "uint16", "uint32", "uint64", "bool",
    "complex64", "cfloat", "complex128", "cdouble", "complex32", "chalf", "float8_e4m3fn", "float8_e5m2",
    "float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e8m0fnu", "finfo", "iinfo", *"""bits1x8 bits2x4 bits4x2 bits8
    bits16 bit int1 int2 int3 int4 int5 int6 int7 uint1 uint2 uint3 uint4 uint5 uint6 uint7 float4_e2m1fn_x2""".split(),
    "qint8", "quint8", "qint32", "quint4x2", "quint2x4",
    "get_default_dtype", "set_default_dtype", "promote_types", "result_type", "can_cast",
]


class dtype:
    """A torch dtype: ``torchlike.float32``, ``torchlike.int64``, ...

    >>> import torchlike
    >>> torchlike.float32.is_floating_point, torchlike.int64.itemsize
    (True, 8)
    """

    __slots__ = ("name", "np", "is_floating_point", "is_complex", "is_signed", "itemsize", "_kind", "_rank")

    def __init__(self, name, np_dtype, kind, rank):
        self.name = name
        self.np = np.dtype(np_dtype)
        self._kind = kind  # 0 bool, 1 int, 2 float, 3 complex
        self._rank = rank
        self.is_floating_point = kind == 2
        self.is_complex = kind == 3
        self.is_signed = name not in ("uint8", "uint16", "uint32", "uint64", "bool")
        self.itemsize = self.np.itemsize

    def __repr__(self):
        return "torch." + self.name

    def __reduce__(self):
        return (_dtype_by_name, (self.name,))

    def to_real(self):
        return {"complex64": float32, "complex128": float64, "complex32": float16}.get(self.name, self)

    def to_complex(self):
        return {"float32": complex64, "float64": complex128, "float16": complex32,
                "bfloat16": complex64}.get(self.name, self)


bool = dtype("bool", np.bool_, 0, 0)
uint8 = dtype("uint8", np.uint8, 1, 1)
int8 = dtype("int8", np.int8, 1, 1)
int16 = dtype("int16", np.int16, 1, 2)
int32 = dtype("int32", np.int32, 1, 3)
int64 = dtype("int64", np.int64, 1, 4)
uint16 = dtype("uint16", np.uint16, 1, 2)
uint32 = dtype("uint32", np.uint32, 1, 3)
uint64 = dtype("uint64", np.uint64, 1, 4)
float16 = dtype("float16", np.float16, 2, 1)
bfloat16 = dtype("bfloat16", ml_dtypes.bfloat16, 2, 1)
float32 = dtype("float32", np.float32, 2, 2)
float64 = dtype("float64", np.float64, 2, 3)
complex32 = dtype("complex32", np.complex64, 3, 1)  # storage approximated by complex64
complex64 = dtype("complex64", np.complex64, 3, 2)
complex128 = dtype("complex128", np.complex128, 3, 3)

# 8-bit floats (storage/casts; torch promotes them with nothing but themselves)
float8_e4m3fn = dtype("float8_e4m3fn", ml_dtypes.float8_e4m3fn, 2, 0)
float8_e5m2 = dtype("float8_e5m2", ml_dtypes.float8_e5m2, 2, 0)
float8_e4m3fnuz = dtype("float8_e4m3fnuz", ml_dtypes.float8_e4m3fnuz, 2, 0)
float8_e5m2fnuz = dtype("float8_e5m2fnuz", ml_dtypes.float8_e5m2fnuz, 2, 0)
float8_e8m0fnu = dtype("float8_e8m0fnu", ml_dtypes.float8_e8m0fnu, 2, 0)  # the MX block scale: 2**e, unsigned
float8_e8m0fnu.is_signed = False
FLOAT8 = (float8_e4m3fn, float8_e5m2, float8_e4m3fnuz, float8_e5m2fnuz, float8_e8m0fnu)


class _ShellDtype(dtype):
    """torch's "shell" dtypes (``torch.int4``, ``torch.uint1`` ... ``torch.bits8``, ``torch.float4_e2m1fn_x2``):
    names that tensor subclasses (torchao) carry, with almost no kernel in torch itself. They exist here with
    torch's attributes, pickle and compare; a tensor of one cannot be made (reading ``.np``, which every
    creation path does, raises NotImplementedError naming the dtype; docs/differences.md)."""

    __slots__ = ()

    def __init__(self, name, kind, signed, itemsize=1):
        self.name, self._kind, self._rank, self.itemsize = name, kind, 0, itemsize
        self.is_floating_point, self.is_complex, self.is_signed = kind == 2, False, signed

    @property
    def np(self):
        raise NotImplementedError(f"torch.{self.name} tensors are not supported by torchlike: JAX has no such "
                                  f"storage type (see docs/differences.md)")


bits1x8, bits2x4, bits4x2, bits8 = (_ShellDtype(n, 1, None) for n in ("bits1x8", "bits2x4", "bits4x2", "bits8"))
bits16 = _ShellDtype("bits16", 1, None, 2)
int1, int2, int3, int4, int5, int6, int7 = (_ShellDtype(f"int{i}", 1, True) for i in range(1, 8))
uint1, uint2, uint3, uint4, uint5, uint6, uint7 = (_ShellDtype(f"uint{i}", 1, False) for i in range(1, 8))
bit = uint1
float4_e2m1fn_x2 = _ShellDtype("float4_e2m1fn_x2", 2, True)
SHELL = (bits1x8, bits2x4, bits4x2, bits8, bits16, int1, int2, int3, int4, int5, int6, int7, uint1, uint2, uint3,
         uint4, uint5, uint6, uint7, float4_e2m1fn_x2)


class _QuantizedDtype(dtype):
    """torch's quantized dtypes (``torch.qint8``, ``quint8``, ``qint32``, ``quint4x2``, ``quint2x4``): a quantized
    tensor (``_quantized``) stores its integer representation as ``storage`` and reports this dtype.  Like torch,
    they have no signedness, no complex counterpart and promote with nothing but themselves; a plain tensor of
    one cannot be made (reading ``.np``, which every creation path does, raises)."""

    __slots__ = ("storage", "qmin", "qmax")

    def __init__(self, name, storage, qmin, qmax, itemsize):
        self.name, self._kind, self._rank, self.itemsize = name, 1, 0, itemsize
        self.is_floating_point = self.is_complex = False
        self.storage, self.qmin, self.qmax = storage, qmin, qmax

    @property
    def is_signed(self):
        raise RuntimeError("isSignedType not supported for quantized types")

    @property
    def np(self):
        raise NotImplementedError(f"Could not run this operator for torch.{self.name}: torchlike supports only "
                                  "dequantize, int_repr, the q_* accessors, clone/detach and reshaping views on "
                                  "quantized tensors, made by quantizing (see docs/differences.md)")

    def to_complex(self):
        raise RuntimeError(f"Unknown Complex ScalarType for {_CAP[self.name]}")


# (quint4x2/quint2x4 pack 2 or 4 values a byte in torch; here each value keeps its own byte)
qint8 = _QuantizedDtype("qint8", int8, -128, 127, 1)
quint8 = _QuantizedDtype("quint8", uint8, 0, 255, 1)
qint32 = _QuantizedDtype("qint32", int32, -2**31, 2**31 - 1, 4)
quint4x2 = _QuantizedDtype("quint4x2", uint8, 0, 15, 1)
quint2x4 = _QuantizedDtype("quint2x4", uint8, 0, 3, 1)
QUANTIZED = (qint8, quint8, qint32, quint4x2, quint2x4)

half, double, short, long, cfloat, cdouble, chalf = float16, float64, int16, int64, complex64, complex128, complex32
float, int = float32, int32  # torch.float is float32, torch.int is int32

ALL = [bool, uint8, int8, int16, int32, int64, uint16, uint32, uint64, float16, bfloat16, float32, float64,
       complex64, complex128]
_BY_NAME = {d.name: d for d in ALL + [complex32, *FLOAT8, *SHELL, *QUANTIZED]}
_BY_NP = {d.np: d for d in ALL + list(FLOAT8)}
_builtin_bool, _builtin_int, _builtin_float, _builtin_complex = type(True), type(1), type(1.0), type(1j)


def _dtype_by_name(name):
    return _BY_NAME[name]


def from_np(np_dtype) -> dtype:
    """The torch dtype of a numpy/JAX dtype."""
    try:
        return _BY_NP[np.dtype(np_dtype)]
    except KeyError:
        raise TypeError(f"can't convert np.ndarray of type {np.dtype(np_dtype)}. The only supported types are: "
                        "float64, float32, float16, complex64, complex128, int64, int32, int16, int8, uint8, "
                        "and bool.") from None


def to_dtype(d) -> dtype:
    """Coerce a torch dtype, Python type or numpy dtype to a :class:`dtype`."""
    if isinstance(d, dtype):
        return d
    if d is _builtin_float:
        return float64
    if d is _builtin_int:
        return int64
    if d is _builtin_bool:
        return bool
    if d is _builtin_complex:
        return complex128
    if isinstance(d, (str, np.dtype)) or isinstance(d, type) and issubclass(d, np.generic):
        # torch's parser takes a torch.dtype or a Python type only: 'float32', np.float32 are TypeErrors
        raise argument_error(d, "torch.dtype", "dtype")
    try:
        d = np.dtype(d)
    except (TypeError, ValueError):  # not a dtype at all ('x', a Tensor): torch's argument-parser error
        raise argument_error(d, "torch.dtype", "dtype") from None
    return from_np(d)


# --- default dtype (global in torch; not thread-local) -------------------------------------------
_default = [float32]


def get_default_dtype() -> dtype:
    """The default floating dtype (``torchlike.float32`` unless changed).

    >>> import torchlike
    >>> torchlike.get_default_dtype()
    torch.float32
    """
    return _default[0]


def set_default_dtype(d) -> None:
    """Set the default floating dtype; only float types are allowed, as in torch."""
    d = to_dtype(d)
    if d not in (float32, float64, float16, bfloat16):
        raise TypeError("only floating-point types are supported as the default type")
    _default[0] = d


def default_complex() -> dtype:
    return complex128 if _default[0] is float64 else complex64


# --- promotion ---------------------------------------------------------------------------------
def _promote_uncached(a: dtype, b: dtype) -> dtype:
    if a is b:
        return a
    if isinstance(a, _QuantizedDtype) or isinstance(b, _QuantizedDtype):
        raise RuntimeError("promoteTypes with quantized numbers is not handled yet; figure out what the correct "
                           f"rules should be, offending types: {_CAP[a.name]} {_CAP[b.name]}")
    if isinstance(a, _ShellDtype) or isinstance(b, _ShellDtype):
        raise RuntimeError(f"Promotion from {_CAP.get(a.name, a.name.capitalize())} and "
                           f"{_CAP.get(b.name, b.name.capitalize())} is unsupported.")
    if a in FLOAT8 or b in FLOAT8:
        raise RuntimeError(f"Promotion for Float8 Types is not supported, attempted to promote {_CAP[a.name]} and "
                           f"{_CAP[b.name]}")
    if a._kind == 0:
        return b
    if b._kind == 0:
        return a
    unsigned_big = (uint16, uint32, uint64)
    if (a in unsigned_big or b in unsigned_big):
        raise RuntimeError(f"Promotion for uint16, uint32, uint64 types is not supported, attempted to promote "
                           f"{_CAP[a.name]} and {_CAP[b.name]}")
    if a._kind == 3 or b._kind == 3:
        ra = a.to_real() if a._kind == 3 else a
        rb = b.to_real() if b._kind == 3 else b
        r = _promote_uncached(ra, rb) if (ra._kind == 2 and rb._kind == 2) else (ra if ra._kind == 2 else rb)
        if r._kind != 2:
            r = float32
        if a is complex32 or b is complex32:
            if r is float16:
                return complex32
        return r.to_complex() if r is not bfloat16 else complex64
    if a._kind != b._kind:
        return a if a._kind > b._kind else b
    if a._kind == 2:
        if {a, b} == {float16, bfloat16}:
            return float32
        return a if a._rank > b._rank else b
    # both integers
    if a is uint8 or b is uint8:
        other = b if a is uint8 else a
        return int16 if other is int8 else other
    return a if a._rank > b._rank else b


_CAP = {"uint16": "UInt16", "uint32": "UInt32", "uint64": "UInt64", "int8": "Char", "uint8": "Byte",
        "int16": "Short", "int32": "Int", "int64": "Long", "bool": "Bool", "float16": "Half",
        "bfloat16": "BFloat16", "float32": "Float", "float64": "Double", "complex64": "ComplexFloat",
        "complex128": "ComplexDouble", "complex32": "ComplexHalf", "qint8": "QInt8", "quint8": "QUInt8",
        "qint32": "QInt32", "quint4x2": "QUInt4x2", "quint2x4": "QUInt2x4", **{d.name: "F" + d.name[1:] for d in FLOAT8}}
TYPE_NAMES.update(_CAP)  # (the hook _errors exposes: torch's names in translated messages)
# the C++ type names c10 prints for a dtype in some messages ("long int", "float"; TensorOptions' dtype=)
C_NAMES = {"int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char",
           "uint8": "unsigned char", "float32": "float", "float64": "double", "float16": "c10::Half",
           "bfloat16": "c10::BFloat16", "bool": "bool", "complex64": "c10::complex<float>",
           "complex128": "c10::complex<double>"}
_PROMOTE = {}


def promote_types(a, b) -> dtype:
    """torch.promote_types: the smallest dtype both ``a`` and ``b`` cast to.

    >>> import torchlike
    >>> torchlike.promote_types(torchlike.uint8, torchlike.int8)
    torch.int16
    """
    a, b = to_dtype(a), to_dtype(b)
    key = (a, b)
    r = _PROMOTE.get(key)
    if r is None:
        r = _PROMOTE[key] = _promote_uncached(a, b)
    return r


def _combine(higher, lower):
    """torch's combine_categories: a lower-priority operand only matters if its category is higher."""
    if higher is None:
        return lower
    if lower is None:
        return higher
    if higher._kind == 3:
        return higher
    if lower._kind == 3:
        if higher._kind == 2:
            return higher.to_complex()
        return lower
    if higher._kind == 2:
        return higher
    if higher is bool or lower._kind == 2:
        return promote_types(higher, lower)
    return higher


def scalar_dtype(x, arg="other") -> dtype:
    """The dtype a Python scalar has as a 'wrapped number'; torch's argument-parser TypeError (naming the op and
    ``arg``) for anything else."""
    t = type(x)
    if t is _builtin_bool or isinstance(x, np.bool_):
        return bool
    if t is _builtin_int or isinstance(x, np.integer):
        return int64
    if t is _builtin_float or isinstance(x, np.floating):
        return _default[0]
    if t is _builtin_complex or isinstance(x, np.complexfloating):
        return default_complex()
    raise argument_error(x, "Tensor" if arg == "other" else "Number", arg)


def result_type(*args) -> dtype:
    """torch.result_type over Tensors and Python scalars (dimensioned > 0-dim > wrapped numbers).

    >>> import torchlike
    >>> torchlike.result_type(torchlike.tensor([1, 2]), 2.5)
    torch.float32
    """
    if len(args) == 2:  # fast paths for the common binary cases
        a, b = args
        da, db = getattr(a, "dtype", None), getattr(b, "dtype", None)
        if da is db and da.__class__ is dtype:
            return da
        if da.__class__ is dtype and db is None:
            tb = type(b)
            if (tb is _builtin_float and da._kind >= 2) or (tb is _builtin_int and da._kind >= 1):
                return da
    dim_r = zero_r = wrap_r = None
    for a in args:
        d = getattr(a, "dtype", None)
        if isinstance(d, dtype):
            if a.ndim:
                dim_r = d if dim_r is None else promote_types(dim_r, d)
            else:
                zero_r = d if zero_r is None else promote_types(zero_r, d)
        elif a is None:
            continue
        else:
            d = scalar_dtype(a)
            wrap_r = d if wrap_r is None else promote_types(wrap_r, d)
    return _combine(dim_r, _combine(zero_r, wrap_r))


def can_cast(from_, to) -> _builtin_bool:
    """torch.can_cast: same-kind casting (no float->int, no complex->real, no non-bool->bool)."""
    from_, to = to_dtype(from_), to_dtype(to)
    if from_._kind > to._kind:
        return False
    if to is bool and from_ is not bool:
        return False
    return True


class finfo:
    """Machine limits for floating dtypes (torch.finfo).

    >>> import torchlike
    >>> torchlike.finfo(torchlike.float32).eps
    1.1920928955078125e-07
    """

    def __init__(self, type=None):
        d = to_dtype(type) if type is not None else _default[0]
        if d._kind < 2 or isinstance(d, _ShellDtype):
            raise TypeError("torch.finfo() requires a floating point input type. Use torch.iinfo to handle "
                            "'torch.finfo'")
        info = ml_dtypes.finfo(d.to_real().np)
        self.dtype = d.to_real().name
        self.bits = info.bits
        self.eps = _builtin_float(info.eps)
        self.max = _builtin_float(info.max)
        self.min = _builtin_float(info.min)
        self.tiny = self.smallest_normal = _builtin_float(info.tiny)
        # 10 ** -digits10 (the decimal digits of precision) in double, as torch computes it for every dtype
        self.resolution = 10.0 ** -math.floor(info.nmant * math.log10(2))
        if d in FLOAT8:
            if d is float8_e5m2fnuz:  # torch's numeric_limits give this type eps 2**-3 (not 2**-2)
                self.eps = 0.125

    def __repr__(self):
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, eps={self.eps:g}, "
                f"smallest_normal={self.tiny:g}, tiny={self.tiny:g}, dtype={self.dtype})")


class iinfo:
    """Machine limits for integer dtypes (torch.iinfo)."""

    def __init__(self, type):
        d = to_dtype(type)
        if d is bool:
            raise TypeError("torch.bool is not supported by torch.iinfo")
        if isinstance(d, _QuantizedDtype):
            raise NotImplementedError(f'"dtype" not implemented for \'{_CAP[d.name]}\'')
        if d._kind != 1 or isinstance(d, _ShellDtype):
            raise TypeError("torch.iinfo() requires an integer input type. Use torch.finfo to handle "
                            "'torch.iinfo'")
        info = np.iinfo(d.np)
        self.dtype = d.name
        self.bits = d.itemsize * 8
        self.max = _builtin_int(info.max)
        self.min = _builtin_int(info.min)

    def __repr__(self):  # torch prints the limits as C's %g (-2.14748e+09)
        return f"iinfo(min={_builtin_float(self.min):g}, max={_builtin_float(self.max):g}, dtype={self.dtype})"
