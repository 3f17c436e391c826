"""``a + b``, ``a - b``, ``a * b`` and the comparisons of host-resident tensors of one dtype (or one and a Python
number) taken before promotion and dispatch (``_dispatch.host_pointwise``): the path is taken where it applies,
and everything that must see the op still does (dispatch and function modes, ``__torch_function__`` subclasses,
the profiler, inference mode, autograd), with torch's values, dtypes, versions and aliasing."""
import operator

import pytest

import torchlike
from torchlike._ops import _util, pointwise
from torchlike.utils import _python_dispatch as pd
from tests.conftest import raises_like_torch, same_as_torch

torch = pytest.importorskip("torch", reason="torch is the oracle for these tests")
from torch.utils import _python_dispatch as torch_pd  # noqa: E402

OPS = {"add": operator.add, "sub": operator.sub, "mul": operator.mul, "eq": operator.eq, "ne": operator.ne,
       "lt": operator.lt, "le": operator.le, "gt": operator.gt, "ge": operator.ge}
DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float32", "float64"]


@pytest.fixture
def taken(monkeypatch):
    """The results the fast path returned (a list filled while the test runs)."""
    got = []
    real = pointwise.host_pointwise

    def spy(*args):
        r = real(*args)
        if r is not None:
            got.append(r)
        return r
    monkeypatch.setattr(pointwise, "host_pointwise", spy)
    monkeypatch.setattr(_util, "host_pointwise", spy)
    return got


def _host(mod, values, dtype):
    return mod.tensor(values, dtype=getattr(mod, dtype))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", sorted(OPS))
def test_same_dtype_pairs_take_the_path_with_torchs_results(op, dtype, taken):
    vals = {"bool": [True, False, True, False], "uint8": [0, 255, 7, 128], "int8": [127, -128, 3, -1]}.get(
        dtype, [1, -3, 2 ** 14, -7] if dtype.startswith("int") else [0.5, float("nan"), float("inf"), -0.0])
    f = OPS[op]
    if op == "sub" and dtype == "bool":  # torch's error, not the path
        raises_like_torch(lambda m: f(m.tensor(vals), m.tensor(vals[::-1])))
        assert not taken
        return
    same_as_torch(lambda m: f(_host(m, vals, dtype), _host(m, vals[::-1], dtype)), grad=False)
    assert len(taken) == 1
    r = f(_host(torchlike, vals, dtype), _host(torchlike, vals[::-1], dtype))
    assert len(taken) == 2 and r._host_array() is not None  # (a host tensor, as its operands)


@pytest.mark.parametrize("op", ["add", "sub", "mul", "lt", "eq"])
@pytest.mark.parametrize("dtype", ["uint8", "int8", "int64", "float32", "float64", "bool"])
@pytest.mark.parametrize("number", [3, -1, 200, 2 ** 40, 2 ** 60, 2.5, 1e39, True])
def test_a_number_operand_matches_torch(op, dtype, number):
    vals = [1, 0, 1] if dtype == "bool" else [1, 2, 100]
    f = OPS[op]
    for swap in (False, True):
        def fn(m):
            a = m.tensor(vals, dtype=getattr(m, dtype))
            return f(number, a) if swap else f(a, number)
        try:
            expected = fn(torch)
        except Exception:  # noqa: BLE001 - an error case: the same error
            raises_like_torch(fn)
            continue
        same_as_torch(fn, grad=False)
        assert fn(torchlike).dtype == getattr(torchlike, str(expected.dtype).split(".")[1])


def test_other_cases_leave_the_path(taken):
    a = torchlike.tensor([1.0, 2.0])
    b = torchlike.tensor([1, 2])
    c = torchlike.tensor([[1.0], [2.0]])
    for r in (a + b, a + c, a + torchlike.tensor(1.0), torchlike.add(a, a, alpha=2), b + 1.5,
              a.half() + a.half(), a.add(a, alpha=1.0)):
        assert r is not None
    assert not taken  # promotion, broadcasting, a 0-d operand, alpha, float16: the general path
    g = torchlike.tensor([1.0, 2.0], requires_grad=True)
    assert (g + a).grad_fn is not None and not taken
    d = torchlike.tensor([1.0, 2.0])
    d._value  # noqa: B018 (on the device)
    assert (d + a)._host_array() is None and not taken


def test_results_are_new_tensors_with_their_own_versions():
    def fn(m):
        a = m.tensor([1.0, 2.0])
        b = m.tensor([3.0, 4.0])
        r, s = a + b, a * 1
        before = (r._version, s._version, r.data_ptr() != a.data_ptr(), s.data_ptr() != a.data_ptr())
        a.add_(10)
        b.mul_(2)
        return r, s, a, b, m.tensor(before)
    same_as_torch(fn, grad=False)


def test_dispatch_and_function_modes_see_the_op():
    def run(m, mode_base, fn_mode):
        class Log(mode_base):
            def __init__(self):
                super().__init__()
                self.ops = []

            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                self.ops.append(str(func))
                return func(*args, **(kwargs or {}))

        class FnLog(fn_mode):
            def __init__(self):
                super().__init__()
                self.ops = []

            def __torch_function__(self, func, types, args=(), kwargs=None):
                self.ops.append(func.__name__)
                return func(*args, **(kwargs or {}))
        a, b = m.tensor([1.0, 2.0]), m.tensor([3.0, 4.0])
        with Log() as log:
            r1 = [(a + b).tolist(), (a * 2).tolist(), (a > b).tolist(), (a - 1).tolist()]
        with FnLog() as flog:
            r2 = [(a + b).tolist(), (a - b).tolist()]  # (``a == b``: torchlike names func ``eq``, torch ``__eq__``)
        return log.ops, flog.ops, r1, r2
    from torchlike.overrides import TorchFunctionMode as TLMode
    from torch.overrides import TorchFunctionMode as TMode
    assert run(torchlike, pd.TorchDispatchMode, TLMode) == run(torch, torch_pd.TorchDispatchMode, TMode)


def test_subclasses_keep_their_type():
    def fn(m):
        class Tagged(m.Tensor):
            pass
        a = m.tensor([1.0, 2.0]).as_subclass(Tagged)
        b = m.tensor([3.0, 4.0])
        return [type(r).__name__ for r in (a + b, b + a, a * 2, a > b)], (a + b).tolist()
    assert fn(torchlike) == fn(torch)


def test_profiler_records_the_op():
    def keys(m):
        a, b = m.tensor([1.0, 2.0]), m.tensor([3.0, 4.0])
        with m.profiler.profile(activities=[m.profiler.ProfilerActivity.CPU]) as prof:
            a + b
            a * 2
        return {e.key for e in prof.key_averages()}
    assert {"aten::add", "aten::mul"} <= keys(torchlike) & keys(torch)


def test_inference_mode_results_are_inference_tensors():
    def fn(m):
        a, b = m.tensor([1.0, 2.0]), m.tensor([3.0, 4.0])
        with m.inference_mode():
            r = a + b
            s = a < b
        return r.is_inference(), s.is_inference(), r.tolist(), s.tolist()
    assert fn(torchlike) == fn(torch)
