"""Constraints: objects describing where a parameter or a sample may live (torch.distributions.constraints).

Every constraint answers ``check(value)`` with a bool tensor holding one verdict per event (the
``event_dim`` rightmost dims of ``value`` are folded into that verdict) and says whether its region is
discrete through ``is_discrete``.

>>> import torchlike
>>> from torchlike.distributions import constraints
>>> constraints.positive.check(torchlike.tensor([-1.0, 2.0]))
tensor([False,  True])
>>> constraints.interval(0.0, 1.0)
Interval(lower_bound=0.0, upper_bound=1.0)
>>> constraints.simplex.check(torchlike.tensor([[0.5, 0.5], [0.9, 0.9]]))
tensor([ True, False])
"""
from __future__ import annotations

import torchlike

__all__ = ["Constraint", "boolean", "cat", "corr_cholesky", "dependent", "dependent_property",
           "greater_than", "greater_than_eq", "independent", "integer_interval", "interval",
           "half_open_interval", "is_dependent", "less_than", "lower_cholesky", "lower_triangular",
           "MixtureSameFamilyConstraint", "multinomial", "nonnegative", "nonnegative_integer", "one_hot",
           "positive", "positive_semidefinite", "positive_definite", "positive_integer", "real",
           "real_vector", "simplex", "square", "stack", "symmetric", "unit_interval"]

# Sentinel meaning "not known until the owning distribution exists" (torch uses NotImplemented too).
_UNKNOWN = NotImplemented


def _label(obj):
    # torch prints a private class `_Foo` as `Foo`
    return type(obj).__name__[1:]


def _fold_events(verdict, ndims):
    """Collapse the ``ndims`` rightmost dims of a bool tensor: an event holds only if all its entries do."""
    keep = verdict.dim() - ndims
    return verdict.reshape(tuple(verdict.shape[:keep]) + (-1,)).all(-1)


def _whole(value):
    return value % 1 == 0


class Constraint:
    """Base class of all constraints: a region in which a variable is valid.

    Attributes: ``is_discrete`` (bool, default False) and ``event_dim`` (number of rightmost dims that
    form one event, default 0).
    """
    is_discrete = False
    event_dim = 0

    def check(self, value):
        """Bool tensor of shape ``sample_shape + batch_shape``: does each event satisfy the constraint?"""
        raise NotImplementedError

    def __repr__(self):
        return _label(self) + "()"


# ----------------------------------------------------------------------------------------------------------
# dependent placeholders

class _StaticAttrs:
    """Holds ``is_discrete``/``event_dim`` that may be unknown; reading an unknown one raises."""

    def _store(self, is_discrete, event_dim):
        self._is_discrete = is_discrete
        self._event_dim = event_dim

    def _read(self, field):
        got = getattr(self, "_" + field)
        if got is _UNKNOWN:
            raise NotImplementedError(f".{field} cannot be determined statically")
        return got

    @property
    def is_discrete(self):
        return self._read("is_discrete")

    @property
    def event_dim(self):
        return self._read("event_dim")

    def _merged(self, is_discrete, event_dim):
        # keyword arguments left out fall back to what this object already knows
        return (self._is_discrete if is_discrete is _UNKNOWN else is_discrete,
                self._event_dim if event_dim is _UNKNOWN else event_dim)


class _Dependent(_StaticAttrs, Constraint):
    """Stands for a support that depends on other parameters and so cannot be checked on its own.

    ``dependent(is_discrete=True, event_dim=1)`` returns a copy with those static attributes filled in.
    """

    def __init__(self, *, is_discrete=_UNKNOWN, event_dim=_UNKNOWN):
        self._store(is_discrete, event_dim)
        super().__init__()

    def __call__(self, *, is_discrete=_UNKNOWN, event_dim=_UNKNOWN):
        d, e = self._merged(is_discrete, event_dim)
        return _Dependent(is_discrete=d, event_dim=e)

    def check(self, value):
        # the real support is only known once the owning distribution exists
        raise ValueError("Cannot determine validity of dependent constraint")


def is_dependent(constraint):
    """Whether ``constraint`` is a dependent placeholder (argument validation skips those).

    >>> from torchlike.distributions import constraints
    >>> constraints.is_dependent(constraints.dependent), constraints.is_dependent(constraints.real)
    (True, False)
    """
    return isinstance(constraint, _Dependent)


class _DependentProperty(property, _Dependent):
    """``@property`` that is also a dependent constraint when looked up on the class.

    Usable bare (``@dependent_property``) or with static attributes
    (``@dependent_property(is_discrete=False, event_dim=0)``).
    """

    def __init__(self, fn=None, *, is_discrete=_UNKNOWN, event_dim=_UNKNOWN):
        property.__init__(self, fn)
        self._store(is_discrete, event_dim)

    def __call__(self, fn):
        return _DependentProperty(fn, is_discrete=self._is_discrete, event_dim=self._event_dim)


# ----------------------------------------------------------------------------------------------------------
# wrappers around another constraint

def _require_constraint(obj):
    if not isinstance(obj, Constraint):
        raise AssertionError(f"base_constraint must be a Constraint, got {type(obj).__name__}")


class _Wrapping(Constraint):
    """Shared part of constraints built on one ``base_constraint``."""

    def __init__(self, base_constraint):
        _require_constraint(base_constraint)
        super().__init__()
        self.base_constraint = base_constraint

    @property
    def is_discrete(self):
        return self.base_constraint.is_discrete


class _IndependentConstraint(_Wrapping):
    """Treats ``reinterpreted_batch_ndims`` more rightmost dims as part of the event.

    >>> import torchlike
    >>> from torchlike.distributions import constraints
    >>> constraints.independent(constraints.positive, 1).check(torchlike.tensor([[1.0, 2.0], [1.0, -2.0]]))
    tensor([ True, False])
    """

    def __init__(self, base_constraint, reinterpreted_batch_ndims):
        _require_constraint(base_constraint)
        n = reinterpreted_batch_ndims
        if not isinstance(n, int):
            raise AssertionError(f"reinterpreted_batch_ndims must be an int, got {type(n).__name__}")
        if n < 0:
            raise AssertionError(f"reinterpreted_batch_ndims must be >= 0, got {n}")
        super().__init__(base_constraint)
        self.reinterpreted_batch_ndims = n

    @property
    def event_dim(self):
        return self.base_constraint.event_dim + self.reinterpreted_batch_ndims

    def check(self, value):
        n = self.reinterpreted_batch_ndims
        inner = self.base_constraint.check(value)
        if inner.dim() < n:
            raise ValueError(f"Expected value.dim() >= {self.event_dim} but got {value.dim()}")
        return _fold_events(inner, n)

    def __repr__(self):
        return f"{_label(self)}({self.base_constraint!r}, {self.reinterpreted_batch_ndims})"


class MixtureSameFamilyConstraint(_Wrapping):
    """Checks a MixtureSameFamily sample against its component constraint (re-adding the mixture dim)."""

    @property
    def event_dim(self):
        return self.base_constraint.event_dim

    def check(self, value):
        ed = self.event_dim
        inner = self.base_constraint.check(value.unsqueeze(-1 - ed))
        if value.dim() < ed:
            raise ValueError(f"Expected value.dim() >= {ed} but got {value.dim()}")
        return inner.reshape(tuple(inner.shape[:value.dim() - ed]) + (-1,)).all(-1)

    def __repr__(self):
        return f"{type(self).__name__}({self.base_constraint!r})"


# ----------------------------------------------------------------------------------------------------------
# constraints with numeric bounds, generated from one table

class _Bounded(Constraint):
    """Base of the bound-parameterised constraints; subclasses list their bound names in ``_fields``."""
    _fields = ()

    def __init__(self, *args, **kwargs):
        if len(args) > len(self._fields) or set(kwargs) - set(self._fields):
            raise TypeError(f"{type(self).__name__}() takes the bounds {', '.join(self._fields)}")
        given = dict(zip(self._fields, args), **kwargs)
        missing = [f for f in self._fields if f not in given]
        if missing:
            raise TypeError(f"{type(self).__name__}.__init__() missing required argument: '{missing[0]}'")
        self.__dict__.update(given)
        super().__init__()

    def check(self, value):
        return self._test(value, *(getattr(self, f) for f in self._fields))

    def __repr__(self):
        body = ", ".join(f"{f}={getattr(self, f)}" for f in self._fields)
        return f"{_label(self)}({body})"


_LO, _HI, _BOTH = ("lower_bound",), ("upper_bound",), ("lower_bound", "upper_bound")

# (class name, bound names, discrete?, membership test, what it describes)
_BOUNDED_TABLE = (
    ("_GreaterThan", _LO, False, lambda v, lo: lo < v, "the open half line (lower_bound, inf]"),
    ("_GreaterThanEq", _LO, False, lambda v, lo: lo <= v, "the closed half line [lower_bound, inf)"),
    ("_LessThan", _HI, False, lambda v, hi: v < hi, "the open half line [-inf, upper_bound)"),
    ("_Interval", _BOTH, False, lambda v, lo, hi: (lo <= v) & (v <= hi),
     "the closed interval [lower_bound, upper_bound]"),
    ("_HalfOpenInterval", _BOTH, False, lambda v, lo, hi: (lo <= v) & (v < hi),
     "the half-open interval [lower_bound, upper_bound)"),
    ("_IntegerInterval", _BOTH, True, lambda v, lo, hi: _whole(v) & (lo <= v) & (v <= hi),
     "integers in [lower_bound, upper_bound]"),
    ("_IntegerLessThan", _HI, True, lambda v, hi: _whole(v) & (v <= hi), "integers in (-inf, upper_bound]"),
    ("_IntegerGreaterThan", _LO, True, lambda v, lo: _whole(v) & (v >= lo), "integers in [lower_bound, inf)"),
)

for _name, _fields, _disc, _test, _what in _BOUNDED_TABLE:
    globals()[_name] = type(_name, (_Bounded,), {
        "__doc__": f"Values in {_what}.", "__module__": __name__, "__qualname__": _name,
        "_fields": _fields, "is_discrete": _disc, "_test": staticmethod(_test)})
del _name, _fields, _disc, _test, _what


# ----------------------------------------------------------------------------------------------------------
# fixed regions

class _Real(Constraint):
    """The extended real line; only NaN fails."""

    def check(self, value):
        return value == value


class _Boolean(Constraint):
    """The two values 0 and 1."""
    is_discrete = True

    def check(self, value):
        return (value == 1) | (value == 0)


class _OneHot(Constraint):
    """Vectors of zeros with a single one."""
    event_dim, is_discrete = 1, True

    def check(self, value):
        binary = ((value == 0) | (value == 1)).all(-1)
        return binary & value.sum(-1).eq(1)


class _Simplex(Constraint):
    """Nonnegative vectors summing to one (within 1e-6) along the last dim."""
    event_dim = 1

    def check(self, value):
        return torchlike.all(value >= 0, dim=-1) & ((value.sum(-1) - 1).abs() < 1e-6)


class _Multinomial(Constraint):
    """Nonnegative count vectors whose total is at most ``upper_bound`` (torch's weak check)."""
    event_dim, is_discrete = 1, True

    def __init__(self, upper_bound):
        self.upper_bound = upper_bound

    def check(self, value):
        counts_ok = (value >= 0).all(dim=-1)
        return counts_ok & (value.sum(dim=-1) <= self.upper_bound)


def _all_lower(value):
    # min over the flattened matrix of "entry unchanged by tril" (min of bools = all)
    same = value.tril() == value
    return same.view(tuple(value.shape[:-2]) + (-1,)).min(-1)[0]


def _diag_positive(value):
    return (value.diagonal(dim1=-2, dim2=-1) > 0).min(-1)[0]


class _LowerTriangular(Constraint):
    """Square matrices with zeros above the diagonal."""
    event_dim = 2

    def check(self, value):
        return _all_lower(value)


class _LowerCholesky(Constraint):
    """Lower-triangular matrices with a positive diagonal."""
    event_dim = 2

    def check(self, value):
        return _all_lower(value) & _diag_positive(value)


class _CorrCholesky(Constraint):
    """Cholesky factors of correlation matrices: lower Cholesky with rows of unit norm."""
    event_dim = 2

    def check(self, value):
        slack = torchlike.finfo(value.dtype).eps * value.size(-1) * 10  # same fudge factor as torch
        norms = torchlike.linalg.norm(value.detach(), dim=-1)
        rows_ok = (norms - 1.0).abs().le(slack).all(dim=-1)
        return _LowerCholesky().check(value) & rows_ok


# Matrix-structure constraints run a chain of tests; a later (costlier) test only runs when every
# matrix passed all the earlier ones, otherwise the failing verdict is returned as is.

def _is_square(value):
    flag = value.shape[-2] == value.shape[-1]
    return torchlike.full(tuple(value.shape[:-2]), flag, dtype=torchlike.bool, device=value.device)


def _is_symmetric(value):
    return torchlike.isclose(value, value.mT, atol=1e-6).all(-2).all(-1)


def _eigs_nonneg(value):
    return torchlike.linalg.eigvalsh(value).ge(0).all(-1)


def _cholesky_ok(value):
    return torchlike.linalg.cholesky_ex(value).info.eq(0)


class _Square(Constraint):
    """Square matrices."""
    event_dim = 2
    _chain = (_is_square,)

    def check(self, value):
        verdict = None
        for test in self._chain:
            if verdict is not None and not verdict.all():
                break
            verdict = test(value)
        return verdict


class _Symmetric(_Square):
    """Symmetric square matrices (up to atol 1e-6)."""
    _chain = (_is_square, _is_symmetric)


class _PositiveSemidefinite(_Symmetric):
    """Symmetric matrices with nonnegative eigenvalues."""
    _chain = (_is_square, _is_symmetric, _eigs_nonneg)


class _PositiveDefinite(_Symmetric):
    """Symmetric matrices with a Cholesky factorisation."""
    _chain = (_is_square, _is_symmetric, _cholesky_ok)


# ----------------------------------------------------------------------------------------------------------
# piecewise constraints along one dim

class _Pieces(Constraint):
    """Shared part of ``cat``/``stack``: a list ``cseq`` of constraints applied to slices along ``dim``."""

    def __init__(self, cseq, dim):
        if not all(isinstance(c, Constraint) for c in cseq):
            raise AssertionError("All elements of cseq must be Constraint instances")
        self.dim = dim
        self.cseq = list(cseq)
        super().__init__()

    @property
    def is_discrete(self):
        return any(c.is_discrete for c in self.cseq)

    def _inner_event_dim(self):
        return max(c.event_dim for c in self.cseq)

    def _check_dim(self, value):
        n = value.dim()
        if not -n <= self.dim < n:
            raise AssertionError(f"dim {self.dim} out of range for value with {n} dimensions")


class _Cat(_Pieces):
    """Constraint ``cseq[i]`` governs the i-th block (``lengths[i]`` long) along ``dim``, like torch.cat."""

    def __init__(self, cseq, dim=0, lengths=None):
        super().__init__(cseq, dim)
        self.lengths = [1] * len(self.cseq) if lengths is None else list(lengths)
        if len(self.lengths) != len(self.cseq):
            raise AssertionError(f"lengths ({len(self.lengths)}) must match cseq ({len(self.cseq)})")

    @property
    def event_dim(self):
        return self._inner_event_dim()

    def check(self, value):
        self._check_dim(value)
        offsets = [0]
        for n in self.lengths:
            offsets.append(offsets[-1] + n)
        verdicts = [c.check(value.narrow(self.dim, o, n)) for c, o, n in zip(self.cseq, offsets, self.lengths)]
        return torchlike.cat(verdicts, self.dim)


class _Stack(_Pieces):
    """Constraint ``cseq[i]`` governs the i-th slice along ``dim``, like torch.stack."""

    def __init__(self, cseq, dim=0):
        super().__init__(cseq, dim)

    @property
    def event_dim(self):
        inner = self._inner_event_dim()
        # a negative stacking dim that reaches into the event adds one event dim
        return inner + 1 if self.dim + inner < 0 else inner

    def check(self, value):
        self._check_dim(value)
        slices = [value.select(self.dim, i) for i in range(value.size(self.dim))]
        return torchlike.stack([c.check(s) for s, c in zip(slices, self.cseq)], self.dim)


# ----------------------------------------------------------------------------------------------------------
# public names (factories are the classes themselves, singletons are instances)

dependent, dependent_property = _Dependent(), _DependentProperty
independent, cat, stack = _IndependentConstraint, _Cat, _Stack
greater_than, greater_than_eq, less_than = _GreaterThan, _GreaterThanEq, _LessThan  # noqa: F821
interval, half_open_interval, integer_interval = _Interval, _HalfOpenInterval, _IntegerInterval  # noqa: F821
multinomial = _Multinomial

real, boolean, one_hot, simplex = _Real(), _Boolean(), _OneHot(), _Simplex()
real_vector = independent(real, 1)
positive, nonnegative = greater_than(0.0), greater_than_eq(0.0)
unit_interval = interval(0.0, 1.0)
nonnegative_integer, positive_integer = _IntegerGreaterThan(0), _IntegerGreaterThan(1)  # noqa: F821
lower_triangular, lower_cholesky, corr_cholesky = _LowerTriangular(), _LowerCholesky(), _CorrCholesky()
square, symmetric = _Square(), _Symmetric()
positive_semidefinite, positive_definite = _PositiveSemidefinite(), _PositiveDefinite()
