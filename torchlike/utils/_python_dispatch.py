"""torchlike.utils._python_dispatch: torch's tensor-subclass dispatch queries, for library code that asks.

torchlike tensors have no ``__torch_dispatch__`` layer, so no tensor is a traceable wrapper subclass and no
dispatch mode is ever active.

>>> import torchlike
>>> from torchlike.utils._python_dispatch import is_traceable_wrapper_subclass
>>> is_traceable_wrapper_subclass(torchlike.ones(1))
False
"""
from __future__ import annotations

__all__ = ["TorchDispatchMode", "is_traceable_wrapper_subclass", "is_traceable_wrapper_subclass_type",
           "_get_current_dispatch_mode", "_get_current_dispatch_mode_stack"]


class TorchDispatchMode:
    """Base class of dispatch modes; entering one raises (torchlike has no dispatch-mode layer)."""

    def __enter__(self):
        raise NotImplementedError("torch.utils._python_dispatch.TorchDispatchMode is not supported by torchlike "
                                  "(see docs/differences.md)")

    def __exit__(self, *exc):
        return False


def is_traceable_wrapper_subclass(t) -> bool:
    return False


def is_traceable_wrapper_subclass_type(t) -> bool:
    return False


def _get_current_dispatch_mode():
    return None


def _get_current_dispatch_mode_stack():
    return []
