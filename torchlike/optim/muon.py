"""torch.optim.Muon (momentum + Newton-Schulz orthogonalisation, for 2-D parameters)."""
from __future__ import annotations

import math

import jax
import jax.numpy as jnp

from ..tensor import Tensor
from .optimizer import _FusedOptimizer, _float, c, lerp, zeros_state

__all__ = ["Muon"]

EPS = 1e-7
DEFAULT_A, DEFAULT_B, DEFAULT_C = 3.4445, -4.775, 2.0315
DEFAULT_NS_STEPS = 5


def _mm_bf16(a, b):
    # torch's CPU bf16 matmul accumulates in float32 and rounds once
    return jnp.matmul(a, b, preferred_element_type=jnp.float32)


def _zeropower_via_newtonschulz(grad, ns_coefficients, ns_steps, eps):
    a, b, cc = ns_coefficients
    bf = jnp.bfloat16
    x = grad.astype(bf)
    tall = grad.shape[0] > grad.shape[1]
    if tall:
        x = x.T
    nrm = jnp.sqrt(jnp.sum(x.astype(jnp.float32) ** 2)).astype(bf)
    x = (x.astype(jnp.float32) / jnp.maximum(nrm, jnp.asarray(eps, bf)).astype(jnp.float32)).astype(bf)
    for _ in range(ns_steps):
        gram = _mm_bf16(x, x.T).astype(bf)
        gram_update = (jnp.float32(b) * gram.astype(jnp.float32) + jnp.float32(cc) * _mm_bf16(gram, gram)).astype(bf)
        x = (jnp.float32(a) * x.astype(jnp.float32) + _mm_bf16(gram_update, x)).astype(bf)
    if tall:
        x = x.T
    return x


def _adjust_ratio(adjust_lr_fn, shape):
    A, B = shape[:2]
    if adjust_lr_fn is None or adjust_lr_fn == "original":
        return math.sqrt(max(1, A / B))
    if adjust_lr_fn == "match_rms_adamw":
        return 0.2 * math.sqrt(max(A, B))
    return 1.0


def _muon_kernel(hp, p, g, st, nesterov, ns_coefficients, ns_steps, adjust_lr_fn):
    momentum = hp["momentum"]
    buf = lerp(st["momentum_buffer"], g, 1 - momentum)
    update = lerp(g, buf, momentum) if nesterov else buf
    update = _zeropower_via_newtonschulz(update, ns_coefficients, ns_steps, hp["eps"])
    lr = hp["lr"]
    adjusted_lr = lr * _adjust_ratio(adjust_lr_fn, p.shape)
    p = p * c(1 - lr * hp["weight_decay"], p)
    p = p + c(-adjusted_lr, p) * update.astype(p.dtype)
    return p, {"momentum_buffer": buf}


class Muon(_FusedOptimizer):
    """Muon, exactly as torch.optim.Muon (2-D parameters only).

    >>> import torchlike as torch
    >>> p = torch.ones(2, 2, requires_grad=True)
    >>> opt = torch.optim.Muon([p], lr=0.1)
    >>> p.grad = torch.eye(2); opt.step()
    >>> p.shape
    torch.Size([2, 2])
    """

    _name = "Muon"
    _kernel = staticmethod(_muon_kernel)
    _complex_as_real = False

    def __init__(self, params, lr=1e-3, weight_decay=0.1, momentum=0.95, nesterov=True,
                 ns_coefficients=(DEFAULT_A, DEFAULT_B, DEFAULT_C), eps=EPS, ns_steps=DEFAULT_NS_STEPS,
                 adjust_lr_fn=None):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= _float(lr):
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 <= momentum:
            raise ValueError(f"momentum should be >= 0 but is: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight decay should be >= 0 but is: {weight_decay}")
        if adjust_lr_fn is not None and adjust_lr_fn not in ["original", "match_rms_adamw"]:
            raise ValueError(f"Adjust learning rate function {adjust_lr_fn} is not supported")
        defaults = dict(lr=lr, weight_decay=weight_decay, momentum=momentum, nesterov=nesterov,
                        ns_coefficients=ns_coefficients, eps=eps, ns_steps=ns_steps, adjust_lr_fn=adjust_lr_fn)
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                if p.ndim != 2:
                    raise ValueError(f"Muon only supports 2D parameters whereas we found a parameter with size: "
                                     f"{p.size()}")

    def _check_grad(self, p, group):
        if p.is_complex():
            raise RuntimeError("Muon does not support complex parameters")
        if p.grad.is_sparse:
            raise RuntimeError("Muon does not support sparse gradients")
        if group["ns_steps"] >= 100:
            raise ValueError("Number of steps must be less than 100 for computational efficiency")
        if len(group["ns_coefficients"]) != 3:
            raise ValueError("Coefficients must be a tuple of exactly 3 values")

    def _init_state(self, p, group):
        return {"momentum_buffer": zeros_state(p.grad)}

    def _hparams(self, group):
        return dict(lr=_float(group["lr"]), weight_decay=_float(group["weight_decay"]),
                    momentum=_float(group["momentum"]), eps=_float(group["eps"]))

    def _statics(self, group):
        return (("nesterov", bool(group["nesterov"])),
                ("ns_coefficients", tuple(float(x) for x in group["ns_coefficients"])),
                ("ns_steps", int(group["ns_steps"])), ("adjust_lr_fn", group["adjust_lr_fn"]))


del jax
