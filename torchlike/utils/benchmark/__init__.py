"""torch.utils.benchmark: ``Timer``, ``Measurement`` and ``Compare`` (timeit-based, pure Python).

The fuzzers and Callgrind instruction counts (``Fuzzer``, ``FuzzedTensor``, ``CallgrindStats``, ...) are
not implemented: using them raises NotImplementedError naming them.

>>> import torchlike.utils.benchmark as benchmark
>>> m = benchmark.Timer("x + 1", globals={"x": 1}).timeit(10)
>>> m.number_per_run, len(m.times)
(10, 1)
"""
from ..._missing import module_getattr
from .utils.common import Measurement, TaskSpec, ordered_unique, select_unit, set_torch_threads, trim_sigfig, \
    unit_to_english
from .utils.compare import Colorize, Compare
from .utils.timer import Language, Timer, timer

__all__ = ["Colorize", "Compare", "Language", "Measurement", "TaskSpec", "Timer", "ordered_unique", "select_unit",
           "set_torch_threads", "timer", "trim_sigfig", "unit_to_english"]

__getattr__ = module_getattr("torch.utils.benchmark")
