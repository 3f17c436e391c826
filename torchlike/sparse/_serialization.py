"""torch.save / torch.load of sparse tensors in torch's format: ``torch._utils._rebuild_sparse_tensor(layout,
(indices, values, size, is_coalesced))`` for COO and ``(crow_indices, col_indices, values, size)`` for CSR."""
from __future__ import annotations

from .._layout import sparse_coo
from ._tensor import unsupported
from ._ops import sparse_coo_tensor, sparse_csr_tensor

__all__ = ["reduce_sparse", "rebuild_sparse_tensor"]


def reduce_sparse(t, make_global):
    """The pickle reduction torch writes for sparse tensor ``t`` (``make_global(module, name)`` names a
    torch global in the stream)."""
    lay = _LayoutRef(make_global("torch.serialization", "_get_layout"), repr(t.layout))
    fn = make_global("torch._utils", "_rebuild_sparse_tensor")
    if t.layout is sparse_coo:
        return (fn, (lay, (t._idx, t._vals.detach(), t.shape, t._co)))
    return (fn, (lay, (t._crow, t._idx[1], t._vals.detach(), t.shape)))


class _LayoutRef:
    """Pickles as torch writes a layout: ``torch.serialization._get_layout("torch.sparse_coo")``."""

    def __init__(self, getter, name):
        self.getter, self.name = getter, name

    def __reduce__(self):
        return (self.getter, (self.name,))


def rebuild_sparse_tensor(layout, data):
    """torch._utils._rebuild_sparse_tensor: a sparse tensor from what :func:`reduce_sparse` stored."""
    name = str(getattr(layout, "_name", layout)).replace("torch.", "")
    if name == "sparse_coo":
        if len(data) == 3:
            indices, values, size = data
            coalesced = None
        else:
            indices, values, size, coalesced = data
        return sparse_coo_tensor(indices, values, size, is_coalesced=coalesced)
    if name == "sparse_csr":
        crow, col, values, size = data
        return sparse_csr_tensor(crow, col, values, size)
    raise unsupported(f"_rebuild_sparse_tensor (layout={layout})")


