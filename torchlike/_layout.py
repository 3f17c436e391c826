"""torch.layout values: every torchlike tensor is ``torchlike.strided`` (dense).

>>> import torchlike
>>> torchlike.ones(2).layout
torch.strided
"""
from __future__ import annotations

__all__ = ["layout", "strided", "sparse_coo", "sparse_csr", "sparse_csc", "sparse_bsr", "sparse_bsc", "jagged",
           "_mkldnn"]


class layout:
    """A tensor memory layout (``torchlike.strided`` for every dense tensor)."""

    def __init__(self, name):
        self._name = name

    def __repr__(self):
        return "torch." + self._name

    def __reduce__(self):
        return self._name


strided, sparse_coo, sparse_csr, sparse_csc = layout("strided"), layout("sparse_coo"), layout("sparse_csr"), \
    layout("sparse_csc")
sparse_bsr, sparse_bsc, jagged, _mkldnn = layout("sparse_bsr"), layout("sparse_bsc"), layout("jagged"), \
    layout("_mkldnn")
