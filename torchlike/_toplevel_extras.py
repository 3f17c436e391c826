"""Top-level ``torch.*`` names that libraries reach for and that are thin forms of existing API:
``torch.Future`` (the class behind ``torch.futures.Future``), the in-place functions
``torch.sigmoid_``, ``torch.clamp_``, ... (``torch.X_(t, ...)`` is ``t.X_(...)``), ``torch.detach``,
``torch.is_signed``, ``torch.get_device``, ``torch.is_storage`` and the anomaly-mode
switches.

>>> import torchlike as torch
>>> x = torch.tensor([-1.0, 2.0])
>>> torch.relu_(x) is x, x.tolist()
(True, [0.0, 2.0])
>>> isinstance(torch.futures.Future(), torch.Future)
True
"""
from __future__ import annotations

from ._errors import argument_error
from ._storage import TypedStorage, UntypedStorage
from .tensor import Tensor
from .autograd import anomaly_mode as _anomaly
from .futures import Future

# torch.X_(input, *args) is input.X_(*args): the in-place forms torch exposes at top level
_INPLACE_METHODS = (
    "abs_ acos_ acosh_ addmv_ arccos_ arccosh_ arcsin_ arcsinh_ arctan_ arctanh_ asin_ asinh_ atan_ atanh_ "
    "ceil_ clamp_ clamp_max_ clamp_min_ clip_ conj_physical_ cos_ cosh_ deg2rad_ detach_ erf_ erfc_ exp2_ exp_ "
    "expm1_ fix_ floor_ frac_ gcd_ i0_ lcm_ ldexp_ log10_ log1p_ log2_ log_ logit_ nan_to_num_ neg_ negative_ "
    "rad2deg_ reciprocal_ round_ rsqrt_ sigmoid_ sin_ sinc_ sinh_ sqrt_ square_ tan_ tanh_ trunc_ xlogy_"
).split()
# (relu_, celu_, selu_, rrelu_, threshold_: nn.functional's entries, declared in torch's namespace too)

__all__ = ["Future", "detach", "is_signed", "get_device", "is_storage", "is_anomaly_enabled",
           "is_anomaly_check_nan_enabled", "set_anomaly_enabled"] + _INPLACE_METHODS


def reject_non_tensor(input, name):
    """In an ``except AttributeError`` of ``torch.name(input)``: torch's argument-parser TypeError when ``input``
    is not a Tensor (else nothing: the caller re-raises)."""
    if not isinstance(input, Tensor):
        raise argument_error(input, "Tensor", "input", name, 1) from None


def _inplace(name):
    def fn(input, *args, **kwargs):
        try:
            method = getattr(input, name)
        except AttributeError:
            reject_non_tensor(input, name)
            raise
        return method(*args, **kwargs)
    fn.__name__ = fn.__qualname__ = name
    fn.__code__ = fn.__code__.replace(co_name=name, co_qualname=name)  # (the errors of the op it calls name it)
    fn.__module__ = "torch"
    fn.__doc__ = f"In-place ``input.{name}(...)``."
    return fn


for _name in _INPLACE_METHODS:
    globals()[_name] = _inplace(_name)
del _name


def detach(input):
    """``input.detach()``."""
    try:
        return input.detach()
    except AttributeError:
        reject_non_tensor(input, "detach")
        raise


def is_signed(input):
    """``input.is_signed()``: True for signed integer, floating and complex dtypes."""
    try:
        return input.is_signed()
    except AttributeError:
        reject_non_tensor(input, "is_signed")
        raise


def get_device(input):
    """``input.get_device()``: -1 for CPU tensors."""
    try:
        return input.get_device()
    except AttributeError:
        reject_non_tensor(input, "get_device")
        raise


def is_storage(obj):
    """True for a storage object (``torch.UntypedStorage``/``TypedStorage``)."""
    return isinstance(obj, (UntypedStorage, TypedStorage))


def is_anomaly_enabled():
    """Whether autograd anomaly detection is on (``torch.autograd.set_detect_anomaly``)."""
    return _anomaly.is_anomaly_enabled()


def is_anomaly_check_nan_enabled():
    """Whether anomaly detection also checks backward results for NaN."""
    return _anomaly.is_anomaly_check_nan_enabled()


def set_anomaly_enabled(enabled, check_nan=True):
    """Turn anomaly detection on or off (what ``set_detect_anomaly`` does)."""
    _anomaly.set_detect_anomaly(enabled, check_nan)
