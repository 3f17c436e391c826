"""torch.autograd.profiler_util: the autograd profiler's result records.

The profiler itself is not implemented in torchlike (see ``torchlike.autograd.profiler``); the plain
data holders (``Interval``, ``Kernel``, ``StringTable``) are real, the event classes raise.

>>> from torchlike.autograd.profiler_util import Interval
>>> Interval(2, 7).elapsed_us()
5
"""
from __future__ import annotations

from collections import defaultdict, namedtuple

from .._torch_paths import missing_class

__all__ = ["EventList", "FormattedTimesMixin", "Interval", "Kernel", "EventMetadata", "FunctionEvent",
           "FunctionEventAvg", "StringTable", "MemRecordsAcc"]


class Interval:
    """A [start, end] time range in microseconds."""

    def __init__(self, start, end):
        self.start, self.end = start, end

    def elapsed_us(self):
        return self.end - self.start


Kernel = namedtuple("Kernel", ["name", "device", "duration"])


class StringTable(defaultdict):
    """A memo of demangled names (torchlike keeps names as they are)."""

    def __missing__(self, key):
        self[key] = key
        return key


class FormattedTimesMixin:
    """``cpu_time_str``/``device_time_str`` etc. for classes with ``*_time_total`` and ``count``."""

    @property
    def cpu_time(self):
        return 0.0 if self.count == 0 else 1.0 * self.cpu_time_total / self.count

    @property
    def device_time(self):
        return 0.0 if self.count == 0 else 1.0 * self.device_time_total / self.count


_WHY = "the autograd profiler; use jax.profiler"
EventList = missing_class(globals(), "EventList", _WHY, bases=(list,))
EventMetadata = missing_class(globals(), "EventMetadata", _WHY)
FunctionEvent = missing_class(globals(), "FunctionEvent", _WHY)
FunctionEventAvg = missing_class(globals(), "FunctionEventAvg", _WHY)
MemRecordsAcc = missing_class(globals(), "MemRecordsAcc", _WHY)
