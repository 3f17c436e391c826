"""torchlike._dynamo.exc: the exception types libraries catch around compiled code."""
from __future__ import annotations

from .._torch_paths import home
from ..compile import _compiled

__all__ = ["TorchDynamoException", "Unsupported", "InvalidBackend", "TorchRuntimeError", "BackendCompilerFailed", "InternalTorchDynamoError",
           "RestartAnalysis", "SkipFrame", "UserError", "UncapturedHigherOrderOpError"]


TorchDynamoException, Unsupported = _compiled.TorchDynamoException, _compiled.Unsupported  # (torchlike.compile's)
InvalidBackend = _compiled.InvalidBackend
home(globals(), TorchDynamoException, Unsupported, InvalidBackend)  # (their torch path is here)


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
