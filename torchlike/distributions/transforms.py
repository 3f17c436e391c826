"""Transforms for TransformedDistribution (torch.distributions.transforms): elementwise maps ``y = f(x)``
with an inverse and ``log |dy/dx|``.

A transform built with ``cache_size=1`` remembers its last ``(x, y)`` pair, so ``t.inv(t(x))`` hands
back the very same ``x`` object without recomputing it.

>>> import torchlike
>>> from torchlike.distributions.transforms import ExpTransform
>>> t = ExpTransform()
>>> t(torchlike.tensor(0.0)), t.inv(torchlike.tensor(1.0))
(tensor(1.), tensor(0.))
>>> c = ExpTransform(cache_size=1)
>>> x = torchlike.tensor([0.5])
>>> c.inv(c(x)) is x
True
"""
from __future__ import annotations

import math
from numbers import Number

import torchlike

from . import constraints
from .utils import _sum_rightmost, broadcast_all, lazy_property

__all__ = ["Transform", "ComposeTransform", "ExpTransform", "AffineTransform", "SigmoidTransform",
           "TanhTransform", "AbsTransform", "PowerTransform", "identity_transform"]


def _softplus(x):
    return torchlike.nn.functional.softplus(x)


def _param_shape(p):
    # Python numbers broadcast like 0-dim tensors
    return getattr(p, "shape", ())


def _same_param(a, b):
    if isinstance(a, Number) and isinstance(b, Number):
        return a == b
    return bool((a == b).all().item())


class Transform:
    """Base class of invertible maps with a computable log |det Jacobian|.

    Subclasses implement ``_call`` (x -> y) and/or ``_inverse`` (y -> x); bijective ones also
    ``log_abs_det_jacobian(x, y)``. They declare ``domain``/``codomain`` constraints, ``bijective`` and,
    when monotone, ``sign`` (+1/-1). ``cache_size`` is 0 (no cache) or 1 (keep the latest pair).
    """
    bijective = False

    def __init__(self, cache_size=0):
        if cache_size not in (0, 1):
            raise ValueError("cache_size must be 0 or 1")
        self._cache_size = cache_size
        if cache_size:
            # torch's attribute, read and reset by libraries (pyro's autoregressive transforms compare the
            # cached pair with their arguments); a hit is decided by identity (``is``), never by value
            self._cached_x_y = None, None
        self._inv = None
        super().__init__()

    def __getstate__(self):
        # the inverse refers back to us; it is rebuilt lazily after unpickling
        return {**self.__dict__, "_inv": None}

    @property
    def event_dim(self):
        ed = self.domain.event_dim
        if ed != self.codomain.event_dim:
            raise ValueError("Please use either .domain.event_dim or .codomain.event_dim")
        return ed

    @property
    def inv(self):
        """The inverse transform; ``t.inv.inv is t``."""
        if self._inv is None:
            self._inv = _InverseTransform(self)
        return self._inv

    @property
    def sign(self):
        """Sign of the Jacobian determinant (for monotone univariate transforms)."""
        raise NotImplementedError

    def with_cache(self, cache_size=1):
        if cache_size == self._cache_size:
            return self
        if type(self).__init__ is not Transform.__init__:
            raise NotImplementedError(f"{type(self)}.with_cache is not implemented")
        return type(self)(cache_size=cache_size)

    def __eq__(self, other):
        return other is self

    def __ne__(self, other):
        return not self.__eq__(other)

    # The cache (when on) is shared by both directions: t.inv(t(x)) returns x itself.
    def __call__(self, x):
        if self._cache_size == 0:
            return self._call(x)
        x_old, y_old = self._cached_x_y
        if x is x_old:
            return y_old
        y = self._call(x)
        self._cached_x_y = x, y
        return y

    def _inv_call(self, y):
        if self._cache_size == 0:
            return self._inverse(y)
        x_old, y_old = self._cached_x_y
        if y is y_old:
            return x_old
        x = self._inverse(y)
        self._cached_x_y = x, y
        return x

    def _call(self, x):
        raise NotImplementedError

    def _inverse(self, y):
        raise NotImplementedError

    def log_abs_det_jacobian(self, x, y):
        """``log |dy/dx|`` for an input ``x`` and its image ``y``."""
        raise NotImplementedError

    def forward_shape(self, shape):
        """Shape of ``t(x)`` for an ``x`` of ``shape`` (unchanged unless parameters broadcast)."""
        return shape

    def inverse_shape(self, shape):
        """Shape of ``t.inv(y)`` for a ``y`` of ``shape``."""
        return shape

    def __repr__(self):
        return type(self).__name__ + "()"


def _equal_by_type(cls):
    """Parameter-free transforms: every instance of the class equals every other one."""
    cls.__eq__ = lambda self, other: isinstance(other, cls)
    return cls


class _InverseTransform(Transform):
    """The inverse of another transform (reach it through ``Transform.inv``)."""

    def __init__(self, transform):
        super().__init__(cache_size=transform._cache_size)
        self._inv = transform

    def _base(self):
        if self._inv is None:
            raise AssertionError("_inv must not be None")
        return self._inv

    @constraints.dependent_property(is_discrete=False)
    def domain(self):
        return self._base().codomain

    @constraints.dependent_property(is_discrete=False)
    def codomain(self):
        return self._base().domain

    @property
    def bijective(self):
        return self._base().bijective

    @property
    def sign(self):
        return self._base().sign

    @property
    def inv(self):
        return self._inv

    def with_cache(self, cache_size=1):
        return self._base().inv.with_cache(cache_size).inv

    def __eq__(self, other):
        return isinstance(other, _InverseTransform) and self._base() == other._inv

    def __repr__(self):
        return f"{type(self).__name__}({self._inv!r})"

    def __call__(self, x):
        # the wrapped transform owns the cache, so both directions share it
        return self._base()._inv_call(x)

    def log_abs_det_jacobian(self, x, y):
        return -self._base().log_abs_det_jacobian(y, x)

    def forward_shape(self, shape):
        return self._inv.inverse_shape(shape)

    def inverse_shape(self, shape):
        return self._inv.forward_shape(shape)


def _chain_constraint(parts, outward):
    """Domain (``outward=False``) or codomain (``outward=True``) of a chain of transforms.

    The end constraint is widened with ``independent`` when some inner part works on more event
    dims than the end part does.
    """
    if not parts:
        return constraints.real
    near, far = ("codomain", "domain") if outward else ("domain", "codomain")
    walk = list(parts) if outward else list(reversed(parts))
    end = getattr(walk[-1], near)
    dims = getattr(walk[0], far).event_dim
    for part in walk:
        dims = max(dims + getattr(part, near).event_dim - getattr(part, far).event_dim,
                   getattr(part, near).event_dim)
    if dims < end.event_dim:
        raise AssertionError(f"event_dim {dims} must be >= {near}.event_dim {end.event_dim}")
    return constraints.independent(end, dims - end.event_dim) if dims > end.event_dim else end


class ComposeTransform(Transform):
    """Applies the transforms ``parts`` one after the other (the parts do their own caching).

    >>> import torchlike
    >>> from torchlike.distributions.transforms import AffineTransform, ComposeTransform, ExpTransform
    >>> t = ComposeTransform([AffineTransform(1.0, 2.0), ExpTransform()])
    >>> t(torchlike.tensor(0.0)), t.log_abs_det_jacobian(torchlike.tensor(0.0), t(torchlike.tensor(0.0)))
    (tensor(2.7183), tensor(1.6931))
    """

    def __init__(self, parts, cache_size=0):
        if cache_size:
            parts = [p.with_cache(cache_size) for p in parts]
        super().__init__(cache_size=cache_size)
        self.parts = parts  # kept as given (not copied), like torch

    def __eq__(self, other):
        return isinstance(other, ComposeTransform) and self.parts == other.parts

    @constraints.dependent_property(is_discrete=False)
    def domain(self):
        return _chain_constraint(self.parts, outward=False)

    @constraints.dependent_property(is_discrete=False)
    def codomain(self):
        return _chain_constraint(self.parts, outward=True)

    @lazy_property
    def bijective(self):
        return all(p.bijective for p in self.parts)

    @lazy_property
    def sign(self):
        total = 1
        for p in self.parts:
            total = total * p.sign
        return total

    @property
    def inv(self):
        if self._inv is None:
            back = ComposeTransform([p.inv for p in self.parts[::-1]])
            back._inv = self
            self._inv = back
        return self._inv

    def with_cache(self, cache_size=1):
        return self if cache_size == self._cache_size else ComposeTransform(self.parts, cache_size=cache_size)

    def __call__(self, x):
        for p in self.parts:
            x = p(x)
        return x

    def log_abs_det_jacobian(self, x, y):
        if not self.parts:
            return torchlike.zeros_like(x)
        # inputs of every part (free when the parts cache); the last output is the given y
        points = [x]
        for p in self.parts[:-1]:
            points.append(p(points[-1]))
        points.append(y)
        total, ed = None, self.domain.event_dim
        for i, p in enumerate(self.parts):
            term = _sum_rightmost(p.log_abs_det_jacobian(points[i], points[i + 1]), ed - p.domain.event_dim)
            total = term if total is None else total + term
            ed += p.codomain.event_dim - p.domain.event_dim
        return total

    def forward_shape(self, shape):
        for p in self.parts:
            shape = p.forward_shape(shape)
        return shape

    def inverse_shape(self, shape):
        for p in self.parts[::-1]:
            shape = p.inverse_shape(shape)
        return shape

    def __repr__(self):
        inner = ",\n    ".join(repr(p) for p in self.parts)
        return f"{type(self).__name__}(\n    {inner}\n)"


identity_transform = ComposeTransform([])


@_equal_by_type
class ExpTransform(Transform):
    """``y = exp(x)``."""
    domain, codomain = constraints.real, constraints.positive
    bijective, sign = True, +1

    def _call(self, x):
        return torchlike.exp(x)

    def _inverse(self, y):
        return torchlike.log(y)

    def log_abs_det_jacobian(self, x, y):
        return x  # d exp(x)/dx = exp(x)


class PowerTransform(Transform):
    """``y = x ** exponent`` on the positive reals.

    >>> import torchlike
    >>> from torchlike.distributions.transforms import PowerTransform
    >>> PowerTransform(torchlike.tensor(2.0))(torchlike.tensor([3.0]))
    tensor([9.])
    """
    domain, codomain = constraints.positive, constraints.positive
    bijective = True

    def __init__(self, exponent, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.exponent = broadcast_all(exponent)[0]

    def with_cache(self, cache_size=1):
        return self if cache_size == self._cache_size else PowerTransform(self.exponent, cache_size=cache_size)

    @lazy_property
    def sign(self):
        return self.exponent.sign()

    def __eq__(self, other):
        return isinstance(other, PowerTransform) and self.exponent.eq(other.exponent).all().item()

    def _call(self, x):
        return torchlike.pow(x, self.exponent)

    def _inverse(self, y):
        return torchlike.pow(y, 1 / self.exponent)

    def log_abs_det_jacobian(self, x, y):
        # dy/dx = exponent * x**(exponent-1) = exponent * y / x
        return (self.exponent * y / x).abs().log()

    def forward_shape(self, shape):
        return torchlike.broadcast_shapes(shape, _param_shape(self.exponent))

    inverse_shape = forward_shape


def _squash_into_unit(p):
    # keep sigmoid outputs strictly inside (0, 1) so the inverse stays finite
    fi = torchlike.finfo(p.dtype)
    return p.clamp(min=fi.tiny, max=1.0 - fi.eps)


def _clipped_sigmoid(x):
    """``sigmoid(x)`` clamped to ``[tiny, 1 - eps]`` (torch's private helper of this module, which libraries
    import: pytorch-forecasting's encoders)."""
    return _squash_into_unit(torchlike.sigmoid(x))


@_equal_by_type
class SigmoidTransform(Transform):
    """``y = sigmoid(x)``, clipped into the open unit interval."""
    domain, codomain = constraints.real, constraints.unit_interval
    bijective, sign = True, +1

    def _call(self, x):
        return _clipped_sigmoid(x)

    def _inverse(self, y):
        y = _squash_into_unit(y)
        return y.log() - (-y).log1p()  # logit

    def log_abs_det_jacobian(self, x, y):
        # log sigmoid(x) + log sigmoid(-x)
        return -_softplus(-x) - _softplus(x)


@_equal_by_type
class TanhTransform(Transform):
    """``y = tanh(x)``; the inverse is not clamped (use ``cache_size=1`` near +-1)."""
    domain, codomain = constraints.real, constraints.interval(-1.0, 1.0)
    bijective, sign = True, +1

    def _call(self, x):
        return torchlike.tanh(x)

    def _inverse(self, y):
        return torchlike.atanh(y)

    def log_abs_det_jacobian(self, x, y):
        # log(1 - tanh(x)^2) = 2 (log 2 - x - softplus(-2x)), stable for large |x|
        return 2.0 * (math.log(2.0) - x - _softplus(-2.0 * x))


@_equal_by_type
class AbsTransform(Transform):
    """``y = |x|`` (not bijective; the pseudo-inverse is the identity)."""
    domain, codomain = constraints.real, constraints.positive

    def _call(self, x):
        return torchlike.abs(x)

    def _inverse(self, y):
        return y  # any preimage will do; the nonnegative one


class AffineTransform(Transform):
    """``y = loc + scale * x``; with ``event_dim`` > 0 that many rightmost dims form one event.

    >>> import torchlike
    >>> from torchlike.distributions.transforms import AffineTransform
    >>> t = AffineTransform(1.0, torchlike.tensor([2.0, 4.0]), event_dim=1)
    >>> t.log_abs_det_jacobian(torchlike.zeros(2), t(torchlike.zeros(2)))
    tensor(2.0794)
    """
    bijective = True

    def __init__(self, loc, scale, event_dim=0, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.loc, self.scale = loc, scale
        self._event_dim = event_dim

    @property
    def event_dim(self):
        return self._event_dim

    def _reals(self):
        n = self._event_dim
        return constraints.independent(constraints.real, n) if n else constraints.real

    @constraints.dependent_property(is_discrete=False)
    def domain(self):
        return self._reals()

    @constraints.dependent_property(is_discrete=False)
    def codomain(self):
        return self._reals()

    def with_cache(self, cache_size=1):
        if cache_size == self._cache_size:
            return self
        return AffineTransform(self.loc, self.scale, self._event_dim, cache_size=cache_size)

    def __eq__(self, other):
        return (isinstance(other, AffineTransform) and _same_param(self.loc, other.loc)
                and _same_param(self.scale, other.scale))

    @property
    def sign(self):
        s = self.scale
        if not isinstance(s, Number):
            return s.sign()
        s = float(s)
        return (s > 0) - (s < 0)

    def _call(self, x):
        shifted = self.loc + self.scale * x
        return shifted

    def _inverse(self, y):
        centred = y - self.loc
        return centred / self.scale

    def log_abs_det_jacobian(self, x, y):
        s, n = self.scale, self._event_dim
        logs = torchlike.full_like(x, math.log(abs(s))) if isinstance(s, Number) else torchlike.abs(s).log()
        out_shape = x.shape
        if n:
            logs = logs.view(tuple(logs.size()[:-n]) + (-1,)).sum(-1)
            out_shape = out_shape[:-n]
        return logs.expand(out_shape)

    def forward_shape(self, shape):
        return torchlike.broadcast_shapes(shape, _param_shape(self.loc), _param_shape(self.scale))

    inverse_shape = forward_shape


from .structured_transforms import *  # noqa: E402,F401,F403
from . import structured_transforms as _st  # noqa: E402

__all__ = __all__ + list(_st.__all__)
for _name in _st.__all__:  # torch defines them all in torch.distributions.transforms (pickles name that path)
    getattr(_st, _name).__module__ = __name__

# names torch.distributions.transforms also exposes (its module imports)
from collections.abc import Sequence  # noqa: E402,F401
from torchlike.nn.functional import pad, softplus  # noqa: E402,F401
from torchlike.tensor import Tensor  # noqa: E402,F401
from .distribution import Distribution  # noqa: E402,F401
from .utils import tril_matrix_to_vec, vec_to_tril_matrix  # noqa: E402,F401
