"""The schedulers that are not ``base_lr * f(k)``: chaining, plateau detection, cycles and restarts.

Imported into (and documented by) :mod:`torchlike.optim.lr_scheduler`.
"""
from __future__ import annotations

import functools
import math
import warnings

from .lr_scheduler import (EPOCH_DEPRECATION_WARNING, LRScheduler, _Composite, _assign, _callable_state,
                           _check_members, _group_values, _note_direct_call, _per_group, _raised, _require_optimizer)


def _uses_betas(optimizer):
    """Where the optimizer keeps its momentum: ``betas[0]`` (Adam family, True) or ``momentum`` (False)."""
    if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
        raise ValueError("optimizer must support momentum or beta1 with `cycle_momentum` option enabled")
    return "betas" in optimizer.defaults


def _set_momentum(group, value, in_betas):
    if in_betas:
        group["betas"] = (value, *group["betas"][1:])
    else:
        group["momentum"] = value


def _seed_momentum(optimizer, high, low, in_betas):
    """Start every group at its high momentum and record the range in the group (torch's keys)."""
    for g, hi, lo in zip(optimizer.param_groups, high, low, strict=True):
        _set_momentum(g, hi, in_betas)
        g["max_momentum"], g["base_momentum"] = hi, lo


class ChainedScheduler(_Composite):
    """Step all ``schedulers`` together; their chainable ratios multiply on the shared lr.

    >>> import torchlike as torch
    >>> lrs = torch.optim.lr_scheduler
    >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0)
    >>> s = lrs.ChainedScheduler([lrs.ExponentialLR(opt, 0.5), lrs.ExponentialLR(opt, 0.5)])
    >>> opt.step(); s.step(); s.get_last_lr()
    [0.25]
    """

    def __init__(self, schedulers, optimizer=None):
        if len(schedulers) < 1:
            raise ValueError(f"{type(self).__name__} expects at least one scheduler to be chained, "
                             "but got no scheduler.")
        optimizer = optimizer or schedulers[0].optimizer
        _check_members(self, optimizer, schedulers)
        self._schedulers = schedulers
        self.optimizer = optimizer
        self._last_lr = _group_values(schedulers[-1].optimizer, "lr")

    def step(self):
        for member in self._schedulers:
            member.step()
        self._last_lr = _group_values(self._schedulers[-1].optimizer, "lr")


class ReduceLROnPlateau(LRScheduler):
    """Multiply the lr by ``factor`` (not below ``min_lr``) once the metric has failed to improve for
    more than ``patience`` steps in a row; then ignore ``cooldown`` steps.

    "Improves" means beating ``best`` by the threshold: in ``min`` mode ``a < best (1 - threshold)``
    (``rel``) or ``a < best - threshold`` (``abs``); ``max`` mode mirrors it. Reductions smaller than
    ``eps`` are skipped.

    >>> import torchlike as torch
    >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0)
    >>> s = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=0)
    >>> s.step(1.0); s.step(1.0); s.get_last_lr()
    [0.1]
    """

    def __init__(self, optimizer, mode="min", factor=0.1, patience=10, threshold=1e-4, threshold_mode="rel",
                 cooldown=0, min_lr=0, eps=1e-8):
        if factor >= 1.0:
            raise ValueError("Factor should be < 1.0.")
        self.factor = factor
        self.optimizer = _require_optimizer(optimizer)
        n = len(optimizer.param_groups)
        if isinstance(min_lr, (list, tuple)):
            if len(min_lr) != n:
                raise ValueError(f"expected {n} min_lrs, got {len(min_lr)}")
            self.default_min_lr, self.min_lrs = None, list(min_lr)
        else:
            self.default_min_lr, self.min_lrs = min_lr, [min_lr] * n
        self.patience, self.cooldown, self.eps = patience, cooldown, eps
        self.last_epoch = 0
        self._last_lr = _group_values(optimizer, "lr")
        self._configure(mode, threshold, threshold_mode)
        self.best = self.mode_worse
        self.cooldown_counter = self.num_bad_epochs = 0

    def _configure(self, mode, threshold, threshold_mode):
        if mode not in {"min", "max"}:
            raise ValueError("mode " + mode + " is unknown!")
        if threshold_mode not in {"rel", "abs"}:
            raise ValueError("threshold mode " + threshold_mode + " is unknown!")
        self.mode_worse = math.inf if mode == "min" else -math.inf
        self.mode, self.threshold, self.threshold_mode = mode, threshold, threshold_mode

    def _after_load(self):
        self._configure(self.mode, self.threshold, self.threshold_mode)

    @property
    def in_cooldown(self):
        return self.cooldown_counter > 0

    def _improves(self, value):
        best, th, relative = self.best, self.threshold, self.threshold_mode == "rel"
        if self.mode == "min":
            return value < (best * (1.0 - th) if relative else best - th)
        return value > (best * (th + 1.0) if relative else best + th)

    def step(self, metrics, epoch=None):
        """Record one value of the monitored metric."""
        value = float(metrics)
        if epoch is not None:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self.last_epoch = self.last_epoch + 1 if epoch is None else epoch
        if self._improves(value):
            self.best, self.num_bad_epochs = value, 0
        else:
            self.num_bad_epochs += 1
        if self.in_cooldown:   # bad steps during the cooldown do not count
            self.cooldown_counter -= 1
            self.num_bad_epochs = 0
        if self.num_bad_epochs > self.patience:
            self._shrink()
            self.cooldown_counter, self.num_bad_epochs = self.cooldown, 0
        self._last_lr = _group_values(self.optimizer, "lr")

    def _shrink(self):
        groups = self.optimizer.param_groups
        if len(groups) != len(self.min_lrs):
            if self.default_min_lr is None:
                raise RuntimeError(
                    f"The number of param groups in the `optimizer` ({len(groups)}) differs from when "
                    f"`ReduceLROnPlateau` was initialized ({len(self.min_lrs)}), usually due to a new param "
                    "group being added to the optimizer. Please modify the `min_lrs` field to match the length "
                    "of the `optimizer` param groups.")
            self.min_lrs = [self.default_min_lr] * len(groups)
        for g, floor in zip(groups, self.min_lrs):
            old = float(g["lr"])
            new = max(old * self.factor, floor)
            if old - new > self.eps:
                _assign(g, "lr", new)


# CyclicLR amplitude scalings by mode: (function of the scale argument, what the argument is)
def _constant_scale(x):
    return 1.0


def _halving_scale(x):
    return 1 / (2.0 ** (x - 1))


_CYCLE_MODES = ("triangular", "triangular2", "exp_range")


class CyclicLR(LRScheduler):
    """Triangular cycles between ``base_lr`` and ``max_lr`` (momentum runs the opposite way).

    With a cycle of ``P = step_size_up + step_size_down`` positions and ``u = step_size_up / P``,
    at position ``k``: cycle ``c = floor(1 + k / P)``, phase ``x = 1 + k / P - c`` in ``[0, 1)``,
    height ``h = x / u`` while rising (``x <= u``) else ``(x - 1) / (u - 1)``, and

        lr = base_lr + (max_lr - base_lr) * h * s,   momentum = max_m - (max_m - base_m) * h * s

    with the amplitude scale ``s = scale_fn(c)`` (``scale_mode="cycle"``) or ``scale_fn(k)``
    (``"iterations"``). Built-in modes: ``triangular`` s = 1, ``triangular2`` s = 2^(1-c),
    ``exp_range`` s = gamma^k.

    >>> import torchlike as torch
    >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0, momentum=0.9)
    >>> s = torch.optim.lr_scheduler.CyclicLR(opt, base_lr=0.1, max_lr=1.0, step_size_up=2)
    >>> opt.step(); s.step(); [round(v, 6) for v in s.get_last_lr()]
    [0.55]
    """

    _transient = ("optimizer", "_mode_scale")
    _special = ("_scale_fn_custom",)

    def __init__(self, optimizer, base_lr, max_lr, step_size_up=2000, step_size_down=None, mode="triangular",
                 gamma=1.0, scale_fn=None, scale_mode="cycle", cycle_momentum=True, base_momentum=0.8,
                 max_momentum=0.9, last_epoch=-1):
        self.optimizer = _require_optimizer(optimizer)
        lows = _per_group("base_lr", optimizer, base_lr)
        if last_epoch == -1:
            for g, lr in zip(optimizer.param_groups, lows, strict=True):
                _assign(g, "lr", lr)
        self.max_lrs = _per_group("max_lr", optimizer, max_lr)
        up = float(step_size_up)
        down = up if step_size_down is None else float(step_size_down)
        self.total_size = up + down
        self.step_ratio = up / self.total_size
        if mode not in _CYCLE_MODES and scale_fn is None:
            raise ValueError("mode is invalid and scale_fn is None")
        self.mode, self.gamma = mode, gamma
        self._scale_fn_custom = scale_fn
        self.scale_mode = scale_mode
        self._pick_mode_scale()
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            self.use_beta1 = _uses_betas(optimizer)
            self.base_momentums = _per_group("base_momentum", optimizer, base_momentum)
            self.max_momentums = _per_group("max_momentum", optimizer, max_momentum)
            if last_epoch == -1:
                _seed_momentum(optimizer, self.max_momentums, self.base_momentums, self.use_beta1)
        super().__init__(optimizer, last_epoch)
        # the constructor's step read base_lrs from initial_lr (as torch does); from now on the cycle floor
        self.base_lrs = lows

    def _pick_mode_scale(self):
        """Bind the built-in scale of ``mode`` (gamma frozen now, as in torch); it fixes ``scale_mode``."""
        if self._scale_fn_custom is not None:
            return
        if self.mode == "exp_range":
            self._mode_scale, self.scale_mode = functools.partial(pow, self.gamma), "iterations"
        elif self.mode in _CYCLE_MODES:
            self._mode_scale = _constant_scale if self.mode == "triangular" else _halving_scale
            self.scale_mode = "cycle"

    def scale_fn(self, x):
        """The amplitude scale at ``x`` (a cycle number or a position, see ``scale_mode``)."""
        fn = self._scale_fn_custom
        return fn(x) if fn is not None else self._mode_scale(x)

    def get_lr(self):
        _note_direct_call(self)
        k, period, u = self.last_epoch, self.total_size, self.step_ratio
        cycle = math.floor(1 + k / period)
        x = 1.0 + k / period - cycle
        h = x / u if x <= u else (x - 1) / (u - 1)
        arg = cycle if self.scale_mode == "cycle" else k
        lrs = [low + (high - low) * h * self.scale_fn(arg)
               for low, high in zip(self.base_lrs, self.max_lrs, strict=True)]
        if self.cycle_momentum:
            moms = [high - (high - low) * h * self.scale_fn(arg)
                    for low, high in zip(self.base_momentums, self.max_momentums, strict=True)]
            for g, m in zip(self.optimizer.param_groups, moms, strict=True):
                _set_momentum(g, m, self.use_beta1)
        return lrs

    def _save_special(self, key, fn):
        return None if fn is None else _callable_state(fn)

    def _load_special(self, key, saved):
        if saved is not None:
            self._scale_fn_custom.__dict__.update(saved)

    def _after_load(self):
        self._pick_mode_scale()


class CosineAnnealingWarmRestarts(LRScheduler):
    """SGDR: cosine decay that restarts, each period ``T_mult`` times longer than the last.

    In a period of length ``T_i`` (``T_0``, ``T_0 T_mult``, ...), ``T_cur`` steps in:
    ``lr = eta_min + (base_lr - eta_min) * (1 + cos(pi T_cur / T_i)) / 2``.
    ``step(epoch)`` takes any (even fractional) epoch and finds its period directly: with
    ``n = floor(log_{T_mult}(epoch (T_mult - 1) / T_0 + 1))``, ``T_i = T_0 T_mult^n`` and
    ``T_cur = epoch - T_0 (T_mult^n - 1) / (T_mult - 1)``.

    >>> import torchlike as torch
    >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0)
    >>> s = torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=2)
    >>> opt.step(); s.step(); [round(v, 6) for v in s.get_last_lr()]
    [0.5]
    """

    def __init__(self, optimizer, T_0, T_mult=1, eta_min=0.0, last_epoch=-1):
        if T_0 <= 0 or not isinstance(T_0, int):
            raise ValueError(f"Expected positive integer T_0, but got {T_0}")
        if T_mult < 1 or not isinstance(T_mult, int):
            raise ValueError(f"Expected integer T_mult >= 1, but got {T_mult}")
        if not isinstance(eta_min, (float, int)):
            raise ValueError(f"Expected float or int eta_min, but got {eta_min} of type {type(eta_min)}")
        self.T_0 = self.T_i = T_0
        self.T_mult, self.eta_min = T_mult, eta_min
        self.T_cur = last_epoch
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        _note_direct_call(self)
        lo, c = self.eta_min, 1 + math.cos(math.pi * self.T_cur / self.T_i)
        return [lo + (base - lo) * c / 2 for base in self.base_lrs]

    def _jump_to(self, epoch):
        if epoch < 0:
            raise ValueError(f"Expected non-negative epoch, but got {epoch}")
        T0, m = self.T_0, self.T_mult
        if epoch < T0:
            self.T_i, self.T_cur = T0, epoch
        elif m == 1:
            self.T_cur = epoch % T0
        else:
            n = int(math.log(epoch / T0 * (m - 1) + 1, m))
            self.T_cur = epoch - T0 * (m ** n - 1) / (m - 1)
            self.T_i = T0 * m ** n

    def step(self, epoch=None):
        """Advance one position, or jump to ``epoch`` (no deprecation here: fractional epochs are the point)."""
        if epoch is None and self.last_epoch < 0:
            epoch = 0   # the constructor's step
        if epoch is None:
            epoch = self.last_epoch + 1
            self.T_cur += 1
            if self.T_cur >= self.T_i:   # period over: restart in a longer one
                self.T_cur %= self.T_i
                self.T_i *= self.T_mult
        else:
            self._jump_to(epoch)
        self.last_epoch = math.floor(epoch)
        with _raised(self, "_get_lr_called_within_step"):
            lrs = self.get_lr()
        self._publish(lrs)


def _cos_anneal(start, end, pct):
    return end + (start - end) / 2.0 * (math.cos(math.pi * pct) + 1)


def _linear_anneal(start, end, pct):
    return (end - start) * pct + start


_ANNEALERS = {"cos": _cos_anneal, "linear": _linear_anneal}


class OneCycleLR(LRScheduler):
    """The 1cycle policy over ``total_steps`` positions.

    The lr travels through group keys ``initial_lr = max_lr / div_factor -> max_lr -> min_lr =
    initial_lr / final_div_factor`` (``three_phase``: ``initial_lr -> max_lr -> initial_lr -> min_lr``),
    each leg ending at a position stored in ``_schedule_phases``; momentum (or beta1) moves the other
    way between ``max_momentum`` and ``base_momentum``. Within a leg from position ``a`` to ``b`` the
    fraction ``pct = (k - a) / (b - a)`` is annealed by ``cos``:
    ``end + (start - end)(1 + cos(pi pct)) / 2``, or ``linear``: ``start + (end - start) pct``.

    >>> import torchlike as torch
    >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0, momentum=0.9)
    >>> s = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=1.0, total_steps=10)
    >>> [round(v, 6) for v in s.get_last_lr()]
    [0.04]
    """

    def __init__(self, optimizer, max_lr, total_steps=None, epochs=None, steps_per_epoch=None, pct_start=0.3,
                 anneal_strategy="cos", cycle_momentum=True, base_momentum=0.85, max_momentum=0.95,
                 div_factor=25.0, final_div_factor=1e4, three_phase=False, last_epoch=-1):
        self.optimizer = _require_optimizer(optimizer)
        self.total_steps = self._count_steps(total_steps, epochs, steps_per_epoch)
        self._schedule_phases = self._legs(pct_start, self.total_steps, three_phase)
        if pct_start < 0 or pct_start > 1 or not isinstance(pct_start, float):
            raise ValueError(f"Expected float between 0 and 1 pct_start, but got {pct_start}")
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}")
        self._anneal_func_type = anneal_strategy
        peaks = _per_group("max_lr", optimizer, max_lr)
        if last_epoch == -1:
            for g, peak in zip(optimizer.param_groups, peaks):
                g["initial_lr"] = peak / div_factor
                g["max_lr"] = peak
                g["min_lr"] = g["initial_lr"] / final_div_factor
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            self.use_beta1 = _uses_betas(optimizer)
            high = _per_group("max_momentum", optimizer, max_momentum)
            low = _per_group("base_momentum", optimizer, base_momentum)
            if last_epoch == -1:
                _seed_momentum(optimizer, high, low, self.use_beta1)
        super().__init__(optimizer, last_epoch)

    @staticmethod
    def _count_steps(total_steps, epochs, steps_per_epoch):
        if total_steps is not None:
            if total_steps <= 0 or not isinstance(total_steps, int):
                raise ValueError(f"Expected positive integer total_steps, but got {total_steps}")
            return total_steps
        if epochs is None or steps_per_epoch is None:
            raise ValueError("You must define either total_steps OR (epochs AND steps_per_epoch)")
        if not isinstance(epochs, int) or epochs <= 0:
            raise ValueError(f"Expected positive integer epochs, but got {epochs}")
        if not isinstance(steps_per_epoch, int) or steps_per_epoch <= 0:
            raise ValueError(f"Expected positive integer steps_per_epoch, but got {steps_per_epoch}")
        return epochs * steps_per_epoch

    @staticmethod
    def _legs(pct_start, total, three_phase):
        """The legs as torch stores them: last position of each, group keys to travel between."""
        warm_end = float(pct_start * total) - 1
        if three_phase:
            ends = [warm_end, float(2 * pct_start * total) - 2, total - 1]
            lr_path = ["initial_lr", "max_lr", "initial_lr", "min_lr"]
            mom_path = ["max_momentum", "base_momentum", "max_momentum", "max_momentum"]
        else:
            ends = [warm_end, total - 1]
            lr_path = ["initial_lr", "max_lr", "min_lr"]
            mom_path = ["max_momentum", "base_momentum", "max_momentum"]
        return [dict(end_step=e, start_lr=lr_path[i], end_lr=lr_path[i + 1], start_momentum=mom_path[i],
                     end_momentum=mom_path[i + 1]) for i, e in enumerate(ends)]

    def _anneal(self, start, end, pct):
        if not hasattr(self, "_anneal_func_type"):   # a scheduler pickled by an old torch
            return self.anneal_func(start, end, pct)
        fn = _ANNEALERS.get(self._anneal_func_type)
        if fn is None:
            raise ValueError(f"Unknown _anneal_func_type: {self._anneal_func_type}")
        return fn(start, end, pct)

    def get_lr(self):
        _note_direct_call(self)
        k = self.last_epoch
        if k > self.total_steps:
            raise ValueError(f"Tried to step {k} times. The specified number of total steps is {self.total_steps}")
        legs = self._schedule_phases
        begin, leg = 0.0, legs[-1]
        for candidate in legs[:-1]:
            if k <= candidate["end_step"]:
                leg = candidate
                break
            begin = candidate["end_step"]
        lrs = []
        for g in self.optimizer.param_groups:
            pct = (k - begin) / (leg["end_step"] - begin)
            lrs.append(self._anneal(g[leg["start_lr"]], g[leg["end_lr"]], pct))
            if self.cycle_momentum:
                m = self._anneal(g[leg["start_momentum"]], g[leg["end_momentum"]], pct)
                _set_momentum(g, m, self.use_beta1)
        return lrs
