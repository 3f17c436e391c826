"""Named-tuple return types (torch.return_types.max, sort, topk, ...)."""
from __future__ import annotations

import collections

__all__ = ["make"]

_TYPES = {}


def make(name, fields=("values", "indices")):
    """The named-tuple class ``torch.return_types.<name>`` (created once)."""
    cls = _TYPES.get(name)
    if cls is None:
        cls = collections.namedtuple(name, fields)
        cls.__module__ = "torch.return_types"
        # torch's repr: "torch.return_types.max(\nvalues=tensor(...),\nindices=tensor(...))"
        cls.__repr__ = lambda self: f"torch.return_types.{type(self).__name__}(\n" + ",\n".join(
            f"{k}={v!r}" for k, v in zip(self._fields, self)) + ")"
        _TYPES[name] = cls
        globals()[name] = cls
    return cls


for _n in ("max", "min", "sort", "topk", "kthvalue", "median", "nanmedian", "mode", "cummax", "cummin",
           "aminmax", "var_mean", "std_mean"):
    make(_n, ("min", "max") if _n == "aminmax" else ("values", "indices"))
make("slogdet", ("sign", "logabsdet"))
make("linalg_slogdet", ("sign", "logabsdet"))
make("qr", ("Q", "R"))
make("linalg_qr", ("Q", "R"))
make("svd", ("U", "S", "V"))
make("linalg_svd", ("U", "S", "Vh"))
make("linalg_eigh", ("eigenvalues", "eigenvectors"))
make("linalg_eig", ("eigenvalues", "eigenvectors"))
make("linalg_lstsq", ("solution", "residuals", "rank", "singular_values"))
make("linalg_inv_ex", ("inverse", "info"))
make("linalg_cholesky_ex", ("L", "info"))
make("frexp", ("mantissa", "exponent"))
make("histogram", ("hist", "bin_edges"))
make("lu_unpack", ("P", "L", "U"))
make("linalg_lu_factor", ("LU", "pivots"))
make("linalg_lu", ("P", "L", "U"))
make("geqrf", ("a", "tau"))
