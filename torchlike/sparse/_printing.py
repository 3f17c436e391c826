"""torch's repr of sparse tensors: ``tensor(indices=..., values=..., size=..., nnz=..., layout=...)``."""
from __future__ import annotations

from .. import _dtype
from .._layout import sparse_bsr, sparse_coo, sparse_csr
from .._printing import _opts, tensor_repr

__all__ = ["sparse_repr"]

_INDENT = len("tensor(")


def _field(name, t):
    """``name=tensor(...)`` with continuation lines aligned under the opening bracket, as torch prints."""
    pad = _INDENT + len(name) + 1
    text = tensor_repr(t.detach(), prefix=" " * pad + "tensor(")[pad:]
    tail = f", dtype={t.dtype})"  # torch names the dtype once, among the sparse tensor's own suffixes
    text = text[:-len(tail)] + ")" if text.endswith(tail) else text
    if t.numel() == 0 and text == "tensor([])":  # torch shows an empty part's size inside a sparse repr
        text = f"tensor([], size={tuple(t.shape)})"
    return name + "=" + text


def _add_suffixes(text, suffixes, force_newline):
    parts = [text]
    last = len(text) - text.rfind("\n") + 1
    for s in suffixes:
        if force_newline or last + len(s) + 2 > _opts["linewidth"]:
            parts.append(",\n" + " " * _INDENT + s)
            last = _INDENT + len(s)
            force_newline = False
        else:
            parts.append(", " + s)
            last += len(s) + 2
    return "".join(parts) + ")"


def sparse_repr(t):
    sep = ",\n" + " " * _INDENT
    if t._lay is sparse_coo:
        body = _field("indices", t._idx) + sep + _field("values", t._vals)
    else:
        row_major = t._lay in (sparse_csr, sparse_bsr)
        comp, plain = ("crow_indices", "col_indices") if row_major else ("ccol_indices", "row_indices")
        body = (_field(comp, t._crow) + sep + _field(plain, t._idx[1 if row_major else 0]) + sep +
                _field("values", t._vals))
    suffixes = []
    if t.device.type != "cpu":
        suffixes.append(f"device='{t.device}'")
    suffixes += [f"size={tuple(t.shape)}", f"nnz={t._nnz()}"]
    if t.dtype not in (_dtype.get_default_dtype(), _dtype.int64, _dtype.bool):
        suffixes.append(f"dtype={t.dtype}")
    suffixes.append(f"layout={t.layout}")
    if t.grad_fn is not None:
        suffixes.append(f"grad_fn=<{t.grad_fn.name()}>")
    elif t.requires_grad:
        suffixes.append("requires_grad=True")
    return _add_suffixes("tensor(" + body, suffixes, t._lay is sparse_coo)
