"""What a Timer measured (``Measurement``), what it ran (``TaskSpec``), and the number formatting
``Compare`` shares.

Statistics follow torch's arithmetic: quantiles interpolate as ``torch.quantile`` (float64), while
``select_unit``, ``trim_sigfig`` and ``significant_figures`` work in float32 as torch's do (torch builds
default-dtype tensors there), so unit and digit choices agree with torch's at the boundaries too.

>>> m = Measurement(number_per_run=1000, raw_times=[1e-3, 2e-3, 3e-3, 4e-3], task_spec=TaskSpec("f(x)", "pass"))
>>> m.times[0], round(m.median * 1e6, 6), round(m.iqr * 1e6, 6)
(1e-06, 2.5, 1.5)
>>> select_unit(m.median)
('us', 1e-06)
"""
from __future__ import annotations

import contextlib
import dataclasses
import math
import textwrap
from typing import Any

import numpy as np

from .... import _global_settings

__all__ = ["TaskSpec", "Measurement", "select_unit", "unit_to_english", "trim_sigfig", "ordered_unique",
           "set_torch_threads"]

_MAX_SIGNIFICANT_FIGURES = 4
_MIN_CONFIDENCE_INTERVAL = 25e-9  # a timer read alone costs tens of ns: no finer precision is claimed
# the interquartile range, relative to the median, above which a Measurement carries a warning
_IQR_WARN_THRESHOLD = 0.1
_IQR_GROSS_WARN_THRESHOLD = 0.25

_UNITS = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1}
_UNIT_NAMES = {"ns": "nanosecond", "us": "microsecond", "ms": "millisecond", "s": "second"}


def _log10_f32(x: float) -> float:
    """log10 of ``x`` as float32, correctly rounded (torch's float32 log10 is; numpy's may be 1 ulp off)."""
    x = float(np.float32(x))
    if x <= 0 or math.isnan(x):
        return -math.inf if x == 0 else math.nan
    return float(np.float32(math.log10(x)))


@dataclasses.dataclass(frozen=True, repr=False)
class TaskSpec:
    """What a Timer runs and how it is labelled (everything but ``globals``)."""
    stmt: str
    setup: str
    global_setup: str = ""
    label: str | None = None
    sub_label: str | None = None
    description: str | None = None
    env: str | None = None
    num_threads: int = 1

    @property
    def title(self) -> str:
        """The label (else the one-line stmt, else the indented stmt), with the sub_label."""
        sub = self.sub_label
        if self.label is not None or "\n" not in self.stmt:
            head = self.stmt if self.label is None else self.label
            return f"{head}: {sub}" if sub else head
        return f"stmt:{f' ({sub})' if sub else ''}\n" + textwrap.indent(self.stmt, "  ")

    def setup_str(self) -> str:
        if not self.setup or self.setup == "pass":
            return ""
        if "\n" in self.setup:
            return "setup:\n" + textwrap.indent(self.setup, "  ")
        return f"setup: {self.setup}"

    def summarize(self) -> str:
        """The title, description and setup lines of a Measurement's repr (multi-line parts get a blank line)."""
        parts = [p for p in (self.title, self.description or "", self.setup_str()) if p]
        return "\n".join(p + "\n" if "\n" in p else p for p in parts)


_TASKSPEC_FIELDS = frozenset(f.name for f in dataclasses.fields(TaskSpec))


def _quantile(sorted_values, q: float) -> float:
    """``torch.quantile(t, q)`` (linear interpolation, with torch's two-sided lerp) of sorted floats."""
    rank = q * (len(sorted_values) - 1)
    lo = math.floor(rank)
    hi = min(lo + 1, len(sorted_values) - 1)
    a, b, w = sorted_values[lo], sorted_values[hi], rank - lo
    return a + w * (b - a) if w < 0.5 else b - (b - a) * (1 - w)


@dataclasses.dataclass(repr=False)
class Measurement:
    """Replicate timings of one TaskSpec: ``raw_times[i]`` is the time of ``number_per_run`` runs.

    Statistics (``times``, ``median``, ``mean``, ``iqr``) are per run. TaskSpec fields (``label``,
    ``stmt``, ``num_threads``, ...) read through. ``metadata`` is the user's.
    """
    number_per_run: int
    raw_times: list[float]
    task_spec: TaskSpec
    metadata: dict[Any, Any] | None = None

    def __post_init__(self) -> None:
        self._sorted_times: tuple[float, ...] = ()
        self._warnings: tuple[str, ...] = ()
        self._median = self._mean = self._p25 = self._p75 = -1.0

    def __getattr__(self, name: str) -> Any:
        # only reached for names not found normally: TaskSpec fields read through
        if name in _TASKSPEC_FIELDS:
            return getattr(self.task_spec, name)
        return object.__getattribute__(self, name)

    @property
    def times(self) -> list[float]:
        return [t / self.number_per_run for t in self.raw_times]

    @property
    def median(self) -> float:
        self._lazy_init()
        return self._median

    @property
    def mean(self) -> float:
        self._lazy_init()
        return self._mean

    @property
    def iqr(self) -> float:
        self._lazy_init()
        return self._p75 - self._p25

    @property
    def significant_figures(self) -> int:
        """A rough count of trustworthy digits of the median (1 to 4), from the spread of the middle half.

        Uses a 90% interval (z = 1.645) of the interquartile points' mean; ``Compare`` trims to it.
        """
        self._lazy_init()
        n = len(self._sorted_times)
        middle = np.asarray(self._sorted_times[n // 4:math.ceil(np.float32(3 * n / 4))], dtype=np.float32)
        std = float(middle.std()) if len(middle) else math.nan
        interval = max(1.645 * std / math.sqrt(len(middle)) if len(middle) else math.nan, _MIN_CONFIDENCE_INTERVAL)
        figures = math.floor(_log10_f32(self._median / interval))
        return min(max(figures, 1), _MAX_SIGNIFICANT_FIGURES)

    @property
    def has_warnings(self) -> bool:
        self._lazy_init()
        return bool(self._warnings)

    def _lazy_init(self) -> None:
        if not self.raw_times or self._sorted_times:
            return
        self._sorted_times = tuple(sorted(self.times))
        self._median = _quantile(self._sorted_times, 0.5)
        self._mean = math.fsum(self._sorted_times) / len(self._sorted_times)
        self._p25 = _quantile(self._sorted_times, 0.25)
        self._p75 = _quantile(self._sorted_times, 0.75)
        for threshold, why in ((_IQR_GROSS_WARN_THRESHOLD, "This suggests significant environmental influence."),
                               (_IQR_WARN_THRESHOLD, "This could indicate system fluctuation.")):
            if not self.meets_confidence(threshold):
                rel = self.iqr / self.median * 100
                self._warnings = (f"  WARNING: Interquartile range is {rel:.1f}% of the median measurement.\n"
                                  f"           {why}",)
                break

    def meets_confidence(self, threshold: float = _IQR_WARN_THRESHOLD) -> bool:
        return self.iqr / self.median < threshold

    @property
    def title(self) -> str:
        return self.task_spec.title

    @property
    def env(self) -> str | None:
        # torch's property intends "Unspecified env" for None but (a typo) falls back to the raw field
        return self.task_spec.env

    @property
    def as_row_name(self) -> str:
        return self.sub_label or self.stmt or "[Unknown]"

    def __repr__(self) -> str:
        """torch's layout: object line, summary, median, IQR (4+ replicates), counts, warnings."""
        self._lazy_init()
        n = len(self._sorted_times)
        unit, scale = select_unit(self._median)
        lines = [object.__repr__(self), self.task_spec.summarize(),
                 f"  {'Median: ' if n > 1 else ''}{self._median / scale:.2f} {unit}"]
        if n >= 4:
            lines.append(f"  IQR:    {self.iqr / scale:.2f} {unit} "
                         f"({self._p25 / scale:.2f} to {self._p75 / scale:.2f})")
        threads = self.num_threads
        lines.append(f"  {n} measurement{'s' if n > 1 else ''}, {self.number_per_run} runs "
                     f"{'per measurement,' if n > 1 else ','} {threads} thread{'s' if threads > 1 else ''}")
        lines.extend(self._warnings)
        return "\n".join(lines).strip()

    @staticmethod
    def merge(measurements) -> list[Measurement]:
        """One Measurement per TaskSpec (in first-seen order) holding all its replicates' per-run times
        (``number_per_run=1``, no metadata)."""
        groups: dict[TaskSpec, list[float]] = {}
        for m in measurements:
            groups.setdefault(m.task_spec, []).extend(m.times)
        return [Measurement(number_per_run=1, raw_times=times, task_spec=spec) for spec, times in groups.items()]


def select_unit(t: float) -> tuple[str, float]:
    """The unit (and its scale in seconds) that shows ``t`` seconds with 1-3 integer digits."""
    unit = {-3: "ns", -2: "us", -1: "ms"}.get(int(_log10_f32(t) // 3), "s")
    return unit, _UNITS[unit]


def unit_to_english(u: str) -> str:
    return _UNIT_NAMES[u]


def trim_sigfig(x: float, n: int) -> float:
    """``x`` rounded to ``n`` significant figures (3.14159, 2 -> 3.1, computed in float32 as torch does)."""
    if n != int(n):
        raise AssertionError("Number of significant figures must be an integer")
    scale = 10 ** (math.ceil(_log10_f32(abs(x))) - n)
    return float(np.round(np.float32(x / scale)) * np.float32(scale))


def ordered_unique(elements) -> list[Any]:
    return list(dict.fromkeys(elements))


@contextlib.contextmanager
def set_torch_threads(n: int):
    """``torch.set_num_threads(n)`` for the block (torchlike records it; XLA keeps its own pool)."""
    prior = _global_settings.get_num_threads()
    try:
        _global_settings.set_num_threads(n)
        yield
    finally:
        _global_settings.set_num_threads(prior)


