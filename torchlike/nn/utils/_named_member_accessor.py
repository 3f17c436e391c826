"""torch.nn.utils._named_member_accessor: swap a module's parameter, buffer or tensor attribute for another.

>>> import torchlike as torch
>>> m = torch.nn.Linear(1, 1)
>>> old = swap_tensor(m, "bias", torch.zeros(1))
>>> type(old).__name__, m.bias
('Parameter', tensor([0.]))
"""
from __future__ import annotations

from ...tensor import Tensor
from ..modules.module import Module

__all__ = ["swap_tensor"]

_MISSING = object()


def swap_tensor(module, name: str, tensor, allow_missing: bool = False):
    """Put ``tensor`` in ``module``'s slot ``name`` (a parameter, buffer or plain attribute; ``_MISSING`` removes
    it) and return what was there, as torch's ``swap_tensor``."""
    if not isinstance(module, Module):
        raise TypeError(f"{module} is not an instance of torch.nn.Module")
    if tensor is not _MISSING and tensor is not None and not isinstance(tensor, Tensor):
        raise TypeError(f"{tensor} is not an instance of torch.Tensor")
    if "." in name:
        raise KeyError('tensor name can\'t contain "."')
    if name == "":
        raise KeyError('tensor name can\'t be empty string ""')
    for table in (module._parameters, module._buffers):
        if name in table:
            orig = table[name]
            if tensor is _MISSING:
                del table[name]
            else:
                table[name] = tensor
            return orig
    if hasattr(module, name):
        orig = getattr(module, name)
    elif allow_missing:
        orig = _MISSING
    else:
        raise AttributeError(f"{module._get_name()} has no attribute `{name}`")
    if orig is not _MISSING and orig is not None and not isinstance(orig, Tensor):
        raise TypeError(f"attribute `{name}`: {orig} is not an instance of torch.Tensor")
    if tensor is not _MISSING:
        setattr(module, name, tensor)
    elif hasattr(module, name):
        delattr(module, name)
    return orig
