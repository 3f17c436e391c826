"""torch.distributed.elastic.multiprocessing: ``errors`` (``record``, ``ChildFailedError``, ``ProcessFailure``).
Worker processes are started by ``torchlike.distributed.run``."""
from .errors import ChildFailedError, ErrorHandler, ProcessFailure, get_error_handler, record

__all__ = ["ChildFailedError", "ErrorHandler", "ProcessFailure", "get_error_handler", "record"]
