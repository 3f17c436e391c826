"""Tensor-only pointwise methods torch has no function for: ``__rdiv__``, the legacy ``__div__``/``__idiv__``
(C aliases of ``/`` and ``/=``, which functorch.dim lists) and ``float_power_``.
"""
from __future__ import annotations

from .. import _dtype
from .._mutation import check_inplace
from ._util import register
from .division import div
from .pointwise import _float_power

__all__ = []


# torch: number / tensor is self.reciprocal() * other (torch/_tensor.py), not a division; ``__rtruediv__`` is
# the same function object
@register("__rdiv__", namespaces=(), promote="none", dunders=("__rtruediv__",))
def _rdiv(self, other):
    return self.reciprocal() * other  # (``Tensor.__rdiv__(2, t)``: Python's AttributeError, as torch's)


# torch's TensorBase keeps Python 2's names: ``t.__div__(o)`` is ``t / o``, ``t.__idiv__(o)`` is ``t /= o``
register("__div__", namespaces=(), promote="none")(lambda self, other: div(self, other))
register("__idiv__", namespaces=(), promote="none")(lambda self, other: self.div_(other))


@register("float_power_", namespaces=(), promote="none")
def _float_power_(self, exponent):
    """In-place float_power; ``self`` must already be float64 (complex128 for complex results)."""
    r = _float_power(self, exponent)
    if r.dtype is not self.dtype:
        raise RuntimeError(f"the base given to float_power_ has dtype {_dtype._CAP[self.dtype.name]} but the "
                           f"operation's result requires dtype {_dtype._CAP[r.dtype.name]}")
    check_inplace(self, (exponent,), None, "partial")  # (torch's pow_, after the dtype check)
    return self._inplace_update(r)
