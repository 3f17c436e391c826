"""torch.onnx is not supported: exporting fails at call time with a clear error.

Libraries register ONNX symbolic functions for their custom operators at import time (torchvision does);
``register_custom_op_symbolic`` records them, so such libraries import, and export still fails clearly.

>>> import torchlike
>>> torchlike.onnx.register_custom_op_symbolic("mylib::op", lambda g, x: x, 11)
>>> torchlike.onnx.is_in_onnx_export()
False
"""
from __future__ import annotations

from . import symbolic_helper, symbolic_opset11  # noqa: F401 - torch.onnx's submodules are its attributes

__all__ = ["export", "dynamo_export", "is_in_onnx_export", "register_custom_op_symbolic",
           "unregister_custom_op_symbolic"]

_CUSTOM_SYMBOLICS: dict = {}


def export(*args, **kwargs):
    raise NotImplementedError("torch.onnx.export is not supported by torchlike; use torchlike.export "
                              "(StableHLO via jax.export) instead")


dynamo_export = export


def is_in_onnx_export() -> bool:
    return False


def register_custom_op_symbolic(symbolic_name: str, symbolic_fn, opset_version: int) -> None:
    """Record the ONNX symbolic of custom operator ``symbolic_name`` (``"ns::op"``); export is unsupported."""
    if symbolic_name.startswith("::"):
        raise ValueError(f"Failed to register operator {symbolic_name}. The symbolic name must match the format "
                         "domain::name, and should start with a letter and contain only alphanumerical characters")
    _CUSTOM_SYMBOLICS[(symbolic_name, opset_version)] = symbolic_fn


def unregister_custom_op_symbolic(symbolic_name: str, opset_version: int) -> None:
    """Forget the symbolic recorded for ``symbolic_name`` at ``opset_version``."""
    _CUSTOM_SYMBOLICS.pop((symbolic_name, opset_version), None)
