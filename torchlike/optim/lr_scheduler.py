"""torch.optim.lr_scheduler: learning-rate schedules that rewrite each ``param_group["lr"]``.

A schedule is a function of one integer, the position ``k`` (``last_epoch``). The constructor
takes position 0; every ``step()`` moves to ``k + 1``. Most schedules are ``lr_k = base_lr * f(k)``
and are evaluated in one of two ways:

* chainable (``step()``): ``lr_k = lr_{k-1} * r(k)`` with the one-step ratio ``r(k) = f(k) / f(k-1)``
  applied to whatever the group holds now, so schedulers sharing an optimizer multiply;
* closed form (the deprecated ``step(epoch)``): ``lr_k = base_lr * f(k)`` straight from ``base_lrs``.

Each class docstring states its ``f`` (and ``r`` where it is not just the quotient).

>>> import torchlike as torch
>>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0)
>>> s = torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.1)
>>> for _ in range(3):
...     opt.step(); s.step()
>>> [round(v, 6) for v in s.get_last_lr()]
[0.1]
"""
from __future__ import annotations

import functools
import math
import types
import warnings
import weakref
from bisect import bisect_right
from collections import Counter
from contextlib import contextmanager

import jax.numpy as jnp

from ..tensor import Tensor
from .optimizer import Optimizer

__all__ = ["LRScheduler", "LambdaLR", "MultiplicativeLR", "StepLR", "MultiStepLR", "ConstantLR", "LinearLR",
           "ExponentialLR", "PolynomialLR", "CosineAnnealingLR", "SequentialLR", "ChainedScheduler",
           "ReduceLROnPlateau", "CyclicLR", "CosineAnnealingWarmRestarts", "OneCycleLR"]

# User-visible texts below are torch's, word for word (people filter and match on them).
EPOCH_DEPRECATION_WARNING = (
    "The epoch parameter in `scheduler.step()` was not necessary and is being deprecated where possible. "
    "Please use `scheduler.step()` to step the scheduler. During the deprecation, if epoch is different "
    "from None, the closed form is used instead of the new chainable form, where available. Please open "
    "an issue if you are unable to replicate your use case: https://github.com/pytorch/pytorch/issues/new/choose."
)
_HOW_TO = "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate"
_STEP_REPLACED = (
    "Seems like `optimizer.step()` has been overridden after learning rate scheduler initialization. Please, "
    f"make sure to call `optimizer.step()` before `lr_scheduler.step()`. See more details at {_HOW_TO}")
_WRONG_ORDER = (
    "Detected call of `lr_scheduler.step()` before `optimizer.step()`. In PyTorch 1.1.0 and later, you should "
    "call them in the opposite order: `optimizer.step()` before `lr_scheduler.step()`.  Failure to do this will "
    f"result in PyTorch skipping the first value of the learning rate schedule. See more details at {_HOW_TO}")
_MISSING_INITIAL_LR = (
    "param 'initial_lr' is not specified in param_groups[{}] when resuming scheduler with last_epoch >= 0.\n"
    "This typically happens when:\n1. You're trying to resume training from a checkpoint but haven't "
    "properly loaded the optimizer state\n2. You're using last_epoch >= 0 for a fresh training run (not recommended)")


# ---------------------------------------------------------------- reading and writing group values

def _detached(v):
    """A group value as handed out: a Tensor is copied, so nobody can alias a group's lr through it."""
    return Tensor._wrap(v._value, v._dev) if isinstance(v, Tensor) else v


def _group_values(optimizer, key):
    return [_detached(g[key]) for g in optimizer.param_groups]


def _assign(group, key, value):
    """Set ``group[key]``; a Tensor entry keeps its identity and is overwritten in place (like torch)."""
    held = group[key]
    if not isinstance(held, Tensor):
        group[key] = value
        return
    scalar = value._value.reshape(()) if isinstance(value, Tensor) else value
    held._set_value(jnp.full(held._value.shape, scalar, held._value.dtype))


def _per_group(name, optimizer, value):
    """``value`` spread over the param groups: a list/tuple must have one entry per group."""
    n = len(optimizer.param_groups)
    if not isinstance(value, (list, tuple)):
        return [_detached(value) for _ in range(n)]
    if len(value) != n:
        raise ValueError(f"{name} must have the same length as optimizer.param_groups. "
                         f"{name} has {len(value)} values, param_groups has {n}.")
    return [_detached(v) for v in value]


def _require_optimizer(optimizer):
    if not isinstance(optimizer, Optimizer):
        raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
    return optimizer


def _callable_state(fn):
    """What a checkpoint keeps of a user callable: the attributes of a callable object, nothing of a function."""
    return None if isinstance(fn, types.FunctionType) else fn.__dict__.copy()


@contextmanager
def _raised(obj, flag):
    setattr(obj, flag, True)
    try:
        yield
    finally:
        setattr(obj, flag, False)


def _note_direct_call(sched):
    """``get_lr()`` outside ``step()`` is almost always a mistake for ``get_last_lr()``."""
    if not sched._get_lr_called_within_step:
        warnings.warn("To get the last learning rate computed by the scheduler, please use `get_last_lr()`.",
                      UserWarning, stacklevel=2)


def _watch_optimizer_step(opt):
    """Route ``opt.step`` (once per optimizer) through a shim that records ``opt._opt_called``, which
    lets the first ``scheduler.step()`` spot the pre-1.1 call order. Marker names are torch's."""
    if hasattr(opt.step, "_wrapped_by_lr_sched"):
        return
    unbound = opt.step.__func__
    owner = weakref.ref(opt)

    @functools.wraps(unbound)
    def step(*args, **kwargs):
        target = owner()
        target._opt_called = True
        return unbound.__get__(target, type(target))(*args, **kwargs)

    step._wrapped_by_lr_sched = True
    opt.step = step


# ---------------------------------------------------------------- the base class

class LRScheduler:
    """Base class of the schedulers.

    State, i.e. what ``state_dict()`` returns: every instance attribute except ``optimizer``. The
    attribute names are torch's, so a checkpoint written by either library loads into the other:

    * ``last_epoch``: the position ``k`` (``-1`` before the constructor has run);
    * ``base_lrs``: every group's ``initial_lr`` (the ``lr`` it had when the first scheduler attached);
    * ``_last_lr``: copies of the group lrs after the latest step (``get_last_lr()``);
    * ``_step_count``: steps taken, the constructor's included (drives the call-order warning);
    * ``_is_initial`` / ``_get_lr_called_within_step``: True only during the constructor's step /
      during any step;
    * plus each schedule's own hyperparameters.

    A subclass implements ``get_lr()`` (the chainable form at ``last_epoch``) and may add
    ``_get_closed_form_lr()``, which ``step(epoch)`` prefers.
    """

    _get_lr_called_within_step = False
    _is_initial = False
    # attributes a checkpoint leaves out / stores through _save_special and _load_special
    _transient = ("optimizer",)
    _special = ()

    def __init__(self, optimizer, last_epoch=-1):
        self.optimizer = _require_optimizer(optimizer)
        groups = optimizer.param_groups
        if last_epoch == -1:
            for g in groups:
                g.setdefault("initial_lr", _detached(g["lr"]))
        else:
            for i, g in enumerate(groups):
                if "initial_lr" not in g:
                    raise KeyError(_MISSING_INITIAL_LR.format(i))
        self.base_lrs = _group_values(optimizer, "initial_lr")
        self.last_epoch = last_epoch
        _watch_optimizer_step(optimizer)
        self._initial_step()

    def _initial_step(self):
        """The constructor's step: position ``last_epoch + 1`` with ``_is_initial`` raised."""
        self._step_count = 0
        with _raised(self, "_is_initial"):
            self.step()

    # -- stepping
    def step(self, epoch=None):
        """Advance the schedule by one; call it after ``optimizer.step()``."""
        if self._step_count == 1:
            if not hasattr(self.optimizer.step, "_wrapped_by_lr_sched"):
                warnings.warn(_STEP_REPLACED, UserWarning, stacklevel=2)
            elif not getattr(self.optimizer, "_opt_called", False):
                warnings.warn(_WRONG_ORDER, UserWarning, stacklevel=2)
        self._step_count += 1
        if epoch is not None:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self._advance(epoch)

    def _advance(self, epoch=None):
        """Go to ``epoch`` (closed form when the class has one) or to the next position (chainable)."""
        with _raised(self, "_get_lr_called_within_step"):
            if epoch is None:
                self.last_epoch += 1
                lrs = self.get_lr()
            else:
                self.last_epoch = epoch
                closed = getattr(self, "_get_closed_form_lr", None)
                lrs = self.get_lr() if closed is None else closed()
        self._publish(lrs)

    def _publish(self, lrs):
        for g, lr in zip(self.optimizer.param_groups, lrs, strict=True):
            _assign(g, "lr", lr)
        self._last_lr = _group_values(self.optimizer, "lr")

    def get_lr(self):
        """The learning rates at ``last_epoch``; use :meth:`get_last_lr` to read the current ones."""
        raise NotImplementedError

    def get_last_lr(self):
        """Copies of the group learning rates after the latest step."""
        return self._last_lr

    # -- checkpoints
    def state_dict(self):
        """The scheduler's state (see the class docstring); callables are kept as their ``__dict__``."""
        sd = {k: v for k, v in self.__dict__.items() if k not in self._transient}
        for key in self._special:
            sd[key] = self._save_special(key, sd.pop(key))
        return sd

    def load_state_dict(self, state_dict):
        """Restore a ``state_dict()`` (from torchlike or torch)."""
        extra = {key: state_dict[key] for key in self._special}
        self.__dict__.update({k: v for k, v in state_dict.items() if k not in extra})
        for key, saved in extra.items():
            self._load_special(key, saved)
        self._after_load()

    def _save_special(self, key, value):
        return value

    def _load_special(self, key, saved):
        pass

    def _after_load(self):
        pass


class _LRScheduler(LRScheduler):
    """Old name of :class:`LRScheduler`, kept for code that subclasses it."""


# ---------------------------------------------------------------- user-function schedules

class _UserFactors(LRScheduler):
    """Holds ``lr_lambdas``, one user function per group; a checkpoint keeps callable objects' attributes."""

    _special = ("lr_lambdas",)

    def _adopt(self, optimizer, lr_lambda):
        self.optimizer = optimizer
        n = len(optimizer.param_groups)
        if not isinstance(lr_lambda, (list, tuple)):
            return [lr_lambda] * n
        if len(lr_lambda) != n:
            raise ValueError(f"Expected {n} lr_lambdas, but got {len(lr_lambda)}")
        return list(lr_lambda)

    def _save_special(self, key, fns):
        return [_callable_state(fn) for fn in fns]

    def _load_special(self, key, saved):
        for fn, attrs in zip(self.lr_lambdas, saved):
            if attrs is not None:
                fn.__dict__.update(attrs)


class LambdaLR(_UserFactors):
    """``f(k) = lr_lambda(k)``, evaluated directly: ``lr_k = base_lr * lr_lambda(k)``.

    >>> import torchlike as torch
    >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0)
    >>> s = torch.optim.lr_scheduler.LambdaLR(opt, lambda e: 0.5 ** e)
    >>> opt.step(); s.step(); s.get_last_lr()
    [0.5]
    """

    def __init__(self, optimizer, lr_lambda, last_epoch=-1):
        self.lr_lambdas = self._adopt(optimizer, lr_lambda)
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        _note_direct_call(self)
        k = self.last_epoch
        return [base * fn(k) for fn, base in zip(self.lr_lambdas, self.base_lrs, strict=True)]


class MultiplicativeLR(_UserFactors):
    """``r(k) = lr_lambda(k)``: every step multiplies the current lr (the constructor leaves it alone).

    >>> import torchlike as torch
    >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0)
    >>> s = torch.optim.lr_scheduler.MultiplicativeLR(opt, lambda e: 0.5)
    >>> opt.step(); s.step(); s.get_last_lr()
    [0.5]
    """

    def __init__(self, optimizer, lr_lambda, last_epoch=-1):
        self.lr_lambdas = self._adopt(optimizer, lr_lambda)
        for fn in self.lr_lambdas:
            if not callable(fn):
                raise TypeError(f"lr_lambda should be a function, but got {type(fn).__name__}")
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        _note_direct_call(self)
        if self._is_initial:
            return _group_values(self.optimizer, "lr")
        k = self.last_epoch
        return [g["lr"] * fn(k) for fn, g in zip(self.lr_lambdas, self.optimizer.param_groups, strict=True)]


# ---------------------------------------------------------------- lr_k = base_lr * f(k)

class _Factored(LRScheduler):
    """A schedule ``lr_k = base_lr * f(k)``: subclasses give ``_f(k)`` and the one-step ratio
    ``_ratio(k)`` (``None`` when the lr stays as it is, so no rounding creeps in)."""

    def get_lr(self):
        _note_direct_call(self)
        r = self._ratio(self.last_epoch)
        if r is None:
            return _group_values(self.optimizer, "lr")
        return [g["lr"] * r for g in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        scale = self._f(self.last_epoch)
        return [base * scale for base in self.base_lrs]


class StepLR(_Factored):
    """``f(k) = gamma ** (k // step_size)``: one decay every ``step_size`` positions.

    >>> import torchlike as torch
    >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0)
    >>> s = torch.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
    >>> opt.step(); s.step(); s.get_last_lr()
    [0.5]
    """

    def __init__(self, optimizer, step_size, gamma=0.1, last_epoch=-1):
        self.step_size, self.gamma = step_size, gamma
        super().__init__(optimizer, last_epoch)

    def _f(self, k):
        return self.gamma ** (k // self.step_size)

    def _ratio(self, k):
        return self.gamma if k != 0 and k % self.step_size == 0 else None


class MultiStepLR(_Factored):
    """``f(k) = gamma ** #{milestones m <= k}`` (a milestone listed twice counts twice).

    >>> import torchlike as torch
    >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0)
    >>> s = torch.optim.lr_scheduler.MultiStepLR(opt, milestones=[1], gamma=0.5)
    >>> opt.step(); s.step(); s.get_last_lr()
    [0.5]
    """

    def __init__(self, optimizer, milestones, gamma=0.1, last_epoch=-1):
        self.milestones, self.gamma = Counter(milestones), gamma
        super().__init__(optimizer, last_epoch)

    def _f(self, k):
        return self.gamma ** bisect_right(sorted(self.milestones.elements()), k)

    def _ratio(self, k):
        return self.gamma ** self.milestones[k] if k in self.milestones else None


class ConstantLR(_Factored):
    """``f(k) = factor`` for ``k < total_iters``, then 1.

    >>> import torchlike as torch
    >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0)
    >>> torch.optim.lr_scheduler.ConstantLR(opt, factor=0.5).get_last_lr()
    [0.5]
    """

    def __init__(self, optimizer, factor=1.0 / 3, total_iters=5, last_epoch=-1):
        if factor > 1.0 or factor < 0:
            raise ValueError("Constant multiplicative factor expected to be between 0 and 1.")
        self.factor, self.total_iters = factor, total_iters
        super().__init__(optimizer, last_epoch)

    def _f(self, k):
        return self.factor + (k >= self.total_iters) * (1 - self.factor)

    def _ratio(self, k):
        # torch applies these two jumps even in the constructor's step (no _is_initial test)
        if k == 0:
            return self.factor
        return 1.0 / self.factor if k == self.total_iters else None


class LinearLR(_Factored):
    """``f(k) = s + (e - s) * min(k, T) / T`` for start/end factors ``s``/``e`` and ``T = total_iters``;
    ``r(k) = 1 + (e - s) / (T s + (k - 1)(e - s))`` for ``0 < k <= T``.

    >>> import torchlike as torch
    >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0)
    >>> torch.optim.lr_scheduler.LinearLR(opt, start_factor=0.5, total_iters=2).get_last_lr()
    [0.5]
    """

    def __init__(self, optimizer, start_factor=1.0 / 3, end_factor=1.0, total_iters=5, last_epoch=-1):
        if start_factor > 1.0 or start_factor <= 0:
            raise ValueError("Starting multiplicative factor expected to be greater than 0 and less or equal to 1.")
        if end_factor > 1.0 or end_factor < 0:
            raise ValueError("Ending multiplicative factor expected to be between 0 and 1.")
        self.start_factor, self.end_factor, self.total_iters = start_factor, end_factor, total_iters
        super().__init__(optimizer, last_epoch)

    def _f(self, k):
        span = self.end_factor - self.start_factor
        return self.start_factor + span * min(self.total_iters, k) / self.total_iters

    def _ratio(self, k):
        if k == 0:
            return self.start_factor
        if self._is_initial or k > self.total_iters:
            return None
        span = self.end_factor - self.start_factor
        return 1.0 + span / (self.total_iters * self.start_factor + (k - 1) * span)


class ExponentialLR(_Factored):
    """``f(k) = gamma ** k``, ``r = gamma``.

    >>> import torchlike as torch
    >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0)
    >>> s = torch.optim.lr_scheduler.ExponentialLR(opt, gamma=0.5)
    >>> opt.step(); s.step(); s.get_last_lr()
    [0.5]
    """

    def __init__(self, optimizer, gamma, last_epoch=-1):
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def _f(self, k):
        return self.gamma ** k

    def _ratio(self, k):
        return None if self._is_initial else self.gamma


class PolynomialLR(_Factored):
    """``f(k) = (1 - min(k, T) / T) ** power`` with ``T = total_iters``; 0 from ``T`` on.

    >>> import torchlike as torch
    >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0)
    >>> s = torch.optim.lr_scheduler.PolynomialLR(opt, total_iters=2, power=1.0)
    >>> opt.step(); s.step(); s.get_last_lr()
    [0.5]
    """

    def __init__(self, optimizer, total_iters=5, power=1.0, last_epoch=-1):
        self.total_iters, self.power = total_iters, power
        super().__init__(optimizer, last_epoch)

    def _f(self, k):
        return (1.0 - min(self.total_iters, k) / self.total_iters) ** self.power

    def _ratio(self, k):
        if self._is_initial or k > self.total_iters:
            return None
        now, before = 1.0 - k / self.total_iters, 1.0 - (k - 1) / self.total_iters
        return (now / before) ** self.power


class CosineAnnealingLR(LRScheduler):
    """``lr_k = eta_min + (base_lr - eta_min) * (1 + cos(pi k / T_max)) / 2`` (period ``2 T_max``).

    The chainable form scales the distance to ``eta_min``:
    ``lr_k - eta_min = (lr_{k-1} - eta_min) * c(k) / c(k-1)`` with ``c(k) = 1 + cos(pi k / T_max)``.
    Right after a trough ``c(k-1) = 0``, so that step adds the rise ``(base_lr - eta_min)(1 - cos(pi / T_max)) / 2``.

    >>> import torchlike as torch
    >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0)
    >>> s = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=2)
    >>> opt.step(); s.step(); [round(v, 6) for v in s.get_last_lr()]
    [0.5]
    """

    def __init__(self, optimizer, T_max, eta_min=0.0, last_epoch=-1):
        self.T_max, self.eta_min = T_max, eta_min
        super().__init__(optimizer, last_epoch)

    def _c(self, k):
        return 1 + math.cos(math.pi * k / self.T_max)

    def get_lr(self):
        _note_direct_call(self)
        k, lo, groups = self.last_epoch, self.eta_min, self.optimizer.param_groups
        if self._is_initial:
            return _group_values(self.optimizer, "lr")
        if self._step_count == 1 and k > 0:
            # first step of a resumed schedule: nothing to chain from yet (zip: group count must match)
            return [lo + (base - lo) * (1 + math.cos(k * math.pi / self.T_max)) / 2
                    for base, _ in zip(self.base_lrs, groups, strict=True)]
        if (k - 1 - self.T_max) % (2 * self.T_max) == 0:
            rise = (1 - math.cos(math.pi / self.T_max)) / 2
            return [g["lr"] + (base - lo) * rise for base, g in zip(self.base_lrs, groups, strict=True)]
        ratio = self._c(k) / self._c(k - 1)
        return [ratio * (g["lr"] - lo) + lo for g in groups]

    def _get_closed_form_lr(self):
        lo, c = self.eta_min, self._c(self.last_epoch)
        return [lo + (base - lo) * c / 2 for base in self.base_lrs]


# ---------------------------------------------------------------- schedulers of schedulers

def _check_members(owner, optimizer, schedulers):
    """The member checks SequentialLR and ChainedScheduler share (torch's messages)."""
    name = type(owner).__name__
    for i, s in enumerate(schedulers):
        if not hasattr(s, "optimizer"):
            raise TypeError(f"{name} at index {i} should have `optimizer` as its attribute.")
        if isinstance(s, ReduceLROnPlateau):
            raise ValueError(f"{name} does not support `ReduceLROnPlateau` scheduler as it requires additional "
                             f"kwargs to be specified when calling `step`, but got one at index {i} in the "
                             "given schedulers sequence.")
        if optimizer != s.optimizer:
            raise ValueError(f"{name} expects all schedulers to belong to the same optimizer, but got scheduler "
                             f"{type(s).__name__} at index {i} has {s.optimizer}, which is different from "
                             f"{type(optimizer).__name__}.")


class _Composite(LRScheduler):
    """Checkpoints of a scheduler made of schedulers: ``_schedulers`` holds each member's state_dict."""

    _special = ("_schedulers",)

    def _save_special(self, key, members):
        return [m.state_dict() for m in members]

    def _load_special(self, key, saved):
        for i, sd in enumerate(saved):
            self._schedulers[i].load_state_dict(sd)


class SequentialLR(_Composite):
    """Hand the optimizer from one scheduler to the next at ``milestones``: scheduler ``i`` runs while
    ``milestones[i-1] <= k < milestones[i]`` and starts over from its own position 0 when it takes over.

    >>> import torchlike as torch
    >>> lrs = torch.optim.lr_scheduler
    >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0)
    >>> s = lrs.SequentialLR(opt, [lrs.ConstantLR(opt, 0.5, 1), lrs.ExponentialLR(opt, 0.9)], milestones=[1])
    >>> opt.step(); s.step(); s.get_last_lr()
    [1.0]
    """

    def __init__(self, optimizer, schedulers, milestones, last_epoch=-1):
        if len(schedulers) < 1:
            raise ValueError(f"{type(self).__name__} expects at least one scheduler, but got no scheduler.")
        _check_members(self, optimizer, schedulers)
        if len(milestones) != len(schedulers) - 1:
            raise ValueError("Sequential Schedulers expects number of schedulers provided to be one more than the "
                             f"number of milestone points, but got number of schedulers {len(schedulers)} and the "
                             f"number of milestones to be equal to {len(milestones)}")
        self._schedulers, self._milestones = schedulers, milestones
        self.last_epoch = last_epoch + 1
        self.optimizer = optimizer
        # each member's constructor already took its position 0 and moved the lr: undo both
        for g in optimizer.param_groups:
            _assign(g, "lr", g["initial_lr"])
        self.recursive_undo()
        active = self._schedulers[bisect_right(milestones, 0)]
        active._initial_step()
        self._last_lr = active.get_last_lr()

    def recursive_undo(self, sched=None):
        """Move every (nested) member scheduler one position back."""
        pending = [self if sched is None else sched]
        while pending:
            node = pending.pop()
            if hasattr(node, "_schedulers"):
                pending.extend(reversed(node._schedulers))
            elif hasattr(node, "last_epoch"):
                node.last_epoch -= 1

    def step(self):
        self.last_epoch += 1
        k = self.last_epoch
        i = bisect_right(self._milestones, k)
        active = self._schedulers[i]
        if i > 0 and self._milestones[i - 1] == k:
            active._advance(0)   # just took over: its position 0, in closed form
        else:
            active.step()
        self._last_lr = active.get_last_lr()


from ._lr_scheduler_cyclic import (ChainedScheduler, CosineAnnealingWarmRestarts, CyclicLR, OneCycleLR,  # noqa: E402
                                   ReduceLROnPlateau)
from .._torch_paths import home as _home  # noqa: E402

_home(globals(), ChainedScheduler, CosineAnnealingWarmRestarts, CyclicLR, OneCycleLR, ReduceLROnPlateau)
