"""A clear error for torch APIs torchlike does not have (yet).

``MissingAPI`` is a NotImplementedError (what users see) and an AttributeError (so ``hasattr`` and
``getattr(mod, name, default)`` keep working).
"""
from __future__ import annotations

__all__ = ["MissingAPI", "module_getattr", "TENSOR_NAMES_MISSING"]


class MissingAPI(NotImplementedError, AttributeError):
    pass


# tracebacks show what users should catch: "NotImplementedError: torch.X is not implemented in torchlike"
MissingAPI.__module__ = "builtins"
MissingAPI.__qualname__ = MissingAPI.__name__ = "NotImplementedError"


# torch.Tensor's public names torchlike's Tensor lacks (sparse compressed tensors): these are
# MissingAPI, any other unknown name torch's AttributeError
TENSOR_NAMES_MISSING = frozenset((
    "resize_as_sparse_ smm sparse_mask sparse_resize_ sparse_resize_and_clear_ sspaddmm").split())


def module_getattr(public_name: str):
    """A module-level ``__getattr__`` raising MissingAPI for ``<public_name>.<attr>``."""
    def __getattr__(name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        raise MissingAPI(f"{public_name}.{name} is not implemented in torchlike")
    return __getattr__
