"""torch.autograd.profiler_util: the autograd profiler's result records.

Events of the profiler (``torchlike.profiler.profile``): ``FunctionEvent``, ``FunctionEventAvg``, ``EventList``
with torch's ``key_averages``, ``table`` and ``export_chrome_trace``; and the plain data holders.

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


def _fmt_time(us):
    """torch's time format: us below 1 ms, ms below 1 s, else s (three decimals)."""
    if us >= 1e6:
        return f"{us / 1e6:.3f}s"
    if us >= 1e3:
        return f"{us / 1e3:.3f}ms"
    return f"{us:.3f}us"


class FunctionEvent(FormattedTimesMixin):
    """One recorded range: an op (``aten::mul``) or a ``record_function`` label; times in microseconds."""

    def __init__(self, id, name, thread, start_us, end_us, input_shapes=None, self_cpu_time_total=None,
                 depth=0, cpu_memory_usage=0, self_cpu_memory_usage=0):
        self.id, self.name, self.thread = id, name, thread
        self.time_range = Interval(start_us, end_us)
        self.input_shapes = input_shapes if input_shapes is not None else []
        self.cpu_time_total = end_us - start_us
        self.self_cpu_time_total = self.cpu_time_total if self_cpu_time_total is None else self_cpu_time_total
        self.device_time_total = self.self_device_time_total = 0.0
        self.cpu_memory_usage, self.self_cpu_memory_usage = cpu_memory_usage, self_cpu_memory_usage
        self.device_memory_usage = self.self_device_memory_usage = 0
        self.count, self.depth = 1, depth
        self.key = name
        self.cpu_children, self.cpu_parent = [], None
        self.is_async, self.is_remote = False, False

    def __repr__(self):
        return (f"<FunctionEvent id={self.id} name={self.name} cpu_time={_fmt_time(self.cpu_time_total)} "
                f"input_shapes={self.input_shapes}>")


class FunctionEventAvg(FormattedTimesMixin):
    """Events with one key, summed (``key_averages``)."""

    def __init__(self):
        self.key, self.count, self.input_shapes = None, 0, None
        self.cpu_time_total = self.self_cpu_time_total = 0.0
        self.device_time_total = self.self_device_time_total = 0.0
        self.cpu_memory_usage = self.self_cpu_memory_usage = 0
        self.device_memory_usage = self.self_device_memory_usage = 0
        self.node_id, self.is_legacy, self.is_remote = 0, False, False

    def add(self, other):
        if self.key is None:
            self.key, self.input_shapes = other.key, other.input_shapes
        self.count += other.count
        self.cpu_time_total += other.cpu_time_total
        self.self_cpu_time_total += other.self_cpu_time_total
        self.cpu_memory_usage += other.cpu_memory_usage
        self.self_cpu_memory_usage += other.self_cpu_memory_usage
        return self

    def __iadd__(self, other):
        return self.add(other)

    def __repr__(self):
        return (f"<FunctionEventAvg key={self.key} self_cpu_time={_fmt_time(self.self_cpu_time_total)} "
                f"cpu_time={_fmt_time(self.cpu_time)} input_shapes={self.input_shapes}>")


_SORT_KEYS = {"cpu_time", "cpu_time_total", "self_cpu_time_total", "count", "device_time", "device_time_total",
              "self_device_time_total", "cuda_time", "cuda_time_total", "self_cuda_time_total",
              "cpu_memory_usage", "self_cpu_memory_usage", "device_memory_usage", "self_device_memory_usage",
              "cuda_memory_usage", "self_cuda_memory_usage"}


def _fmt_memory(n):
    """torch's table format: B below a KB, then KB/MB/GB with two decimals."""
    for unit, size in (("GB", 1024 ** 3), ("MB", 1024 ** 2), ("KB", 1024)):
        if abs(n) >= size:
            return f"{n / size:.2f} {unit}"
    return f"{n} B"


class EventList(list):
    """The profiler's events, with torch's summaries (``key_averages``, ``table``, ``export_chrome_trace``).

    >>> import torchlike
    >>> from torchlike.profiler import profile
    >>> with profile() as prof:
    ...     y = torchlike.ones(3).mul(2)
    >>> [e.key for e in prof.key_averages()]
    ['aten::mul']
    """

    def key_averages(self, group_by_input_shapes=False, group_by_stack_n=0, group_by_overload_name=False):
        groups = {}
        for e in self:
            key = "ProfilerStep*" if e.key.startswith("ProfilerStep#") else e.key   # torch folds the steps
            k = (key, str(e.input_shapes)) if group_by_input_shapes else key
            groups.setdefault(k, FunctionEventAvg()).add(e)
            groups[k].key = key
        out = EventList(groups.values())
        out._with_shapes = group_by_input_shapes
        return out

    def total_average(self):
        avg = FunctionEventAvg()
        for e in self:
            avg.add(e)
        avg.key = "Total"
        return avg

    @property
    def self_cpu_time_total(self):
        return sum(e.self_cpu_time_total for e in self)

    def table(self, sort_by=None, row_limit=100, max_src_column_width=75, max_name_column_width=55,
              max_shapes_column_width=80, header=None, top_level_events_only=False, time_unit=None):
        if sort_by is not None and sort_by not in _SORT_KEYS:
            raise AttributeError(f"'FunctionEventAvg' object has no attribute '{sort_by}'")
        if not len(self):
            return ""  # torch's table of no events
        rows = sorted(self, key=lambda e: getattr(e, sort_by, 0), reverse=True) if sort_by else list(self)
        if row_limit is not None and row_limit > 0:
            rows = rows[:row_limit]
        shapes = getattr(self, "_with_shapes", False)
        total = self.self_cpu_time_total or 1.0
        name_w = max([len("Name")] + [len(str(e.key)) for e in rows])
        name_w = min(name_w, max_name_column_width) + 2
        mem = any(getattr(e, "cpu_memory_usage", 0) > 0 for e in self)
        cols = ["Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg"]
        cols += ["CPU Mem", "Self CPU Mem"] if mem else []
        cols.append("# of Calls")
        widths = [name_w] + [12] * len(cols)
        shape_w = 0
        if shapes:
            shape_w = min(max([len("Input Shapes")] + [len(str(e.input_shapes)) for e in rows]),
                          max_shapes_column_width) + 2
            cols.append("Input Shapes")
            widths.append(shape_w)
        line = "".join("-" * w + "  " for w in widths)
        head = "".join(f"{c:>{w}}  " for c, w in zip(["Name"] + cols, widths))
        out = [header] if header else []
        out += [line, head, line]
        for e in rows:
            vals = [str(e.key)[:name_w - 2], f"{100 * e.self_cpu_time_total / total:.2f}%",
                    _fmt_time(e.self_cpu_time_total), f"{100 * e.cpu_time_total / total:.2f}%",
                    _fmt_time(e.cpu_time_total), _fmt_time(e.cpu_time)]
            if mem:
                vals += [_fmt_memory(e.cpu_memory_usage), _fmt_memory(e.self_cpu_memory_usage)]
            vals.append(str(e.count))
            if shapes:
                vals.append(str(e.input_shapes)[:shape_w - 2])
            out.append("".join(f"{v:>{w}}  " for v, w in zip(vals, widths)))
        out.append(line)
        out.append(f"Self CPU time total: {_fmt_time(self.self_cpu_time_total)}")
        return "\n".join(out) + "\n"

    def export_chrome_trace(self, path):
        """Write the events as a Chrome/Perfetto trace (JSON ``traceEvents``, complete events in us)."""
        import json  # lazy: only exporting needs it
        events = [{"name": e.name, "ph": "X", "ts": e.time_range.start, "dur": e.cpu_time_total, "pid": 0,
                   "tid": e.thread, "cat": "cpu_op" if e.name.startswith("aten::") else "user_annotation",
                   "args": {"Input Dims": e.input_shapes} if e.input_shapes else {}}
                  for e in self if isinstance(e, FunctionEvent)]
        with open(path, "w") as fh:
            json.dump({"schemaVersion": 1, "traceEvents": events, "displayTimeUnit": "ms"}, fh)


def events_from(collector):
    """FunctionEvents (in start order) from a ``_profiler_state.Collector``."""
    raw = sorted(collector.events, key=lambda ev: ev[1])
    base = collector.origin_ns
    out = EventList()
    for i, (name, t0, t1, shapes, tid, depth, child_ns, mem, child_mem) in enumerate(raw):
        out.append(FunctionEvent(i, name, tid, (t0 - base) / 1e3, (t1 - base) / 1e3, shapes,
                                 (t1 - t0 - child_ns) / 1e3, depth, mem + child_mem, mem))
    return out


MemRecordsAcc = missing_class(globals(), "MemRecordsAcc", "memory records of the autograd profiler")


class EventMetadata:
    """Metadata attached to an event (kept as given)."""

    def __init__(self, **kwargs):
        self.__dict__.update(kwargs)
