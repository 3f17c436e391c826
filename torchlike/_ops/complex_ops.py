"""Complex numbers: building them (complex, polar, view_as_complex, view_as_real), torch's lazy conjugate
and negative views (``conj``, ``resolve_conj``, ``is_conj``, ``_neg_view``, ...) and the conjugate transposes
``Tensor.H`` / ``Tensor.mH``.
"""
from __future__ import annotations

import jax
import jax.numpy as jnp

from .. import _dtype, _views
from .. import _memory_format as _mfmt
from ._util import Tensor, dispatch, register
from .. import _autocast as _amp
from .checks import need_tensors as _need_tensors
from .checks import not_implemented as _not_implemented
from .views import matrix_transpose, view_step

__all__ = ["view_as_complex", "view_as_real", "conj", "resolve_conj", "resolve_neg", "is_conj", "is_neg"]


def _complex_impl(re, im):
    # lax.complex, not re + 1j * im: 1j * inf would be nan + inf j
    if re.dtype == jnp.float16:
        re, im = re.astype(jnp.float32), im.astype(jnp.float32)
    shape = jnp.broadcast_shapes(re.shape, im.shape)
    return jax.lax.complex(jnp.broadcast_to(re, shape), jnp.broadcast_to(im.astype(re.dtype), shape))


_HALF_FLOAT_DOUBLE = (_dtype.float32, _dtype.float64, _dtype.float16)


@register(method=False, out=True, out_same_dtype=True)
@_mfmt.pointwise_follows((0, "real"), (1, "imag"))
def complex(real, imag):
    """A complex tensor from real and imaginary parts (float32 -> complex64, float64 -> complex128)."""
    if real.dtype not in _HALF_FLOAT_DOUBLE or imag.dtype not in _HALF_FLOAT_DOUBLE:
        raise RuntimeError(f"Expected both inputs to be Half, Float or Double tensors but got "
                           f"{_dtype._CAP[real.dtype.name]} and {_dtype._CAP[imag.dtype.name]}")
    if real.dtype is not imag.dtype:
        raise RuntimeError(f"Expected object of scalar type {_dtype._CAP[real.dtype.name]} but got scalar type "
                           f"{_dtype._CAP[imag.dtype.name]} for second argument")
    return dispatch(_complex_impl, (real, imag), (), name="ComplexBackward0")


@jax.custom_jvp
def _polar_impl(abs, angle):
    return abs * jnp.cos(angle) + 1j * (abs * jnp.sin(angle))


@_polar_impl.defjvp
def _polar_jvp(primals, tangents):
    # torch's polar_backward takes sgn(result) as the derivative in abs (0 at abs == 0, and -e^(i angle) for a
    # negative abs, where the formula's derivative is e^(i angle)), and i * result in angle
    (a, th), (ta, tth) = primals, tangents
    r = _polar_impl(a, th)
    m = jnp.abs(r)
    sgn = jnp.where(m == 0, jnp.zeros((), r.dtype), r / jnp.where(m == 0, 1, m))
    return r, ta * sgn + tth * (1j * r)


@register(method=False, out=True, out_same_dtype=True)
@_amp.fp32
@_mfmt.pointwise_follows((0, "abs"), (1, "angle"))
def polar(abs, angle):
    """``abs * (cos(angle) + i sin(angle))``."""
    _need_tensors("polar", abs=abs, angle=angle)
    if abs.dtype not in _HALF_FLOAT_DOUBLE or angle.dtype not in _HALF_FLOAT_DOUBLE:
        raise RuntimeError(f"Expected both inputs to be Half, Float or Double tensors but got "
                           f"{_dtype._CAP[abs.dtype.name]} and {_dtype._CAP[angle.dtype.name]}")
    if abs.dtype is not angle.dtype:
        raise RuntimeError(f"Expected object of scalar type {_dtype._CAP[abs.dtype.name]} but got scalar type "
                           f"{_dtype._CAP[angle.dtype.name]} for second argument")
    if abs.dtype is _dtype.float16:  # torch accepts half in the check, then has no half kernel
        raise _not_implemented("polar_cpu", abs.dtype)
    return dispatch(_polar_impl, (abs, angle), (), name="PolarBackward0")


# --- complex views (view steps: an in-place write reaches the other dtype's tensor, as in torch) -------

@register(method=False, promote="none")
@_amp.fp32
def view_as_complex(input):
    """A complex tensor from a float tensor whose last dim is (real, imag).

    >>> import torchlike
    >>> torchlike.view_as_complex(torchlike.tensor([[1., 2.]]))
    tensor([1.+2.j])
    """
    if input.dtype not in (_dtype.float32, _dtype.float64, _dtype.float16):
        raise RuntimeError(f"view_as_complex is only supported for half, float and double tensors, but got a "
                           f"tensor of scalar type: {_dtype._CAP[input.dtype.name]}")
    if input.ndim == 0:
        raise RuntimeError("Input tensor must have one or more dimensions")
    if input.shape[-1] != 2:
        raise RuntimeError("Tensor must have a last dimension of size 2")
    st = input.stride()
    if st[-1] != 1:
        raise RuntimeError("Tensor must have a last dimension with stride 1")
    if any(s % 2 for s in st[:-1]):
        raise RuntimeError("Tensor must have a stride divisible by 2 for all but last dimension")
    if input.storage_offset() % 2:
        raise RuntimeError("Tensor must have a storage_offset divisible by 2")
    return view_step(input, ("as_complex",))


@register(method=False, promote="none")
def view_as_real(input):
    """A float tensor with a trailing (real, imag) dim from a complex tensor.

    >>> import torchlike
    >>> torchlike.view_as_real(torchlike.tensor([1+2j]))
    tensor([[1., 2.]])
    """
    if not input.dtype.is_complex:
        raise RuntimeError("view_as_real is only supported for complex tensors")
    if is_conj(input):
        raise RuntimeError("view_as_real doesn't work on unresolved conjugated tensors.  To resolve the conjugate "
                           "tensor so you can view it as real, use self.resolve_conj(); however, be warned that the "
                           "resulting tensor will NOT alias the original.")
    return view_step(input, ("as_real",))


# --- the conjugate and negative bits: views whose reads conjugate (negate) and whose writes conjugate back ----
@register(promote="none")
def conj(input):
    """The complex conjugate as a view, as torch's conjugate bit: writes through it reach ``input`` conjugated
    (``input`` itself for non-complex tensors).

    >>> import torchlike
    >>> x = torchlike.tensor([1 + 2j])
    >>> y = x.conj()
    >>> y.is_conj(), y.imag
    (True, tensor([-2.]))
    >>> y[0] = 3 + 4j
    >>> x
    tensor([3.-4.j])
    """
    if not input.dtype.is_complex:
        return input
    return view_step(input, ("conj",))


@register(promote="none")
def resolve_conj(input):
    """A conjugate view materialised as a new tensor (no bit, no aliasing); any other tensor itself.

    >>> import torchlike
    >>> torchlike.tensor([1j]).conj().resolve_conj().is_conj()
    False
    """
    return input.clone() if is_conj(input) else input


@register(promote="none")
def resolve_neg(input):
    """A negative view (``x.conj().imag``) materialised as a new tensor; any other tensor itself.

    >>> import torchlike
    >>> torchlike.tensor([1j]).conj().imag.resolve_neg().is_neg()
    False
    """
    return input.clone() if is_neg(input) else input


@register(promote="none", differentiable=False)
def is_conj(input):
    """Whether ``input`` is a conjugate view (``x.conj()`` of a complex ``x``, or a view of one).

    >>> import torchlike
    >>> x = torchlike.tensor([1j])
    >>> x.is_conj(), x.conj().is_conj(), x.conj().conj().is_conj()
    (False, True, False)
    """
    return _views.conj_neg_bits(input)[0]


@register(promote="none", differentiable=False)
def is_neg(input):
    """Whether ``input`` is a negative view (``x.conj().imag``, ``x._neg_view()``).

    >>> import torchlike
    >>> torchlike.tensor([1j]).conj().imag.is_neg()
    True
    """
    return _views.conj_neg_bits(input)[1]


@register("_neg_view", namespaces=(), promote="none")
def _neg_view(input):
    """A negative view of ``input`` (torch's private ``Tensor._neg_view``: ``is_neg()``, writes negated back).

    >>> import torchlike
    >>> torchlike.tensor([1.0])._neg_view().is_neg()
    True
    """
    return view_step(input, ("neg",))


Tensor.H = property(lambda self: self.mT.conj() if self.ndim == 2 else _h_error(self))
Tensor.mH = property(lambda self: matrix_transpose(self, "mH").conj())


def _h_error(t):
    raise RuntimeError(f"tensor.H is only supported on matrices (2-D tensors). Got {t.ndim}-D tensor."
                       + (" For batches of matrices, consider using tensor.mH" if t.ndim > 2 else ""))
