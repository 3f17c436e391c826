"""``torch.vander``: the Vandermonde matrix of a vector, powers decreasing by default (numpy's convention;
``torch.linalg.vander``, in linalg_norms.py, is the batched, increasing-power variant)."""
from __future__ import annotations

import jax.numpy as jnp

from .. import _dtype
from .._creation import ones
from ._util import dispatch, register

__all__ = ["vander"]


def _vander_impl(x, N, increasing):
    powers = jnp.concatenate([jnp.ones(x.shape + (1,), x.dtype),
                              jnp.cumprod(jnp.broadcast_to(x[:, None], x.shape + (N - 1,)), axis=-1)], -1)
    return powers if increasing else powers[:, ::-1]


@register(method=False)
def vander(x, N=None, increasing=False):
    """Vandermonde matrix of the 1-D ``x``: column ``j`` is ``x ** (N - 1 - j)`` (``x ** j`` if ``increasing``).

    >>> import torchlike as torch
    >>> torch.vander(torch.tensor([1, 2, 3]))
    tensor([[1, 1, 1],
            [4, 2, 1],
            [9, 3, 1]])
    """
    if x.ndim != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    N = x.shape[0] if N is None else int(N)
    if N < 0:
        raise RuntimeError("N must be non-negative.")
    dt = _dtype.int64 if x.dtype._kind <= 1 else x.dtype  # bool and integer inputs compute in int64, as torch
    if N <= 1:  # torch returns a fresh tensor of ones (no graph) here
        return ones((x.shape[0], N), dtype=dt, device=x.device)
    return dispatch(_vander_impl, (x.to(dt) if dt is not x.dtype else x,), (("N", N), ("increasing", bool(increasing))),
                    name="CopySlices" if increasing else "FlipBackward0")
