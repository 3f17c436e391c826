"""Tensor creation: tensor/as_tensor/from_numpy, zeros/ones/empty/full (+_like, new_*); ranges and eye are in
_creation_ranges.py."""
from __future__ import annotations

import functools
import math
import numbers
import sys
import warnings

import jax
import jax.numpy as jnp
import numpy as np

from . import _dtype, _jit_cache
from ._errors import PACKAGE_DIR, argument_error, called_op, check_alloc, check_int64_sizes, no_other_keywords, torch_warn, tp_name
from ._layout import strided as _strided
from . import _memory_format as _mfmt
from ._device import CPU, canonical, host_to_jax, of_array, off_cpu
from ._scalar_fit import check_scalar_fits, float_to_int_np
from .tensor import _ALIAS_CHAIN, _PLAIN_VALUE, HOST_MAX, Size, Tensor
from ._mutation import write_out  # out= (layer 2)
from ._numpy_bridge import from_numpy_shared  # (layer 2)
from ._creation_infer import _infer_np

try:  # JAX's current trace: creation under a transform (jit, vmap, grad) must give traced values
    from jax._src.core import EvalTrace as _EvalTrace, trace_ctx as _trace_ctx
except ImportError:  # another JAX: no host-resident tensors
    _EvalTrace = _trace_ctx = None

__all__ = ["tensor", "as_tensor", "asarray", "from_numpy", "zeros", "ones", "empty", "full", "zeros_like",
           "ones_like", "empty_like", "full_like", "scalar_tensor", "empty_strided", "from_jax", "frombuffer"]

_pyrange = range


def _put(arr, dev, copy=False):
    """``arr`` on device ``dev``; ``copy``: ``arr`` is a caller's buffer, which the CPU transfer may alias."""
    dev = canonical(dev)
    if dev.type == "cpu":
        return host_to_jax(arr, copy=copy, cpu=True), dev
    return jax.device_put(arr, dev.jax_device()), dev


def _hostable(dev):
    """Whether a new tensor on ``dev`` may stay host-resident (``Tensor._from_host``: a numpy array until an
    op needs it on the device): a CPU tensor, outside torchlike.compile tracing and JAX transforms."""
    return dev.type == "cpu" and Tensor._value is _PLAIN_VALUE and _EvalTrace is not None and \
        type(_trace_ctx.trace) is _EvalTrace


def _host_or_put(arr, dev, requires_grad, copy=False, cap=HOST_MAX):
    """A tensor of numpy ``arr`` on device ``dev`` (canonical): host-resident when at most ``cap`` elements
    and allowed (a copy of ``arr`` when ``copy``: the caller's buffer), else transferred now."""
    if not requires_grad and arr.size <= cap and _hostable(dev):
        return Tensor._from_host(arr.copy() if copy else arr, dev)
    return _finish(_put(arr, dev, copy)[0], dev, requires_grad)


def _finish(x, dev, requires_grad):
    t = Tensor._wrap(x, dev)
    if requires_grad:
        t._as_grad_leaf()
    return t


def _warn_copy_construct(api):
    """torch's UserWarning for ``torch.tensor(t)`` / ``t.new_tensor(t)`` of a Tensor ``t``, at the caller's line;
    torchlike's own calls stay quiet.  The op table's wrappers and the ``__torch_function__`` dispatchers are
    frames warnings' stacklevel skips (``warnings._is_internal_frame``), so they are passed over uncounted."""
    f = sys._getframe(2)
    while f is not None and f.f_code.co_filename.startswith(PACKAGE_DIR):
        if not warnings._is_internal_frame(f):
            return
        f = f.f_back
    warnings.warn("To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() or "
                  "sourceTensor.detach().clone().requires_grad_(True), rather than "
                  f"{api}(sourceTensor).", UserWarning, stacklevel=3)  # (1: here, 2: tensor / new_tensor)


def tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """A new tensor copying ``data`` (nested lists, numpy arrays, scalars, tensors).

    >>> import torchlike
    >>> torchlike.tensor([[1, 2], [3, 4]]).dtype
    torch.int64
    """
    if isinstance(data, Tensor):
        _warn_copy_construct("torch.tensor")
    return _tensor_quiet(data, dtype=dtype, device=device, requires_grad=requires_grad)


def _tensor_quiet(data, *, dtype=None, device=None, requires_grad=False):
    """``tensor`` without the copy-construct warning (``t.new(data)``, ``new_tensor`` after its own)."""
    if isinstance(data, Tensor) and dtype is None and device is None:
        h = data._host_array()
        if h is not None and not requires_grad:
            return Tensor._from_host(h, data._dev)  # (shared: a host array is never written)
        out = Tensor._wrap(jnp.array(data._value, copy=True), data._dev)
        return _finish(out._x, out._dev, requires_grad)
    if isinstance(data, np.ndarray) and any(st < 0 for st in data.strides):
        _check_numpy_for_sharing(data)  # (torch's ValueError: its copy starts from a tensor over the array)
    try:
        arr, d = _infer_np(data, wide=dtype is not None)
    except RuntimeError as e:
        if dtype is None or not hasattr(e, "element"):
            raise
        # with a dtype torch converts each element to it: Python's words for the element it cannot convert
        kind = type(e.element).__name__
        dt = _dtype.to_dtype(dtype)
        raise TypeError(f"must be real number, not {kind}" if dt.is_floating_point or dt.is_complex else
                        f"'{kind}' object cannot be interpreted as an integer") from None
    if dtype is not None:
        d = _dtype.to_dtype(dtype)
        if arr.size and type(data) is not np.ndarray and not isinstance(data, Tensor) and \
                arr.dtype.kind in "iuf" and d.np.kind in "iu":
            _check_python_values_fit(arr, d)
        if arr.dtype.kind == "c" and not d.is_complex and type(data) is not np.ndarray and \
                not isinstance(data, Tensor) and _has_complex(data):  # (torch converts each Python number)
            if d is not _dtype.bool:
                raise TypeError("must be real number, not complex" if d.is_floating_point else
                                "'complex' object cannot be interpreted as an integer")
            arr = arr != 0  # (a complex number's truth)
        arr = _np_cast(arr, d)
    dev = canonical(device if device is not None else (data._dev if isinstance(data, Tensor) else None))
    # torch.tensor copies a caller's buffer (and a host tensor's array, which that tensor owns)
    t = _host_or_put(arr, dev, requires_grad, copy=arr is data or arr.base is not None or isinstance(data, Tensor))
    return _numpy_layout(t, data) if isinstance(data, np.ndarray) and data.ndim else t


def _has_complex(data):
    """Whether Python data (a number, nested lists/tuples) hold a Python complex number."""
    if isinstance(data, complex):
        return True
    return isinstance(data, (list, tuple)) and any(_has_complex(x) for x in data)


def _numpy_layout(t, a):
    """``t`` (a fresh copy of numpy array ``a``) given the strides torch's copy of ``a`` has: ``a``'s own in
    elements where they are dense (a transposed or Fortran-order array stays so), else dense in their order."""
    if a.flags.c_contiguous and a.size and 1 not in a.shape:
        return t  # (row-major; an empty array's strides are numpy's, often zeros, and a size-1 dim's any value)
    return _mfmt.set_strides(t, _mfmt.dense_strides_like(a.shape, _mfmt.numpy_strides(a)))


def _check_python_values_fit(arr, d):
    """torch's check of Python numbers given with an integer dtype: a value out of the dtype's range (an
    unsigned one takes integers down to -max, which wrap), or a nan/inf, is an error, not a wrap."""
    info = np.iinfo(d.np)
    lo = -int(info.max) if info.min == 0 else int(info.min)
    if arr.dtype.kind == "f":  # (floats: the dtype's own range, compared in double; -0.5 does not fit uint8)
        bad = not np.isfinite(arr).all() or arr.min() < float(info.min) or arr.max() > float(info.max)
    else:
        bad = int(arr.min()) < lo or int(arr.max()) > info.max
    if bad:
        raise RuntimeError(f"value cannot be converted to type {d.np.name} without overflow")


def _chalf_parts(arr):
    """``arr`` as complex32 values (stored as complex64, JAX has no complex32): real and imaginary parts rounded
    to float16 each, as torch's complex32 stores them (70000 is inf)."""
    arr = np.asarray(arr)
    out = np.empty(arr.shape, np.complex64)
    with np.errstate(over="ignore"):
        out.real, out.imag = np.real(arr).astype(np.float16), np.imag(arr).astype(np.float16)
    return out


def _np_cast(arr, d):
    if d.name == "complex32":
        return _chalf_parts(arr)
    if arr.dtype.kind == "c" and not d.is_complex:
        arr = arr.real
    if arr.dtype.kind == "f" and d.np.kind == "f" and arr.dtype.itemsize > d.np.itemsize:
        with np.errstate(over="ignore"):  # (1e40 as float32 is inf, quietly, as in torch)
            return arr.astype(d.np)
    if arr.dtype.kind == "f" and d.np.kind in "iu":
        return float_to_int_np(arr, d.np)
    return arr.astype(d.np)


def as_tensor(data, *, dtype=None, device=None):  # (keyword-only, as torch's parser takes them)
    """Like tensor(), but reuses a Tensor's data when dtype and device already match."""
    if isinstance(data, Tensor):
        return data.to(device=device, dtype=dtype) if (dtype is not None or device is not None) else data
    if isinstance(data, jax.Array):
        return from_jax(data).to(dtype=dtype) if dtype is not None else from_jax(data)
    if type(data) is np.ndarray and canonical(device) is CPU and \
            (dtype is None or _dtype.to_dtype(dtype).np == data.dtype):
        return from_numpy(data)  # (shares the array's memory, as torch's does)
    if type(data) is np.ndarray:
        _check_numpy_for_sharing(data)
    return tensor(data, dtype=dtype, device=device)


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=False):
    t = as_tensor(obj, dtype=dtype, device=device)
    if copy and t is obj:
        t = t.clone()
    if requires_grad:
        t = t.detach()._as_grad_leaf()
    return t


def from_numpy(ndarray):
    """A tensor sharing a numpy array's memory: a write through either is seen by the other (arrays of at
    most ``_numpy_bridge.SHARE_LIMIT`` bytes; a larger one is copied, see docs/differences.md).

    >>> import numpy as np, torchlike
    >>> a = np.zeros(3, dtype=np.float32)
    >>> t = torchlike.from_numpy(a)
    >>> a[0] = 5
    >>> t
    tensor([5., 0., 0.])
    """
    if not isinstance(ndarray, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {tp_name(ndarray)})")
    _check_numpy_for_sharing(ndarray)
    arr, d = _infer_np(ndarray)
    if arr is ndarray:
        t = from_numpy_shared(arr, CPU)
        if t is not None:
            return t
    return _numpy_layout(_host_or_put(arr, canonical(None), False, copy=True), ndarray)


def _check_numpy_for_sharing(a):
    """torch's checks of an array a tensor is to share memory with (``from_numpy``, ``as_tensor``)."""
    if any(st < 0 for st in a.strides):
        raise ValueError("At least one stride in the given numpy array is negative, and tensors with negative "
                         "strides are not currently supported. (You can probably work around this by making a "
                         "copy of your array  with array.copy().) ")
    if not a.flags.writeable:
        torch_warn("The given NumPy array is not writable, and PyTorch does not support non-writable tensors. "
                   "This means writing to this tensor will result in undefined behavior. You may want to copy "
                   "the array to protect its data or make it writable before converting it to a tensor. This "
                   "type of warning will be suppressed for the rest of this program.",
                   "torch/csrc/utils/tensor_numpy.cpp:213", once=True)


def from_jax(x):
    """Wrap a ``jax.Array`` (zero-copy) as a tensor."""
    return Tensor._wrap(x, of_array(x))


def frombuffer(buffer, *, dtype, count=-1, offset=0, requires_grad=False):
    d = _dtype.to_dtype(dtype)
    arr = np.frombuffer(buffer, dtype=d.np, count=count, offset=offset)
    return _finish(host_to_jax(arr), canonical(None), requires_grad)


_SIZES = {}  # valid size tuples seen (bounded): the common repeated call skips the checks
_ALL_INTS = {int}.issuperset  # (of the element types: C speed on the hot path)


def _size(size, name="zeros"):
    if type(size) is tuple:
        try:
            hit = _SIZES.get(size)
        except TypeError:  # (an unhashable element: ``zeros([2, 3], ...)`` passed on as ``([2, 3],)``)
            hit = None
        # (True and 3.0 hash and compare as 1 and 3: only a tuple of plain ints may take a cached size)
        if hit is not None and _ALL_INTS(map(type, size)):
            return hit
        if len(_SIZES) < 4096 and all(type(s) is int and s >= 0 for s in size):
            _SIZES[size] = size
            return size
    packed = len(size) == 1 and isinstance(size[0], (tuple, list))
    if packed:
        size = tuple(size[0])
    out, negative = [], None
    for i, s in enumerate(size):
        if isinstance(s, Tensor) and s.numel() == 1:  # (a larger tensor: torch's parser error below)
            s = s.item()
        if not isinstance(s, (numbers.Integral, np.integer)) or isinstance(s, bool):
            if i and isinstance(s, bool):  # (torch's parser takes a bool as an int after the first size)
                out.append(int(s))
                continue
            kind = type(s).__name__
            name = called_op(name)  # (the factory called: ``x.new_zeros("a")``, ``torch.randn("a")``)
            if not i and not packed and len(size) > 1:  # (not an int first: torch reads one argument, the size)
                raise TypeError(f"{name}() takes 1 positional argument but {len(size)} were given")
            if i:
                raise TypeError(f"{name}(): argument 'size' failed to unpack the object at pos {i + 1} with error "
                                f"\"type must be tuple of ints,but got {kind}\"")
            raise TypeError(f"{name}(): argument 'size' (position 1) must be tuple of ints, " +
                            (f"but found element of type {kind} at pos 0" if packed else f"not {kind}"))
        if s < 0 and negative is None:  # (torch's parser reads every size before the check)
            negative = s
        out.append(int(s))
    if negative is not None:
        check_int64_sizes(size)
        raise RuntimeError(f"Trying to create tensor with negative dimension {negative}: {list(size)}")
    out = tuple(out)
    if len(_SIZES) < 4096:
        _SIZES[out] = out
    return out


def _size_arg(name, args, size):
    """The sizes of ``zeros(2, 3)``, ``zeros((2, 3))`` or ``zeros(size=(2, 3))`` (torch accepts all three)."""
    if size is None:
        if not args:  # (torch's parser's words, its plural and singular swapped as in its source)
            raise TypeError(f'{name}() missing 1 required positional arguments: "size"')
        return args
    if args:
        raise TypeError(f"{name}() got multiple values for argument 'size'")
    return (size,)


_consts = _jit_cache.Cache("constant")  # (shape, dtype, 0 or 1) -> a jitted constructor taking no argument
_default_is_cpu = []


def _cpu_default():
    """Whether new JAX arrays land on the CPU (asked without starting a backend where JAX_PLATFORMS says)."""
    if not _default_is_cpu:
        plats = jax.config.jax_platforms
        _default_is_cpu.append(plats.split(",")[0] == "cpu" if plats else jax.default_backend() == "cpu")
    return _default_is_cpu[0]


_NARROW = frozenset(("float16", "bfloat16", "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz"))


def _host_fill_ok(value, d):
    """Whether numpy fills dtype ``d`` with the Python number ``value`` exactly as the device path does
    (no out-of-range integer, no float into an integer dtype, nothing past a narrow float's range)."""
    t = type(value)
    if t is bool:
        return True
    if d.is_floating_point or d.is_complex:
        if t is complex and not d.is_complex:
            return False
        return t in (int, float, complex) and (d.name not in _NARROW or abs(value) <= 60000)
    if t is not int:
        return False
    if d is _dtype.bool:
        return True
    info = np.iinfo(d.np)
    return info.min <= value <= info.max


def _filled(size, value, dtype, device, requires_grad):
    d = _dtype.to_dtype(dtype) if dtype is not None else _dtype.get_default_dtype()
    if type(value) is float and d.np.kind in "iu":  # (2.0 ** 63 into int64 is torch's cast's, not a saturation)
        value = int(float_to_int_np(np.array(value), d.np))
    elif d.name == "complex32" and type(value) in (int, float, complex):
        value = complex(_chalf_parts(value))
    dev = canonical(device)
    check_alloc(size, d, given=True)
    if not requires_grad and math.prod(size) <= HOST_MAX and _hostable(dev) and _host_fill_ok(value, d) \
            and _cpu_default():
        if type(value) is int and value == 0:
            return Tensor._from_host(np.zeros(size, d.np), dev)  # host-resident until an op needs it
        a = np.empty(size, d.np)
        a.fill(value)
        return Tensor._from_host(a, dev)
    if type(value) is int and (value == 0 or value == 1) and dev.type == "cpu":
        # zeros/ones: one cached program per shape and dtype (a call, ~10x cheaper than jnp.full in a
        # default-device context); only where new arrays land on the CPU anyway
        if not _default_is_cpu:
            _default_is_cpu.append(jax.default_backend() == "cpu")
        if _default_is_cpu[0]:
            key = (size, d.np, value)
            e = _consts.get(key)
            if e is None:
                e = _consts.add(key, jax.jit(functools.partial(jnp.full, size, value, d.np)))
            return _finish(e(), dev, requires_grad)
    jd = dev.jax_device()
    with jax.default_device(jd):
        x = jnp.full(size, value, dtype=d.np)
    if dev.type != "cpu" or off_cpu():  # committed, as every other factory's array: an op on it runs on its
        x = jax.device_put(x, jd)  # device, not on JAX's default one (cuda:1 of a two-GPU machine; a GPU for CPU)
    return _finish(x, dev, requires_grad)


_I64 = np.dtype(np.int64)
_BOOL = np.dtype(np.bool_)
_FLOATS = {}  # default float dtype -> its numpy dtype (float32/float64 only)


def _full_host(size, value):
    """``full(size, value)`` of a Python number with the default dtype and device as a host tensor (the
    common call, e.g. a dataset item), or None where the general path must run."""
    tv = type(value)
    if tv is float:
        npdt = _FLOATS.get(_dtype.get_default_dtype())
        if npdt is None:
            return None
    elif tv is int:
        if not -2 ** 63 <= value < 2 ** 63:
            return None
        npdt = _I64
    elif tv is bool:
        npdt = _BOOL
    else:
        return None
    try:
        shape = _SIZES.get(size) if type(size) is tuple else None
    except TypeError:  # (an unhashable element)
        return None
    if shape is None:
        return None  # (the general path checks and remembers a new shape)
    dev = canonical(None)
    if math.prod(shape) > HOST_MAX or not _hostable(dev) or not _cpu_default():
        return None
    a = np.empty(shape, npdt)
    a.fill(value)
    return Tensor._from_host(a, dev)


_FLOATS[_dtype.float32] = np.dtype(np.float32)
_FLOATS[_dtype.float64] = np.dtype(np.float64)


def zeros(*args, size=None, out=None, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False,
          memory_format=None):
    """A tensor of zeros. ``torchlike.zeros(2, 3)`` or ``zeros((2, 3))``."""
    size = _size_arg("zeros", args, size)
    if any(isinstance(s, (int, np.integer)) and s < 0 for s in (size[0] if len(size) == 1 and isinstance(
            size[0], (tuple, list)) else size)):
        try:  # (torch's parser error for a later size that is no int comes first)
            _size(size)
        except RuntimeError:
            pass
        raise RuntimeError("zeros: Dimension size must be non-negative.")
    t = _filled(_size(size), 0, dtype, device, requires_grad)
    return _out(t if memory_format is None else _mfmt.mark(t, memory_format), out)


def ones(*args, size=None, out=None, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False,
         memory_format=None):
    """A tensor of ones."""
    size = _size_arg("ones", args, size)
    t = _filled(_size(size, "ones"), 1, dtype, device, requires_grad)
    return _out(t if memory_format is None else _mfmt.mark(t, memory_format), out)


def empty(*args, size=None, out=None, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False,
          memory_format=None):
    """An 'uninitialised' tensor (zeros: JAX has no uninitialised memory)."""
    size = _size_arg("empty", args, size)
    t = _filled(_size(size, "empty"), 0, dtype, device, requires_grad)
    return _out(t if memory_format is None else _mfmt.mark(t, memory_format), out)


def _int_tuple(fn, arg, pos, value):
    """``value`` as a tuple of ints, or torch's parser error for argument ``arg`` of ``fn``."""
    if not isinstance(value, (tuple, list)):
        raise TypeError(f"{fn}(): argument '{arg}' (position {pos}) must be tuple of ints, not {type(value).__name__}")
    for i, v in enumerate(value):
        if isinstance(v, bool) or not isinstance(v, (numbers.Integral, np.integer)) and not (
                isinstance(v, Tensor) and v.numel() == 1 and not v.dtype.is_floating_point):
            raise TypeError(f"{fn}(): argument '{arg}' (position {pos}) must be tuple of ints, but found element of "
                            f"type {type(v).__name__} at pos {i}")
    return tuple(int(v) for v in value)


def empty_strided(size, stride, *, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False):
    """An 'uninitialised' tensor (zeros) with torch's ``stride()``: a root laid out so where the strides are
    dense, else a view of a flat storage (``as_strided``)."""
    size, stride = _int_tuple("empty_strided", "size", 1, size), _int_tuple("empty_strided", "stride", 2, stride)
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    if _mfmt.non_overlapping_and_dense(size, stride) or 0 in size:
        t = empty(size, dtype=dtype, device=device)
        t = _mfmt.set_strides(t, stride if 0 not in size else None)
    else:
        n = 1 + sum((a - 1) * s for a, s in zip(size, stride))
        t = empty(n, dtype=dtype, device=device).as_strided(size, stride)
    return t.requires_grad_() if requires_grad else t


# torch.full's declared signature, for its parser error: filled by torchlike._ops.signatures when the op table
# loads (that package's op modules import this one, so it cannot be imported from here)
FULL_SIGNATURE = []


def _parsed_full(fn):
    """``fn`` raising torch's parser error where its call fits full's signature nowhere (a lone int size, a missing
    argument, a wrong keyword's type: with the position where the argument came positionally), as
    ``_ops.signatures.parses`` does for the functions above this module."""
    @functools.wraps(fn)
    def full(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except Exception:
            err = FULL_SIGNATURE[0].error(args, kwargs) if FULL_SIGNATURE else None
            if err is None:
                raise
            raise TypeError(err.as_function) from None
    return full


@_parsed_full
def full(size, fill_value, *, out=None, dtype=None, layout=None, device=None, requires_grad=False,
         pin_memory=False):
    """A tensor filled with ``fill_value`` (dtype inferred from it like torch)."""
    if not isinstance(size, (tuple, list, Tensor)):  # (an int list, never a lone int: torch's parser error, by
        raise TypeError("full")  # ``parses``, with a position where size came positionally)
    if out is None and dtype is None and device is None and not requires_grad:
        t = _full_host(size, fill_value)
        if t is not None:
            return t
    if isinstance(fill_value, Tensor):
        if fill_value.ndim or fill_value.requires_grad:  # (torch's parser takes a 0-dim tensor without grad only)
            raise argument_error(fill_value, "Number", "fill_value", "full", 2)
        fill_value = fill_value.item()
    if dtype is None:
        try:
            dtype = _dtype.scalar_dtype(fill_value, "fill_value")
        except TypeError:  # (with torch's position)
            raise argument_error(fill_value, "Number", "fill_value", called_op("full"), 2) from None
    elif isinstance(fill_value, numbers.Number):
        check_scalar_fits(fill_value, _dtype.to_dtype(dtype))
    elif isinstance(fill_value, _NOT_NUMBERS):  # (torch's parser error, not numpy's "data type 'x' not understood")
        raise argument_error(fill_value, "Number", "fill_value", called_op("full"), 2)
    if not isinstance(size, (numbers.Integral, tuple, list)):
        raise TypeError(f"full(): argument 'size' (position 1) must be tuple of ints, not {type(size).__name__}")
    shape = _size((size,) if isinstance(size, numbers.Integral) else (tuple(size),), "full")
    return _out(_filled(shape, fill_value, dtype, device, requires_grad), out)


_NOT_NUMBERS = (str, list, tuple, dict, type(None))  # what torch's parser rejects for a Number


def _out(t, out):
    if out is None:
        return t
    return write_out(out, t)


def _like(input, dtype, device):
    try:
        return (dtype if dtype is not None else input.dtype), (device if device is not None else input.device)
    except AttributeError:
        if isinstance(input, Tensor):
            raise
        raise argument_error(input, "Tensor", "input", position=1) from None


# the *_like of a tensor of another layout than strided (a sparse one): torchlike.sparse, a layer above, appends
# its ``like(name, input, dtype, device, requires_grad)`` when it is imported
layout_like = []
# the *_like of a tensor subclass that answers it itself (a shard-backed DTensor keeps its sharding, as torch's
# DTensor does): torchlike.distributed.tensor registers ``like(input, fill, dtype, device, requires_grad)``
# under its class; it returns None to leave the input to the plain rule
class_like = {}
# a factory given an instance of a subclass defining ``__torch_dispatch__`` (``x.new_zeros(2)``, ``empty_like(x)``,
# ``rand_like(x)``): torchlike.utils._subclass_dispatch registers, under the class, ``call(aten name, overload,
# input, args, kwargs, compute)``, which shows torch's aten call to the modes and then the subclass
class_factory = {}


def by_class(name, input, args, compute, requires_grad, dtype=None, layout=None, device=None, memory_format=None,
             overload="default"):
    """``name(input, *args)`` as the aten call torch makes when ``input``'s class defines ``__torch_dispatch__``
    (its keywords as torch passes them: those given, ``pin_memory=False``), the result requiring grad as asked;
    None for any other input.  ``compute(input, *args, **keywords)`` computes it for a plain tensor."""
    hook = class_factory.get(type(input))
    if hook is None:
        return None
    kw = {k: v for k, v in (("dtype", dtype), ("layout", layout), ("device", device)) if v is not None}
    kw["pin_memory"] = False
    if memory_format is not None:
        kw["memory_format"] = memory_format
    out = hook(name, overload, input, args, kw, compute)
    if requires_grad and isinstance(out, Tensor):
        out.requires_grad_()
    return out


_LIKE_HOST = frozenset(np.dtype(d) for d in (np.bool_, np.uint8, np.int8, np.int16, np.int32, np.int64, np.float32,
                                              np.float64))


def _host_like(input, value):
    """``zeros_like``/``ones_like``/``empty_like(input)`` with no other argument, for a plain CPU tensor stored
    row-major (no view, no torch strides: preserve_format gives row-major), of a dtype numpy fills exactly and at
    most HOST_MAX elements, outside tracing: the host tensor ``_filled`` makes, without its checks.  Else None."""
    if type(input) is not Tensor or input._dev is not CPU or input._st is not None:
        return None
    b = input._vbase
    if b is not None and (input._chain is not _ALIAS_CHAIN or b._st is not None):
        return None
    x = input._x
    dt = x.dtype
    if dt not in _LIKE_HOST or x.size > HOST_MAX or Tensor._value is not _PLAIN_VALUE or _EvalTrace is None or \
            type(_trace_ctx.trace) is not _EvalTrace or not _cpu_default():
        return None
    return Tensor._from_host(np.zeros(x.shape, dt) if value == 0 else np.ones(x.shape, dt), CPU)


def zeros_like(input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None):
    if class_factory:
        t = by_class("zeros_like", input, (), lambda x, pin_memory=False, **k: zeros_like(x, **k), requires_grad, dtype, layout, device, memory_format)
        if t is not None:
            return t
    if dtype is None and layout is None and device is None and requires_grad is False and memory_format is None:
        t = _host_like(input, 0)
        if t is not None:
            return t
    if getattr(input, "layout", _strided) is not _strided:
        return layout_like[0]("zeros_like", input, dtype, device, requires_grad)
    hook = class_like.get(type(input))
    if hook is not None:
        t = hook(input, 0, dtype, device, requires_grad)
        if t is not None:
            return t
    d, dev = _like(input, dtype, device)
    return _mfmt.mark(_filled(tuple(input.shape), 0, d, dev, requires_grad), memory_format, input)


def empty_like(input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None):
    if class_factory:
        t = by_class("empty_like", input, (), lambda x, pin_memory=False, **k: empty_like(x, **k), requires_grad, dtype,
                     layout, device, memory_format)
        if t is not None:
            return t
    if dtype is None and layout is None and device is None and requires_grad is False and memory_format is None:
        t = _host_like(input, 0)
        if t is not None:
            return t
    if getattr(input, "layout", _strided) is not _strided:
        return layout_like[0]("empty_like", input, dtype, device, requires_grad)
    hook = class_like.get(type(input))
    if hook is not None:
        t = hook(input, 0, dtype, device, requires_grad)
        if t is not None:
            return t
    d, dev = _like(input, dtype, device)
    return _mfmt.mark(_filled(tuple(input.shape), 0, d, dev, requires_grad), memory_format, input)


def ones_like(input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None):
    if class_factory:
        t = by_class("ones_like", input, (), lambda x, pin_memory=False, **k: ones_like(x, **k), requires_grad, dtype, layout, device, memory_format)
        if t is not None:
            return t
    if dtype is None and layout is None and device is None and requires_grad is False and memory_format is None:
        t = _host_like(input, 1)
        if t is not None:
            return t
    if getattr(input, "layout", _strided) is not _strided:
        return layout_like[0]("ones_like", input, dtype, device, requires_grad)
    hook = class_like.get(type(input))
    if hook is not None:
        t = hook(input, 1, dtype, device, requires_grad)
        if t is not None:
            return t
    d, dev = _like(input, dtype, device)
    return _mfmt.mark(_filled(tuple(input.shape), 1, d, dev, requires_grad), memory_format, input)


def full_like(input, fill_value, *, dtype=None, layout=None, device=None, requires_grad=False,
              memory_format=None):
    if class_factory:
        t = by_class("full_like", input, (fill_value,), lambda x, v, pin_memory=False, **k: full_like(x, v, **k),
                     requires_grad, dtype, layout, device, memory_format)
        if t is not None:
            return t
    if getattr(input, "layout", _strided) is not _strided:
        return layout_like[0]("full_like", input, dtype, device, requires_grad)
    hook = class_like.get(type(input))
    if hook is not None:
        t = hook(input, fill_value, dtype, device, requires_grad)
        if t is not None:
            return t
    d, dev = _like(input, dtype, device)
    if isinstance(fill_value, numbers.Number):
        check_scalar_fits(fill_value, _dtype.to_dtype(d))
    elif isinstance(fill_value, _NOT_NUMBERS) or (  # (torch's parser error, not JAX's or numpy's words; a Scalar
            isinstance(fill_value, Tensor) and (fill_value.ndim or fill_value.requires_grad)):  # tensor: 0-d, no grad)
        raise argument_error(fill_value, "Number", "fill_value", "full_like", 2)
    return _mfmt.mark(_filled(tuple(input.shape), fill_value, d, dev, requires_grad), memory_format, input)


def scalar_tensor(s, *, dtype=None, device=None, requires_grad=False):
    try:
        return full((), s, dtype=dtype or _dtype.get_default_dtype(), device=device, requires_grad=requires_grad)
    except TypeError:
        if isinstance(s, _NOT_NUMBERS):  # (full's error names its fill_value)
            raise argument_error(s, "Number", "s", "scalar_tensor", 1) from None
        raise


# --- new_* methods -----------------------------------------------------------------------------
def _new_kw(self, dtype, device):
    return dict(dtype=dtype if dtype is not None else self.dtype, device=device if device is not None else
                self.device)


def _new_tensor(self, data, *, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False):
    if isinstance(data, Tensor):
        _warn_copy_construct("tensor.new_tensor")
    return _tensor_quiet(data, requires_grad=requires_grad, **_new_kw(self, dtype, device))


def _new_size(name, sizes, size):
    """The size of ``t.new_<name>(*sizes)`` or ``t.new_<name>(size=...)``, with torch's errors."""
    if size is None:
        if not sizes:
            raise TypeError(f'{name}() missing 1 required positional arguments: "size"')
        return sizes
    if sizes:
        raise TypeError(f"{name}() got multiple values for argument 'size'")
    return (size,)


def _new_zeros(self, *sizes, size=None, dtype=None, device=None, requires_grad=False, layout=None,
               pin_memory=False):
    if class_factory:
        t = by_class("new_zeros", self, (list(_size(_new_size("new_zeros", sizes, size))),),
                     lambda x, size, pin_memory=False, **k: _new_zeros(x, *size, **k), requires_grad, dtype, layout, device)
        if t is not None:
            return t
    kw = _new_kw(self, dtype, device)
    return _filled(_size(_new_size("new_zeros", sizes, size)), 0, kw["dtype"], kw["device"], requires_grad)


def _new_ones(self, *sizes, size=None, dtype=None, device=None, requires_grad=False, layout=None,
              pin_memory=False):
    if class_factory:
        t = by_class("new_ones", self, (list(_size(_new_size("new_ones", sizes, size))),),
                     lambda x, size, pin_memory=False, **k: _new_ones(x, *size, **k), requires_grad, dtype, layout, device)
        if t is not None:
            return t
    return ones(*_new_size("new_ones", sizes, size), requires_grad=requires_grad, **_new_kw(self, dtype, device))


def _new_empty(self, *sizes, size=None, dtype=None, device=None, requires_grad=False, layout=None,
               pin_memory=False):
    if class_factory:
        t = by_class("new_empty", self, (list(_size(_new_size("new_empty", sizes, size))),),
                     lambda x, size, pin_memory=False, **k: _new_empty(x, *size, **k), requires_grad, dtype, layout, device)
        if t is not None:
            return t
    return empty(*_new_size("new_empty", sizes, size), requires_grad=requires_grad, **_new_kw(self, dtype, device))


def _new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False, layout=None,
              pin_memory=False):
    if class_factory:
        t = by_class("new_full", self, (list(_size(size)), fill_value),
                     lambda x, size, v, pin_memory=False, **k: _new_full(x, size, v, **k), requires_grad, dtype,
                     layout, device)
        if t is not None:
            return t
    return full(size, fill_value, requires_grad=requires_grad, **_new_kw(self, dtype, device))


def _new_empty_strided(self, size, stride=None, *, dtype=None, device=None, requires_grad=False, **kw):
    no_other_keywords("new_empty_strided", kw, allowed=("layout", "pin_memory"))
    size = _int_tuple("new_empty_strided", "size", 1, size)  # (torch's parser looks at size first)
    if stride is None:
        raise TypeError('new_empty_strided() missing 1 required positional arguments: "stride"')
    stride = _int_tuple("new_empty_strided", "stride", 2, stride)
    if class_factory:
        t = by_class("new_empty_strided", self, (list(size), list(stride)),
                     lambda x, size, stride, pin_memory=False, **k: _new_empty_strided(x, size, stride, **k),
                     requires_grad, dtype, kw.get("layout"), device)
        if t is not None:
            return t
    return empty_strided(size, stride, requires_grad=requires_grad, **_new_kw(self, dtype, device))


def _options_text(dt, dev):
    return (f"TensorOptions(dtype={_dtype.C_NAMES.get(dt.name, dt.name)}, device={dev}, layout=Strided, "
            "requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt))")


def legacy_alias(src, dtype=None, device=None):
    """torch's legacy constructors given a tensor (``torch.FloatTensor(t)``, ``torch.Tensor(t)``,
    ``x.new(t)``): ``t`` itself as an alias (a view of it, ``AliasBackward0`` while it requires grad) where its
    dtype (and device, where one is asked for) are those asked for; else torch's TypeError.  (PyTorch-GAN-era
    code wraps tensors in ``Tensor(...)``: a tensor of another dtype was returned unchanged.)"""
    dev = src.device if device is None else canonical(device)
    if (dtype is not None and src.dtype is not dtype) or src.device != dev:
        raise TypeError(f"expected {_options_text(src.dtype if dtype is None else dtype, dev)} "
                        f"(got {_options_text(src.dtype, src.device)})")
    return src.as_subclass(Tensor)


def _new(self, *args, **kw):  # the legacy ``t.new(sizes...)`` / ``t.new(data)``; ``t.new()`` is empty, as torch's
    no_other_keywords("new", kw, allowed=("device",))
    first = args[0] if args else 0
    # as the legacy constructors (``Tensor.__new__``): integers (numpy's too) or one torch.Size are a shape, any
    # other sequence is data
    if isinstance(first, Size) or (isinstance(first, numbers.Integral) and not isinstance(first, bool)):
        shape = first if len(args) == 1 and isinstance(first, Size) else args or (0,)
        return _new_empty(self, _size(shape, "new"), **kw)
    if isinstance(first, (float, complex, bool)):  # (a number is neither sizes nor data for torch's parser)
        raise TypeError(f"new(): data must be a sequence (got {type(first).__name__})")
    if isinstance(first, Tensor):
        return legacy_alias(first, self.dtype, kw.get("device", self.device))
    return _tensor_quiet(first, **_new_kw(self, None, None))
