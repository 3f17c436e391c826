"""torch.utils.data._utils.pin_memory: a batch's tensors copied to pinned host memory (with a GPU).

JAX stages host-to-device copies itself, so a pinned tensor is a copy flagged as pinned (``is_pinned()`` is
True, as in torch); the structure of the batch is kept as torch keeps it.

>>> from torchlike.utils.data._utils.pin_memory import pin_memory
>>> pin_memory({"x": [1, 2]})
{'x': [1, 2]}
"""
import collections.abc

from ....tensor import Tensor

__all__ = ["pin_memory"]


def pin_memory(data, device=None):
    """``data`` with every tensor pinned (mappings, namedtuples, sequences and objects with a
    ``pin_memory()`` method recursively; strings and other values unchanged)."""
    if isinstance(data, Tensor):
        return data.pin_memory()
    if isinstance(data, (str, bytes)):
        return data
    if isinstance(data, collections.abc.Mapping):
        pinned = {k: pin_memory(v, device) for k, v in data.items()}
        try:
            return type(data)(pinned) if not isinstance(data, dict) or type(data) is not dict else pinned
        except TypeError:
            return pinned
    if isinstance(data, tuple) and hasattr(data, "_fields"):  # namedtuple
        return type(data)(*(pin_memory(s, device) for s in data))
    if isinstance(data, tuple):
        return tuple(pin_memory(s, device) for s in data)
    if isinstance(data, collections.abc.Sequence):
        pinned = [pin_memory(s, device) for s in data]
        try:
            return type(data)(pinned) if type(data) is not list else pinned
        except TypeError:
            return pinned
    if hasattr(data, "pin_memory"):
        return data.pin_memory()
    return data
