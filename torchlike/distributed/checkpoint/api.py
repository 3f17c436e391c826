"""``torch.distributed.checkpoint.api``: ``CheckpointException``, what ``save``/``load`` raise when planning
fails on a rank (it carries each failing rank's exception and traceback).

>>> e = CheckpointException("load", {0: (RuntimeError("boom"), None)})
>>> str(e).splitlines()[0], list(e.failures)
('CheckpointException ranks:dict_keys([0])', [0])
"""
from __future__ import annotations

import traceback as tb

__all__ = ["CheckpointException"]


def _wrap_exception(exc):
    return exc, tb.extract_tb(exc.__traceback__)


class CheckpointException(BaseException):
    """Exception raised if failure was detected as part of a checkpoint load or save."""

    def __init__(self, msg, failures):
        super().__init__(msg, failures)
        self._failures = failures

    @property
    def failures(self):
        """Each failing rank's ``(exception, traceback summary)``."""
        return self._failures

    def __str__(self):
        out = f"CheckpointException ranks:{self._failures.keys()}\n"
        for rank, (exc, trace) in self._failures.items():
            out += f"Traceback (most recent call last): (RANK {rank})\n"
            if trace is not None:
                out += "".join(tb.format_list(trace))
            out += "".join(tb.format_exception_only(type(exc), exc))
        return out
