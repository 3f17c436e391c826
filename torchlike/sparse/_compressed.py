"""The compressed layouts other than CSR: CSC (``sparse_csc``) and the blocked BSR/BSC (``sparse_bsr``,
``sparse_bsc``), 2-D, without dense or batch dimensions.

Storage follows CSR's: ``_idx`` holds the (row, column) of every stored value (of every stored block, in block
units, for BSR/BSC) in the layout's order, ``_crow`` the compressed pointers (crow or ccol indices), ``_vals``
the values (``(nnz, br, bc)`` blocks for BSR/BSC). Conversions and products go through the dense tensor, so
gradients reach the values.
"""
from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from .. import _dtype
from .._dispatch import dispatch
from .._layout import sparse_bsc, sparse_bsr, sparse_csc, sparse_csr
from . import _ops
from ._ops import _as_tensor, _idx_tensor, _own_values, sparse_csr_tensor, to_dense
from ._tensor import SparseTensor, implicit_invariant_checks, make_sparse, unsupported

__all__ = ["COMPRESSED", "BLOCKED", "to_compressed", "blocks_to_dense", "sparse_csc_tensor", "sparse_bsr_tensor",
           "sparse_bsc_tensor", "sparse_compressed_tensor"]

COMPRESSED = (sparse_csr, sparse_csc, sparse_bsr, sparse_bsc)
BLOCKED = (sparse_bsr, sparse_bsc)
_ROW_MAJOR = (sparse_csr, sparse_bsr)
_NAMES = {sparse_csr: "csr", sparse_csc: "csc", sparse_bsr: "bsr", sparse_bsc: "bsc"}


def _blocks_of(d, brow, bcol, *, br, bc):
    r, c = d.shape
    return d.reshape(r // br, br, c // bc, bc).transpose(0, 2, 1, 3)[brow, bcol]


def _scatter_blocks(idx, vals, *, shape, br, bc):
    r, c = shape
    z = jnp.zeros((r // br, c // bc, br, bc), vals.dtype).at[idx[0], idx[1]].add(vals)
    return z.transpose(0, 2, 1, 3).reshape(shape)


def _gather2(d, rows, cols):
    return d[rows, cols]


def blocks_to_dense(x):
    """The dense tensor of a BSR/BSC tensor."""
    br, bc = x._vals.shape[1:3]
    return dispatch(_scatter_blocks, (x._idx, x._vals), (("shape", tuple(x._size)), ("br", int(br)), ("bc", int(bc))),
                    name="ToDenseBackward0")


def _blocksize(blocksize, layout):
    if blocksize is None:
        raise RuntimeError(f"to_sparse for Strided to Sparse{_NAMES[layout].capitalize()} conversion requires "
                           "blocksize specified.")
    if isinstance(blocksize, int):
        return blocksize, blocksize
    b = tuple(int(v) for v in blocksize)
    if len(b) != 2:
        raise RuntimeError(f"blocksize must be a tuple of two integers, got {len(b)} integers")
    return b


def _pack(idx_np, vals, size, layout, dev, n_major):
    """A compressed tensor from (row, col) pairs already in the layout's order."""
    major = idx_np[0] if layout in _ROW_MAJOR else idx_np[1]
    ptr = np.concatenate([[0], np.cumsum(np.bincount(major, minlength=n_major))]).astype(np.int64)
    t = make_sparse(_idx_tensor(idx_np, dev), vals, size, layout, True, _idx_tensor(ptr, dev))
    t._np_idx = idx_np
    return t


def to_compressed(x, layout, blocksize=None, dense_dim=None):
    """``x`` (dense or sparse, 2-D) in CSC, BSR or BSC layout."""
    if dense_dim:
        raise unsupported(f"to_sparse_{_NAMES[layout]} (dense_dim)", "CPU")
    if isinstance(x, SparseTensor):
        if x._lay is layout and (layout not in BLOCKED or blocksize is None or
                                 tuple(x._vals.shape[1:3]) == _blocksize(blocksize, layout)):
            return x
        x = to_dense(blocks_to_dense(x) if x._lay in BLOCKED else x)
    if x.ndim != 2:
        raise RuntimeError(f"to_sparse_{_NAMES[layout]}: expected a 2-D tensor (torchlike has no batched or hybrid "
                           f"compressed tensors), got {x.ndim}-D (see docs/differences.md)")
    a = np.asarray(x.detach()._value)
    r, c = a.shape
    if layout in BLOCKED:
        br, bc = _blocksize(blocksize, layout)
        if r % br or c % bc:
            raise RuntimeError(f"dense_to_sparse_{_NAMES[layout]}: tensor sparse size ({r},{c}) must be divisible "
                               f"by given blocksize ({br},{bc})")
        nzb = np.any(a.reshape(r // br, br, c // bc, bc) != 0, axis=(1, 3))
        ii = np.stack(np.nonzero(nzb) if layout is sparse_bsr else np.nonzero(nzb.T)[::-1]).astype(np.int64)
        ii = ii.reshape(2, -1)
        vals = dispatch(_blocks_of, (x, _idx_tensor(ii[0], x.device), _idx_tensor(ii[1], x.device)),
                        (("br", br), ("bc", bc)), name="ToSparseBscBackward0" if layout is sparse_bsc else
                        "ToSparseBsrBackward0")
        return _pack(ii, vals, (r, c), layout, x.device, r // br if layout is sparse_bsr else c // bc)
    if blocksize is not None:
        raise RuntimeError(f"to_sparse for Strided to Sparse{_NAMES[layout].capitalize()} conversion does not use "
                           "specified blocksize")
    ii = np.stack(np.nonzero(a.T)[::-1]).astype(np.int64).reshape(2, -1)  # column-major order
    vals = dispatch(_gather2, (x, _idx_tensor(ii[0], x.device), _idx_tensor(ii[1], x.device)),
                    name="ToSparseCscBackward0")
    return _pack(ii, vals, (r, c), layout, x.device, c)


def sparse_compressed_tensor(compressed_indices, plain_indices, values, size=None, *, dtype=None, layout=None,
                             device=None, pin_memory=False, requires_grad=False, check_invariants=None):
    """torch.sparse_compressed_tensor: a CSR/CSC/BSR/BSC tensor from its compressed and plain indices.

    >>> import torchlike as torch
    >>> torch.sparse_compressed_tensor([0, 1, 2], [1, 0], [5., 6.], (2, 2), layout=torch.sparse_csc).to_dense()
    tensor([[0., 6.],
            [5., 0.]])
    """
    if layout is None:
        raise TypeError("sparse_compressed_tensor() missing required keyword argument 'layout'")
    if layout is sparse_csr:
        return sparse_csr_tensor(compressed_indices, plain_indices, values, size, dtype=dtype, device=device,
                                 requires_grad=requires_grad, check_invariants=check_invariants)
    implicit_invariant_checks(check_invariants)
    if layout not in COMPRESSED:
        raise RuntimeError(f"sparse_compressed_tensor: expected a compressed layout, got {layout}")
    v = _as_tensor(values, dtype, device)
    if device is not None:
        v = v.to(device)
    ptr = _as_tensor(compressed_indices, device=v.device).to(_dtype.int64)
    plain = _as_tensor(plain_indices, device=v.device).to(_dtype.int64)
    p, k = np.asarray(ptr._value), np.asarray(plain._value)
    blocked = layout in BLOCKED
    if p.ndim != 1 or k.ndim != 1 or v.ndim != (3 if blocked else 1):
        raise RuntimeError("torchlike supports 2-D compressed tensors without batch or dense dimensions (see "
                           "docs/differences.md)")
    if p.shape[0] == 0 or p[0] != 0:
        raise RuntimeError("`compressed_indices[..., 0] == 0` is not satisfied.")
    if p[-1] != k.shape[0]:
        raise RuntimeError("`compressed_indices[..., -1] == nnz` is not satisfied.")
    if k.shape[0] != v.shape[0] or np.any(np.diff(p) < 0):
        raise RuntimeError("`0 <= compressed_indices[..., 1:] - compressed_indices[..., :-1] <= plain_dim` is "
                           "not satisfied.")
    br, bc = (int(v.shape[1]), int(v.shape[2])) if blocked else (1, 1)
    n_major = p.shape[0] - 1
    if size is None:
        n_plain = int(k.max()) + 1 if k.size else 0
        size = (n_major * br, n_plain * bc) if layout in _ROW_MAJOR else (n_plain * br, n_major * bc)
    size = tuple(int(s) for s in size)
    major = np.repeat(np.arange(n_major, dtype=np.int64), np.diff(p))
    ii = np.stack([major, k] if layout in _ROW_MAJOR else [k, major]).astype(np.int64).reshape(2, -1)
    v = _own_values(v, "SparseCompressedTensorBackward0")
    if requires_grad:
        v = v.detach().requires_grad_()
    t = make_sparse(_idx_tensor(ii, v.device), v, size, layout, True, ptr)
    t._np_idx = ii
    return t


def _ctor(layout, comp, plain):
    def ctor(compressed_indices, plain_indices, values, size=None, *, dtype=None, device=None, pin_memory=False,
             requires_grad=False, check_invariants=None):
        return sparse_compressed_tensor(compressed_indices, plain_indices, values, size, dtype=dtype, layout=layout,
                                        device=device, requires_grad=requires_grad, check_invariants=check_invariants)
    name = f"sparse_{_NAMES[layout]}_tensor"
    ctor.__name__ = ctor.__qualname__ = name
    ctor.__doc__ = (f"torch.{name}({comp}, {plain}, values, size): a {_NAMES[layout].upper()} tensor "
                    f"(see :func:`sparse_compressed_tensor`).\n\n"
                    f"    >>> import torchlike as torch\n"
                    f"    >>> torch.{name}([0, 1], [0], torch.ones(1, 1, 1) if {layout in BLOCKED} else [1.], "
                    f"(1, 1)).to_dense()\n    tensor([[1.]])\n")
    return ctor


sparse_csc_tensor = _ctor(sparse_csc, "ccol_indices", "row_indices")
sparse_bsr_tensor = _ctor(sparse_bsr, "crow_indices", "col_indices")
sparse_bsc_tensor = _ctor(sparse_bsc, "ccol_indices", "row_indices")


# the layouts this module adds to sparse._ops' conversions (Tensor.to_sparse(layout=...), to_dense of a blocked tensor)
for _lay in (sparse_csc, sparse_bsr, sparse_bsc):
    _ops.to_layout[_lay] = lambda x, blocksize, dense_dim, _lay=_lay: to_compressed(x, _lay, blocksize, dense_dim)
for _lay in BLOCKED:
    _ops.densify[_lay] = blocks_to_dense
