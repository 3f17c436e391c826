"""torch.autograd.profiler: ``record_function`` labels work (they only annotate); the profiler that
would collect them is not implemented in torchlike — use ``jax.profiler`` (see docs/differences.md).

>>> import torchlike
>>> with torchlike.autograd.profiler.record_function("step"):
...     pass
"""
from __future__ import annotations

import functools

from .._torch_paths import missing_class

__all__ = ["profile", "record_function", "EnforceUnique", "KinetoStepTracker"]


class record_function:
    """Label a code range (context manager or decorator); torchlike records nothing, as torch does
    when no profiler is running."""

    def __init__(self, name, args=None):
        self.name, self.args = name, args
        self.record = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapped(*args, **kwargs):
            with record_function(self.name, self.args):
                return fn(*args, **kwargs)
        return wrapped


class EnforceUnique:
    """Raises if the same key is seen twice."""

    def __init__(self):
        self.seen = set()

    def see(self, *key):
        if key in self.seen:
            raise RuntimeError("duplicate key: " + str(key))
        self.seen.add(key)


class KinetoStepTracker:
    """Per-requester step counters (what ``optimizer.step`` reports to a running profiler)."""

    _current_step = 0
    _step_dict: dict = {}

    @classmethod
    def init_step_count(cls, requester):
        cls._step_dict[requester] = cls._current_step

    @classmethod
    def erase_step_count(cls, requester):
        return cls._step_dict.pop(requester, None) is not None

    @classmethod
    def increment_step(cls, requester):
        if requester not in cls._step_dict:
            cls.init_step_count(requester)
        cls._step_dict[requester] += 1
        new_step = max(cls._step_dict.values())
        if new_step > cls._current_step:
            cls._current_step = new_step
        return cls._current_step

    @classmethod
    def current_step(cls):
        return cls._current_step


profile = missing_class(globals(), "profile", "the autograd profiler; use jax.profiler")
