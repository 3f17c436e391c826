"""torch.optim.Adafactor."""
from __future__ import annotations

import jax.numpy as jnp
import numpy as np
import ml_dtypes

from ..tensor import Tensor
from .optimizer import _FusedOptimizer, _concrete, _float, c, lerp, step_state, zeros_state

__all__ = ["Adafactor"]


def _norm(x, axis=None, keepdims=False):
    return jnp.sqrt(jnp.sum(x * x, axis=axis, keepdims=keepdims))


def _adafactor_kernel(hp, p, g, st, maximize, wd, eps1_none):
    if maximize:
        g = -g
    eps1 = float(ml_dtypes.finfo(p.dtype).eps) if eps1_none else hp["eps1"]
    step_t = st["step"] + 1
    step_float = step_t.astype(jnp.float64)
    one_minus_beta2_t = step_float ** hp["beta2_decay"]
    lr = hp["lr"]
    rho_t = jnp.minimum(lr, 1 / (step_float ** 0.5))
    alpha = jnp.maximum(hp["eps2"], _norm(p).astype(jnp.float64) / (p.size ** 0.5)) * rho_t
    if wd:
        p = p * c(1 - lr * hp["weight_decay"], p)
    new = {"step": step_t}
    if g.ndim > 1:
        row_mean = _norm(g, axis=-1, keepdims=True) ** 2 / c(g.shape[-1], g)
        row_var = lerp(st["row_var"], row_mean, one_minus_beta2_t)
        col_mean = _norm(g, axis=-2, keepdims=True) ** 2 / c(g.shape[-2], g)
        col_var = lerp(st["col_var"], col_mean, one_minus_beta2_t)
        var_estimate = row_var @ col_var
        var_estimate = var_estimate / jnp.maximum(jnp.mean(row_var, axis=-2, keepdims=True), c(eps1, g))
        new["row_var"], new["col_var"] = row_var, col_var
    else:
        variance = lerp(st["variance"], g * g, one_minus_beta2_t)
        var_estimate = variance
        new["variance"] = variance
    update = (1 / jnp.sqrt(jnp.maximum(var_estimate, c(eps1 * eps1, g)))) * g
    denom = jnp.maximum(1.0, _norm(update).astype(jnp.float64) / ((update.size ** 0.5) * hp["d"]))
    return p + c(-alpha / denom, p) * update, new


class Adafactor(_FusedOptimizer):
    """Adafactor (Shazeer & Stern), exactly as torch.optim.Adafactor.

    >>> import torchlike as torch
    >>> p = torch.ones(2, 2, requires_grad=True)
    >>> opt = torch.optim.Adafactor([p], lr=0.01)
    >>> p.grad = torch.ones(2, 2); opt.step()
    >>> p
    tensor([[0.9900, 0.9900],
            [0.9900, 0.9900]], requires_grad=True)
    """

    _name = "Adafactor"
    _kernel = staticmethod(_adafactor_kernel)
    _complex_as_real = False

    def __init__(self, params, lr=1e-2, beta2_decay=-0.8, eps=(None, 1e-3), d=1.0, weight_decay=0.0, *,
                 foreach=None, maximize=False):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= _float(lr):
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 >= beta2_decay:
            raise ValueError(f"beta2_decay should be <= 0 but is: {beta2_decay}")
        if eps[0] is not None and not 0.0 <= eps[0]:
            raise ValueError(f"epsilon1 should be >= 0 but is: {eps[0]}")
        if not 0.0 <= eps[1]:
            raise ValueError(f"epsilon2 should be >= 0 but is: {eps[1]}")
        if not 1.0 <= d:
            raise ValueError(f"Clipping threshold d should be >= 1 but is: {d}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight_decay should be >= 0 but is: {weight_decay}")
        defaults = dict(lr=lr, beta2_decay=beta2_decay, eps=eps, d=d, weight_decay=weight_decay, foreach=foreach,
                        maximize=maximize)
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("foreach", None)
            group.setdefault("maximize", False)

    def _check_grad(self, p, group):
        if p.is_complex():
            raise RuntimeError("Adafactor does not support complex parameters")
        if p.grad.is_sparse:
            raise RuntimeError("Adafactor does not support sparse gradients")

    def _init_state(self, p, group):
        st = {"step": step_state()}
        g = p.grad
        if g.dim() > 1:
            row_shape = list(g.shape)
            row_shape[-1] = 1
            col_shape = list(g.shape)
            col_shape[-2] = 1
            dt = g._value.dtype
            st["row_var"] = _concrete(np.zeros(row_shape, dt), p._dev)  # concrete while tracing: see zeros_state
            st["col_var"] = _concrete(np.zeros(col_shape, dt), p._dev)
        else:
            st["variance"] = zeros_state(g)
        return st

    def _hparams(self, group):
        eps1, eps2 = group["eps"]
        return dict(lr=_float(group["lr"]), beta2_decay=_float(group["beta2_decay"]),
                    eps1=0.0 if eps1 is None else _float(eps1), eps2=_float(eps2), d=_float(group["d"]),
                    weight_decay=_float(group["weight_decay"]))

    def _statics(self, group):
        return (("maximize", bool(group["maximize"])), ("wd", _float(group["weight_decay"]) != 0),
                ("eps1_none", group["eps"][0] is None))
