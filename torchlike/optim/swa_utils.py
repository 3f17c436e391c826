"""Weight averaging (``torch.optim.swa_utils``): AveragedModel (SWA and EMA), SWALR, update_bn.

>>> import torchlike as torch
>>> net = torch.nn.Linear(2, 1)
>>> ema = torch.optim.swa_utils.AveragedModel(net, multi_avg_fn=torch.optim.swa_utils.get_ema_multi_avg_fn(0.9))
>>> ema.update_parameters(net); int(ema.n_averaged)
1
"""
from __future__ import annotations

import itertools
import math
from copy import deepcopy
from typing import List, Tuple, Union

from .. import _dtype
from .._creation import tensor
from ..autograd.grad_mode import no_grad
from ..nn.modules.batchnorm import _BatchNorm
from ..nn.modules.module import Module
from ..tensor import Tensor
from .lr_scheduler import LRScheduler, _note_direct_call, _per_group

__all__ = ["AveragedModel", "SWALR", "update_bn", "get_ema_multi_avg_fn", "get_swa_multi_avg_fn",
           "get_ema_avg_fn", "get_swa_avg_fn"]

PARAM_LIST = Union[Tuple[Tensor, ...], List[Tensor]]  # torch.optim.swa_utils's alias for the averaging functions


def _check_decay(decay):
    if decay < 0.0 or decay > 1.0:
        raise ValueError(f"Invalid decay value {decay} provided. Please provide a value in [0,1] range.")


def _inexact(t):
    return t.dtype.is_floating_point or t.dtype.is_complex


def get_ema_multi_avg_fn(decay=0.999):
    """In-place EMA over lists of tensors: ``ema <- decay * ema + (1 - decay) * current``."""
    _check_decay(decay)

    @no_grad()
    def ema_update(ema_params, current_params, _num_averaged):
        for e, c in zip(ema_params, current_params, strict=True):
            if _inexact(e):
                e.lerp_(c, 1 - decay)
            else:
                e.copy_(e * decay + c * (1 - decay))
    return ema_update


def get_swa_multi_avg_fn():
    """In-place running mean over lists of tensors: ``avg <- avg + (current - avg) / (n + 1)``."""
    @no_grad()
    def swa_update(averaged_params, current_params, num_averaged):
        for a, c in zip(averaged_params, current_params, strict=True):
            if _inexact(a):
                a.lerp_(c, float(1 / (num_averaged + 1)))
            else:
                a.copy_(a + (c - a) / (num_averaged + 1))
    return swa_update


def get_ema_avg_fn(decay=0.999):
    """Per-tensor EMA: returns ``decay * ema + (1 - decay) * current``."""
    _check_decay(decay)

    @no_grad()
    def ema_update(ema_param, current_param, num_averaged):
        return decay * ema_param + (1 - decay) * current_param
    return ema_update


def get_swa_avg_fn():
    """Per-tensor running mean: returns ``avg + (current - avg) / (n + 1)``."""
    @no_grad()
    def swa_update(averaged_param, current_param, num_averaged):
        return averaged_param + (current_param - averaged_param) / (num_averaged + 1)
    return swa_update


class AveragedModel(Module):
    """A copy of ``model`` whose parameters (and, with ``use_buffers``, buffers) are averaged over the
    calls to :meth:`update_parameters`: equal-weight SWA by default, or ``avg_fn`` / ``multi_avg_fn``
    (e.g. :func:`get_ema_multi_avg_fn`).  ``n_averaged`` counts the updates (an int64 buffer).

    >>> import torchlike as torch
    >>> net = torch.nn.Linear(1, 1, bias=False)
    >>> swa = torch.optim.swa_utils.AveragedModel(net)
    >>> with torch.no_grad():
    ...     _ = net.weight.fill_(1.0); swa.update_parameters(net)
    ...     _ = net.weight.fill_(3.0); swa.update_parameters(net)
    >>> swa.module.weight.item()
    2.0
    """

    def __init__(self, model, device=None, avg_fn=None, multi_avg_fn=None, use_buffers=False):
        super().__init__()
        if avg_fn is not None and multi_avg_fn is not None:
            raise AssertionError("Only one of avg_fn and multi_avg_fn should be provided")
        copied = deepcopy(model)
        self.module = copied if device is None else copied.to(device)
        self.register_buffer("n_averaged", tensor(0, dtype=_dtype.int64, device=device))
        self.avg_fn = avg_fn
        self.multi_avg_fn = multi_avg_fn
        self.use_buffers = use_buffers

    def forward(self, *args, **kwargs):
        return self.module(*args, **kwargs)

    def _averaged(self, model):
        if self.use_buffers:
            return (list(itertools.chain(self.module.parameters(), self.module.buffers())),
                    list(itertools.chain(model.parameters(), model.buffers())))
        # parameters() of the wrapper itself, as torch does (the n_averaged buffer is not a parameter)
        return list(self.parameters()), list(model.parameters())

    def update_parameters(self, model):
        """Fold ``model``'s current parameters into the average (the first call copies them)."""
        mine, theirs = self._averaged(model)
        mine = [p.detach() for p in mine]
        theirs = [p.detach().to(a.device) for a, p in zip(mine, theirs)]
        n = int(self.n_averaged)
        with no_grad():
            if n == 0:
                for a, p in zip(mine, theirs):
                    a.copy_(p)
            elif self.avg_fn is not None:
                for a, p in zip(mine, theirs, strict=True):
                    a.copy_(self.avg_fn(a, p, self.n_averaged))
            else:
                # group by dtype like torch's foreach path, so integer and float tensors don't mix
                groups = {}
                for a, p in zip(mine, theirs, strict=True):
                    groups.setdefault((str(a.device), a.dtype), ([], []))
                    groups[(str(a.device), a.dtype)][0].append(a)
                    groups[(str(a.device), a.dtype)][1].append(p)
                fn = self.multi_avg_fn or get_swa_multi_avg_fn()
                for averaged, current in groups.values():
                    fn(averaged, current, self.n_averaged)
            if not self.use_buffers:
                for b_avg, b_model in zip(self.module.buffers(), model.buffers(), strict=True):
                    b_avg.detach().copy_(b_model.detach().to(b_avg.device))
            self.n_averaged += 1


@no_grad()
def update_bn(loader, model, device=None):
    """Recompute BatchNorm running statistics with one pass over ``loader`` (cumulative average)."""
    momenta = {}
    for m in model.modules():
        if isinstance(m, _BatchNorm):
            m.reset_running_stats()
            momenta[m] = m.momentum
    if not momenta:
        return
    was_training = model.training
    model.train()
    for m in momenta:
        m.momentum = None
    for batch in loader:
        if isinstance(batch, (list, tuple)):
            batch = batch[0]
        if device is not None:
            batch = batch.to(device)
        model(batch)
    for m, momentum in momenta.items():
        m.momentum = momentum
    model.train(was_training)


def _anneal_linear(t):
    return t


def _anneal_cos(t):
    return (1 - math.cos(math.pi * t)) / 2


# fraction t in [0, 1] of the annealing phase -> interpolation weight of swa_lr (named functions pickle)
_ANNEAL = {"linear": _anneal_linear, "cos": _anneal_cos}


class SWALR(LRScheduler):
    """Anneal each group's learning rate to ``swa_lr`` over ``anneal_epochs`` steps (``"cos"`` or
    ``"linear"``), then hold it.

    >>> import torchlike as torch
    >>> opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=1.0)
    >>> s = torch.optim.swa_utils.SWALR(opt, swa_lr=0.1, anneal_epochs=2, anneal_strategy="linear")
    >>> opt.step(); s.step(); [round(v, 6) for v in s.get_last_lr()]
    [0.55]
    """
    _transient = ("optimizer", "anneal_func")

    def __init__(self, optimizer, swa_lr, anneal_epochs=10, anneal_strategy="cos", last_epoch=-1):
        for lr, g in zip(_per_group("swa_lr", optimizer, swa_lr), optimizer.param_groups, strict=True):
            g["swa_lr"] = lr
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}")
        self._set_anneal_func(anneal_strategy)
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got {anneal_epochs}")
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    def _set_anneal_func(self, strategy):
        self._anneal_strategy = strategy
        self.anneal_func = _ANNEAL[strategy]

    def _fraction(self, step):
        return max(0, min(1, step / max(1, self.anneal_epochs)))

    def get_lr(self):
        _note_direct_call(self)
        # steps taken since construction (with no annealing phase the first step already lands on swa_lr)
        step = self._step_count - 1 if self.anneal_epochs else max(1, self._step_count - 1)
        prev_alpha = self.anneal_func(self._fraction(step - 1))
        alpha = self.anneal_func(self._fraction(step))
        out = []
        for g in self.optimizer.param_groups:
            lr, swa = g["lr"], g["swa_lr"]
            # undo the previous interpolation to recover the schedule's starting rate
            start = swa if prev_alpha == 1 else (lr - prev_alpha * swa) / (1 - prev_alpha)
            out.append(swa * alpha + start * (1 - alpha))
        return out

    def load_state_dict(self, state_dict):
        super().load_state_dict(state_dict)
        self._set_anneal_func(self._anneal_strategy)
