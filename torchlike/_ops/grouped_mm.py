"""``torch._grouped_mm`` / ``torch.nn.functional.grouped_mm``: the grouped matrix product of Mixture-of-Experts
layers (Hugging Face transformers' default experts implementation calls it on CPU too).

A 2-D operand is cut into groups along one dimension by ``offs`` (int32 running ends): 2-D x 3-D multiplies
row group ``g`` of ``mat_a`` by ``mat_b[g]`` (token rows sorted by expert), 3-D x 2-D column group ``g`` of
``mat_b`` by ``mat_a[g]``, 2-D x 2-D the ``g``-th slice of the contraction dimension into ``out[g]`` (the
experts' weight gradients); 3-D x 3-D is ``bmm``.  torch's CPU kernel runs one ``mm`` per group into the
output's slices, in group order, so a later group's rows overwrite an earlier one's where ``offs`` decrease,
and rows past ``offs[-1]`` are never written (torch leaves them uninitialised; here they are 0).  The groups
run as one ``jax.lax.ragged_dot`` over the rows sorted by the group that writes them, which also traces under
``torchlike.compile`` (``offs`` may be traced).

    >>> import torchlike as torch
    >>> a, b = torch.ones(5, 4), torch.stack([torch.ones(4, 4), 2 * torch.ones(4, 4)])
    >>> torch.nn.functional.grouped_mm(a, b, offs=torch.tensor([2, 5], dtype=torch.int32))[:, 0].tolist()
    [4.0, 4.0, 8.0, 8.0, 8.0]
"""
from __future__ import annotations

import jax.numpy as jnp
from jax import lax

from .. import _dtype
from .. import _memory_format as _mfmt
from ._util import dispatch, register
from .matmul import _CNAME, _acc, _cap, _mm, _mm_prec
from .registry import TABLE, functional

__all__ = ["_grouped_mm", "grouped_mm"]

def _member(offs, size):
    """(G, size) booleans: which indices of a dimension of ``size`` group ``g``'s ATen ``slice(prev_end, end)``
    covers (a negative bound counts from the end, then both are clamped; an end before its start is empty)."""
    o = offs.astype(jnp.int64)
    ends = jnp.clip(jnp.where(o < 0, o + size, o), 0, size)
    starts = jnp.concatenate([jnp.zeros((1,), jnp.int64), ends[:-1]])
    pos = jnp.arange(size, dtype=jnp.int64)[None, :]
    return (starts[:, None] <= pos) & (pos < ends[:, None])


def _owner(offs, size):
    """The group whose ``mm`` writes each index last (groups run in order), ``G`` where none writes it."""
    g = offs.shape[0]
    last = jnp.max(jnp.where(_member(offs, size), jnp.arange(g, dtype=jnp.int64)[:, None], -1), axis=0)
    return jnp.where(last < 0, g, last)


def _ragged(lhs, rhs, offs):
    """Row ``r`` of ``lhs`` (m, k) times ``rhs[owner(r)]`` (g, k, n); rows no group writes are 0."""
    g = rhs.shape[0]
    owner = _owner(offs, lhs.shape[0])
    order = jnp.argsort(owner, stable=True)
    sizes = jnp.bincount(owner, length=g + 1)[:g].astype(jnp.int32)
    r = lax.ragged_dot(lhs[order], rhs, sizes, precision=_mm_prec(), preferred_element_type=_acc(lhs.dtype))
    r = jnp.zeros_like(r).at[order].set(r)  # (back in the rows' order; ragged_dot leaves the unowned rows 0)
    return r.astype(lhs.dtype)


def _grouped_impl(a, b, offs=None, *, kind):
    if kind == "2d3d":
        return _ragged(a, b, offs)
    if kind == "3d2d":  # column groups of b: the transposed problem is a row-grouped one
        return _ragged(b.T, jnp.swapaxes(a, 1, 2), offs).T
    if kind == "2d2d":  # slices of the contraction dimension, one output matrix each
        mask = _member(offs, a.shape[1]).astype(a.dtype)                          # (G, K)
        r = jnp.einsum("gmk,kn->gmn", a[None] * mask[:, None, :], b, precision=_mm_prec(),
                       preferred_element_type=_acc(a.dtype))
        return r.astype(a.dtype)
    return _mm(a, b)  # (3-D x 3-D: bmm)


def _check_strides(mat):
    """torch's ``check_valid_strides_and_return_transposed``: row- or column-major in the last two dimensions,
    with the other stride a multiple of 16 bytes."""
    st, sz = mat.stride(), mat.shape
    align = 16 // mat.element_size()
    if st[-2] == 1 and st[-1] >= max(1, sz[-2]):
        lead = st[-1]
    elif st[-1] == 1 and st[-2] >= max(1, sz[-1]):
        lead = st[-2]
    else:
        raise RuntimeError(f"Invalid strides/sizes, got {list(st)} for strides and {list(sz)} for sizes")
    if lead % align:
        raise RuntimeError("strides should be multiple of 16 bytes")


_FLOATS = (_dtype.float32, _dtype.bfloat16, _dtype.float16)


def _validate(mat_a, mat_b, offs, bias, out_dtype):
    for name, m in (("mat_a", mat_a), ("mat_b", mat_b)):
        if m.dtype not in _FLOATS:
            raise RuntimeError(f"Expected {name} to be Float32, BFloat16 or Float16 matrix, got {_cap(m.dtype)}")
    if mat_a.ndim not in (2, 3):
        raise RuntimeError("mat_a has to be 2 or 3d")
    if mat_b.ndim not in (2, 3):
        raise RuntimeError("mat_b has to be 2 or 3d")
    a2, b2 = mat_a.ndim == 2, mat_b.ndim == 2
    if not (a2 and b2) and mat_a.shape[-1] != mat_b.shape[-2]:
        raise RuntimeError("contraction dimension of mat_a and mat_b must match")
    _check_strides(mat_a)
    _check_strides(mat_b)
    if (offs is not None) != (a2 or b2):
        raise RuntimeError("Have to provide offsets if there is a 2d matrix, or no offset if both matrices are 3d")
    if offs is not None:
        if offs.ndim != 1:
            raise RuntimeError("offs has to be 1D")
        if offs.dtype is not _dtype.int32:
            raise RuntimeError("Offsets have to be int32")
    if bias is not None:
        raise RuntimeError("Bias not supported yet")
    if out_dtype is not None and _dtype.to_dtype(out_dtype) is not mat_a.dtype:
        raise RuntimeError("Grouped gemm output dtype must match `mat_a` dtype")


def _out_shape(mat_a, mat_b, offs):
    a2, b2 = mat_a.ndim == 2, mat_b.ndim == 2
    if a2 and b2:
        return (offs.shape[0], mat_a.shape[0], mat_b.shape[1])
    if a2:
        if offs.shape[0] != mat_b.shape[0]:
            raise RuntimeError("matrix batch sizes have to match")
        return (mat_a.shape[0], mat_b.shape[-1])
    if b2:
        if offs.shape[0] != mat_a.shape[0]:
            raise RuntimeError("matrix batch sizes have to match")
        return (mat_a.shape[1], mat_b.shape[1])
    if mat_a.shape[0] != mat_b.shape[0]:
        raise RuntimeError("batched dimension has to match")
    return (mat_a.shape[0], mat_a.shape[1], mat_b.shape[-1])


def _padded_strides(shape, dt, flat):
    """torch's output strides: the last size padded to 16 bytes (its grouped GEMM kernels' alignment)."""
    align = 16 // dt.itemsize
    n = -(-shape[-1] // align) * align
    return (n, 1) if flat else (shape[1] * n, n, 1)


@register("_grouped_mm", method=False)
def _grouped_mm(input, mat2, offs=None, bias=None, out_dtype=None):
    """torch._grouped_mm (see the module's docstring; ``torch.nn.functional.grouped_mm`` is its public form).

    >>> import torchlike as torch
    >>> torch._grouped_mm(torch.ones(2, 3, 4), torch.ones(2, 4, 8)).shape
    torch.Size([2, 3, 8])
    """
    _validate(input, mat2, offs, bias, out_dtype)
    shape = _out_shape(input, mat2, offs)
    if input.dtype is not mat2.dtype:  # (the per-group mm's check)
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: "
                           f"{_CNAME[input.dtype.name]} != {_CNAME[mat2.dtype.name]}")
    kind = ("2d" if input.ndim == 2 else "3d") + ("2d" if mat2.ndim == 2 else "3d")
    args = (input, mat2) if offs is None else (input, mat2, offs)
    out = dispatch(_grouped_impl, args, (("kind", kind),), name="GroupedMmBackward0")
    return _mfmt.set_strides(out, _padded_strides(shape, input.dtype.np, kind in ("2d3d", "3d2d")))


@functional()
def grouped_mm(mat_a, mat_b, *, offs=None, bias=None, out_dtype=None):
    """Grouped matrix multiply of Mixture-of-Experts layers: ``torch._grouped_mm`` (see there).

    >>> import torchlike as torch
    >>> x, w = torch.ones(3, 4), torch.ones(2, 4, 4)
    >>> torch.nn.functional.grouped_mm(x, w, offs=torch.tensor([1, 3], dtype=torch.int32)).shape
    torch.Size([3, 4])
    """
    # torch._grouped_mm as the table installed it: its parser names a non-Tensor argument (the declared function
    # would read its attributes first)
    return TABLE["torch", "_grouped_mm"].public(mat_a, mat_b, offs=offs, bias=bias, out_dtype=out_dtype)
