"""``@record``: a worker's uncaught exception is written, as torch writes it, to the JSON file named by
``TORCHELASTIC_ERROR_FILE`` (which a launcher reads to report the failing rank), then re-raised.

>>> from torchlike.distributed.elastic.multiprocessing.errors import record
>>> @record
... def main():
...     return 5
>>> main()
5
"""
from __future__ import annotations

import dataclasses
import functools
import json
import os
import time
import traceback

__all__ = ["ChildFailedError", "ErrorHandler", "ProcessFailure", "get_error_handler", "record"]


class ErrorHandler:
    """Writes a worker's exception to ``TORCHELASTIC_ERROR_FILE`` (nothing when it is not set)."""

    def _get_error_file_path(self):
        return os.environ.get("TORCHELASTIC_ERROR_FILE", None)

    def initialize(self):
        """torch installs faulthandler here; a Python traceback already reaches stderr."""

    def record_exception(self, e):
        path = self._get_error_file_path()
        if not path:
            return
        data = {"message": {"message": f"{type(e).__name__}: {e}",
                            "extraInfo": {"py_callstack": traceback.format_exc(),
                                          "timestamp": str(int(time.time()))}}}
        with open(path, "w") as fh:
            json.dump(data, fh)

    def override_error_code_in_rootcause_data(self, rootcause_error_file, rootcause_error, error_code=0):
        if "message" not in rootcause_error or isinstance(rootcause_error["message"], str):
            return
        rootcause_error["message"]["errorCode"] = error_code

    def dump_error_file(self, rootcause_error_file, error_code=0):
        with open(rootcause_error_file) as fh:
            err = json.load(fh)
        if error_code:
            self.override_error_code_in_rootcause_data(rootcause_error_file, err, error_code)
        path = self._get_error_file_path()
        if path:
            with open(path, "w") as fh:
                json.dump(err, fh)


def get_error_handler():
    return ErrorHandler()


@dataclasses.dataclass
class ProcessFailure:
    """One failed worker: its local rank, pid, exit code and error file."""
    local_rank: int
    pid: int
    exitcode: int
    error_file: str
    error_file_data: dict = dataclasses.field(default_factory=dict)
    message: str = ""
    timestamp: int = 0

    def __post_init__(self):
        if self.error_file and os.path.isfile(self.error_file):
            with open(self.error_file) as fh:
                self.error_file_data = json.load(fh)
            msg = self.error_file_data.get("message", "")
            self.message = msg if isinstance(msg, str) else msg.get("message", "")
            info = {} if isinstance(msg, str) else msg.get("extraInfo", {})
            self.timestamp = int(info.get("timestamp", 0) or 0)
        elif not self.message:
            self.message = "To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html"
        if not self.timestamp:
            self.timestamp = int(time.time())

    def signal_name(self):
        if self.exitcode < 0:
            import signal
            try:
                return signal.Signals(-self.exitcode).name
            except ValueError:
                return "<Unknown signal>"
        return "<N/A>"

    def timestamp_isoformat(self):
        import datetime
        return datetime.datetime.fromtimestamp(self.timestamp).isoformat(sep="_")


class ChildFailedError(Exception):
    """Raised by a launcher when workers of ``name`` failed (``failures``: global rank -> ProcessFailure)."""

    def __init__(self, name, failures):
        self.name, self.failures = name, failures
        if not failures:
            raise AssertionError("created a ChildFailureError with no failures")
        super().__init__(self.format_msg())

    def get_first_failure(self):
        rank = min(self.failures, key=lambda r: self.failures[r].timestamp)
        return rank, self.failures[rank]

    def format_msg(self, boarder_delim="=", section_delim="-"):
        rank, f = self.get_first_failure()
        return f"{self.name} FAILED\nRoot Cause (first observed failure):\n[0]:\n  rank      : {rank}\n" \
               f"  exitcode  : {f.exitcode} (pid: {f.pid})\n  error_file: {f.error_file}\n  traceback : {f.message}"


def record(fn, error_handler=None):
    """Decorate a worker's entry point: its exception is recorded for the launcher, then re-raised;
    ``sys.exit(0)`` returns None."""
    handler = error_handler or get_error_handler()

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        handler.initialize()
        try:
            return fn(*args, **kwargs)
        except SystemExit as se:
            if se.code == 0:
                return None
            raise
        except ChildFailedError as e:
            rank, failure = e.get_first_failure()
            if failure.error_file and os.path.isfile(failure.error_file):
                handler.dump_error_file(failure.error_file, failure.exitcode)
            raise
        except Exception as e:
            handler.record_exception(e)
            raise
    return wrapper
