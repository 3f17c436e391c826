"""parameters_to_vector / vector_to_parameters.

>>> import torchlike as torch
>>> m = torch.nn.Linear(2, 3)
>>> torch.nn.utils.parameters_to_vector(m.parameters()).shape
torch.Size([9])
"""
from __future__ import annotations

import jax.numpy as jnp

from ..._dispatch import dispatch
from ...tensor import Tensor

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def _cat_f(*xs):
    return jnp.concatenate([x.reshape(-1) for x in xs])


def _check_same_device(p, old):
    if old is None:
        return p.device
    if p.device != old:
        raise TypeError("Found two parameters on different devices, this is currently not supported.")
    return old


def parameters_to_vector(parameters):
    """All parameters flattened and concatenated into one (differentiable) vector."""
    ps = list(parameters)
    dev = None
    for p in ps:
        dev = _check_same_device(p, dev)
    return dispatch(_cat_f, tuple(ps), name="CatBackward0", saves=False)


def vector_to_parameters(vec, parameters):
    """Copy consecutive slices of ``vec`` into the parameters' data."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {type(vec).__name__}")
    pointer = 0
    dev = None
    for p in parameters:
        dev = _check_same_device(p, dev)
        n = p.numel()
        # (torch's: the parameter's data becomes a view of ``vec``, in ``vec``'s dtype, sharing its storage)
        p.data = vec[pointer:pointer + n].view_as(p).data
        pointer += n
