"""torch.profiler: eager ops as ``aten::<op>`` events, ``record_function`` ranges, schedules, tables and traces
(implemented in ``torchlike.profiler.profiler``, torch's home of these names).

>>> import torchlike
>>> with torchlike.profiler.profile() as prof:
...     y = torchlike.ones(3).exp()
>>> [e.key for e in prof.key_averages()]
['aten::exp']
"""
from .profiler import (DeviceType, ProfilerAction, ProfilerActivity, _KinetoProfile, profile, record_function,
                       schedule, supported_activities, tensorboard_trace_handler)
from ..autograd.extras import kineto_available  # noqa: F401

__all__ = ["profile", "schedule", "ProfilerAction", "ProfilerActivity", "DeviceType", "record_function",
           "tensorboard_trace_handler", "supported_activities", "_KinetoProfile"]
