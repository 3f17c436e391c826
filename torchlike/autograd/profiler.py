"""torch.autograd.profiler: ``record_function`` ranges and the (legacy) autograd ``profile``; both feed the
event collector that ``torchlike.profiler.profile`` reads. Eager ops appear as ``aten::<op>`` events.

>>> import torchlike
>>> with torchlike.autograd.profiler.profile() as prof:
...     with torchlike.autograd.profiler.record_function("step"):
...         y = torchlike.ones(2) + 1
>>> sorted(e.key for e in prof.key_averages())
['aten::add', 'step']
"""
from __future__ import annotations

import functools

from .. import _profiler_state as _state
from .profiler_util import EventList, events_from
from .._device import _gpus

__all__ = ["profile", "record_function", "EnforceUnique", "KinetoStepTracker", "emit_itt", "emit_nvtx"]


class record_function:
    """Label a code range (context manager or decorator); torchlike records nothing, as torch does
    when no profiler is running."""

    def __init__(self, name, args=None):
        self.name, self.args = name, args
        self.record = None

    def __enter__(self):
        self.record = _state.begin_range(self.name)
        return self

    def __exit__(self, *exc):
        _state.end_range(self.record)
        self.record = None
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


class profile:
    """The autograd profiler (``torch.autograd.profiler.profile``): records eager ops and
    ``record_function`` ranges on the CPU while the context is open.

    >>> import torchlike
    >>> with torchlike.autograd.profiler.profile(record_shapes=True) as prof:
    ...     y = torchlike.ones(2, 3).sum()
    >>> prof.function_events[0].name, prof.function_events[0].input_shapes
    ('aten::sum', [[2, 3]])
    """

    def __init__(self, enabled=True, *, use_cuda=False, use_device=None, record_shapes=False, with_flops=False,
                 profile_memory=False, with_stack=False, with_modules=False, use_kineto=False, use_cpu=True,
                 experimental_config=None, acc_events=False, custom_trace_id_callback=None):
        self.enabled, self.record_shapes, self.profile_memory = enabled, record_shapes, profile_memory
        self.function_events = None
        self.entered = False

    def __enter__(self):
        if not self.enabled:
            return self
        if self.entered:
            raise RuntimeError("Profiler context manager is not reentrant")
        self.entered = True
        _state.start(self.record_shapes, self.profile_memory)
        return self

    def __exit__(self, *exc):
        if not self.enabled:
            return False
        c = _state.stop()
        self.function_events = events_from(c) if c is not None else EventList()
        return False

    def _check(self):
        if self.function_events is None:
            raise RuntimeError("Profiler didn't finish running")
        return self.function_events

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0, group_by_overload_name=False):
        return self._check().key_averages(group_by_input_shape)

    def table(self, sort_by=None, row_limit=100, **kwargs):
        return self._check().table(sort_by=sort_by, row_limit=row_limit, **kwargs)

    def total_average(self):
        return self._check().total_average()

    def export_chrome_trace(self, path):
        return self._check().export_chrome_trace(path)

    @property
    def self_cpu_time_total(self):
        return self._check().self_cpu_time_total

    def __str__(self):
        return self.table()


class emit_itt:
    """Annotates ops as Intel ITT ranges for VTune; torchlike emits none (entering and leaving change nothing)."""

    def __init__(self, enabled=True, record_shapes=False):
        self.enabled = enabled
        self.record_shapes = record_shapes

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


class emit_nvtx(emit_itt):
    """Annotates ops as NVTX ranges for nsys; as torch, entering it needs CUDA (torchlike emits no ranges)."""

    def __enter__(self):
        if self.enabled:
            if not _gpus():  # (torch.cuda's own check and message)
                raise AssertionError("Torch not compiled with CUDA enabled")
        return self
