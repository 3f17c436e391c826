"""torch.optim.ASGD (averaged SGD)."""
from __future__ import annotations

import jax.numpy as jnp

from ..tensor import Tensor
from .optimizer import _FusedOptimizer, _float, _scalar_dtype, c, check_lr, step_state, zeros_state

__all__ = ["ASGD"]


def _asgd_kernel(hp, p, g, st, maximize, wd, scalar_dtype):
    if maximize:
        g = -g
    step_t = st["step"] + 1
    if wd:
        g = g + c(hp["weight_decay"], p) * p
    lr, lambd, alpha, t0 = hp["lr"], hp["lambd"], hp["alpha"], hp["t0"]
    eta_value = st["eta"].astype(jnp.float64)
    p = p * c(1 - lambd * eta_value, p)
    p = p + c(-eta_value, p) * g
    mu = st["mu"]
    ax = st["ax"]
    ax = jnp.where(mu != 1, ax + (p - ax) * c(mu, p), p)
    step = step_t.astype(jnp.float64)
    # torch copies torch.as_tensor(<Python float>) into eta and mu: the value rounds to the default dtype first
    # (a checkpoint's float64 eta, loaded onto a float64 parameter, still holds float32-rounded values)
    eta = jnp.asarray(lr / ((1 + lambd * lr * step) ** alpha), scalar_dtype).astype(st["eta"].dtype)
    mu = jnp.asarray(1 / jnp.maximum(1.0, step - t0), scalar_dtype).astype(st["mu"].dtype)
    return p, {"step": step_t, "eta": eta, "mu": mu, "ax": ax}


class ASGD(_FusedOptimizer):
    """Averaged stochastic gradient descent, exactly as torch.optim.ASGD.

    >>> import torchlike as torch
    >>> p = torch.tensor([1.0], requires_grad=True)
    >>> opt = torch.optim.ASGD([p], lr=0.1)
    >>> p.grad = torch.tensor([2.0]); opt.step()
    >>> round(p.item(), 5)
    0.79999
    """

    _name = "ASGD"
    _capturable_msg = (("params, mus, etas, and state_steps", True), ("params, mus, etas, and state_steps", False))
    _kernel = staticmethod(_asgd_kernel)

    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0, foreach=None,
                 maximize=False, differentiable=False, capturable=False):
        check_lr(lr)
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = dict(lr=lr, lambd=lambd, alpha=alpha, t0=t0, weight_decay=weight_decay, foreach=foreach,
                        maximize=maximize, differentiable=differentiable, capturable=capturable)
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("foreach", None)
            group.setdefault("maximize", False)
            group.setdefault("differentiable", False)
            group.setdefault("capturable", False)

    def _init_state(self, p, group):
        return {"step": step_state(), "eta": step_state(_float(group["lr"])), "mu": step_state(1.0),
                "ax": zeros_state(p)}

    def _hparams(self, group):
        return dict(lr=_float(group["lr"]), lambd=_float(group["lambd"]), alpha=_float(group["alpha"]),
                    t0=_float(group["t0"]), weight_decay=_float(group["weight_decay"]))

    def _statics(self, group):
        return (("maximize", bool(group["maximize"])), ("wd", _float(group["weight_decay"]) != 0),
                ("scalar_dtype", _scalar_dtype()))


del Tensor
