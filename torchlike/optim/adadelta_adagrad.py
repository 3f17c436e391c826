"""torch.optim.Adagrad and torch.optim.Adadelta."""
from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from .optimizer import _FusedOptimizer, _float, c, check_lr, full_state, step_state, zeros_state

__all__ = ["Adagrad", "Adadelta"]


def _adagrad_kernel(hp, p, g, st, maximize, wd):
    step_t = st["step"] + 1
    step = step_t.astype(jnp.float64)
    if maximize:
        g = -g
    if wd:
        g = g + c(hp["weight_decay"], p) * p
    clr = hp["lr"] / (1 + (step - 1) * hp["lr_decay"])
    state_sum = st["sum"] + c(1, p) * g * g
    std = jnp.sqrt(state_sum) + c(hp["eps"], p)
    return p + c(-clr, p) * g / std, {"step": step_t, "sum": state_sum}


class Adagrad(_FusedOptimizer):
    """Adagrad, exactly as torch.optim.Adagrad (state is created eagerly in the constructor, like torch).

    >>> import torchlike as torch
    >>> p = torch.tensor([1.0], requires_grad=True)
    >>> opt = torch.optim.Adagrad([p], lr=0.1)
    >>> p.grad = torch.tensor([2.0]); opt.step()
    >>> p
    tensor([0.9000], requires_grad=True)
    """

    _name = "Adagrad"
    _kernel = staticmethod(_adagrad_kernel)

    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0, eps=1e-10,
                 foreach=None, *, maximize=False, differentiable=False, fused=None):
        check_lr(lr)
        if not 0.0 <= lr_decay:
            raise ValueError(f"Invalid lr_decay value: {lr_decay}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= initial_accumulator_value:
            raise ValueError(f"Invalid initial_accumulator_value value: {initial_accumulator_value}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        defaults = dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                        initial_accumulator_value=initial_accumulator_value, foreach=foreach, maximize=maximize,
                        differentiable=differentiable, fused=fused)
        super().__init__(params, defaults)
        if fused:
            if differentiable:
                raise RuntimeError("`fused` does not support `differentiable`")
            if foreach:
                raise RuntimeError("`fused` and `foreach` cannot be `True` together.")
            self._step_supports_amp_scaling = True
        for group in self.param_groups:
            for p in group["params"]:
                self.state[p].update(self._init_state(p, group))

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("foreach", None)
            group.setdefault("maximize", False)
            group.setdefault("differentiable", False)
            group.setdefault("fused", None)

    def _init_state(self, p, group):
        iav = self.defaults["initial_accumulator_value"]
        init_value = complex(iav, iav) if p.is_complex() else iav
        return {"step": step_state(), "sum": full_state(p, init_value)}

    def _check_grad(self, p, group):
        if p.grad.is_sparse and group.get("fused"):
            raise RuntimeError("`fused` does not support sparse grad or complex param")

    def _sparse_update(self, p, group):
        """torch's step for a sparse ``.grad``: the gradient is coalesced and only its rows of ``sum`` (which
        stays dense) and of the parameter change; weight decay is refused (after the step count moves)."""
        state = self.state[p]
        step_t = state["step"]
        step_t._set_value(step_t._value + 1)
        if _float(group["weight_decay"]) != 0:
            raise RuntimeError("weight_decay option is not compatible with sparse gradients")
        g = p.grad.detach().coalesce()
        idx = tuple(np.asarray(g._host_indices()))
        vals = g._values()._value
        if group["maximize"]:
            vals = -vals
        step = float(step_t._value)
        clr = _float(group["lr"]) / (1 + (step - 1) * _float(group["lr_decay"]))
        x, ssum = p._value, state["sum"]._value
        ssum = ssum.at[idx].add(vals * vals)
        std = jnp.sqrt(ssum[idx]) + jnp.asarray(_float(group["eps"]), vals.dtype)
        state["sum"]._set_value(ssum)
        p._set_value(x.at[idx].add((vals / std) * jnp.asarray(-clr, vals.dtype)))

    def _hparams(self, group):
        return dict(lr=_float(group["lr"]), lr_decay=_float(group["lr_decay"]), eps=_float(group["eps"]),
                    weight_decay=_float(group["weight_decay"]))

    def _statics(self, group):
        return (("maximize", bool(group["maximize"])), ("wd", _float(group["weight_decay"]) != 0))


def _adadelta_kernel(hp, p, g, st, maximize, wd):
    step_t = st["step"] + 1
    if maximize:
        g = -g
    if wd:
        g = g + c(hp["weight_decay"], p) * p
    rho, eps = hp["rho"], hp["eps"]
    square_avg = st["square_avg"] * c(rho, p) + c(1 - rho, p) * g * g
    std = jnp.sqrt(square_avg + c(eps, p))
    delta = jnp.sqrt(st["acc_delta"] + c(eps, p)) / std * g
    acc_delta = st["acc_delta"] * c(rho, p) + c(1 - rho, p) * delta * delta
    return p + c(-hp["lr"], p) * delta, {"step": step_t, "square_avg": square_avg, "acc_delta": acc_delta}


class Adadelta(_FusedOptimizer):
    """Adadelta, exactly as torch.optim.Adadelta.

    >>> import torchlike as torch
    >>> p = torch.tensor([1.0], requires_grad=True)
    >>> opt = torch.optim.Adadelta([p])
    >>> p.grad = torch.tensor([2.0]); opt.step()
    >>> round(p.item(), 6)
    0.996838
    """

    _name = "Adadelta"
    _capturable_msg = (("params and state_steps", False), ("params and state_steps", False))
    _kernel = staticmethod(_adadelta_kernel)

    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *, capturable=False,
                 maximize=False, differentiable=False):
        check_lr(lr)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay, maximize=maximize, capturable=capturable,
                        foreach=foreach, differentiable=differentiable)
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("foreach", None)
            group.setdefault("maximize", False)
            group.setdefault("differentiable", False)
            group.setdefault("capturable", False)

    def _init_state(self, p, group):
        return {"step": step_state(), "square_avg": zeros_state(p), "acc_delta": zeros_state(p)}

    def _hparams(self, group):
        return dict(lr=_float(group["lr"]), rho=_float(group["rho"]), eps=_float(group["eps"]),
                    weight_decay=_float(group["weight_decay"]))

    def _statics(self, group):
        return (("maximize", bool(group["maximize"])), ("wd", _float(group["weight_decay"]) != 0))
