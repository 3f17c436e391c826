"""Random sampling: rand/randn/randint/randperm, normal, bernoulli, multinomial, poisson, the *_like
factories and the in-place samplers (uniform_, normal_, random_, ...).

Every function takes ``generator=`` (a :class:`torchlike.Generator`; default: the global one seeded by
``torchlike.manual_seed``).  In eager CPU code the values are torch's CPU values for the same seed
(see ``torchlike/_mt_kernels.py``); compiled code draws from JAX keys instead.

    >>> import torchlike
    >>> _ = torchlike.manual_seed(0)
    >>> torchlike.rand(2, 3)
    tensor([[0.4963, 0.7682, 0.0885],
            [0.1320, 0.3074, 0.6341]])
"""
from __future__ import annotations

import numbers
import operator

import jax.numpy as jnp
import numpy as np

from .. import _memory_format as _mfmt
from .. import _dtype, _mt_kernels as _K
from .._creation import _finish, _hostable, _host_or_put, _out, _size, by_class, class_factory
from .._device import _default as _default_device, canonical
from .._dispatch import dispatch
from .._random import Generator, draw, fill_order, host_stream, in_fill_order, like_order, torch_draw
from ..tensor import HOST_MAX
from .. import _grad_mode as grad_mode
from . import dropout as _dropout
from ._util import Tensor, register
from .signatures import Signature
from .._errors import argument_error, broadcast_shape, float_arg, int_arg, is_tracer, no_other_keywords, torch_warn
from .._mutation import check_inplace, write_out

__all__ = ["rand", "randn", "randint", "randperm", "normal", "bernoulli", "multinomial", "poisson", "rand_like",
           "randn_like", "randint_like"]


def _g(v):
    return f"{v:g}" if isinstance(v, float) else str(v)


def _new(x, dev, requires_grad=False):
    dev = canonical(dev)
    if type(x) is np.ndarray:  # a small eager CPU draw (draw(..., host=True)): a host-resident tensor
        return _host_or_put(x, dev, requires_grad)
    if dev.type != "cpu":
        import jax
        x = jax.device_put(x, dev.jax_device())
    return _finish(x, dev, requires_grad)


def _float_dtype(dtype, kernel):
    d = _dtype.to_dtype(dtype) if dtype is not None else _dtype.get_default_dtype()
    if not (d.is_floating_point or d.is_complex):
        raise NotImplementedError(f'"{kernel}" not implemented for \'{_dtype._CAP[d.name]}\'')
    return d


def _shape(size):
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    return _size(size)


_NO_PARAMS = {}
_F32 = np.dtype(np.float32)


def _quick(kind, shape, dt, args, generator):
    """The common eager call's fast path (``rand(32)``, ``randint(9000, (32,))``: plain int sizes, default
    device and no out/requires_grad, checked by the caller): torch's values drawn on the host straight into a
    host-resident tensor, the generator advanced as ``draw`` would; None where the general path must run (a
    non-CPU default device, vmap, tracing, more than ``HOST_MAX`` elements, a size that is not plain ints)."""
    if len(shape) == 1 and type(shape[0]) is tuple:  # rand((2, 3))
        shape = shape[0]
    n = 1
    for s in shape:
        if type(s) is not int or s < 0:
            return None
        n *= s
    dev = _default_device[0]
    if n > HOST_MAX or not _hostable(dev):
        return None
    e = host_stream(generator)
    if e is None:
        return None
    if kind == "uniform" and dt is _F32 and args is _UNIT:  # (torch_draw's kernels, minus their dispatch)
        x = _K.unit24(e.words(n))
    elif kind == "randint":
        x = _K.random_from_to(e, n, *args)
    else:
        x = torch_draw(e, kind, shape, dt, args, _NO_PARAMS)
    return Tensor._from_host(x.reshape(shape), dev)


# --- factories ---------------------------------------------------------------------------------------------
def rand(*args, size=None, generator=None, out=None, dtype=None, layout=None, device=None, requires_grad=False,
         pin_memory=False):
    """Uniform samples on ``[0, 1)``.

    >>> import torchlike
    >>> bool(((torchlike.rand(100) >= 0) & (torchlike.rand(100) < 1)).all())
    True
    """
    if device is None and out is None and not requires_grad and (not args if size is not None else args):
        t = _quick("uniform", args if size is None else (size,), _float_dtype(dtype, "check_uniform_bounds").np, _UNIT, generator)
        if t is not None:
            return t
    if size is None and not args:  # (no size at all: torch's parser error, from the op's signatures)
        raise TypeError("rand() missing 1 required positional arguments: \"size\"")
    d, device = _float_dtype(dtype, "check_uniform_bounds"), canonical(device)
    x = draw("uniform", _shape(args if size is None else (size,)), d.np, generator, args=(0.0, 1.0), host=True,
             device=device)
    return _out(_new(x, device, requires_grad), out)


def randn(*args, size=None, generator=None, out=None, dtype=None, layout=None, device=None, requires_grad=False,
          pin_memory=False):
    """Standard normal samples.

    >>> import torchlike
    >>> torchlike.randn(2, 3).dtype
    torch.float32
    """
    if device is None and out is None and not requires_grad and (not args if size is not None else args):
        t = _quick("normal", args if size is None else (size,), _float_dtype(dtype, "normal_kernel_cpu").np, _UNIT, generator)
        if t is not None:
            return t
    if size is None and not args:  # (no size at all: torch's parser error, from the op's signatures)
        raise TypeError("randn() missing 1 required positional arguments: \"size\"")
    d, device = _float_dtype(dtype, "normal_kernel_cpu"), canonical(device)
    x = draw("normal", _shape(args if size is None else (size,)), d.np, generator, args=(0.0, 1.0), host=True,
             device=device)
    return _out(_new(x, device, requires_grad), out)


_UNIT = (0.0, 1.0)
_I64 = np.dtype(np.int64)
_I64_MIN, _I64_MAX = -2 ** 63, 2 ** 63 - 1


def _check_from_to(low, high):
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")


def _check_random_bounds(low, high, d):
    """torch's ``check_from_to`` (DistributionTemplates.h) for draws on ``[low, high)`` into dtype ``d``: ``from``
    and ``to - 1`` within the dtype's range (a RuntimeError), and for a float dtype a warning where they pass the
    integers it holds exactly."""
    if d.is_complex:
        raise RuntimeError("check_random_bounds handles only integral, floating-point and boolean types")
    ends = ((low, "from"), (high - 1, "to - 1"))
    if d.is_floating_point:
        fi = jnp.finfo(d.np)
        top, digits = float(fi.max), fi.nmant + 1
    else:
        top, digits = (1, None) if d is _dtype.bool else (int(np.iinfo(d.np).max), None)
    bottom = 0 if d is _dtype.bool else -top if d.is_floating_point else int(np.iinfo(d.np).min)
    for v, what in ends:
        if not bottom <= v <= top:
            raise RuntimeError(f"{what} is out of bounds for {_CNAME.get(d.name, d.name)}")
    if digits is not None:
        for (v, what), line in zip(ends, (110, 111)):
            if v < -(1 << digits) or v > (1 << digits):
                torch_warn(f"{what} is out of bounds [-(2^{digits}), 2^{digits}]. Due to precision limitations "
                           f"{_CNAME.get(d.name, d.name)} can support discrete uniform distribution only within this "
                           "range. This warning will become an error in version 1.7 release, please fix the code in "
                           "advance", f"aten/src/ATen/native/DistributionTemplates.h:{line}")


def _randint_array(low, high, shape, d, generator, host=False, device=None):
    _check_from_to(low, high)
    _check_random_bounds(low, high, d)
    return draw("randint", shape, d.np, generator, args=(int(low), int(high)), host=host, device=device)


_FACTORY = ("Tensor? out=None, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool pin_memory=False, "
            "bool requires_grad=False")
_RANDINT = Signature("randint", [f"{b}, SymInt[] size, *, {g}{_FACTORY}" for b in ("int high", "int low, int high")
                                 for g in ("Generator generator, ", "")])
_RANDPERM = Signature("randperm", [f"SymInt n, *, {g}{_FACTORY}" for g in ("Generator generator, ", "")])


def _int_like(v):
    return isinstance(v, (numbers.Integral, Tensor)) and not isinstance(v, bool)


def _given(**kwargs):
    return {k: v for k, v in kwargs.items() if v is not None}


def randint(*args, size=None, generator=None, out=None, dtype=None, layout=None, device=None,
            requires_grad=False, pin_memory=False, low=None, high=None):
    """Integers uniform on ``[low, high)``: ``randint(high, size)`` or ``randint(low, high, size)``.

    >>> import torchlike
    >>> torchlike.randint(3, 10, (4,)).dtype
    torch.int64
    """
    if low is None and high is None and device is None and out is None and not requires_grad and args:
        shp, bounds = (args[-1], args[:-1]) if size is None else (size, args)  # randint([low,] high, size)
        if type(shp) is tuple and 1 <= len(bounds) <= 2 and type(bounds[0]) is int and type(bounds[-1]) is int:
            lo, hi = bounds[0] if len(bounds) == 2 else 0, bounds[-1]
            if _I64_MIN <= lo < hi <= _I64_MAX and (dtype is None or dtype is _dtype.int64):
                t = _quick("randint", shp, _I64, (lo, hi), generator)
                if t is not None:
                    return t
    given, args = args, list(args)
    if size is None:
        if not args:
            raise TypeError("randint() missing required argument 'size'")
        size = args.pop()
    if high is None:
        high = args.pop() if args else None
    if low is None:
        low = args.pop() if args else 0
    if high is None:  # (torch's parser: no overload takes a lone bound)
        err = _RANDINT.error(given, _given(generator=generator, out=out, dtype=dtype, layout=layout, device=device))
        raise TypeError(err.as_function if err is not None else "randint() missing required argument 'high'")
    if not (_int_like(low) and _int_like(high)) or isinstance(size, numbers.Integral):  # (a bool or float bound,
        err = _RANDINT.error(given, _given(  # an int size: torch's parser)
            generator=generator, out=out, dtype=dtype, layout=layout, device=device))
        if err is not None:
            raise TypeError(err.as_function)
    d = _dtype.to_dtype(dtype) if dtype is not None else _dtype.int64
    shape = _size((size,) if isinstance(size, numbers.Integral) else tuple(size))
    device = canonical(device)
    return _out(_new(_randint_array(int(low), int(high), shape, d, generator, True, device), device, requires_grad),
                out)


def randperm(n, *, generator=None, out=None, dtype=None, layout=None, device=None, requires_grad=False,
             pin_memory=False):
    """A random permutation of ``0 .. n-1``.

    >>> import torchlike
    >>> sorted(torchlike.randperm(4).tolist())
    [0, 1, 2, 3]
    """
    if not _int_like(n) or isinstance(n, Tensor) or generator is not None and not isinstance(generator, Generator):
        # (a bool, a float, a tensor that is not a 0-d integer one,
        # a generator that is not one: torch's parser error; random_split and the samplers call this directly)
        err = _RANDPERM.error((n,), _given(generator=generator, out=out, dtype=dtype, layout=layout, device=device))
        if err is not None:
            raise TypeError(err.as_function)
    n = int(n)
    if not 0 <= n <= 2 ** 63 - 1:
        if n > 0 or n < -2 ** 63:  # (torch's parser fails to unpack it)
            raise ValueError("Overflow when unpacking long long")
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
    d, device = _dtype.to_dtype(dtype) if dtype is not None else _dtype.int64, canonical(device)
    _check_randperm(n, d)
    x = draw("perm", (n,), d.np, generator, host=True, device=device) if n else jnp.zeros((0,), d.np)
    return _out(_new(x, device, requires_grad), out)


_PERM_CTYPE = {"int8": "int8_t", "uint8": "uint8_t", "int16": "int16_t"}


def _check_randperm(n, d):
    """torch's randperm kernel's checks: no bool or complex kernel; ``n`` that the dtype counts up to exactly."""
    if d is _dtype.bool or d.is_complex:
        raise NotImplementedError(f'"randperm" not implemented for \'{_dtype._CAP[d.name]}\'')
    if d is _dtype.float16 and n > 2049:
        raise RuntimeError("n cannot be greater than 2049 for Half type.")
    if d is _dtype.float32 and n > 2 ** 24 + 1:
        raise RuntimeError("n cannot be greater than 2^24+1 for Float type.")
    if d.name in _PERM_CTYPE and n - 1 > np.iinfo(d.np).max:
        raise RuntimeError(f"value cannot be converted to type {_PERM_CTYPE[d.name]} without overflow")


def _like_dev(input, device):
    return canonical(device) if device is not None else input.device


def rand_like(input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None,
              generator=None):
    """``rand`` with ``input``'s shape (and dtype/device unless given).

    >>> import torchlike
    >>> torchlike.rand_like(torchlike.zeros(2, 3)).shape
    torch.Size([2, 3])
    """
    if class_factory:
        t = by_class("rand_like", input, (), lambda x, pin_memory=False, **k: rand_like(x, generator=generator, **k),
                     requires_grad, dtype, layout, device, memory_format)
        if t is not None:
            return t
    order = like_order(input, memory_format)
    if order is None:
        return rand(tuple(input.shape), dtype=dtype or input.dtype, device=_like_dev(input, device),
                    requires_grad=requires_grad, generator=generator)
    d = _float_dtype(dtype or input.dtype, "check_uniform_bounds")  # torch fills empty_like's strides in order
    x = draw("uniform", tuple(input.shape), d.np, generator, args=(0.0, 1.0), host=True,
             device=_like_dev(input, device))
    return _mfmt.mark(_new(in_fill_order(x, order), _like_dev(input, device), requires_grad), memory_format, input)


def randn_like(input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None,
               generator=None):
    """``randn`` with ``input``'s shape (and dtype/device unless given).

    >>> import torchlike
    >>> torchlike.randn_like(torchlike.zeros(2, 3)).dtype
    torch.float32
    """
    if class_factory:
        t = by_class("randn_like", input, (), lambda x, pin_memory=False, **k: randn_like(x, generator=generator, **k),
                     requires_grad, dtype, layout, device, memory_format)
        if t is not None:
            return t
    order = like_order(input, memory_format)
    d = _float_dtype(dtype or input.dtype, "normal_kernel_cpu")
    if order is None:
        return randn(tuple(input.shape), dtype=d, device=_like_dev(input, device), requires_grad=requires_grad,
                     generator=generator)
    # torch fills a non-contiguous result in stride order, element by element (never the 16-wide kernel)
    x = draw("normal_scalar", tuple(input.shape), d.np, generator, args=(0.0, 1.0), host=True,
             device=_like_dev(input, device))
    return _mfmt.mark(_new(in_fill_order(x, order), _like_dev(input, device), requires_grad), memory_format, input)


def _integer(v):
    """An int argument's value: a float is torch's parser error (a TypeError here, which the op table's wrapper
    words from the op's signatures), not truncated by int()."""
    return int(v) if isinstance(v, Tensor) else operator.index(v)


def randint_like(input, low=0, high=None, *, dtype=None, layout=None, device=None, requires_grad=False,
                 memory_format=None, generator=None):
    """``randint`` with ``input``'s shape: ``randint_like(x, high)`` or ``randint_like(x, low, high)``."""
    if class_factory:
        args = (low,) if high is None else (low, high)
        t = by_class("randint_like", input, args, lambda x, *a, pin_memory=False, **k: randint_like(
            x, *a, generator=generator, **k), requires_grad, dtype, layout, device, memory_format,
            "default" if high is None else "low_dtype")
        if t is not None:
            return t
    if high is None:
        if isinstance(low, Tensor) and low.ndim:  # (torch's Tensor-high overload takes a 0-d one only)
            raise RuntimeError("high must be a scalar tensor and on CPU")
        low, high = 0, low
    shape, d = tuple(input.shape), _dtype.to_dtype(dtype or input.dtype)
    x = _randint_array(_integer(low), _integer(high), shape, d, generator, True, _like_dev(input, device))
    return _mfmt.mark(_new(in_fill_order(x, like_order(input, memory_format)), _like_dev(input, device),
                           requires_grad), memory_format, input)


# --- normal / bernoulli / multinomial / poisson ------------------------------------------------------------
def _last(*arrays):
    return arrays[-1]


def _tracks(*ts):
    return grad_mode.is_grad_enabled() and any(isinstance(t, Tensor) and (t._rg or t._grad_fn is not None)
                                               for t in ts)


def _zero_grad(inputs, value, name):
    """``value`` recorded as an op of the Tensors ``inputs`` with torch's gradient for random ops: zero."""
    return dispatch(_last, tuple(t for t in inputs if isinstance(t, Tensor)) + (value,), name=name)


def _concrete(t):
    """``t``'s values for torch's argument checks, or None while ``t`` is traced (torchlike.compile, a JAX
    transform): the op is then traced without the check, as torch's compiled (Inductor) code draws
    ``normal``/``bernoulli`` unchecked (its ``multinomial``/``poisson`` still check when the program runs;
    docs/differences.md)."""
    return None if is_tracer(t._value) else np.asarray(t._value)


def normal(mean=0.0, std=1.0, size=None, *, generator=None, out=None, dtype=None, layout=None, device=None,
           requires_grad=False, pin_memory=False):
    """Normal samples; ``mean``/``std`` are tensors (broadcast) or floats (then ``size`` is required).

    >>> import torchlike
    >>> torchlike.normal(torchlike.zeros(3), 1.0).shape
    torch.Size([3])
    """
    mt, st = isinstance(mean, Tensor), isinstance(std, Tensor)
    if size is not None and (mt or st):  # (torch's overloads with a Tensor mean or std take no size)
        raise TypeError("normal(): size with a Tensor mean or std")
    if not st and std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {_g(std)}")
    if st and (sv := _concrete(std)) is not None and bool((sv < 0).any()):
        raise RuntimeError("normal expects all elements of std >= 0.0")
    if not mt and not st:
        if size is None:
            raise TypeError("normal() received an invalid combination of arguments - got (float, float), but "
                            "expected (float mean, float std, tuple of ints size, ...)")
        d, device = _float_dtype(dtype, "normal_kernel_cpu"), canonical(device)
        x = draw("normal", _shape((size,)), d.np, generator, args=(float(mean), float(std)), device=device)
        return _out(_new(x, device, requires_grad), out)
    ref = mean if mt else std
    d = _dtype.result_type(*[v for v in (mean, std) if isinstance(v, Tensor)]) if mt and st else ref.dtype
    if not (d.is_floating_point or d.is_complex):
        raise NotImplementedError(f'"normal_kernel_cpu" not implemented for \'{_dtype._CAP[d.name]}\'')
    shape = broadcast_shape(tuple(mean.shape) if mt else (), tuple(std.shape) if st else ())
    z = Tensor._wrap(draw("normal", shape, d.np, generator, args=(0.0, 1.0), device=ref._dev), ref._dev)
    # torch: output.mul_(std).add_(mean): two ops, two roundings (one fused op would be an FMA)
    with grad_mode.no_grad():
        r = z * std + mean
    if _tracks(mean, std):  # torch: the output requires grad, the gradients are zero
        r = _zero_grad((mean, std), r, "NormalBackward3" if mt and st else "NormalBackward1" if mt else
                       "NormalBackward2")
    return _out(r, out)


def _check_p(v):
    if v is not None and bool(((v < 0) | (v > 1) | np.isnan(v)).any()):
        raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error message "
                           "be improved?  If so, please report an enhancement request to PyTorch.)")


@register(inplace=False, out=True, differentiable=False)
def bernoulli(input, p=None, *, generator=None):
    """0/1 samples with probabilities ``input`` (or the scalar ``p``), in ``input``'s dtype and shape.

    >>> import torchlike
    >>> torchlike.bernoulli(torchlike.ones(3))
    tensor([1., 1., 1.])
    """
    if p is None:
        d = input.dtype
        if not d.is_floating_point:  # (torch's kernel draws into floating p only)
            kernel = "bernoulli_tensor_cpu_self_" if d.is_complex else "bernoulli_tensor_cpu_p_"
            raise NotImplementedError(f'"{kernel}" not implemented for \'{_dtype._CAP[d.name]}\'')
        probs = _concrete(input)
        _check_p(probs)
        arg = input._value
    else:
        _check_p(np.asarray(float(p)))
        arg = float(p)
    x = draw("bernoulli", tuple(input.shape), input.dtype.np, generator, args=(arg,), device=input._dev)
    r = Tensor._wrap(x, input._dev)
    return _zero_grad((input,), r, "BernoulliBackward0") if p is None and _tracks(input) else r


def _check_rows_with_replacement(p):
    """torch's with-replacement kernel validates row by row: the first bad entry of the first bad row
    (negative or NaN: "< 0"; infinite: "= infinity or NaN"), or a row summing to <= 0."""
    neg = ~(p >= 0)
    bad = neg | ~np.isfinite(p)
    rowbad = bad.any(1) | (np.where(bad, 0, p).sum(1) <= 0)
    if rowbad.any():
        i = int(np.argmax(rowbad))
        if bad[i].any():
            j = int(np.argmax(bad[i]))
            raise RuntimeError("invalid multinomial distribution (encountering probability entry "
                               f"{'< 0' if neg[i, j] else '= infinity or NaN'})")
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")


def _multinomial_out(out, input, num_samples, replacement=False, *, generator=None):
    if out.dtype is not _dtype.int64:
        raise RuntimeError(f"multinomial expects Long tensor out, got: {_dtype._CAP[out.dtype.name]}")
    return write_out(out, multinomial(input, num_samples, replacement, generator=generator))


@register(differentiable=False, out_form=_multinomial_out)
def multinomial(input, num_samples, replacement=False, *, generator=None):
    """Category indices drawn from the rows of ``input`` (unnormalised probabilities; 1-D or 2-D).

    >>> import torchlike
    >>> torchlike.multinomial(torchlike.tensor([0., 1., 0.]), 2, replacement=True)
    tensor([1, 1])
    """
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"multinomial only supports floating-point dtypes for input, got: "
                           f"{_dtype._CAP[input.dtype.name]}")
    if input.ndim not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    n = int_arg(num_samples, "num_samples")
    if n <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    k = input.shape[-1]
    if not replacement and n > k:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    if k > 2 ** 24:
        raise RuntimeError("number of categories cannot exceed 2^24")
    p = _concrete(input)
    if p is not None:
        p = p.astype(np.float64)
        if replacement and n > 1:
            _check_rows_with_replacement(p.reshape(-1, k))
        if not np.isfinite(p).all() or (p < 0).any():
            raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
        if (p.sum(-1) <= 0).any():
            raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    shape = tuple(input.shape[:-1]) + (n,)
    x = draw("multinomial", shape, np.dtype(np.int64), generator, args=(input._value,),
             params=(("n", n), ("replacement", bool(replacement))))
    return Tensor._wrap(x, input._dev)


@register(method=False, differentiable=False)
def poisson(input, generator=None):
    """Poisson samples with rates ``input`` (same dtype and shape).

    >>> import torchlike
    >>> torchlike.poisson(torchlike.zeros(2))
    tensor([0., 0.])
    """
    r = _concrete(input)
    if r is not None and (r < 0).any():
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
    x = draw("poisson", tuple(input.shape), input.dtype.np, generator, args=(input._value.astype(jnp.float64),))
    r = Tensor._wrap(x, input._dev)
    return _zero_grad((input,), r, "PoissonBackward0") if _tracks(input) else r


# --- in-place samplers -------------------------------------------------------------------------------------
def _into(self, kind, generator, args=()):
    """A draw for an in-place fill of ``self``: torch fills a strided view in its stride order, and a
    non-contiguous one's normals element by element (its 16-wide kernel needs a contiguous tensor).  An expanded
    ``self`` raises torch's internal-overlap error before anything is drawn."""
    check_inplace(self, (), None, "internal")
    shape = tuple(self.shape)
    if self._vbase is None and self._st is None or self.is_contiguous():  # (_st: channels-last, ...)
        return draw(kind, shape, self.dtype.np, generator, args=args, device=self._dev)
    if kind == "normal":
        kind = "normal_scalar"
    order = fill_order(shape, self.stride())
    if kind == "bernoulli" and order is not None and not isinstance(args[0], float):  # p read in the same order
        args = (jnp.asarray(args[0]).reshape(-1)[order].reshape(shape),)
    return in_fill_order(draw(kind, shape, self.dtype.np, generator, args=args, device=self._dev), order)


def _fill(self, x, node="RandomBackward0"):
    new = Tensor._wrap(x, self._dev)
    if _tracks(self):  # torch: the filled tensor's gradient to what it held before is zero
        self._check_inplace_leaf()
        new = _zero_grad((self,), new, node)
    return self._inplace_update(new)


def _need_float(self, kernel, complex_ok=True):
    if not (self.dtype.is_floating_point or (complex_ok and self.dtype.is_complex)):
        raise NotImplementedError(f'"{kernel}" not implemented for \'{_dtype._CAP[self.dtype.name]}\'')


_CPP = {"int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char", "uint8": "unsigned char",
        "uint16": "short unsigned int", "uint32": "unsigned int", "uint64": "long unsigned int", "bool": "bool",
        "complex64": "c10::complex<float>", "complex128": "c10::complex<double>"}


def continuous_dtype(self, name, cpp):
    """torch's dtype check of exponential_/cauchy_ (after the parameter check): a floating point dtype."""
    if not self.dtype.is_floating_point:
        d = self.dtype.name
        raise RuntimeError(f"{name} distribution is a continuous probability distribution. dtype must be a floating "
                           f"point but you specified {_CPP.get(d, d) if cpp else _dtype._CAP[d]}")


def uniform_(self, from_=0.0, to=1.0, *, generator=None, **kw):
    """Fill with uniform samples on ``[from, to)``."""
    from_ = kw.pop("from", from_)  # (torch's keyword is Python's reserved word)
    no_other_keywords("uniform_", kw)
    _need_float(self, "check_uniform_bounds")
    if from_ > to:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found from={_g(from_)} > to={_g(to)}")
    return _fill(self, _into(self, "uniform", generator, (float_arg(from_, "from"), float_arg(to, "to"))), "UniformBackward0")


def normal_(self, mean=0.0, std=1.0, *, generator=None):
    """Fill with normal samples."""
    _need_float(self, "normal_kernel_cpu")
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {_g(std)}")
    return _fill(self, _into(self, "normal", generator, (float_arg(mean, "mean"), float_arg(std, "std"))), "NormalBackward0")


def bernoulli_(self, p=0.5, *, generator=None):
    """Fill with 0/1 samples of probability ``p`` (a float or a broadcastable tensor)."""
    if self.dtype.is_complex:
        kernel = "bernoulli_tensor_cpu_self_" if isinstance(p, Tensor) else "bernoulli_scalar_cpu_"
        raise NotImplementedError(f'"{kernel}" not implemented for \'{_dtype._CAP[self.dtype.name]}\'')
    if isinstance(p, Tensor):
        _check_p(_concrete(p))
        arg = p.expand(tuple(self.shape))._value  # (torch's error when p does not broadcast)
    else:
        if not 0 <= p <= 1:
            raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={_g(p)}")
        arg = float(p)
    return _fill(self, _into(self, "bernoulli", generator, (arg,)),
                 "BernoulliBackward1" if isinstance(p, Tensor) else "BernoulliBackward2")


def _random_bounds(d):
    """torch's default ``random_()`` range for dtype ``d``: [0, 2**mantissa] for floats, [0, max] for ints."""
    if d is _dtype.bool:
        return 0, 2
    if d.is_floating_point:
        digits = {"float16": 11, "bfloat16": 8, "float32": 24, "float64": 53}[d.name]
        return 0, 2 ** digits + 1
    return 0, int(np.iinfo(d.np).max) + 1


def random_(self, *args, generator=None, **kw):
    """Fill with integers uniform on ``[from, to)`` (``random_(to)``; ``random_()``: the dtype's range)."""
    if len(args) == 1:  # random_(to)
        from_, to = 0, args[0]
    elif len(args) == 2:
        from_, to = args
    elif args:
        raise TypeError(f"random_() takes at most 2 positional arguments ({len(args)} given)")
    else:
        from_, to = kw.pop("from", None), kw.pop("to", None)
    no_other_keywords("random_", kw)
    d = self.dtype
    if d.is_complex:
        if from_ is None and to is None:
            raise NotImplementedError(f'"random_kernel_cpu" not implemented for \'{_dtype._CAP[d.name]}\'')
        raise RuntimeError("check_random_bounds handles only integral, floating-point and boolean types")
    if from_ is None and to is None:
        return _fill(self, _into(self, "random", generator))
    if to is None:
        low, high = int_arg(from_, "from"), _random_bounds(d)[1]
        if low == -2 ** 63 and d is _dtype.int64:  # torch's full 64-bit range kernel
            return _fill(self, _into(self, "random_full64", generator))
        _check_from_to(low, high)
    else:
        low, high = int_arg(from_ or 0, "from"), int_arg(to, "to")
        _check_from_to(low, high)
        _check_random_bounds(low, high, d)
    return _fill(self, _into(self, "randint", generator, (low, high)))


_CNAME = {"int8": "signed char", "uint8": "unsigned char", "int16": "short", "int32": "int", "int64": "long",
          "bool": "bool", "uint16": "unsigned short", "uint32": "unsigned int", "uint64": "unsigned long",
          "float16": "c10::Half", "bfloat16": "c10::BFloat16", "float32": "float", "float64": "double"}


def exponential_(self, lambd=1.0, *, generator=None):
    """Fill with exponential samples of rate ``lambd``."""
    if not lambd > 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={_g(lambd)}")
    continuous_dtype(self, "Exponential", False)
    return _fill(self, _into(self, "exponential", generator, (float_arg(lambd, "lambd"),)), "ExponentialBackward0")


def geometric_(self, p, *, generator=None):
    """Fill with geometric samples (trials until the first success, >= 1)."""
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={_g(p)}")
    if self.dtype.is_complex or self.dtype is _dtype.bool:
        raise NotImplementedError(f'"geometric_cpu" not implemented for \'{_dtype._CAP[self.dtype.name]}\'')
    return _fill(self, _into(self, "geometric", generator, (float_arg(p, "p"),)), "GeometricBackward0")


def cauchy_(self, median=0.0, sigma=1.0, *, generator=None):
    """Fill with Cauchy samples."""
    if not sigma > 0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={_g(sigma)}")
    continuous_dtype(self, "Cauchy", True)
    return _fill(self, _into(self, "cauchy", generator, (float_arg(median, "median"), float_arg(sigma, "sigma"))), "CauchyBackward0")


def log_normal_(self, mean=1.0, std=2.0, *, generator=None):
    """Fill with samples whose log is normal(mean, std)."""
    if not std > 0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={_g(std)}")
    _need_float(self, "log_normal_cpu", complex_ok=False)
    return _fill(self, _into(self, "lognormal", generator, (float_arg(mean, "mean"), float_arg(std, "std"))), "LogNormalBackward0")


# (the module's names are the declared functions: register may wrap one, as random_ in torch's None check)
for _f in (uniform_, normal_, bernoulli_, random_, exponential_, geometric_, cauchy_, log_normal_):
    globals()[_f.__name__] = register(_f.__name__, namespaces=(), promote="none")(_f)  # Tensor methods only
for _f in (rand, randn, randint, randperm, rand_like, randn_like, randint_like):
    globals()[_f.__name__] = register(_f.__name__, method=False, promote="none", differentiable=False)(_f)
# torch records NormalBackward nodes (zero gradients) for tensor mean/std
normal = register("normal", method=False, promote="none", differentiable=True)(normal)


# --- torch-level dropout names (torch.native_dropout, torch.feature_dropout, the in-place variants) ---------
def native_dropout(input, p, train):
    """``(output, mask)``: ``mask`` ~ Bernoulli(1 - p) (bool, C order), ``output = input * mask * 1/(1-p)``.

    >>> import torchlike
    >>> out, mask = torchlike.native_dropout(torchlike.ones(3), 0.5, False)
    >>> mask
    tensor([True, True, True])
    """
    if train is not None and train is not True and train is not False:
        raise argument_error(train, "bool", "train", "native_dropout", 3)  # (a function only: no method position)
    if input.numel() == 0:
        return input, input.new_empty(tuple(input.shape))
    if train is not None and not train:
        return input.clone(), input.new_ones(tuple(input.shape), dtype=_dtype.bool)
    mask = Tensor._wrap(draw("bernoulli", tuple(input.shape), np.dtype(bool), None, args=(1.0 - p,)), input._dev)
    scale = 0.0 if p == 1 else 1.0 / (1.0 - p)
    return dispatch(_native_dropout, (input, mask, scale), name="NativeDropoutBackward0"), mask


def _native_dropout(x, mask, scale):
    # torch: input.mul(mask).mul_(scale): the scale rounded to the dtype, the product in its opmath type
    work = jnp.float64 if x.dtype == jnp.float64 else jnp.float32
    return ((x * mask.astype(x.dtype)).astype(work) * jnp.asarray(scale, x.dtype).astype(work)).astype(x.dtype)


def feature_dropout(input, p, train):
    """Dropout of whole channels (dims 0 and 1 kept, the rest share one draw); torch.feature_dropout."""
    return _dropout._impl(input, p, train, False, True, False)


def feature_dropout_(input, p, train):
    return _dropout._impl(input, p, train, True, True, False)


def dropout_(input, p, train):
    return _dropout.dropout(input, p, train, inplace=True)


def alpha_dropout_(input, p, train):
    return _dropout.alpha_dropout(input, p, train, inplace=True)


def feature_alpha_dropout_(input, p, train):
    return _dropout.feature_alpha_dropout(input, p, train, inplace=True)


for _f in (native_dropout, feature_dropout, feature_dropout_, dropout_, alpha_dropout_, feature_alpha_dropout_):
    register(_f.__name__, method=False, promote="none")(_f)
