"""embedding and one_hot.

>>> import torchlike as torch
>>> torch.nn.functional.one_hot(torch.tensor([0, 2]))
tensor([[1, 0, 0],
        [0, 0, 1]])
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from ... import _dtype, _views
from ..._dispatch import dispatch
from ..._ops.registry import functional as _functional
from ... import _grad_mode as grad_mode
from ...tensor import Tensor
from ..._errors import check_alloc
from ..._ops.checks import need_tensors as _need_tensors

__all__ = ["embedding", "one_hot"]

# embedding(..., sparse=True) and embedding_bag(..., sparse=True) hand the lookup to torchlike.sparse._embedding,
# whose autograd.Functions sit a layer above this package; that module fills this table when it loads (the
# facade imports it through nn.modules)
SPARSE_GRAD = {}


def _embedding(w, idx, padding_idx, scale_by_freq, checked=False):
    # indices range-checked on the host (eager CPU): a plain clamped gather, ~5x faster on XLA's CPU than
    # the out-of-bounds-filling one (the same rows, every index being in range)
    out = jnp.take(w, idx, axis=0, mode="clip" if checked else None)
    if scale_by_freq:
        # gradient of each row divided by how often its index occurs in the batch (torch)
        counts = jnp.zeros((w.shape[0],), w.dtype).at[idx.reshape(-1)].add(1)
        c = counts[idx][..., None]
        sg = jax.lax.stop_gradient(out)
        out = sg + (out - sg) / c
    if padding_idx >= 0:
        # the padding row gets no gradient
        out = jnp.where((idx == padding_idx)[..., None], jax.lax.stop_gradient(out), out)
    return out


def _renorm_rows(w, idx, max_norm, norm_type):
    rows = w[idx]
    if norm_type == 2:
        n = jnp.sqrt(jnp.sum(rows.astype(jnp.float64 if w.dtype == jnp.float64 else jnp.float32) ** 2, -1))
    else:
        n = jnp.sum(jnp.abs(rows) ** norm_type, -1) ** (1.0 / norm_type)
    scale = jnp.where(n > max_norm, max_norm / (n + 1e-7), 1.0).astype(w.dtype)
    return w.at[idx].set(rows * scale[:, None])


def checked_type_name(t):
    """The type name torch's C++ argument checks print: the legacy class (torch.FloatTensor), or for a dtype that
    has none (bool, complex) the backend's type (CPUBoolType)."""
    if t.dtype.name == "bool" or t.dtype.is_complex:
        return f"{t.device.type.upper()}{_dtype._CAP[t.dtype.name]}Type"
    return t.type()


def _check_renorm_index(input, weight):
    """embedding_renorm_'s checks: the indices' dtype, then each referenced row (in sorted order) selected as
    weight[i], where a negative index within range counts from the end."""
    if input.dtype not in (_dtype.int64, _dtype.int32):
        raise RuntimeError("Expected tensor for argument #2 'indices' to have one of the following scalar types: "
                           f"Long, Int; but got {checked_type_name(input)} instead (while checking arguments for "
                           f"embedding_renorm_)")
    v = _views.checked_host_values(input) if input.numel() else None
    if v is None:
        return
    n = weight.shape[0]
    for i in np.unique(v):
        if not -n <= i < n:
            raise IndexError(f"select(): index {int(i)} out of range for tensor of size {list(weight.shape)} at "
                             f"dimension 0")


def _check_index(input, num):
    """torch's index checks; True when the values were range-checked on the host."""
    if input.dtype not in (_dtype.int64, _dtype.int32):
        raise RuntimeError("Expected tensor for argument #1 'indices' to have one of the following scalar types: "
                           f"Long, Int; but got {checked_type_name(input)} instead (while checking arguments for "
                           f"embedding)")
    ok = _views.checked_in_range(input, num) if input.device.type != "cuda" and input.numel() else None
    if ok is None:
        return False
    if not ok:
        raise IndexError("index out of range in self")
    return True


@_functional()
def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
              sparse=False):
    """Rows of ``weight`` at integer ``input``; ``padding_idx`` rows get no gradient.

    >>> import torchlike as torch
    >>> torch.nn.functional.embedding(torch.tensor([1]), torch.eye(3))
    tensor([[0., 1., 0.]])
    """
    _need_tensors("embedding", weight=weight, indices=input)
    if weight.ndim != 2:
        raise RuntimeError("'weight' must be 2-D")
    if sparse and weight.requires_grad:  # weight.grad becomes a sparse COO tensor (torchlike/sparse/_embedding.py)
        return SPARSE_GRAD["embedding"](input, weight, padding_idx, max_norm, norm_type, scale_grad_by_freq)
    n = weight.shape[0]
    if padding_idx is not None:
        if padding_idx > 0:
            if padding_idx >= n:
                raise AssertionError("Padding_idx must be within num_embeddings")
        elif padding_idx < 0:
            if padding_idx < -n:
                raise AssertionError("Padding_idx must be within num_embeddings")
            padding_idx = n + padding_idx
    else:
        padding_idx = -1
    if max_norm is not None:  # torch renormalises first: embedding_renorm_'s own checks
        _check_renorm_index(input, weight)
    checked = _check_index(input, n)
    if max_norm is not None:
        # torch renormalises the referenced rows of weight in place, outside autograd
        with grad_mode.no_grad():
            idx = Tensor._wrap(jnp.unique(input._value.reshape(-1)), input.device)
            new = dispatch(_renorm_rows, (weight, idx, float(max_norm)), (("norm_type", float(norm_type)),),
                           diff=False)
            weight._set_value(new._value)
    statics = (("padding_idx", int(padding_idx)), ("scale_by_freq", bool(scale_grad_by_freq)))
    if checked:
        statics += (("checked", True),)
    return dispatch(_embedding, (weight, input), statics, name="EmbeddingBackward0", saves=False)


def _one_hot(t, num_classes):
    return (t[..., None] == jnp.arange(num_classes)).astype(jnp.int64)


@_functional()
def one_hot(tensor, num_classes=-1):
    """int64 one-hot encoding with a new last dim of size ``num_classes`` (max + 1 when -1)."""
    _need_tensors("one_hot", input=tensor)
    if tensor.dtype is not _dtype.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if num_classes != -1:
        check_alloc(tuple(tensor.shape) + (int(num_classes),), 8)
    if num_classes != -1 and isinstance(tensor._value, jax.core.Tracer):
        return dispatch(_one_hot, (tensor,), (("num_classes", int(num_classes)),), diff=False)
    a = np.asarray(tensor._value)
    if num_classes == -1:
        if a.size == 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        num_classes = int(a.max()) + 1
    if a.size:
        if a.min() < 0:
            raise RuntimeError("Class values must be non-negative.")
        if a.max() >= num_classes:
            raise RuntimeError("Class values must be smaller than num_classes.")
    check_alloc(tuple(tensor.shape) + (int(num_classes),), 8)
    return dispatch(_one_hot, (tensor,), (("num_classes", int(num_classes)),), diff=False)
