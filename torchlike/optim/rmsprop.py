"""torch.optim.RMSprop and torch.optim.Rprop."""
from __future__ import annotations

import jax.numpy as jnp

from .optimizer import _FusedOptimizer, _float, c, check_lr, full_state, lerp, step_state, zeros_state

__all__ = ["RMSprop", "Rprop"]


def _rmsprop_kernel(hp, p, g, st, maximize, wd, centered, momentum):
    step_t = st["step"] + 1
    if maximize:
        g = -g
    if wd:
        g = g + c(hp["weight_decay"], p) * p
    alpha = hp["alpha"]
    square_avg = st["square_avg"] * c(alpha, p) + c(1 - alpha, p) * g * g
    new = {"step": step_t, "square_avg": square_avg}
    if centered:
        grad_avg = lerp(st["grad_avg"], g, 1 - alpha)
        new["grad_avg"] = grad_avg
        avg = jnp.sqrt(square_avg + c(-1, p) * grad_avg * grad_avg)
    else:
        avg = jnp.sqrt(square_avg)
    avg = avg + c(hp["eps"], p)
    if momentum:
        buf = st["momentum_buffer"] * c(hp["momentum"], p) + g / avg
        new["momentum_buffer"] = buf
        p = p + c(-hp["lr"], p) * buf
    else:
        p = p + c(-hp["lr"], p) * g / avg
    return p, new


class RMSprop(_FusedOptimizer):
    """RMSprop, exactly as torch.optim.RMSprop.

    >>> import torchlike as torch
    >>> p = torch.tensor([1.0], requires_grad=True)
    >>> opt = torch.optim.RMSprop([p], lr=0.01)
    >>> p.grad = torch.tensor([2.0]); opt.step()
    >>> round(p.item(), 4)
    0.9
    """

    _name = "RMSprop"
    _capturable_msg = (("params and state_steps", True), ("params and state_steps", True))
    _kernel = staticmethod(_rmsprop_kernel)

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0, centered=False,
                 capturable=False, foreach=None, maximize=False, differentiable=False):
        check_lr(lr)
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= momentum:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= alpha:
            raise ValueError(f"Invalid alpha value: {alpha}")
        defaults = dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps, centered=centered,
                        weight_decay=weight_decay, capturable=capturable, foreach=foreach, maximize=maximize,
                        differentiable=differentiable)
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("momentum", 0)
            group.setdefault("centered", False)
            group.setdefault("foreach", None)
            group.setdefault("maximize", False)
            group.setdefault("differentiable", False)
            group.setdefault("capturable", False)

    def _init_state(self, p, group):
        st = {"step": step_state(), "square_avg": zeros_state(p)}
        if group["momentum"] > 0:
            st["momentum_buffer"] = zeros_state(p)
        if group["centered"]:
            st["grad_avg"] = zeros_state(p)
        return st

    def _hparams(self, group):
        return dict(lr=_float(group["lr"]), alpha=_float(group["alpha"]), eps=_float(group["eps"]),
                    weight_decay=_float(group["weight_decay"]), momentum=_float(group["momentum"]))

    def _statics(self, group):
        return (("maximize", bool(group["maximize"])), ("wd", _float(group["weight_decay"]) != 0),
                ("centered", bool(group["centered"])), ("momentum", _float(group["momentum"]) > 0))


def _rprop_kernel(hp, p, g, st, maximize):
    step_t = st["step"] + 1
    if maximize:
        g = -g
    prev, step_size = st["prev"], st["step_size"]
    sign = jnp.sign(g * prev)
    etaplus, etaminus = c(hp["etaplus"], p), c(hp["etaminus"], p)
    sign = jnp.where(sign > 0, etaplus, sign)
    sign = jnp.where(sign < 0, etaminus, sign)
    sign = jnp.where(sign == 0, c(1, p), sign)
    step_size = jnp.clip(step_size * sign, c(hp["step_size_min"], p), c(hp["step_size_max"], p))
    g = jnp.where(sign == etaminus, c(0, p), g)
    p = p + c(-1, p) * jnp.sign(g) * step_size
    return p, {"step": step_t, "prev": g, "step_size": step_size}


class Rprop(_FusedOptimizer):
    """Rprop (resilient backpropagation), exactly as torch.optim.Rprop.

    >>> import torchlike as torch
    >>> p = torch.tensor([1.0], requires_grad=True)
    >>> opt = torch.optim.Rprop([p], lr=0.1)
    >>> p.grad = torch.tensor([2.0]); opt.step()
    >>> p
    tensor([0.9000], requires_grad=True)
    """

    _name = "Rprop"
    _capturable_msg = (("params and state_steps", True), ("params and state_steps", True))
    _kernel = staticmethod(_rprop_kernel)

    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *, capturable=False, foreach=None,
                 maximize=False, differentiable=False):
        check_lr(lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        defaults = dict(lr=lr, etas=etas, step_sizes=step_sizes, foreach=foreach, maximize=maximize,
                        differentiable=differentiable, capturable=capturable)
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("foreach", None)
            group.setdefault("maximize", False)
            group.setdefault("differentiable", False)
            group.setdefault("capturable", False)

    def _init_state(self, p, group):
        lr = _float(group["lr"])
        return {"step": step_state(), "prev": zeros_state(p),
                "step_size": full_state(p, complex(lr, lr) if p.is_complex() else lr, like=p.grad)}

    def _hparams(self, group):
        (etaminus, etaplus), (smin, smax) = group["etas"], group["step_sizes"]
        return dict(etaminus=_float(etaminus), etaplus=_float(etaplus), step_size_min=_float(smin),
                    step_size_max=_float(smax))

    def _statics(self, group):
        return (("maximize", bool(group["maximize"])),)
