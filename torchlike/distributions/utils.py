"""Helpers shared by the distributions (torch.distributions.utils)."""
from __future__ import annotations

import torchlike
from torchlike.tensor import Tensor

__all__ = ["broadcast_all", "clamp_probs", "lazy_property", "logits_to_probs", "probs_to_logits",
           "tril_matrix_to_vec", "vec_to_tril_matrix"]

euler_constant = 0.57721566490153286060


def broadcast_all(*values):
    """Broadcast tensors and numbers to one shape; numbers become tensors of the default float dtype
    (or of the first tensor's dtype).

    >>> import torchlike
    >>> a, b = broadcast_all(torchlike.zeros(2, 1), 3.0)
    >>> a.shape, b.shape
    (torch.Size([2, 1]), torch.Size([2, 1]))
    """
    if not all(isinstance(v, (Tensor, int, float)) or hasattr(v, "__torch_function__") for v in values):
        raise ValueError("Input arguments must all be instances of Number, "  # (torch's _Number: int, float, bool)
                         "torch.Tensor or objects implementing __torch_function__.")
    if not all(isinstance(v, Tensor) for v in values):
        opts = dict(dtype=torchlike.get_default_dtype())
        for v in values:
            if isinstance(v, Tensor):
                opts = dict(dtype=v.dtype, device=v.device)
                break
        values = [v if isinstance(v, Tensor) else torchlike.tensor(v, **opts) for v in values]
    return torchlike.broadcast_tensors(*values)


def _standard_normal(shape, dtype, device):
    return torchlike.randn(shape, dtype=dtype, device=device)


def _sum_rightmost(value, dim):
    """Sum out the ``dim`` rightmost dimensions."""
    if dim == 0:
        return value
    return value.reshape(value.shape[:-dim] + (-1,)).sum(-1)


def logits_to_probs(logits, is_binary=False):
    """sigmoid for binary logits, softmax over the last dim otherwise."""
    if is_binary:
        return torchlike.sigmoid(logits)
    return torchlike.nn.functional.softmax(logits, dim=-1)


def clamp_probs(probs):
    """Clamp into [eps, 1 - eps] of the dtype so logs stay finite."""
    eps = torchlike.finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs, is_binary=False):
    """log-odds for binary probabilities, log(p) otherwise (after clamping)."""
    p = clamp_probs(probs)
    if is_binary:
        return torchlike.log(p) - torchlike.log1p(-p)
    return torchlike.log(p)


class lazy_property:
    """A property computed once per instance and then stored in the instance's ``__dict__``."""

    def __init__(self, wrapped):
        self.wrapped = wrapped
        self.__doc__ = wrapped.__doc__
        self.__name__ = wrapped.__name__

    def __get__(self, instance, obj_type=None):
        if instance is None:
            return _lazy_property_and_property(self.wrapped)
        with torchlike.enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value


class _lazy_property_and_property(lazy_property, property):
    def __init__(self, wrapped):
        property.__init__(self, wrapped)


def tril_matrix_to_vec(mat, diag=0):
    n = mat.shape[-1]
    if diag < -n or diag >= n:
        raise ValueError(f"diag ({diag}) provided is outside [{-n}, {n - 1}].")
    idx = torchlike.tril_indices(n, n, offset=diag)
    return mat[..., idx[0], idx[1]]


def vec_to_tril_matrix(vec, diag=0):
    m = vec.shape[-1]
    # n * (n + 1) / 2 + diag * n - ... solve for n
    n = int(round(((1 + 8 * m) ** 0.5 - 1) / 2 - diag))
    if n * (n + 1) // 2 + diag * n - (diag * (diag + 1) // 2 if diag > 0 else 0) != m and diag == 0:
        raise ValueError(f"The size of last dimension is {m} which cannot be expressed as the lower "
                         "triangular part of a square D x D matrix.")
    out = torchlike.zeros(vec.shape[:-1] + (n, n), dtype=vec.dtype, device=vec.device)
    idx = torchlike.tril_indices(n, n, offset=diag)
    out[..., idx[0], idx[1]] = vec
    return out
