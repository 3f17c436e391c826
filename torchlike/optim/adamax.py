"""torch.optim.Adamax, torch.optim.NAdam and torch.optim.RAdam."""
from __future__ import annotations

import jax.numpy as jnp

from .optimizer import _FusedOptimizer, _float, c, check_betas, check_lr, lerp, step_state, zeros_state

__all__ = ["Adamax", "NAdam", "RAdam"]


def _check(lr, eps, betas, weight_decay):
    check_lr(lr)
    if not 0.0 <= eps:
        raise ValueError(f"Invalid epsilon value: {eps}")
    check_betas(betas)
    if not 0.0 <= weight_decay:
        raise ValueError(f"Invalid weight_decay value: {weight_decay}")


def _adamax_kernel(hp, p, g, st, maximize, wd):
    if maximize:
        g = -g
    step_t = st["step"] + 1
    if wd:
        g = g + c(hp["weight_decay"], p) * p
    beta1, beta2 = hp["beta1"], hp["beta2"]
    exp_avg = lerp(st["exp_avg"], g, 1 - beta1)
    exp_inf = jnp.maximum(st["exp_inf"] * c(beta2, p), jnp.abs(g) + c(hp["eps"], p))
    clr = hp["lr"] / (1 - beta1 ** step_t.astype(jnp.float64))
    return p + c(-clr, p) * exp_avg / exp_inf, {"step": step_t, "exp_avg": exp_avg, "exp_inf": exp_inf}


class _AdamFamily(_FusedOptimizer):
    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("foreach", None)
            group.setdefault("maximize", False)
            group.setdefault("differentiable", False)
            group.setdefault("capturable", False)
            if "decoupled_weight_decay" in self.defaults:
                group.setdefault("decoupled_weight_decay", False)

    def _hparams(self, group):
        b1, b2 = group["betas"]
        hp = dict(lr=_float(group["lr"]), beta1=_float(b1), beta2=_float(b2), eps=_float(group["eps"]),
                  weight_decay=_float(group["weight_decay"]))
        if "momentum_decay" in group:
            hp["momentum_decay"] = _float(group["momentum_decay"])
        return hp

    def _statics(self, group):
        s = (("maximize", bool(group["maximize"])), ("wd", _float(group["weight_decay"]) != 0))
        if "decoupled_weight_decay" in group:
            s += (("decoupled", bool(group["decoupled_weight_decay"])),)
        return s


class Adamax(_AdamFamily):
    """Adamax (Adam with the infinity norm), exactly as torch.optim.Adamax.

    >>> import torchlike as torch
    >>> p = torch.tensor([1.0], requires_grad=True)
    >>> opt = torch.optim.Adamax([p], lr=0.1)
    >>> p.grad = torch.tensor([2.0]); opt.step()
    >>> p
    tensor([0.9000], requires_grad=True)
    """

    _name = "Adamax"
    _kernel = staticmethod(_adamax_kernel)

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, foreach=None, *,
                 maximize=False, differentiable=False, capturable=False):
        _check(lr, eps, betas, weight_decay)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, foreach=foreach, maximize=maximize,
                        differentiable=differentiable, capturable=capturable)
        super().__init__(params, defaults)

    def _init_state(self, p, group):
        return {"step": step_state(), "exp_avg": zeros_state(p), "exp_inf": zeros_state(p)}


def _nadam_kernel(hp, p, g, st, maximize, wd, decoupled):
    if maximize:
        g = -g
    step_t = st["step"] + 1
    step = step_t.astype(jnp.float64)
    lr, beta1, beta2 = hp["lr"], hp["beta1"], hp["beta2"]
    bias_correction2 = 1 - beta2 ** step
    if wd:
        if decoupled:
            p = p * c(1 - lr * hp["weight_decay"], p)
        else:
            g = g + c(hp["weight_decay"], p) * p
    md = hp["momentum_decay"]
    mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * md)))
    mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * md)))
    # mu_product is a float32 0-dim tensor in torch: keep its float32 rounding
    mu_product = st["mu_product"] * jnp.asarray(mu, st["mu_product"].dtype)
    exp_avg = lerp(st["exp_avg"], g, 1 - beta1)
    exp_avg_sq = st["exp_avg_sq"] * c(beta2, p) + c(1 - beta2, p) * g * g
    denom = jnp.sqrt(exp_avg_sq / c(bias_correction2, p))
    mp = mu_product.astype(jnp.float64)
    mu_product_next = mp * mu_next
    denom = denom + c(hp["eps"], p)
    p = p + c(-lr * (1.0 - mu) / (1.0 - mp), p) * g / denom
    p = p + c((-lr * mu_next) / (1.0 - mu_product_next), p) * exp_avg / denom
    return p, {"step": step_t, "mu_product": mu_product, "exp_avg": exp_avg, "exp_avg_sq": exp_avg_sq}


class NAdam(_AdamFamily):
    """NAdam (Adam with Nesterov momentum), exactly as torch.optim.NAdam.

    >>> import torchlike as torch
    >>> p = torch.tensor([1.0], requires_grad=True)
    >>> opt = torch.optim.NAdam([p], lr=0.1)
    >>> p.grad = torch.tensor([2.0]); opt.step()
    >>> round(p.item(), 4)
    0.8944
    """

    _name = "NAdam"
    _capturable_msg = (("params, mu_products and state_steps", True),
                       ("params, mu_products, and state_steps", False))
    _kernel = staticmethod(_nadam_kernel)

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, momentum_decay=4e-3,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False):
        _check(lr, eps, betas, weight_decay)
        if not 0.0 <= momentum_decay:
            raise ValueError(f"Invalid momentum_decay value: {momentum_decay}")
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, momentum_decay=momentum_decay,
                        decoupled_weight_decay=decoupled_weight_decay, maximize=maximize, foreach=foreach,
                        capturable=capturable, differentiable=differentiable)
        super().__init__(params, defaults)

    def _init_state(self, p, group):
        return {"step": step_state(), "mu_product": step_state(1.0), "exp_avg": zeros_state(p),
                "exp_avg_sq": zeros_state(p)}


def _radam_kernel(hp, p, g, st, maximize, wd, decoupled):
    if maximize:
        g = -g
    step_t = st["step"] + 1
    step = step_t.astype(jnp.float64)
    lr, beta1, beta2 = hp["lr"], hp["beta1"], hp["beta2"]
    if wd:
        if decoupled:
            p = p * c(1 - lr * hp["weight_decay"], p)
        else:
            g = g + c(hp["weight_decay"], p) * p
    exp_avg = lerp(st["exp_avg"], g, 1 - beta1)
    exp_avg_sq = st["exp_avg_sq"] * c(beta2, p) + c(1 - beta2, p) * g * g
    bias_correction1 = 1 - beta1 ** step
    bias_correction2 = 1 - beta2 ** step
    bias_corrected_exp_avg = exp_avg / c(bias_correction1, p)
    rho_inf = 2 / (1 - beta2) - 1
    rho_t = rho_inf - 2 * step * (beta2 ** step) / bias_correction2
    rect = jnp.sqrt(jnp.abs((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)))
    adaptive_lr = c(bias_correction2 ** 0.5, p) / (jnp.sqrt(exp_avg_sq) + c(hp["eps"], p))
    rectified = bias_corrected_exp_avg * c(lr, p) * adaptive_lr * c(rect, p)
    plain = bias_corrected_exp_avg * c(lr, p)
    p = p - jnp.where(rho_t > 5.0, rectified, plain)
    return p, {"step": step_t, "exp_avg": exp_avg, "exp_avg_sq": exp_avg_sq}


class RAdam(_AdamFamily):
    """RAdam (rectified Adam), exactly as torch.optim.RAdam.

    >>> import torchlike as torch
    >>> p = torch.tensor([1.0], requires_grad=True)
    >>> opt = torch.optim.RAdam([p], lr=0.1)
    >>> p.grad = torch.tensor([2.0]); opt.step()
    >>> p
    tensor([0.8000], requires_grad=True)
    """

    _name = "RAdam"
    _kernel = staticmethod(_radam_kernel)

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, decoupled_weight_decay=False,
                 *, foreach=None, maximize=False, capturable=False, differentiable=False):
        _check(lr, eps, betas, weight_decay)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, maximize=maximize, foreach=foreach,
                        capturable=capturable, decoupled_weight_decay=decoupled_weight_decay,
                        differentiable=differentiable)
        super().__init__(params, defaults)

    def _init_state(self, p, group):
        return {"step": step_state(), "exp_avg": zeros_state(p), "exp_avg_sq": zeros_state(p)}
