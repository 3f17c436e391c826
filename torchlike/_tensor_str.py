"""torchlike._tensor_str: the pieces of the tensor repr that libraries reuse, as ``torch._tensor_str`` has them
(torch_geometric prints its index tensors and OFF meshes with them).

>>> import torchlike
>>> from torchlike._tensor_str import PRINT_OPTS, _tensor_str
>>> _tensor_str(torchlike.tensor([[1, 2], [3, 4]]), indent=0), PRINT_OPTS.precision
('[[1, 2],\\n [3, 4]]', 4)
"""
from __future__ import annotations

import contextlib

from . import _printing

__all__ = ["PRINT_OPTS", "set_printoptions", "get_printoptions", "printoptions"]

set_printoptions = _printing.set_printoptions


class __PrinterOptions:
    """The current print options (``precision``, ``threshold``, ``edgeitems``, ``linewidth``, ``sci_mode``), read
    live from the settings ``torch.set_printoptions`` changes."""

    def __getattr__(self, name):
        try:
            return _printing._opts[name]
        except KeyError:
            raise AttributeError(f"'__PrinterOptions' object has no attribute '{name}'") from None

    def __setattr__(self, name, value):
        _printing._opts[name] = value


__PrinterOptions.__module__ = "torch._tensor_str"
PRINT_OPTS = __PrinterOptions()


def get_printoptions() -> dict:
    """The current print options as a dict (``precision``, ``threshold``, ``edgeitems``, ``linewidth``,
    ``sci_mode``)."""
    return dict(_printing._opts)


@contextlib.contextmanager
def printoptions(**kwargs):
    """Set print options (``torch.set_printoptions``'s keywords) for the duration of a ``with`` block.

    >>> import torchlike
    >>> with printoptions(precision=2):
    ...     print(torchlike.tensor([1.23456]))
    tensor([1.23])
    """
    old = get_printoptions()
    set_printoptions(**kwargs)
    try:
        yield
    finally:
        _printing._opts.clear()
        _printing._opts.update(old)


def _tensor_str(self, indent):
    """The values of tensor ``self`` as its repr prints them, continuation lines indented by ``indent``."""
    return _printing.tensor_body(self.detach(), indent)[0]


def _add_suffixes(tensor_str, suffixes, indent, force_newline):
    """``tensor_str`` followed by ``, suffix`` for each suffix and the closing parenthesis; a suffix that would
    pass the line width (or the first one, with ``force_newline``) starts a new line indented by ``indent``."""
    parts = [tensor_str]
    line_len = len(tensor_str) - tensor_str.rfind("\n") + 1
    for suffix in suffixes:
        if force_newline or line_len + len(suffix) + 2 > _printing._opts["linewidth"]:
            parts.append(",\n" + " " * indent + suffix)
            line_len = indent + len(suffix)
            force_newline = False
        else:
            parts.append(", " + suffix)
            line_len += len(suffix) + 2
    parts.append(")")
    return "".join(parts)


def _str(self, *, tensor_contents=None):
    """The repr of tensor ``self`` (``tensor_contents`` replaces the values part when given)."""
    if tensor_contents is None:
        return _printing.tensor_repr(self)
    suffixes = []
    if self.device.type != "cpu":
        suffixes.append(f"device='{self.device}'")
    if self.dtype not in (_printing._dtype.get_default_dtype(), _printing._dtype.int64, _printing._dtype.bool):
        suffixes.append(f"dtype={self.dtype}")
    if self.grad_fn is not None:
        suffixes.append(f"grad_fn=<{self.grad_fn.name().rsplit('::', 1)[-1]}>")
    elif self.requires_grad:
        suffixes.append("requires_grad=True")
    return _add_suffixes("tensor(" + tensor_contents, suffixes, len("tensor("), False)


_str_intern = _str
