"""torch.profiler on torchlike, compared with torch's profiler on the same programs."""
import functools
import importlib
import json
import os

import pytest
import torch

import torchlike


def _keys(T, fn, **kw):
    x = T.ones(2, 3)
    with T.profiler.profile(activities=[T.profiler.ProfilerActivity.CPU], **kw) as prof:
        fn(T, x)
    return prof


@pytest.mark.parametrize("fn", [
    lambda T, x: x.exp(),
    lambda T, x: x * 2,
    lambda T, x: x.sum(),
    lambda T, x: (x.exp() * x).sum(),
    lambda T, x: T.nn.functional.relu(x),
])
def test_op_events_are_torchs(fn):
    # torchlike records the ops a program calls; torch also records its internals (as_strided, fill_, ...)
    ours = {e.key for e in _keys(torchlike, fn).key_averages()}
    theirs = {e.key for e in _keys(torch, fn).key_averages()}
    assert ours and ours <= theirs


def test_record_function_nesting_and_times():
    def body(T, x):
        with T.profiler.record_function("outer"):
            with T.profiler.record_function("inner"):
                x.exp()
            x.sum()
    ours, theirs = _keys(torchlike, body), _keys(torch, body)
    assert {e.key for e in ours.key_averages()} <= {e.key for e in theirs.key_averages()}
    avg = {e.key: e for e in ours.key_averages()}
    outer, inner = avg["outer"], avg["inner"]
    assert outer.cpu_time_total >= inner.cpu_time_total + avg["aten::sum"].cpu_time_total
    # self time excludes the children, as torch's
    assert outer.self_cpu_time_total == pytest.approx(
        outer.cpu_time_total - inner.cpu_time_total - avg["aten::sum"].cpu_time_total, abs=1e-3)
    assert inner.self_cpu_time_total == pytest.approx(inner.cpu_time_total - avg["aten::exp"].cpu_time_total,
                                                      abs=1e-3)


def test_record_shapes_and_table_layout_match_torch():
    fn = lambda T, x: x.exp()  # noqa: E731
    ours, theirs = _keys(torchlike, fn, record_shapes=True), _keys(torch, fn, record_shapes=True)
    assert [e.input_shapes for e in ours.events()] == [e.input_shapes for e in theirs.events()]
    t_ours = ours.key_averages(group_by_input_shape=True).table(sort_by="cpu_time_total", row_limit=5)
    t_theirs = theirs.key_averages(group_by_input_shape=True).table(sort_by="cpu_time_total", row_limit=5)
    head = lambda t: [c for c in t.splitlines()[1].split("  ") if c.strip()]  # noqa: E731
    assert head(t_ours) == head(t_theirs)
    assert t_ours.splitlines()[-1].startswith("Self CPU time total:")
    assert t_theirs.splitlines()[-1].startswith("Self CPU time total:")


@pytest.mark.parametrize("kw", [dict(wait=1, warmup=1, active=2), dict(wait=0, warmup=2, active=1, repeat=2),
                                dict(wait=2, warmup=1, active=3, repeat=1, skip_first=3),
                                dict(wait=1, warmup=1, active=1, skip_first_wait=1)])
def test_schedule_matches_torch(kw):
    ours, theirs = torchlike.profiler.schedule(**kw), torch.profiler.schedule(**kw)
    assert [ours(i).name for i in range(20)] == [theirs(i).name for i in range(20)]


def test_step_cycle_reports_like_torch():
    def run(T):
        reports = []
        sched = T.profiler.schedule(wait=1, warmup=1, active=2, repeat=2)
        x = T.ones(3)
        with T.profiler.profile(schedule=sched,
                                on_trace_ready=lambda p: reports.append(
                                    sorted(e.key for e in p.key_averages() if e.key.startswith("Profiler")))) as p:
            for _ in range(10):
                x.exp()
                p.step()
        return reports
    assert run(torchlike) == run(torch)


def test_tensorboard_trace_handler_writes_chrome_and_jax_traces(tmp_path):
    x = torchlike.ones(3)
    handler = torchlike.profiler.tensorboard_trace_handler(str(tmp_path), worker_name="w0")
    with torchlike.profiler.profile(schedule=torchlike.profiler.schedule(wait=0, warmup=1, active=1),
                                    on_trace_ready=handler) as p:
        for _ in range(2):
            x.exp()
            p.step()
    traces = [f for f in os.listdir(tmp_path) if f.endswith(".pt.trace.json")]
    assert len(traces) == 1 and traces[0].startswith("w0.")
    events = json.load(open(tmp_path / traces[0]))["traceEvents"]
    assert {"aten::exp", "ProfilerStep#1"} <= {e["name"] for e in events}
    xla = [f for _, _, fs in os.walk(tmp_path / "plugins" / "profile") for f in fs if f.endswith(".xplane.pb")]
    assert xla, "the JAX/XLA trace of the same window is written for TensorBoard"


def test_autograd_profiler_profile_matches_torch():
    def run(T):
        x = T.ones(2, 2, requires_grad=True)
        with T.autograd.profiler.profile() as prof:
            (x * x).sum()
        return {e.key for e in prof.key_averages()}
    assert {"aten::mul", "aten::sum"} <= run(torchlike) <= run(torch)
    with pytest.raises(RuntimeError, match="Profiler didn't finish running"):
        torchlike.autograd.profiler.profile().key_averages()


def test_no_events_when_not_profiling():
    x = torchlike.ones(3)
    with torchlike.profiler.profile() as prof:
        pass
    x.exp()
    assert list(prof.key_averages()) == []


def test_backward_nodes_are_events_like_torch():
    def run(T):
        m = T.nn.Linear(4, 4)
        x = T.ones(2, 4)
        with T.profiler.profile() as prof:
            m(x).sum().backward()
        return {e.key for e in prof.key_averages()}
    ours = run(torchlike)
    assert {"aten::linear", "aten::sum", "AddmmBackward0", "SumBackward0",
            "autograd::engine::evaluate_function: AddmmBackward0"} <= ours <= run(torch)


def _memory_program(T, x):
    x = T.ones(100, 100)
    with T.profiler.record_function("blk"):
        y = (x @ x).relu()   # the matmul's result is released inside the range
        y.sum()
    return y


def test_profile_memory_figures_match_torch():
    res = []
    for T in (torch, torchlike):
        with T.profiler.profile(activities=[T.profiler.ProfilerActivity.CPU], profile_memory=True) as prof:
            _memory_program(T, None)
        avg = {e.key: e for e in prof.key_averages()}
        res.append(avg)
        table = prof.key_averages().table(sort_by="self_cpu_memory_usage", row_limit=20)
        head = [c.strip() for c in table.splitlines()[1].split("  ") if c.strip()]
        assert head[-3:] == ["CPU Mem", "Self CPU Mem", "# of Calls"]
        assert "39.06 KB" in table
    theirs, ours = res
    for key in ("blk", "aten::sum"):
        assert ours[key].cpu_memory_usage == theirs[key].cpu_memory_usage, key
    # the range's own figure is what was freed in it: the matmul's 40,000-byte result and the unused sum
    assert ours["blk"].self_cpu_memory_usage == theirs["blk"].self_cpu_memory_usage == -40004


def test_profile_memory_off_has_no_memory_columns():
    for T in (torch, torchlike):
        with T.profiler.profile(activities=[T.profiler.ProfilerActivity.CPU]) as prof:
            T.ones(3).mul(2)
        assert "CPU Mem" not in prof.key_averages().table()
        assert all(e.cpu_memory_usage == 0 for e in prof.key_averages())


def test_table_of_an_empty_profile_is_empty_like_torch():
    tables = []
    for T in (torch, torchlike):
        with T.profiler.profile(activities=[T.profiler.ProfilerActivity.CPU]) as p:
            pass
        tables.append((p.key_averages().table(), p.key_averages().table(sort_by="self_cpu_time_total")))
    assert tables[0] == tables[1] == ("", "")


ENUMS = ["profiler.ProfilerActivity.CPU", "profiler.ProfilerActivity.CUDA", "autograd.DeviceType.CPU",
         "autograd.ProfilerState.KINETO", "_C.DispatchKey.AutogradCPU", "nn.attention.SDPBackend.MATH",
         "distributed.ReduceOp.RedOpType.AVG", "distributed.ReduceOp.SUM"]


@pytest.mark.parametrize("path", ENUMS)
def test_bound_enums_print_as_torchs(path):
    """torch's C++-bound enums print ``ProfilerActivity.CPU`` (a Python 3.11 IntEnum prints ``0``)."""
    def get(mod):
        importlib.import_module(mod.__name__ + ".distributed")
        importlib.import_module(mod.__name__ + ".nn.attention")
        return functools.reduce(getattr, path.split("."), mod)
    ours, theirs = get(torchlike), get(torch)
    assert (str(ours), repr(ours), f"{ours}", ours.name, ours.value) == (
        str(theirs), repr(theirs), f"{theirs}", theirs.name, theirs.value)


@pytest.mark.parametrize("path", ["profiler.ProfilerActivity", "autograd.DeviceType", "autograd.ProfilerState",
                                  "nn.attention.SDPBackend"])
def test_bound_enums_have_torchs_members_and_values(path):
    def members(mod):
        importlib.import_module(mod.__name__ + ".nn.attention")
        e = functools.reduce(getattr, path.split("."), mod)
        return {k: int(v) for k, v in e.__members__.items()}
    assert members(torchlike) == members(torch)
