"""``Timer``: timeit with torch's warmup, replicates and labels, that waits for JAX's asynchronous work.

torch's default ``timer`` synchronizes an accelerator before reading the clock; torchlike's does the same
(``torch.accelerator.synchronize``). Because JAX dispatch is asynchronous on the CPU too, a Timer whose
``stmt`` ends with an expression (``f(x)``, or ``y = f(x); y``) also waits for the tensors of that
expression's last value before each clock read (JAX runs a device's work in order, so the rest is done
then). A ``stmt`` ending otherwise (``y = f(x)``) is timed as written.

>>> t = Timer("x * 2", globals={"x": 3}, label="double")
>>> m = t.blocked_autorange(min_run_time=0.01)
>>> m.title, m.number_per_run >= 1, m.median > 0
('double', True, True)
"""
from __future__ import annotations

import ast
import enum
import functools
import statistics
import textwrap
import timeit

import jax

import torchlike

from .... import _missing, accelerator
from ....tensor import Tensor
from . import common

__all__ = ["Timer", "timer", "Language"]


@functools.cache
def _has_accelerator() -> bool:
    # asked once: the question costs microseconds (JAX lists its devices), as much as a timed op
    return accelerator.is_available()


def timer() -> float:
    """``timeit.default_timer()`` after waiting for the accelerator's queued work (when there is one)."""
    if _has_accelerator():
        accelerator.synchronize()
    return timeit.default_timer()


class Language(enum.Enum):
    PYTHON = 0
    CPP = 1


_SINK = "_torchlike_benchmark_result"  # the global through which the timed loop hands its last value over


def _buffers(value, out):
    """The JAX arrays behind the tensors in ``value`` (a tensor, or tuples/lists/dicts of them)."""
    if isinstance(value, Tensor):
        x = getattr(value, "_x", None)
        if hasattr(x, "block_until_ready"):
            out.append(x)
    elif isinstance(value, (tuple, list)):
        for v in value:
            _buffers(v, out)
    elif isinstance(value, dict):
        for v in value.values():
            _buffers(v, out)
    return out


def _keeping_last_value(stmt: str) -> str | None:
    """``stmt`` with its final expression statement's value stored in ``_SINK[0]``; None when it does not
    end with an expression (or does not parse: timeit then reports the error as torch's Timer does)."""
    try:
        body = ast.parse(stmt).body
    except SyntaxError:
        return None
    if not body or not isinstance(body[-1], ast.Expr):
        return None
    last = body[-1]
    lines = stmt.splitlines(keepends=True)
    # character offsets of the final statement (ast columns count UTF-8 bytes)
    start = sum(len(line) for line in lines[:last.lineno - 1]) + \
        len(lines[last.lineno - 1].encode()[:last.col_offset].decode())
    end = sum(len(line) for line in lines[:last.end_lineno - 1]) + \
        len(lines[last.end_lineno - 1].encode()[:last.end_col_offset].decode())
    return f"{stmt[:start]}{_SINK}[0] = (\n{stmt[start:end]}\n){stmt[end:]}"


class _WaitingTimer:
    """The clock timeit's loop reads: first waits for the value the statement left in ``sink``."""

    def __init__(self, clock, sink):
        self._clock, self._sink = clock, sink

    def __call__(self) -> float:
        value, self._sink[0] = self._sink[0], None
        if value is not None:
            buffers = _buffers(value, [])
            if buffers:
                jax.block_until_ready(buffers)
        return self._clock()


class Timer:
    """Times a Python statement as ``torch.utils.benchmark.Timer`` does (warmup, replicates, labels).

    ``stmt`` and ``setup`` are code strings run with ``globals`` (``torch`` is added when absent);
    ``label``, ``sub_label``, ``description``, ``env`` and ``num_threads`` label the Measurements (and
    ``num_threads`` is set with ``torch.set_num_threads`` while timing). ``language="cpp"`` (C++ timing)
    and ``collect_callgrind`` are not implemented.
    """

    def __init__(self, stmt="pass", setup="pass", global_setup="", timer=timer, globals=None, label=None,
                 sub_label=None, description=None, env=None, num_threads=1, language=Language.PYTHON):
        if not isinstance(stmt, str):
            raise ValueError("Currently only a `str` stmt is supported.")
        self._globals = dict(globals or {})  # a copy: exec adds __builtins__
        if language in (Language.PYTHON, "py", "python"):
            self._globals.setdefault("torch", torchlike)
            self._language = Language.PYTHON
            if global_setup:
                raise ValueError(f"global_setup is C++ only, got `{global_setup}`. Most likely this code can "
                                 "simply be moved to `setup`.")
        elif language in (Language.CPP, "cpp", "c++"):
            raise _missing.MissingAPI("torch.utils.benchmark.Timer(language='cpp') (C++ timing) is not "
                                      "implemented in torchlike")
        else:
            raise ValueError(f"Invalid language `{language}`.")
        stmt, setup = _tidy(stmt), _tidy(setup)
        self._sink = [None]
        code, clock = stmt, timer
        kept = _keeping_last_value(stmt)
        if kept is not None:
            self._globals[_SINK] = self._sink
            code, clock = kept, _WaitingTimer(timer, self._sink)
        self._timer = timeit.Timer(stmt=code, setup=setup, timer=clock, globals=self._globals)
        self._task_spec = common.TaskSpec(stmt=stmt, setup=setup, global_setup=global_setup, label=label,
                                          sub_label=sub_label, description=description, env=env,
                                          num_threads=num_threads)

    def _timeit(self, number: int) -> float:
        # a clock read alone takes tens of ns: 1 ns is a floor that keeps ratios finite
        return max(self._timer.timeit(number), 1e-9)

    def timeit(self, number: int = 1000000) -> common.Measurement:
        """One replicate of ``number`` runs, after a warmup of ``max(number // 100, 2)`` runs."""
        with common.set_torch_threads(self._task_spec.num_threads):
            self._timeit(number=max(int(number // 100), 2))
            return common.Measurement(number_per_run=number, raw_times=[self._timeit(number=number)],
                                      task_spec=self._task_spec)

    def repeat(self, repeat: int = -1, number: int = -1):
        raise NotImplementedError("See `Timer.blocked_autorange.`")

    def autorange(self, callback=None):
        raise NotImplementedError("See `Timer.blocked_autorange.`")

    def _measure(self, number, stop, min_run_time, max_run_time=None, callback=None) -> list[float]:
        """Replicates of ``number`` runs until ``min_run_time`` is spent and ``stop(times)`` agrees, or
        ``max_run_time`` is spent."""
        times: list[float] = []
        total, can_stop = 0.0, False
        with common.set_torch_threads(self._task_spec.num_threads):
            while total < min_run_time or not can_stop:
                spent = self._timeit(number)
                times.append(spent)
                total += spent
                if callback:
                    callback(number, spent)
                can_stop = stop(times)
                if max_run_time and total > max_run_time:
                    break
        return times

    def _estimate_block_size(self, min_run_time: float) -> int:
        """The smallest power of ten of runs whose time dwarfs the clock's overhead (also the warmup)."""
        with common.set_torch_threads(self._task_spec.num_threads):
            overhead = statistics.median_low([self._timeit(0) for _ in range(5)])
            number = 1
            while True:
                taken = self._timeit(number)
                if (overhead / taken <= 1e-4 and taken >= min_run_time / 1000) or taken > min_run_time:
                    return number
                if number * 10 > 2147483647:
                    return number
                number *= 10

    def blocked_autorange(self, callback=None, min_run_time: float = 0.2) -> common.Measurement:
        """Blocks of a fixed number of runs (chosen so the clock's overhead is negligible), repeated until
        ``min_run_time`` seconds are spent; ``callback(number, seconds)`` sees each block."""
        number = self._estimate_block_size(min_run_time)
        times = self._measure(number, lambda times: True, min_run_time, callback=callback)
        return common.Measurement(number_per_run=number, raw_times=times, task_spec=self._task_spec)

    def adaptive_autorange(self, threshold: float = 0.1, *, min_run_time: float = 0.01,
                           max_run_time: float = 10.0, callback=None) -> common.Measurement:
        """As ``blocked_autorange``, but continues until there are more than 3 blocks whose IQR / median is
        below ``threshold`` (or ``max_run_time`` seconds are spent)."""
        number = self._estimate_block_size(min_run_time=0.05)

        def stop(times):
            return len(times) > 3 and common.Measurement(
                number_per_run=number, raw_times=times, task_spec=self._task_spec).meets_confidence(threshold)
        times = self._measure(number, stop, min_run_time, max_run_time, callback=callback)
        return common.Measurement(number_per_run=number, raw_times=times, task_spec=self._task_spec)

    def collect_callgrind(self, number: int = 100, *, repeats=None, collect_baseline=True,
                          retain_out_file=False):
        raise _missing.MissingAPI("torch.utils.benchmark.Timer.collect_callgrind (Callgrind instruction "
                                  "counts) is not implemented in torchlike")


def _tidy(code: str) -> str:
    """Dedented, without the leading newline of a block string and trailing blanks (nicer reprs)."""
    code = textwrap.dedent(code)
    return (code[1:] if code[:1] == "\n" else code).rstrip()
