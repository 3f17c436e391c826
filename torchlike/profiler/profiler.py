"""torch.profiler on torchlike: eager ops as ``aten::<op>`` events with self/total CPU times, ``record_function``
ranges, torch's ``schedule``/``step`` cycle, ``key_averages().table(...)``, Chrome/Perfetto traces, and — with
``tensorboard_trace_handler`` — a JAX/XLA trace of the same window (``jax.profiler``) for TensorBoard.

Each recorded op waits for its result, so times measure the computation (as torch's CPU profiler does);
compiled functions appear as one event per call. CUDA activities and memory/FLOP counts are not recorded.

>>> import torchlike
>>> from torchlike.profiler import profile, record_function, ProfilerActivity
>>> with profile(activities=[ProfilerActivity.CPU], record_shapes=True) as prof:
...     with record_function("model_inference"):
...         y = (torchlike.ones(4, 4) @ torchlike.ones(4, 4)).relu()
>>> sorted(e.key for e in prof.key_averages())
['aten::mm', 'aten::relu', 'model_inference']
>>> "Self CPU time total" in prof.key_averages().table(sort_by="cpu_time_total", row_limit=5)
True
"""
from __future__ import annotations

import enum
import os
import socket
import time

from .. import _profiler_state as _state
from ..autograd.extras import DeviceType, ProfilerActivity
from ..autograd.profiler import record_function
from ..autograd.profiler_util import EventList, events_from

__all__ = ["profile", "schedule", "ProfilerAction", "ProfilerActivity", "DeviceType", "record_function",
           "tensorboard_trace_handler", "supported_activities", "_KinetoProfile"]


class ProfilerAction(enum.Enum):
    """What the profiler does at a step (torch's values)."""
    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3


def schedule(*, wait, warmup, active, repeat=0, skip_first=0, skip_first_wait=0):
    """torch's step schedule: skip ``skip_first`` steps, then cycles of ``wait`` idle, ``warmup`` and
    ``active`` recorded steps (the last one saves), ``repeat`` times (0: forever).

    >>> from torchlike.profiler import schedule
    >>> [a.name for a in map(schedule(wait=1, warmup=1, active=2, repeat=1), range(5))]
    ['NONE', 'WARMUP', 'RECORD', 'RECORD_AND_SAVE', 'NONE']
    """
    if wait < 0 or warmup < 0 or active <= 0 or repeat < 0 or skip_first < 0:
        raise AssertionError("Invalid profiler schedule arguments")
    if warmup == 0:
        import warnings  # lazy: only this rare case warns
        warnings.warn("Profiler won't be using warmup, this can skew profiler results")

    def schedule_fn(step):
        if step < 0:
            raise AssertionError(f"Step must be non-negative. Got {step}.")
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        if skip_first_wait:
            step += wait
        num_steps = wait + warmup + active
        if repeat > 0 and step / num_steps >= repeat:
            return ProfilerAction.NONE
        mod = step % num_steps
        if mod < wait:
            return ProfilerAction.NONE
        if mod < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if mod < num_steps - 1 else ProfilerAction.RECORD_AND_SAVE
    return schedule_fn


def _always_record(_step):
    return ProfilerAction.RECORD


def supported_activities():
    """The activities torchlike records: the CPU (XLA device time shows in the JAX trace)."""
    return {ProfilerActivity.CPU}


def tensorboard_trace_handler(dir_name, worker_name=None, use_gzip=False):
    """An ``on_trace_ready`` that writes ``<worker>.<time_ns>.pt.trace.json`` into ``dir_name`` (TensorBoard's
    torch plugin and Perfetto read it); the profiler also writes JAX's XLA trace of the same window under
    ``dir_name/plugins/profile``."""
    os.makedirs(dir_name, exist_ok=True)
    worker = worker_name or f"{socket.gethostname()}_{os.getpid()}"

    def handler(prof):
        name = f"{worker}.{time.time_ns()}.pt.trace.json" + (".gz" if use_gzip else "")
        path = os.path.join(dir_name, name)
        if use_gzip:
            import gzip  # lazy: only gzip output needs it
            import tempfile  # lazy: as above
            with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as tmp:
                pass
            prof.export_chrome_trace(tmp.name)
            with open(tmp.name, "rb") as src, gzip.open(path, "wb") as dst:
                dst.write(src.read())
            os.unlink(tmp.name)
        else:
            prof.export_chrome_trace(path)
    handler.jax_trace_dir = dir_name
    return handler


class _KinetoProfile:
    """Start/stop recording and the result accessors shared by ``profile``."""

    def __init__(self, *, activities=None, record_shapes=False, profile_memory=False, with_stack=False,
                 with_flops=False, with_modules=False, experimental_config=None, execution_trace_observer=None,
                 acc_events=False, custom_trace_id_callback=None):
        self.activities = set(activities) if activities else supported_activities()
        self.record_shapes = record_shapes
        self.profile_memory = profile_memory
        self._events = None
        self._recording = False

    def start_trace(self):
        if not self._recording:
            _state.start(self.record_shapes, self.profile_memory)
            self._recording = True

    def stop_trace(self):
        if self._recording:
            c = _state.stop()
            self._recording = False
            self._events = events_from(c) if c is not None else EventList()

    def events(self):
        if self._events is None:
            raise AssertionError("Profiler has no results yet (call it inside `with` or after stop())")
        return self._events

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0, group_by_overload_name=False):
        return self.events().key_averages(group_by_input_shape)

    def export_chrome_trace(self, path):
        return self.events().export_chrome_trace(path)

    def add_metadata(self, key, value):
        return None

    def add_metadata_json(self, key, value):
        return None


class profile(_KinetoProfile):
    """torch.profiler.profile: a context manager (or ``start()``/``stop()``) recording CPU events; with a
    ``schedule`` call ``step()`` once per training step and ``on_trace_ready`` runs at the end of each
    active window.

    >>> import torchlike
    >>> from torchlike.profiler import profile, schedule
    >>> seen = []
    >>> def ready(prof):
    ...     seen.append(sorted(e.key for e in prof.key_averages()))
    >>> with profile(schedule=schedule(wait=1, warmup=1, active=1), on_trace_ready=ready) as p:
    ...     for _ in range(4):
    ...         _ = torchlike.ones(2) * 3
    ...         p.step()
    >>> seen
    [['ProfilerStep*', 'aten::mul']]
    """

    def __init__(self, *, activities=None, schedule=None, on_trace_ready=None, record_shapes=False,
                 profile_memory=False, with_stack=False, with_flops=False, with_modules=False,
                 experimental_config=None, execution_trace_observer=None, acc_events=False, use_cuda=None,
                 custom_trace_id_callback=None):
        super().__init__(activities=activities, record_shapes=record_shapes, profile_memory=profile_memory)
        self.schedule = schedule or _always_record
        self.record_steps = schedule is not None   # ProfilerStep#N ranges only with a schedule (as torch)
        self.on_trace_ready = on_trace_ready
        self.step_num = 0
        self.current_action = self.schedule(0)
        self._step_range = None
        self._jax_dir = getattr(on_trace_ready, "jax_trace_dir", None)
        self._jax_on = False

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.stop()
        return False

    def start(self):
        self._enter_action(self.current_action)

    def stop(self):
        self._close_step()
        if self.current_action in (ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE):
            self._finish()
        elif self.current_action == ProfilerAction.WARMUP:   # warm-up only: nothing to report (as torch)
            self.stop_trace()
            self._stop_jax()
        self.current_action = ProfilerAction.NONE

    def step(self):
        """Mark the end of a training step: advance the schedule."""
        prev = self.current_action
        self._close_step()
        self.step_num += 1
        self.current_action = self.schedule(self.step_num)
        if prev == ProfilerAction.RECORD_AND_SAVE or (
                prev == ProfilerAction.RECORD and self.current_action == ProfilerAction.NONE):
            self._finish()
        elif prev == ProfilerAction.WARMUP and self.current_action == ProfilerAction.NONE:
            self.stop_trace()
            self._stop_jax()
        elif prev == ProfilerAction.WARMUP and self.current_action != ProfilerAction.WARMUP:
            c = _state.active()   # warm-up steps are recorded, then dropped (as torch)
            if c is not None:
                c.events.clear()
        self._enter_action(self.current_action)

    def _enter_action(self, action):
        if action == ProfilerAction.NONE:
            return
        if not self._recording:
            self.start_trace()
            self._start_jax()
        if self.record_steps:
            self._step_range = _state.begin_range(f"ProfilerStep#{self.step_num}")

    def _close_step(self):
        _state.end_range(self._step_range)
        self._step_range = None

    def _finish(self):
        self.stop_trace()
        self._stop_jax()
        if self.on_trace_ready is not None:
            self.on_trace_ready(self)

    def _start_jax(self):
        if self._jax_dir and not self._jax_on:
            import jax  # lazy: the JAX trace is only for tensorboard_trace_handler
            try:
                jax.profiler.start_trace(self._jax_dir)
                self._jax_on = True
            except RuntimeError:   # another JAX trace is running: keep the torchlike events only
                self._jax_on = False

    def _stop_jax(self):
        if self._jax_on:
            import jax  # lazy: as above
            jax.profiler.stop_trace()
            self._jax_on = False
