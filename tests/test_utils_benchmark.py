"""torch.utils.benchmark: Measurement's repr and statistics, Compare's tables and Timer's runs against torch's.

Given the same raw times, reprs, tables and statistics equal torch's exactly (the object address and the
package name masked). Timed runs differ in their numbers, so those are compared with numbers, units and
alignment masked."""
import os
import pickle
import re

import pytest
import torch
import torch.utils.benchmark  # noqa: F401

import torchlike
import torchlike.utils.benchmark as tl_bench
from torchlike.utils.benchmark.utils import timer as tl_timer
from conftest import raises_like_torch, run_program

MODS = [torch, torchlike]


def bench(mod):
    return mod.utils.benchmark


def _plain(text):
    """``text`` without the object address and the package name (torch's vs torchlike's)."""
    return re.sub(r"<(torch|torchlike)\.(\S+) object at 0x[0-9a-f]+>", r"<\2>", text)


def _shape(text):
    """``text``'s layout without its numbers: numbers, time units, colours (which cell is fastest) and runs of
    spaces/dashes masked."""
    text = re.sub(r"(ESC|\x1b)\[\d+m", "", _plain(text))
    text = re.sub(r"\d+(\.\d+)?", "N", text)
    text = re.sub(r"\b(nanosecond|microsecond|millisecond|second)s \((ns|us|ms|s)\)", "UNITs (U)", text)
    text = re.sub(r"N (ns|us|ms|s)\b", "N U", text)
    text = re.sub(r"N measurements, N runs per measurement", "N measurement, N runs ,", text)
    return [re.sub(r"[ -]+", " ", line).strip() for line in text.splitlines()]


def _cases(mod):
    b = bench(mod)
    M, T = b.Measurement, b.TaskSpec
    spread = (1.0, 1.3, 0.9, 1.1, 1.05)
    specs = [(1.5, "a(x)", "L1", None, "d1", 1, None), (2.5, "b(x)", "L1", "bb", "d1", 1, None),
             (3.5, "a(x)", "L1", None, "d2", 2, None), (300.5, "b(x)", "L1", "bb", "d2", 2, None),
             (0.01, "a(x)", "L2", "sub", "d1", 1, "envA"), (0.02, "a(x)", "L2", "sub", "d1", 1, "envBBB"),
             (0.05, "a(x)", "L2", "sub", "d2", 4, "envA"), (0.0123, "c(x)", "L2", None, "d2", 1, "envA")]
    ms = [M(10, [t * s * 1e-5 for s in spread], T(stmt, "pass", label=lab, sub_label=sub, description=d,
                                                    num_threads=n, env=e))
          for t, stmt, lab, sub, d, n, e in specs]
    ms += [M(1, [1e-3], T("x\ny", "a\nb", sub_label="s", description="desc")),
           M(3, [1e-3, 2e-3], T("x", "a", label="lab", description="desc")),
           M(3, [1e-3, 2e-3, 4e-3, 8e-3, 16e-3], T("x", "pass", label="lab", num_threads=3)),
           M(7, [5e-7, 5.01e-7, 4.99e-7, 5e-7], T("x", "pass", label="tight", description="one")),
           M(2, [3.0, 3.1, 2.9, 3.0, 3.2, 2.8], T("sleep()", "", description="slow"))]
    return ms


@pytest.mark.parametrize("i", range(13))
def test_measurement_repr_and_statistics_match_torch(i):
    theirs, ours = _cases(torch)[i], _cases(torchlike)[i]
    assert _plain(repr(ours)) == _plain(repr(theirs))
    for name in ("times", "raw_times", "number_per_run", "median", "iqr", "significant_figures", "has_warnings",
                 "title", "env", "as_row_name", "label", "sub_label", "description", "stmt", "setup",
                 "num_threads", "metadata"):
        assert getattr(ours, name) == getattr(theirs, name), name
    assert ours.mean == pytest.approx(theirs.mean, rel=1e-12)
    for threshold in (0.01, 0.1, 0.25, 1.0):
        assert ours.meets_confidence(threshold) == theirs.meets_confidence(threshold)
    assert ours.task_spec.summarize() == theirs.task_spec.summarize()


def test_measurement_pickles_and_merges_like_torch():
    def merged(mod):
        ms = _cases(mod)
        reps = ms[:3] + [bench(mod).Measurement(4, [8e-5, 1e-4], ms[0].task_spec)]
        return [(m.task_spec.stmt, m.number_per_run, m.times, m.metadata) for m in bench(mod).Measurement.merge(reps)]
    assert merged(torchlike) == merged(torch)
    m = _cases(torchlike)[3]
    m.metadata = {"k": 1}
    back = pickle.loads(pickle.dumps(m))
    assert (back.raw_times, back.task_spec, back.metadata, repr(back).splitlines()[1:]) == \
        (m.raw_times, m.task_spec, m.metadata, repr(m).splitlines()[1:])


@pytest.mark.parametrize("t", [1e-9, 1e-6, 9.999e-7, 1e-3, 0.5, 1.0, 1234.5, 3.3e-8])
def test_units_and_sigfigs_match_torch(t):
    assert tl_bench.select_unit(t) == torch.utils.benchmark.select_unit(t)
    for n in (1, 2, 3, 4):
        assert tl_bench.trim_sigfig(t * 3.14159, n) == torch.utils.benchmark.trim_sigfig(t * 3.14159, n)
    assert tl_bench.unit_to_english("us") == torch.utils.benchmark.unit_to_english("us")


def _tables(mod, trim=False, colorize=None, warnings=False, extend=False):
    ms = [m for m in _cases(mod) if m.description is not None]  # torch's Compare fails without (see below)
    c = bench(mod).Compare(ms[:4] if extend else ms)
    if extend:
        c.extend_results(ms[4:])
    if trim:
        c.trim_significant_figures()
    if colorize is not None:
        c.colorize(rowwise=colorize)
    if warnings:
        c.highlight_warnings()
    return str(c)


@pytest.mark.parametrize("opts", [{}, {"trim": True}, {"colorize": False}, {"colorize": True, "trim": True},
                                  {"warnings": True}, {"warnings": True, "trim": True, "colorize": True},
                                  {"extend": True}])
def test_compare_tables_match_torch(opts):
    assert _tables(torchlike, **opts) == _tables(torch, **opts)


def test_compare_print_writes_str(capsys):
    c = tl_bench.Compare(_cases(torchlike)[:4])
    c.print()
    assert capsys.readouterr().out == str(c) + "\n"


def _tutorial(mod, out):
    """The benchmark tutorial's calls; returns their reprs and Compare's table."""
    b = bench(mod)
    x = mod.randn(100, 64)

    def dot(a, c):
        return a.mul(c).sum(-1)
    timers = [b.Timer(stmt="dot(x, x)", globals={"x": x, "dot": dot}, label="Batched dot", sub_label="mul/sum",
                      description="100x64", num_threads=1),
              b.Timer(stmt="""
                        y = torch.bmm(x.reshape(-1, 1, 64), x.reshape(-1, 64, 1)).flatten(-3)
                        y
                      """, setup="import math", globals={"x": x}, label="Batched dot", sub_label="bmm",
                      description="100x64", num_threads=2)]
    calls = []
    ms = [timers[0].timeit(100), timers[1].timeit(10),
          timers[0].blocked_autorange(min_run_time=0.05, callback=lambda n, t: calls.append((type(n), type(t)))),
          timers[1].blocked_autorange(min_run_time=0.05),
          timers[0].adaptive_autorange(threshold=10.0, min_run_time=0.01, max_run_time=0.5)]
    out["first"] = (ms[0].number_per_run, len(ms[0].times), ms[1].number_per_run, len(ms[1].raw_times))
    out["calls"] = set(calls)
    out["ms"] = ms
    c = b.Compare(ms[2:4])
    c.trim_significant_figures()
    c.colorize()
    return [repr(ms[0]), repr(ms[1]), str(c)]


def test_timer_tutorial_layout_matches_torch():
    mine, theirs = {}, {}
    ours, ref = _tutorial(torchlike, mine), _tutorial(torch, theirs)
    for a, b in zip(ours, ref):
        assert _shape(a) == _shape(b), (a, b)
    assert mine["first"] == theirs["first"] == (100, 1, 10, 1)
    assert mine["calls"] == theirs["calls"] == {(int, float)}
    for m, t in zip(mine["ms"], theirs["ms"]):
        assert m.task_spec.stmt == t.task_spec.stmt and m.task_spec.setup == t.task_spec.setup
        assert m.median > 0 and len(m.raw_times) >= 1 and m.number_per_run >= 1
    assert len(mine["ms"][2].raw_times) >= 1 and len(mine["ms"][4].raw_times) > 3  # adaptive: more than 3 blocks


@pytest.mark.parametrize("stmt", ["out.append(torch.get_num_threads())", "n = torch.get_num_threads()\nout.append(n)"])
def test_timer_sets_num_threads_while_timing(stmt):
    def seen(mod):
        out = []
        before = mod.get_num_threads()
        bench(mod).Timer(stmt, globals={"out": out}, num_threads=3).timeit(5)
        return set(out), mod.get_num_threads() == before
    assert seen(torchlike) == seen(torch) == ({3}, True)


def test_timer_waits_for_the_statements_tensors(monkeypatch):
    waited = []
    monkeypatch.setattr(tl_timer.jax, "block_until_ready", lambda xs: waited.append(len(xs)))
    x = torchlike.randn(16, 16).exp()  # (a device tensor: products of small host-resident ones run in numpy)
    tl_bench.Timer("x @ x, [x @ x, {'k': x @ x}], 'not a tensor'", globals={"x": x}).timeit(3)
    # before each clock read that ends a loop: the last value's three (device) tensors
    assert waited and set(waited) == {3}
    waited.clear()
    tl_bench.Timer("y = x @ x\nz = y @ y; z  # z's value", globals={"x": x}).timeit(3)
    assert waited and set(waited) == {1}  # the final expression statement's value
    waited.clear()
    tl_bench.Timer("y = x @ x", globals={"x": x}).timeit(3)
    assert waited == []  # no final expression: timed as written


def _timer_call(**kw):
    return lambda mod: bench(mod).Timer(**kw)


@pytest.mark.parametrize("kw", [dict(stmt=lambda: 1), dict(stmt="x", global_setup="#include <x>"),
                                dict(stmt="x", language="fortran")])
def test_timer_argument_errors_like_torch(kw):
    raises_like_torch(_timer_call(**kw))


@pytest.mark.parametrize("call", [lambda b: b.Timer("return 1"), lambda b: b.Timer("x = ("),
                                  lambda b: b.Timer("1", setup="  x = 1\ny = 2"),
                                  lambda b: b.Timer("undefined_name + 1").timeit(1),
                                  lambda b: b.Timer("undefined_name").blocked_autorange()])
def test_user_code_errors_like_torch(call):
    # (raises_like_torch takes a SyntaxError or NameError for a bug of the test itself: compared here)
    errors = []
    for mod in MODS:
        with pytest.raises((SyntaxError, NameError)) as info:
            call(bench(mod))
        errors.append((type(info.value), str(info.value)))
    assert errors[0] == errors[1]


@pytest.mark.parametrize("call", [lambda b: b.Timer("1").repeat(), lambda b: b.Timer("1").autorange(),
                                  lambda b: b.Compare([1.0]), lambda b: b.Compare([]).extend_results(["x"]),
                                  lambda b: b.trim_sigfig(1.5, 1.5),
                                  lambda b: str(b.Compare([b.Measurement(1, [1.0], b.TaskSpec("x", "pass"))]))])
def test_errors_like_torch(call):
    raises_like_torch(lambda mod: call(bench(mod)))


def test_missing_parts_name_themselves():
    for name in ("Fuzzer", "FuzzedTensor", "FuzzedParameter", "CallgrindStats"):
        with pytest.raises(NotImplementedError, match=f"torch.utils.benchmark.{name} is not implemented"):
            getattr(tl_bench, name)
    with pytest.raises(NotImplementedError, match="collect_callgrind"):
        tl_bench.Timer("1").collect_callgrind()
    with pytest.raises(NotImplementedError, match="language='cpp'"):
        tl_bench.Timer("1", language="cpp")
    assert torchlike.utils.benchmark is tl_bench


def test_tutorial_program_under_the_runner_prints_torchs_layout():
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "programs", "benchmark_tutorial.py")
    theirs, ours = run_program([script], runner=False), run_program([script], runner=True)
    assert _shape("\n".join(ours)) == _shape("\n".join(theirs))
    assert "torch.utils.benchmark.utils.common Measurement True True True True" in ours
    assert sum("threads: " in line for line in ours) == 4
