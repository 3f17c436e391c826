"""torchlike.futures: ``torch.futures.Future`` (a result that arrives later), ``collect_all`` and ``wait_all``.

>>> import torchlike
>>> fut = torchlike.futures.Future()
>>> chained = fut.then(lambda f: f.value() + 1)
>>> fut.set_result(3)
>>> chained.wait(), torchlike.futures.wait_all([fut, chained])
(4, [3, 4])
"""
from __future__ import annotations

import threading
from typing import Generic, TypeVar

__all__ = ["Future", "collect_all", "wait_all"]

T = TypeVar("T")
S = TypeVar("S")
_UNSET = object()


class Future(Generic[T]):
    """A value (or an exception) set once by a producer, waited on or chained by consumers (callbacks run in the
    thread that completes the future, or at once when it is already complete)."""

    def __init__(self, *, devices=None):
        self._cond = threading.Condition()
        self._result, self._exc, self._callbacks = _UNSET, None, []

    def done(self) -> bool:
        """True once a result or an exception is set."""
        return self._result is not _UNSET or self._exc is not None

    def wait(self) -> T:
        """Block until complete; the result, or the exception raised again."""
        with self._cond:
            self._cond.wait_for(self.done)
        return self.value()

    def value(self) -> T:
        """The result of a completed future (its exception raised again)."""
        if self._exc is not None:
            raise self._exc
        if self._result is _UNSET:
            raise RuntimeError("Future must be completed before calling value()")  # torch asserts here
        return self._result

    def _complete(self, result, exc):
        with self._cond:
            if self.done():
                raise RuntimeError("Attempting to mark a completed Future as complete again. Note that a Future can "
                                   "only be marked completed once.")
            self._result, self._exc = result, exc
            callbacks, self._callbacks = self._callbacks, []
            self._cond.notify_all()
        for cb in callbacks:
            cb(self)

    def set_result(self, result: T) -> None:
        """Complete the future with ``result``; waiters wake and callbacks run."""
        self._complete(result, None)

    def set_exception(self, result) -> None:
        """Complete the future with an exception; ``wait()`` and ``value()`` raise it."""
        if not isinstance(result, BaseException):
            raise TypeError(f"{result} is of type {type(result)}, not an Exception.")
        self._complete(_UNSET, result)

    def add_done_callback(self, callback) -> None:
        """Run ``callback(self)`` once the future completes (at once if it already has)."""
        with self._cond:
            if not self.done():
                self._callbacks.append(callback)
                return
        callback(self)

    def then(self, callback) -> Future[S]:
        """A new future completed with ``callback(self)`` once this one completes (or with its exception)."""
        out = Future()

        def run(fut):
            try:
                out.set_result(callback(fut))
            except Exception as e:  # the callback's error completes the chained future
                out.set_exception(e)
        self.add_done_callback(run)
        return out


Future.__module__ = "torch.jit"


def collect_all(futures) -> Future:
    """A future completed with the list of ``futures`` once all of them are complete."""
    out, futures = Future(), list(futures)
    remaining = [len(futures)]
    lock = threading.Lock()
    if not futures:
        out.set_result([])

    def one_done(_):
        with lock:
            remaining[0] -= 1
            last = remaining[0] == 0
        if last:
            out.set_result(futures)
    for f in futures:
        f.add_done_callback(one_done)
    return out


def wait_all(futures) -> list:
    """Wait for every future; their results in order (the first exception is raised)."""
    return [f.wait() for f in collect_all(futures).wait()]
