"""torchlike._custom_ops: torch's older custom-operator entry points, forwarding to :mod:`torchlike.library`.

Libraries import it for ``get_ctx()`` inside their shape ("fake") functions.

>>> from torchlike import _custom_ops
>>> _custom_ops.parse_qualname("mylib::op")
('mylib', 'op')
"""
from __future__ import annotations

from .library import custom_op, get_ctx, impl, impl_abstract, infer_schema

__all__ = ["custom_op", "get_ctx", "impl", "impl_abstract", "infer_schema", "parse_qualname"]


def parse_qualname(qualname: str):
    """``"ns::name"`` -> ``("ns", "name")``."""
    names = qualname.split("::", 1)
    if len(names) != 2:
        raise ValueError(f"Expected there to be a namespace in {qualname}, i.e. The operator name should look "
                         "something like ns::foo")
    if "." in names[1]:
        raise ValueError(f"The torch.custom_ops APIs do not handle overloads, i.e. operator names with '.' in "
                         f"them. Please name your operator something like {names[0]}::{names[1].split('.')[0]}.")
    return names[0], names[1]
