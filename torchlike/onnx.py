"""torch.onnx is not supported: exporting fails at call time with a clear error."""
from __future__ import annotations

__all__ = ["export", "dynamo_export", "is_in_onnx_export"]


def export(*args, **kwargs):
    raise NotImplementedError("torch.onnx.export is not supported by torchlike; use torchlike.export "
                              "(StableHLO via jax.export) instead")


dynamo_export = export


def is_in_onnx_export() -> bool:
    return False
