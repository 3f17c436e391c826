"""From constraints to transforms (torch.distributions.constraint_registry): ``biject_to(c)`` gives a
bijection from the reals onto the constrained space, ``transform_to(c)`` any transform onto it (used
to optimise constrained parameters in unconstrained space).

>>> import torchlike
>>> from torchlike.distributions import biject_to, constraints
>>> t = biject_to(constraints.interval(1.0, 3.0))
>>> t(torchlike.tensor(0.0))
tensor(2.)
"""
from __future__ import annotations

import numbers

from . import constraints, transforms
from .structured_transforms import (CatTransform, CorrCholeskyTransform, IndependentTransform,
                                    LowerCholeskyTransform, PositiveDefiniteTransform, SoftmaxTransform,
                                    StackTransform, StickBreakingTransform)

__all__ = ["ConstraintRegistry", "biject_to", "transform_to"]


class ConstraintRegistry:
    """Maps constraint classes (or instances: their class) to transform factories ``f(constraint)``."""

    def __init__(self):
        self._registry = {}
        super().__init__()

    def register(self, constraint, factory=None):
        """Register ``factory`` for ``constraint`` (a Constraint subclass or instance); usable as a
        decorator when ``factory`` is omitted."""
        if factory is None:
            return lambda factory: self.register(constraint, factory)
        if isinstance(constraint, constraints.Constraint):
            constraint = type(constraint)
        if not isinstance(constraint, type) or not issubclass(constraint, constraints.Constraint):
            raise TypeError(f"Expected constraint to be either a Constraint subclass or instance, but got "
                            f"{constraint}")
        self._registry[constraint] = factory
        return factory

    def __call__(self, constraint):
        try:
            factory = self._registry[type(constraint)]
        except KeyError:
            raise NotImplementedError(f"Cannot transform {type(constraint).__name__} constraints") from None
        return factory(constraint)


biject_to = ConstraintRegistry()
transform_to = ConstraintRegistry()


def _both(c, factory):
    biject_to.register(c, factory)
    transform_to.register(c, factory)


def _is_num(x):
    return isinstance(x, numbers.Number)


_both(constraints.real, lambda c: transforms.identity_transform)
_both(constraints.independent, lambda c: IndependentTransform(
    biject_to(c.base_constraint), c.reinterpreted_batch_ndims))
transform_to.register(constraints.independent, lambda c: IndependentTransform(
    transform_to(c.base_constraint), c.reinterpreted_batch_ndims))
_both(constraints.greater_than, lambda c: transforms.ComposeTransform(
    [transforms.ExpTransform(), transforms.AffineTransform(c.lower_bound, 1)]))
_both(constraints.greater_than_eq, lambda c: transforms.ComposeTransform(
    [transforms.ExpTransform(), transforms.AffineTransform(c.lower_bound, 1)]))
_both(constraints.less_than, lambda c: transforms.ComposeTransform(
    [transforms.ExpTransform(), transforms.AffineTransform(c.upper_bound, -1)]))


def _interval(c):
    lo, hi = c.lower_bound, c.upper_bound
    if _is_num(lo) and _is_num(hi) and lo == 0 and hi == 1:
        return transforms.SigmoidTransform()
    return transforms.ComposeTransform([transforms.SigmoidTransform(), transforms.AffineTransform(lo, hi - lo)])


_both(constraints.interval, _interval)
_both(constraints.half_open_interval, _interval)
biject_to.register(constraints.simplex, lambda c: StickBreakingTransform())
transform_to.register(constraints.simplex, lambda c: SoftmaxTransform())
transform_to.register(constraints.lower_cholesky, lambda c: LowerCholeskyTransform())
transform_to.register(constraints.positive_definite, lambda c: PositiveDefiniteTransform())
transform_to.register(constraints.positive_semidefinite, lambda c: PositiveDefiniteTransform())
_both(constraints.corr_cholesky, lambda c: CorrCholeskyTransform())
biject_to.register(constraints.cat, lambda c: CatTransform([biject_to(x) for x in c.cseq], c.dim, c.lengths))
transform_to.register(constraints.cat, lambda c: CatTransform([transform_to(x) for x in c.cseq], c.dim, c.lengths))
biject_to.register(constraints.stack, lambda c: StackTransform([biject_to(x) for x in c.cseq], c.dim))
transform_to.register(constraints.stack, lambda c: StackTransform([transform_to(x) for x in c.cseq], c.dim))
