"""torchlike._dynamo.exc: the exception types libraries catch around compiled code."""
from __future__ import annotations

from ..compile import Unsupported as _CompileUnsupported

__all__ = ["TorchDynamoException", "Unsupported", "TorchRuntimeError", "BackendCompilerFailed", "InternalTorchDynamoError",
           "RestartAnalysis", "SkipFrame", "UserError", "UncapturedHigherOrderOpError"]


class TorchDynamoException(RuntimeError):
    pass


Unsupported = _CompileUnsupported


class TorchRuntimeError(TorchDynamoException):
    pass


class BackendCompilerFailed(TorchDynamoException):
    pass


class InternalTorchDynamoError(TorchDynamoException):
    pass


class RestartAnalysis(TorchDynamoException):
    pass


class SkipFrame(TorchDynamoException):
    pass


class UserError(TorchDynamoException):
    pass


class UncapturedHigherOrderOpError(TorchDynamoException):
    """A higher order operator (``torch.cond``, ...) whose function breaks its rules (e.g. returns an input)."""
