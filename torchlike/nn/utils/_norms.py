"""Jitted helpers shared by weight_norm / spectral_norm (old hook style and parametrizations)."""
from __future__ import annotations

import jax.numpy as jnp
from jax import lax

from ..._dispatch import dispatch

_HI = lax.Precision.HIGHEST


def _nexcept(v, dim):
    if dim == -1:
        return jnp.sqrt(jnp.sum(v * v))
    axes = tuple(i for i in range(v.ndim) if i != dim)
    return jnp.sqrt(jnp.sum(v * v, axis=axes, keepdims=True))


def _norm_except_dim_f(v, dim):
    return _nexcept(v, dim)


def _weight_norm_f(v, g, dim):
    return v * (g / _nexcept(v, dim))


def norm_except_dim(v, dim):
    """||v||_2 over every dim except ``dim`` (kept as size-1 dims); ``dim=-1``: the whole norm."""
    if dim != -1 and not -v.ndim <= dim < v.ndim:  # (torch transposes dim to the front: its wrap error)
        raise IndexError(f"Dimension out of range (expected to be in range of [{-v.ndim}, {v.ndim - 1}], but got "
                         f"{dim})")
    return dispatch(_norm_except_dim_f, (v,), (("dim", dim),), name="NormExceptDimBackward0")


def weight_norm_apply(v, g, dim):
    """torch._weight_norm: v * g / ||v|| (norm over all dims except ``dim``)."""
    return dispatch(_weight_norm_f, (v, g), (("dim", dim),), name="WeightNormInterfaceBackward0")


def _to_matrix(w, dim):
    if dim != 0:
        w = jnp.moveaxis(w, dim, 0)
    return w.reshape(w.shape[0], -1)


def _normalize(x, eps):
    n = jnp.sqrt(jnp.sum(jnp.abs(x) ** 2))
    return x / jnp.maximum(n, eps)


def _power_f(w, u, v, eps, dim, n, v_first):
    m = _to_matrix(w, dim)
    for _ in range(n):
        if v_first:  # the hook-based spectral_norm updates v then u; the parametrization u then v
            v = _normalize(jnp.matmul(jnp.conj(m.T), u, precision=_HI), eps)
            u = _normalize(jnp.matmul(m, v, precision=_HI), eps)
        else:
            u = _normalize(jnp.matmul(m, v, precision=_HI), eps)
            v = _normalize(jnp.matmul(jnp.conj(m.T), u, precision=_HI), eps)
    return u, v


def power_method(w, u, v, eps, dim, n, v_first=False):
    """n power-iteration steps; returns new (u, v) arrays (no autograd)."""
    return dispatch(_power_f, (w, u, v, eps), (("dim", dim), ("n", n), ("v_first", v_first)), diff=False)


def _sn_f(w, u, v, dim):
    m = _to_matrix(w, dim)
    sigma = jnp.vdot(u, jnp.matmul(m, v, precision=_HI))
    return w / sigma


def spectral_divide(w, u, v, dim):
    """w / (u^H W v), differentiable in w only (u, v are constants, as torch clones them)."""
    return dispatch(_sn_f, (w, u, v), (("dim", dim),), name="DivBackward0")
