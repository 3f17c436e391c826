"""torch.optim.Adam and torch.optim.AdamW (same kernel; AdamW = decoupled weight decay)."""
from __future__ import annotations

import jax.numpy as jnp

from ..tensor import Tensor
from .optimizer import (_FusedOptimizer, _float, _to_scalar, c, check_betas, check_lr, check_options, lerp, nonneg,
                        step_state, zeros_state)

__all__ = ["Adam", "AdamW"]


def _adam_kernel(hp, p, g, st, maximize, amsgrad, wd, decoupled):
    if maximize:
        g = -g
    step_t = st["step"] + 1
    lr, wdv = hp["lr"], hp["weight_decay"]
    if wd:
        if decoupled:
            p = p * c(1 - lr * wdv, p)
        else:
            g = g + c(wdv, p) * p
    beta1, beta2 = hp["beta1"], hp["beta2"]
    exp_avg = lerp(st["exp_avg"], g, 1 - beta1)
    exp_avg_sq = st["exp_avg_sq"] * c(beta2, p) + c(1 - beta2, p) * g * g
    step = step_t.astype(jnp.float64)
    bias_correction1 = 1 - beta1 ** step
    bias_correction2 = 1 - beta2 ** step
    step_size = lr / bias_correction1
    bias_correction2_sqrt = bias_correction2 ** 0.5
    new = {"step": step_t, "exp_avg": exp_avg, "exp_avg_sq": exp_avg_sq}
    if amsgrad:
        m = jnp.maximum(st["max_exp_avg_sq"], exp_avg_sq)
        new["max_exp_avg_sq"] = m
        denom = jnp.sqrt(m) / c(bias_correction2_sqrt, p) + c(hp["eps"], p)
    else:
        denom = jnp.sqrt(exp_avg_sq) / c(bias_correction2_sqrt, p) + c(hp["eps"], p)
    return p + c(-step_size, p) * exp_avg / denom, new


class Adam(_FusedOptimizer):
    """Adam (Kingma & Ba), exactly as torch.optim.Adam.

    >>> import torchlike as torch
    >>> p = torch.tensor([1.0], requires_grad=True)
    >>> opt = torch.optim.Adam([p], lr=0.1)
    >>> p.grad = torch.tensor([2.0]); opt.step()
    >>> p
    tensor([0.9000], requires_grad=True)
    """

    _name = "Adam"
    _kernel = staticmethod(_adam_kernel)

    _group_fallbacks = {"amsgrad": False, "maximize": False, "foreach": None, "capturable": False,
                        "differentiable": False, "decoupled_weight_decay": False, "fused": None}

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, *,
                 foreach=None, maximize=False, capturable=False, differentiable=False, fused=None,
                 decoupled_weight_decay=False):
        # a Tensor hyperparameter needs capturable=True once foreach is asked for
        tensor_needs_capturable = "as a Tensor is not supported for capturable=False and foreach=True"
        if isinstance(lr, Tensor) and foreach and not capturable:
            raise ValueError(f"lr {tensor_needs_capturable}")
        check_lr(lr)
        check_options(("epsilon value", eps, nonneg))
        check_betas(betas)
        check_options(("weight_decay value", weight_decay, nonneg))
        if not any(isinstance(betas[0], kind) and isinstance(betas[1], kind) for kind in (float, Tensor)):
            raise ValueError("betas must be either both floats or both Tensors")
        for i in (0, 1):
            if not isinstance(betas[i], Tensor):
                continue
            if foreach and not capturable:
                raise ValueError(f"betas[{i}] {tensor_needs_capturable}")
            if betas[i].numel() != 1:
                raise ValueError(f"Tensor betas[{i}] must be 1-element")
        betas = tuple(map(_to_scalar, betas))  # (torch keeps a tuple: betas=[0.5, 0.999] reads back (0.5, 0.999))
        options = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad, maximize=maximize,
                       foreach=foreach, capturable=capturable, differentiable=differentiable, fused=fused,
                       decoupled_weight_decay=decoupled_weight_decay)
        super().__init__(params, options)
        self._accept_fused(fused, foreach, differentiable)

    def _check_grad(self, p, group):
        if p.grad.is_sparse:
            raise RuntimeError("Adam does not support sparse gradients, please consider SparseAdam instead")

    def _init_state(self, p, group):
        st = {"step": step_state(), "exp_avg": zeros_state(p), "exp_avg_sq": zeros_state(p)}
        if group["amsgrad"]:
            st["max_exp_avg_sq"] = zeros_state(p)
        return st

    def _hparams(self, group):
        b1, b2 = group["betas"]
        return dict(lr=_float(group["lr"]), beta1=_float(b1), beta2=_float(b2), eps=_float(group["eps"]),
                    weight_decay=_float(group["weight_decay"]))

    def _statics(self, group):
        return (("maximize", bool(group["maximize"])), ("amsgrad", bool(group["amsgrad"])),
                ("wd", _float(group["weight_decay"]) != 0),
                ("decoupled", bool(group["decoupled_weight_decay"])))


class AdamW(Adam):
    """AdamW: Adam with decoupled weight decay (torch.optim.AdamW).

    >>> import torchlike as torch
    >>> p = torch.tensor([1.0], requires_grad=True)
    >>> opt = torch.optim.AdamW([p], lr=0.1, weight_decay=0.5)
    >>> p.grad = torch.tensor([2.0]); opt.step()
    >>> p
    tensor([0.8500], requires_grad=True)
    """

    _group_pinned = {"decoupled_weight_decay": True}

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False, *,
                 maximize=False, foreach=None, capturable=False, differentiable=False, fused=None):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach, maximize=maximize,
                         capturable=capturable, differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)
