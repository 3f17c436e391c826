"""``a + b``, ``a - b``, ``a * b`` and the comparisons of host-resident tensors of one dtype (or one and a Python
number) taken before promotion and dispatch (``_dispatch.host_pointwise``): the path is taken where it applies,
and everything that must see the op still does (dispatch and function modes, ``__torch_function__`` subclasses,
the profiler, inference mode, autograd), with torch's values, dtypes, versions and aliasing."""
import operator

import numpy as np
import pytest

import torchlike
from torchlike._ops import _util, pointwise
from torchlike.utils import _python_dispatch as pd
from tests.conftest import raises_like_torch, same_as_torch

torch = pytest.importorskip("torch", reason="torch is the oracle for these tests")
from torch.utils import _python_dispatch as torch_pd  # noqa: E402
from tests._dispatch_logging import log_mode  # noqa: E402

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
        Log = log_mode(mode_base)

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


CAST_VALUES = {"bool": [True, False], "uint8": [0, 255, 7], "int8": [127, -128, 3], "int16": [32767, -5, 0],
               "int32": [2 ** 31 - 1, -7, 3], "int64": [2 ** 62 + 1, -2 ** 63, 5],
               "float32": [0.5, float("nan"), float("inf"), -0.0, 3.4e38],
               "float64": [1e300, -0.0, float("nan"), 2.5, 1e-320]}


@pytest.mark.parametrize("src", sorted(CAST_VALUES))
def test_to_dtype_of_host_tensors_matches_torch(src):
    for dst in CAST_VALUES:
        if src.startswith("float") and not dst.startswith("float") and dst != "bool":
            continue  # (float to integer of inf/nan/out-of-range values: undefined in torch's kernel)
        same_as_torch(lambda m: m.tensor(CAST_VALUES[src], dtype=getattr(m, src)).to(getattr(m, dst)), grad=False)
        r = torchlike.tensor(CAST_VALUES[src], dtype=getattr(torchlike, src)).to(getattr(torchlike, dst))
        assert r._host_array() is not None  # (numpy's cast, a host tensor)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int8", "uint8", "int64"])
def test_relu_keeps_negative_zero_and_nan_like_torch(dtype):
    vals = [-0.0, float("nan"), -1.5, 2.0, 0.0] if dtype.startswith("float") else [-3, 0, 5, 100]
    for on_device in (False, True):
        def fn(m):
            x = m.tensor(vals, dtype=getattr(m, dtype))
            if m is torchlike and on_device:
                x._value  # noqa: B018 (the device program)
            r = m.relu(x)
            return r, m.copysign(m.ones(len(vals)), r.double()) if dtype.startswith("float") else r
        same_as_torch(fn, grad=False)
    same_as_torch(lambda m, x: m.relu(x) * 2, np.array([-0.0, -1.0, 3.0], np.float32))  # (grad: threshold_backward)


def test_clone_of_a_host_tensor_is_an_independent_host_tensor():
    def fn(m):
        a = m.tensor([1.0, 2.0, 3.0])
        c = a.clone()
        c.numpy()[0] = 10.0  # (shares c's memory only)
        a.numpy()[1] = 20.0
        return a, c, m.tensor([c._version, a._version])
    same_as_torch(fn, grad=False)


def test_dispatch_mode_sees_host_relu_clone_and_cast():
    def run(m, base):
        Log = log_mode(base)
        a = m.tensor([-1.0, 2.0])
        with Log() as log:
            r = [a.relu().tolist(), a.clone().tolist(), a.to(m.float64).tolist()]
        return [o for o in log.ops if o != "aten._local_scalar_dense.default"], r
    assert run(torchlike, pd.TorchDispatchMode) == run(torch, torch_pd.TorchDispatchMode)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "uint8", "bool"])
@pytest.mark.parametrize("other", ["tensor", 0, -1, 0.5, 2 ** 40, True, "other dtype", "broadcast"])
def test_where_of_host_tensors_matches_torch(dtype, other):
    vals = [True, False, True, False] if dtype == "bool" else [1, 0, 3, 200]

    def fn(m):
        x = m.tensor(vals, dtype=getattr(m, dtype))
        c = x if dtype == "bool" else x > 0
        o = {"tensor": lambda: m.tensor(vals[::-1], dtype=getattr(m, dtype)),
             "other dtype": lambda: m.tensor([1.5, 2.5, 3.5, 4.5], dtype=m.float64),
             "broadcast": lambda: m.tensor([7], dtype=getattr(m, dtype))}.get(other, lambda: other)()
        return m.where(c, x, o), x.where(c, o)
    try:
        fn(torch)
    except Exception:  # noqa: BLE001 - an error case: the same error
        raises_like_torch(fn)
        return
    same_as_torch(fn, grad=False)
    r = fn(torchlike)[0]
    if other == "tensor" or dtype in ("float32", "float64") and other not in ("other dtype", "broadcast", True):
        assert r._host_array() is not None  # (numpy's where: the operands' dtype and shape kept)
