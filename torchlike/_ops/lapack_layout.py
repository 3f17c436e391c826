"""The column-major layouts torch's CPU kernels give LAPACK results (and nonzero's (n, ndim) index matrix).

torch allocates the matrices a LAPACK routine writes (Q and R of qr, U and Vh of svd, eigenvectors, LU,
Cholesky factors, solutions, inverses, ...) column-major per matrix, batches row-major over them
(``batched_matrix_contiguous_strides(shape, f_contig=True)``): a (b, m, n) result has strides
(m*n, 1, m).  The values here are logical arrays; these helpers give the results torch's strides as
metadata (``_memory_format.set_strides``), so ``stride()``, ``is_contiguous()`` and ``view`` legality follow
torch.

>>> import torchlike as torch
>>> torch.linalg.qr(torch.randn(2, 4, 3)).Q.stride()
(12, 1, 4)
"""
from __future__ import annotations

from .. import _memory_format as _mfmt
from .. import _views

__all__ = ["f_contig_strides", "column_major"]


def f_contig_strides(shape):
    """torch's ``batched_matrix_contiguous_strides(shape, f_contig=True)``: row-major strides with the last
    two dims swapped to column-major (a dim of size 0 counts as 1, as in contiguous strides)."""
    st = list(_views.contiguous_strides(tuple(shape)))
    if len(st) >= 2:
        st[-1], st[-2] = max(shape[-2], 1), 1
    return tuple(st)


def column_major(r, which=None):
    """Give the fresh result ``r`` (a tensor, or the tensors of a tuple at positions ``which``; all of them
    when None) torch's column-major matrix strides.  Returns ``r``."""
    if hasattr(r, "_vbase"):
        _mfmt.set_strides(r, f_contig_strides(r.shape))
        return r
    for i, o in enumerate(r):
        if (which is None or i in which) and hasattr(o, "_vbase"):
            _mfmt.set_strides(o, f_contig_strides(o.shape))
    return r

