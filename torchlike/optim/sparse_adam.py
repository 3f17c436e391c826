"""torch.optim.SparseAdam (lazy Adam for sparse gradients)."""
from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as np

from ..autograd import grad_mode
from ..tensor import Tensor
from .optimizer import Optimizer, _float, c, zeros_state

__all__ = ["SparseAdam"]


def _sparse_adam_one(p, idx, vals, exp_avg, exp_avg_sq, step, lr, beta1, beta2, eps, maximize):
    if maximize:
        vals = -vals
    ix = tuple(idx)  # padding entries (_padded) index one past the end: their updates are dropped
    old_exp_avg_values = exp_avg.at[ix].get(mode="clip")
    exp_avg_update_values = (vals - old_exp_avg_values) * c(1 - beta1, p)
    exp_avg = exp_avg.at[ix].add(exp_avg_update_values, mode="drop")
    old_exp_avg_sq_values = exp_avg_sq.at[ix].get(mode="clip")
    exp_avg_sq_update_values = (vals ** 2 - old_exp_avg_sq_values) * c(1 - beta2, p)
    exp_avg_sq = exp_avg_sq.at[ix].add(exp_avg_sq_update_values, mode="drop")
    numer = exp_avg_update_values + old_exp_avg_values
    denom = jnp.sqrt(exp_avg_sq_update_values + old_exp_avg_sq_values) + c(eps, p)
    bias_correction1 = 1 - beta1 ** step
    bias_correction2 = 1 - beta2 ** step
    step_size = lr * jnp.sqrt(bias_correction2) / bias_correction1
    p = p.at[ix].add(c(-step_size, p) * (numer / denom), mode="drop")
    return p, exp_avg, exp_avg_sq


def _padded(shape, idx, vals):
    """``idx`` (sparse dims, nnz) and ``vals`` (nnz, dense dims...) padded to the next power of two of nnz, with
    out-of-range indices and zero values, so that the jitted update compiles once per size class instead of once
    per nnz (an embedding's gradient has a different nnz each batch)."""
    nnz = idx.shape[1]
    size = 1 << max(nnz - 1, 0).bit_length()
    if size == nnz:
        return idx, vals
    pad = np.broadcast_to(np.asarray(shape[:idx.shape[0]], dtype=idx.dtype)[:, None], (idx.shape[0], size - nnz))
    idx = np.concatenate([idx, pad], axis=1)
    vals = jnp.concatenate([vals, jnp.zeros((size - nnz,) + tuple(vals.shape[1:]), vals.dtype)])
    return idx, vals


@jax.jit
def _sparse_adam_group(hp, ps, idxs, vals, eas, easqs, steps):
    out = []
    for p, i, v, ea, eq, s in zip(ps, idxs, vals, eas, easqs, steps):
        out.append(_sparse_adam_one(p, i, v, ea, eq, s, hp["lr"], hp["beta1"], hp["beta2"], hp["eps"], False))
    return out


@jax.jit
def _sparse_adam_group_max(hp, ps, idxs, vals, eas, easqs, steps):
    out = []
    for p, i, v, ea, eq, s in zip(ps, idxs, vals, eas, easqs, steps):
        out.append(_sparse_adam_one(p, i, v, ea, eq, s, hp["lr"], hp["beta1"], hp["beta2"], hp["eps"], True))
    return out


class SparseAdam(Optimizer):
    """Lazy Adam for sparse gradients (torch.optim.SparseAdam): only the moments at the gradient's
    indices are updated. A gradient is "sparse" when ``grad.is_sparse`` is True and it provides
    ``coalesce()``, ``_indices()`` and ``_values()``; dense gradients raise like torch.

    >>> import torchlike as torch
    >>> p = torch.zeros(3, requires_grad=True)
    >>> opt = torch.optim.SparseAdam([p])
    >>> p.grad = torch.ones(3)
    >>> opt.step()
    Traceback (most recent call last):
    ...
    RuntimeError: SparseAdam does not support dense gradients, please consider Adam instead
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, maximize=False):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 < _float(lr):
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 < eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        defaults = dict(lr=lr, betas=betas, eps=eps, maximize=maximize)
        super().__init__(params, defaults)
        sparse_params, complex_params = [], []
        for index, param_group in enumerate(self.param_groups):
            for d_index, d_param in enumerate(param_group["params"]):
                if d_param.is_sparse:
                    sparse_params.append([index, d_index])
                if d_param.is_complex():
                    complex_params.append([index, d_index])
        if sparse_params:
            raise ValueError(f"Sparse params at indices {sparse_params}: SparseAdam requires dense parameter tensors")
        if complex_params:
            raise ValueError(f"Complex params at indices {complex_params}: SparseAdam does not support complex "
                             f"parameters")

    def step(self, closure=None):
        """Perform a single optimization step."""
        loss = None
        if closure is not None:
            with grad_mode.enable_grad():
                loss = closure()
        with grad_mode.no_grad():
            for group in self.param_groups:
                ps, idxs, vals, eas, easqs, steps, states = [], [], [], [], [], [], []
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    if not p.grad.is_sparse:
                        raise RuntimeError("SparseAdam does not support dense gradients, please consider Adam "
                                           "instead")
                    state = self.state[p]
                    if len(state) == 0:
                        state["step"] = 0
                        state["exp_avg"] = zeros_state(p)
                        state["exp_avg_sq"] = zeros_state(p)
                    state["step"] += 1
                    g = p.grad.coalesce()
                    v = g._values()
                    if v.numel() == 0:
                        continue
                    ps.append(p._value)
                    i, v = _padded(p.shape, np.asarray(g._indices()._value if isinstance(g._indices(), Tensor)
                                                       else g._indices()),
                                   v._value if isinstance(v, Tensor) else jnp.asarray(v))
                    idxs.append(i)
                    vals.append(v)
                    eas.append(state["exp_avg"]._value)
                    easqs.append(state["exp_avg_sq"]._value)
                    steps.append(float(state["step"]))
                    states.append((p, state))
                if not ps:
                    continue
                b1, b2 = group["betas"]
                hp = dict(lr=np.float64(_float(group["lr"])), beta1=np.float64(b1), beta2=np.float64(b2),
                          eps=np.float64(group["eps"]))
                fn = _sparse_adam_group_max if group.get("maximize", False) else _sparse_adam_group
                out = fn(hp, ps, idxs, vals, eas, easqs, [np.float64(s) for s in steps])
                for (p, state), (np_, ea, eq) in zip(states, out):
                    p._set_value(np_)
                    state["exp_avg"]._set_value(ea)
                    state["exp_avg_sq"]._set_value(eq)
        return loss


del math
