"""Casts, device moves, copies and fills."""
from __future__ import annotations

import jax
import jax.numpy as jnp

import numbers

import numpy as np

from ._util import Tensor, as_tensor_arg, cast, dispatch, register
from .. import _profiler_state as _prof
from .._grad_mode import _state as _grad_state
from .._shape_churn import host_impl
from .._creation import empty
from .._device import canonical
from .._errors import bool_arg, broadcast_shape, extra_arguments_error, torch_warn, tp_name
from .._to_args import parse_to
from .._scalar_fit import check_numbers_fit
from .._dispatch import ERR_VAR, HOST_DTYPES, QUIET, host_assign, host_number, host_operand
from .._mutation import check_inplace, on_inplace
from .._views import HOST_CHAIN as _HOST_CHAIN
from .. import _memory_format as _mfmt

__all__ = ["to_dtype_op", "to_device_op", "clone", "contiguous", "copy_", "empty_permuted"]


def _cast_impl(x, dt):
    return cast(x, dt)


def _cast_chalf_impl(x):
    # complex32 is stored as complex64 (JAX has no complex32), its parts rounded to float16 as torch's are
    z = cast(x, jnp.complex64)
    half = lambda p: p.astype(jnp.float16).astype(jnp.float32)  # noqa: E731
    return jax.lax.complex(half(jnp.real(z)), half(jnp.imag(z)))


def _host_cast_ok(src, dst):
    """Whether numpy's ``astype`` from ``src`` to ``dst`` gives the device program's (and torch's) values: from
    bools and integers (integers wrap, floats round to nearest), between floats (overflow to inf) and to bool
    (nonzero, NaN included); not float to integer (out-of-range values differ between the kernels)."""
    return src in HOST_DTYPES and dst in HOST_DTYPES and (src.kind in "biu" or dst.kind in "fb")


def warn_complex_to_real(src, dt):
    """torch's copy kernel (``to``, ``copy_``, a write through an index) warns once per process when it drops
    an imaginary part (not when it casts to bool)."""
    if src.is_complex and not dt.is_complex and dt.name != "bool":
        torch_warn("Casting complex values to real discards the imaginary part", "aten/src/ATen/native/Copy.cpp:307",
                   once=True)


def to_dtype_op(t, dt):
    """``t`` cast to dtype ``dt`` (differentiable between float types)."""
    h = host_operand(t)
    if h is not None and _host_cast_ok(h.dtype, dt.np):  # a host tensor: numpy's cast, a host tensor
        tok = ERR_VAR.set(QUIET)  # (float64 -> float32 overflows to inf without numpy's warning, as torch)
        try:
            r = h.astype(dt.np)
        finally:
            ERR_VAR.reset(tok)
        return Tensor._from_host(r, t._dev)
    if dt.name == "complex32" and t.dtype is not dt:
        return dispatch(_cast_chalf_impl, (t,), (), name="ToCopyBackward0", saves=False)
    return dispatch(_cast_impl, (t,), (("dt", dt.np),), name="ToCopyBackward0", saves=False)


def _device_impl(x, dev):
    return jax.device_put(x, dev)


def to_device_op(t, dev):
    if t._dev.type == "meta" and dev.type != "meta":
        raise NotImplementedError("Cannot copy out of meta tensor; no data!")
    out = dispatch(_device_impl, (t,), (("dev", dev.jax_device()),), name="ToCopyBackward0", saves=False,
                   jit=False)
    out._dev = canonical(dev)  # ('cpu:0' -> 'cpu': torch's CPU tensors have no index)
    return out


@register("to", namespaces=())
def to(self, *args, **kwargs):
    """``to(dtype, non_blocking=False, copy=False)``, ``to(device=None, dtype=None, non_blocking=False,
    copy=False)`` or ``to(other, non_blocking=False, copy=False)``; copies only if needed (or ``copy``).

    >>> import torchlike as torch
    >>> torch.ones(2).to(torch.float64, False, True).dtype
    torch.float64
    """
    dev, dt, _, copy, fmt = parse_to(Tensor, args, kwargs)
    out = self
    if dt is not None and dt is not self.dtype:
        warn_complex_to_real(self.dtype, dt)
        out = to_dtype_op(out, dt)
    if dev is not None and dev != self._dev:
        out = to_device_op(out, dev)
    if out is not self and (self._st is not None or self._vbase is not None) and _mfmt.needs_layout(self):
        _mfmt.mark(out, None, self)  # (a copy keeps torch's preserve_format layout)
    if fmt is not None and fmt is not _mfmt.preserve_format:
        if out is not self:  # (torch's _to_copy allocates the copy in ``fmt``)
            return _mfmt.mark(out, fmt)
        # torch aliases only where ``self`` already suggests ``fmt`` (a row-major (N, 1, H, W) is channels-last
        # contiguous too, but suggests contiguous_format: converting it copies into channels-last strides)
        if copy or _mfmt.suggest(self) is not fmt:
            return clone(self, memory_format=fmt)
        return self
    if copy and out is self:
        out = self.clone()
    return out


def _clone_impl(x):
    return jnp.array(x, copy=True)


host_impl(_clone_impl, lambda x: np.array(x, copy=True))  # (_shape_churn: a copy is exact in every dtype)


@register(promote="none")
def clone(input, *args, memory_format=None):  # (args: torch's words for those given, see extra_arguments_error)
    """A copy with its own storage (differentiable), laid out in ``memory_format`` (preserve_format: as
    ``empty_like``, see ``_memory_format``).

    >>> import torchlike as torch
    >>> torch.zeros(1, 2, 3, 3).clone(memory_format=torch.channels_last).stride()
    (18, 1, 6, 2)
    """
    if args:
        raise extra_arguments_error("clone", len(args))
    if memory_format is None:
        h = host_operand(input)
        if h is not None:  # a host tensor: a host copy (its own array: numpy() of either one shares only its own)
            return Tensor._from_host(h.copy(), input._dev)
    out = dispatch(_clone_impl, (input,), (), name="CloneBackward0", saves=False)
    if memory_format is None and input._vbase is None and input._st is None:
        return out
    return _mfmt.mark(out, memory_format, input)


@register(method=True, namespaces=())
def contiguous(input, *args, memory_format=None):
    """self if contiguous in ``memory_format``, else a copy that is (see ``_memory_format``).

    >>> import torchlike as torch
    >>> torch.zeros(1, 2, 3, 3).contiguous(memory_format=torch.channels_last).is_contiguous(
    ...     memory_format=torch.channels_last)
    True
    """
    if args:
        raise extra_arguments_error("contiguous", len(args))
    if memory_format is None or memory_format is _mfmt.contiguous_format or \
            memory_format is _mfmt.preserve_format:
        return input if input.is_contiguous() else clone(input, memory_format=_mfmt.contiguous_format)
    _mfmt.check_rank(input.ndim, memory_format)
    if input.is_contiguous(memory_format=memory_format):
        return input
    return clone(input, memory_format=memory_format)


_FW_TANGENT = "_fw_tangent"  # a dual tensor's attribute (autograd.forward_ad): its copy carries the tangent


def _copy_impl(dst, src, dt):
    return jnp.broadcast_to(cast(src, dt), dst.shape)


@register(namespaces=(), promote="none")
def copy_(self, src, non_blocking=False):
    """Copy ``src`` (broadcast, cast) into self in place."""
    if non_blocking is not False and non_blocking is not True:
        bool_arg(non_blocking, "non_blocking", "copy_", 2)
    # a dispatch mode (or a __torch_dispatch__ subclass) sees aten.copy_, not the op that computes the new value
    if _prof.MODES or _prof.SUBCLASSES and type(self) in _prof.SUBCLASSES:
        return _prof.MODE_INPLACE[0](copy_, "copy_", self, (src, non_blocking) if non_blocking else (src,), {})
    if src.__class__ is Tensor and type(self) is Tensor and self._chain is _HOST_CHAIN and src is not self and \
            not on_inplace:
        # both host-resident, one dtype, shape and device (load_state_dict's copies): self takes src's array
        # (arrays are immutable), nothing to check (two host tensors never share memory), cast or record
        h, g = host_operand(self), host_operand(src)
        if h is not None and g is not None and g.dtype is h.dtype and g.shape == h.shape and \
                (src._dev is self._dev or src._dev == self._dev) and _FW_TANGENT not in src.__dict__ and \
                _FW_TANGENT not in self.__dict__ and host_assign(self, g) is not None:
            return self
    if src.__class__ is not Tensor and not isinstance(src, (Tensor, numbers.Number, np.generic)):
        raise TypeError(f"copy_(): argument 'other' (position 1) must be Tensor, not {tp_name(src)}")
    src = as_tensor_arg(src)
    same = src is self  # torch's kernel returns at once (no overlap check: an expanded self too), after the
    # in-place dispatch moved the version and autograd recorded CopyBackwards: the general write below, as is
    if not same:
        check_inplace(self, (src,), None, "partial")  # torch's TensorIterator, before its broadcast check
    if tuple(src.shape) != tuple(self.shape):
        shape = broadcast_shape(tuple(self.shape), tuple(src.shape))
        if shape != tuple(self.shape):
            raise RuntimeError(f"output with shape {list(self.shape)} doesn't match the broadcast shape "
                               f"{list(shape)}")
    if src._dev != self._dev:
        src = src.to(self._dev)
    warn_complex_to_real(src.dtype, self.dtype)
    if src.dtype is self.dtype and src.shape == self.shape and not _prof._COLLECTING and \
            not (_grad_state.enabled and (src.requires_grad or self.requires_grad)) and \
            _FW_TANGENT not in src.__dict__ and _FW_TANGENT not in self.__dict__:
        # nothing to cast, broadcast or record (load_state_dict's copies): the new value is src's array itself
        # (arrays are immutable), so no program compiles for each new shape
        h = src._host_array() if self._chain is _HOST_CHAIN and host_operand(self) is not None else None
        if h is not None:  # both host-resident: self takes src's numpy array and stays on the host (_host_write)
            return self._inplace_update(Tensor._from_host(h, self._dev), same)
        return self._inplace_update(Tensor._wrap(src._value, self._dev), same)
    new = dispatch(_copy_impl, (self, src), (("dt", self.dtype.np),), name="CopyBackwards", saves=False)
    return self._inplace_update(new, same)



def _fill_impl(x, v, dt):
    return jnp.full(x.shape, cast(v, dt), dt)


def check_fill_value(value, dtype=None):
    """torch's fill kernels take a number or a 0-dim tensor (fill_, fill, nn.init.constant_), a number that
    ``dtype`` holds (a complex number only with imaginary part 0 for a real dtype)."""
    if isinstance(value, Tensor) and value.ndim:
        raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor with {value.ndim} "
                           "dimensions.")
    if dtype is not None and isinstance(value, (numbers.Number, np.generic)):
        check_numbers_fit(dtype, value)


@register(promote="none")  # torch.fill_ too
def fill_(self, value):
    """Fill self with a scalar (or 0-dim tensor) in place."""
    if _prof.MODES or _prof.SUBCLASSES and type(self) in _prof.SUBCLASSES:
        return _prof.MODE_INPLACE[0](fill_, "fill_", self, (value,), {})
    if type(self) is Tensor and self._chain is _HOST_CHAIN and not on_inplace:  # a host tensor filled with a
        h = host_operand(self)  # number its dtype holds exactly (so it passes the checks below): numpy
        if h is not None:
            v = host_number(h.dtype, value)
            if v is not None:
                r = np.empty(h.shape, h.dtype)  # (np.full is a Python function: ~3x the cost)
                r.fill(v)
                if host_assign(self, r) is not None:
                    return self
    check_fill_value(value)
    if not isinstance(value, (Tensor, numbers.Number, np.generic)):  # (torch's parser error: no wrapper here)
        raise fill_.torch_signature.error((self, value), {}) or TypeError(f"fill_(): value of {tp_name(value)}")
    check_numbers_fit(self.dtype, value)
    h = host_operand(self) if type(self) is Tensor and self._chain is _HOST_CHAIN else None
    if h is not None:  # a host tensor filled with a number its dtype holds exactly: it stays on the host
        v = host_number(h.dtype, value)
        if v is not None:
            return self._inplace_update(Tensor._from_host(np.full(h.shape, v, h.dtype), self._dev), True)
    tensor = isinstance(value, Tensor)
    if tensor:  # torch copies a tensor value (cloned where it is self's memory): self may not be expanded
        check_inplace(self, (), None, "internal")
    new = dispatch(_fill_impl, (self, value), (("dt", self.dtype.np),),
                   name=_FILL_NODE if tensor else "FillBackward2", saves=False)
    return self._inplace_update(new, not tensor)  # (a number fills an expanded self: one value everywhere)


_FILL_NODE = "FillBackward3"


@register(promote="none")
def zero_(self):
    """Fill ``self`` with zeros in place and return it.

    >>> import torchlike
    >>> torchlike.zero_(torchlike.ones(2))
    tensor([0., 0.])
    """
    if _prof.MODES or _prof.SUBCLASSES and type(self) in _prof.SUBCLASSES:
        return _prof.MODE_INPLACE[0](zero_, "zero_", self, (), {})
    h = host_operand(self) if type(self) is Tensor and self._chain is _HOST_CHAIN and not on_inplace else None
    if h is not None and host_assign(self, np.zeros(h.shape, h.dtype)) is not None:
        return self  # a host tensor stays on the host (as _mutation._host_write)
    new = dispatch(_fill_impl, (self, 0), (("dt", self.dtype.np),), name="ZeroBackward0", saves=False)
    return self._inplace_update(new, True)


@register(promote="none", namespaces=("torch",), method=False)
def fill(input, value):
    check_fill_value(value, input.dtype)
    return dispatch(_fill_impl, (input, value), (("dt", input.dtype.np),),
                    name="FillBackward1" if isinstance(value, Tensor) else "FillBackward0", saves=False)


@register(method=False, promote="none", differentiable=False)
def empty_permuted(size, physical_layout, *, dtype=None, layout=None, device=None, requires_grad=False,
                   pin_memory=False):
    """An uninitialised tensor of ``size`` whose memory order is ``physical_layout`` (outermost dim first);
    torchlike arrays carry no strides, so this is ``empty(size)`` after torch's argument checks.

    >>> import torchlike
    >>> torchlike.empty_permuted((2, 3), (1, 0)).shape
    torch.Size([2, 3])
    """
    size, perm = tuple(size), tuple(physical_layout)
    for name, v in (("size", size), ("physical_layout", perm)):
        if not all(isinstance(d, numbers.Integral) for d in v):
            raise TypeError(f"empty_permuted(): argument '{name}' must be tuple of ints, but found element of "
                            f"type {next(type(d).__name__ for d in v if not isinstance(d, numbers.Integral))}")
    if len(size) != len(perm):
        raise RuntimeError(f"Number of dimensions in size does not match the length of the physical_layout; i.e. "
                           f"len(size) = {len(size)} is not equal to len(physical_layout) = {len(perm)}")
    seen = set()
    for i, d in enumerate(perm):
        if not 0 <= d < len(perm):
            raise RuntimeError(f"Dimension out of range (expected to be between 0 and {len(perm) - 1}, but got {d} "
                               f"at index {i}).  NB: negative dims not currently supported; file an issue if you "
                               "want it.")
        if d in seen:
            raise RuntimeError("Duplicate dim not allowed")
        seen.add(d)
    return empty(size, dtype=dtype, device=device, requires_grad=requires_grad)
