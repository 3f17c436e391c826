"""Pointwise ops on host-resident tensors run in numpy (torchlike/_host_ops.py): values, dtypes and
exceptions equal torch's over the dtype x operand matrix, the fast path is taken where it applies, and it
steps aside for autograd, tracing and the dtypes it does not cover."""
import operator
import warnings

import numpy as np
import pytest

import torchlike
from torchlike import _host_ops
from conftest import not_a_test_bug

torch = pytest.importorskip("torch", reason="torch is the oracle for these tests")

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64"]
HOST_DTYPES = {"bool", "uint8", "int8", "int16", "int32", "int64", "float32", "float64"}
OPS = {
    "add": operator.add, "sub": operator.sub, "mul": operator.mul,
    "add_alpha": lambda m, a, b: m.add(a, b, alpha=3), "sub_alpha": lambda m, a, b: m.sub(a, b, alpha=2),
    "add_alpha0": lambda m, a, b: m.add(a, b, alpha=0), "div": operator.truediv,
    "eq": operator.eq, "ne": operator.ne, "lt": operator.lt, "le": operator.le, "gt": operator.gt,
    "ge": operator.ge, "and": operator.and_, "or": operator.or_, "xor": operator.xor,
    "logical_and": lambda m, a, b: m.logical_and(a, b), "logical_or": lambda m, a, b: m.logical_or(a, b),
    "logical_xor": lambda m, a, b: m.logical_xor(a, b),
}
_MOD_OPS = {"add_alpha", "sub_alpha", "add_alpha0", "logical_and", "logical_or", "logical_xor"}


def _apply(op, mod, a, b):
    f = OPS[op]
    return f(mod, a, b) if op in _MOD_OPS else f(a, b)


def _values(dtype, n=6):
    """Values with edge cases of each dtype: overflow-prone integers, inf/nan/-0 floats."""
    if dtype == "bool":
        return [True, False, True, True, False, False][:n]
    if dtype == "uint8":
        return [0, 1, 7, 200, 255, 128][:n]
    if dtype.startswith("int"):
        info = np.iinfo(dtype)
        return [0, -3, 7, int(info.max), int(info.min), 100 % int(info.max)][:n]
    return [0.5, -0.0, float("inf"), float("nan"), 3.25, -1e30 if dtype in ("float32", "float64") else -2.0][:n]


def _pair(mod, dtype):
    a = mod.tensor(_values(dtype), dtype=getattr(mod, dtype))
    b = mod.tensor(list(reversed(_values(dtype))), dtype=getattr(mod, dtype))
    return a, b


def _same(ours, theirs):
    assert str(ours.dtype) == str(theirs.dtype)
    assert tuple(ours.shape) == tuple(theirs.shape)
    t = theirs.float() if theirs.dtype == torch.bfloat16 else theirs
    o = ours.float() if ours.dtype == torchlike.bfloat16 else ours
    # (a host tensor read where it is: numpy() would make it share the array it returns, moving it off the host)
    h = o._host_array()
    np.testing.assert_array_equal(h if h is not None else o.numpy(), t.numpy())


def _outcome(fn):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # numpy's overflow/invalid warnings must not reach the user
        try:
            return fn(), None
        except Exception as e:  # noqa: BLE001 - the exception type and message are compared
            return None, not_a_test_bug(e)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", sorted(OPS))
def test_tensor_tensor_matches_torch(op, dtype):
    ta, tb = _pair(torch, dtype)
    la, lb = _pair(torchlike, dtype)
    theirs, terr = _outcome(lambda: _apply(op, torch, ta, tb))
    ours, oerr = _outcome(lambda: _apply(op, torchlike, la, lb))
    if terr is not None:
        assert oerr is not None and type(oerr) is type(terr) and str(oerr) == str(terr)
        return
    assert oerr is None, oerr
    _same(ours, theirs)
    # the host path ran where it applies (a float x + alpha * y is a fused multiply-add: the device's)
    host = dtype in HOST_DTYPES and not (op in ("add_alpha", "sub_alpha", "add_alpha0") and dtype.startswith("float"))
    assert (ours._host_array() is not None) == host


SCALARS = [2, -1, 300, 2 ** 40, 2.5, -0.1, True, float("inf")]


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int8", "int32", "int64", "float32", "float64"])
@pytest.mark.parametrize("op", ["add", "sub", "mul", "div", "add_alpha", "lt", "eq", "and", "logical_or"])
@pytest.mark.parametrize("scalar", SCALARS)
def test_tensor_scalar_matches_torch(op, dtype, scalar):
    if op == "add_alpha" and dtype.startswith("float"):
        return  # a float x + alpha * number is not a host op (see test_tensor_tensor_matches_torch)
    ta, _ = _pair(torch, dtype)
    la, _ = _pair(torchlike, dtype)
    # (``number / t`` is torch's ``t.reciprocal() * number``, which the host path leaves to the device)
    for swap in (False, True) if op != "div" else (False,):
        args = (lambda m, a: (scalar, a)) if swap else (lambda m, a: (a, scalar))
        theirs, terr = _outcome(lambda: _apply(op, torch, *args(torch, ta)))
        ours, oerr = _outcome(lambda: _apply(op, torchlike, *args(torchlike, la)))
        if terr is not None:
            assert oerr is not None and type(oerr) is type(terr), (oerr, terr)
            continue
        assert oerr is None, oerr
        _same(ours, theirs)


@pytest.mark.parametrize("shapes", [((3, 1), (1, 4)), ((), (5,)), ((2, 3), ()), ((), ())])
def test_broadcast_and_zero_dim(shapes):
    sa, sb = shapes
    for op in ("add", "mul", "gt", "sub"):
        for dt in ("int64", "float32"):
            ta = torch.arange(1, 1 + int(np.prod(sa)), dtype=getattr(torch, dt)).reshape(sa)
            tb = torch.arange(3, 3 + int(np.prod(sb)), dtype=getattr(torch, dt)).reshape(sb) * 2
            la, lb = torchlike.tensor(ta.numpy()), torchlike.tensor(tb.numpy())
            ours = _apply(op, torchlike, la, lb)
            _same(ours, _apply(op, torch, ta, tb))
            assert ours._host_array() is not None


def test_mixed_dtypes_promote_like_torch():
    for da, db in [("int8", "uint8"), ("int32", "float64"), ("bool", "int16"), ("int64", "float32"),
                   ("uint8", "bool")]:
        for op in ("add", "mul", "lt", "xor") if "float" not in da + db else ("add", "mul", "lt"):
            ta = torch.tensor(_values(da), dtype=getattr(torch, da))
            tb = torch.tensor(_values(db), dtype=getattr(torch, db))
            la = torchlike.tensor(_values(da), dtype=getattr(torchlike, da))
            lb = torchlike.tensor(_values(db), dtype=getattr(torchlike, db))
            theirs, terr = _outcome(lambda: _apply(op, torch, ta, tb))
            ours, oerr = _outcome(lambda: _apply(op, torchlike, la, lb))
            if terr is not None:
                assert type(oerr) is type(terr) and str(oerr) == str(terr)
                continue
            _same(ours, theirs)
    # a 0-d tensor of a wider type does not widen a dimensioned one (torch's category rule)
    for z in (torch.tensor(2.5, dtype=torch.float64), torch.tensor(7)):
        lz = torchlike.tensor(z.numpy())
        t = torch.tensor([1, 2], dtype=torch.int16)
        _same(torchlike.tensor([1, 2], dtype=torchlike.int16) * lz, t * z)


def test_same_values_as_the_device_path():
    """The host result equals the device program's (the same op on device-resident operands)."""
    rng = np.random.default_rng(0)
    for dt in (np.float32, np.float64, np.int32, np.int64):
        a = (rng.standard_normal(50) * 1e3).astype(dt)
        b = (rng.standard_normal(50) * 1e3).astype(dt)
        ha, hb = torchlike.tensor(a), torchlike.tensor(b)
        da, db = torchlike.tensor(a), torchlike.tensor(b)
        da._value, db._value  # noqa: B018  (moves them to the device)
        assert da._host_array() is None
        for op in ("add", "sub", "mul", "ge", "ne") + (("add_alpha",) if dt in (np.int32, np.int64) else ()):
            h, d = _apply(op, torchlike, ha, hb), _apply(op, torchlike, da, db)
            assert h._host_array() is not None and d._host_array() is None
            np.testing.assert_array_equal(h.numpy(), d.numpy())
        h, d = ha * 0.1 + 3, da * 0.1 + 3
        np.testing.assert_array_equal(h.numpy(), d.numpy())


def test_every_listed_op_is_installed():
    assert set(_host_ops.INSTALLED) == set(_host_ops.HOST_UFUNCS)


def test_result_is_independent_and_usable():
    a = torchlike.tensor([1.0, 2.0])
    b = a + 1
    b.add_(10)  # an in-place write on the host result
    assert a.tolist() == [1.0, 2.0] and b.tolist() == [12.0, 13.0]
    c = a * 2
    v = c.view(2, 1)  # views and device ops of a host result
    v[0, 0] = -1.0
    assert c.tolist() == [-1.0, 4.0]
    assert (c @ torchlike.tensor([1.0, 1.0])).item() == 3.0


def test_autograd_and_tracing_take_the_device_path():
    a = torchlike.tensor([1.0, 2.0], requires_grad=True)
    b = torchlike.tensor([3.0, 4.0])
    y = a * b + 1
    assert y._host_array() is None and y.grad_fn is not None
    y.sum().backward()
    assert a.grad.tolist() == [3.0, 4.0]
    c = torchlike.tensor([1.0, 2.0])
    compiled = torchlike.compile(lambda x: (x * 2 + c) > 3)
    assert compiled(torchlike.tensor([1.0, 2.0])).tolist() == [False, True]
    assert compiled(torchlike.tensor([0.0, 3.0])).tolist() == [False, True]


def test_large_broadcast_stays_on_the_device():
    a = torchlike.zeros(70000, 1, dtype=torchlike.int8)
    b = torchlike.zeros(1, 2, dtype=torchlike.int8)
    assert a._host_array() is None or b._host_array() is not None
    r = a[:300] + b
    assert tuple(r.shape) == (300, 2)
    x = torchlike.zeros(300, 1, dtype=torchlike.int8)
    y = torchlike.zeros(1, 300, dtype=torchlike.int8)
    r = x + y  # 90,000 elements: more than a host tensor holds
    assert tuple(r.shape) == (300, 300) and r._host_array() is None and int(r.sum()) == 0


def test_division_by_a_number_is_torchs_quotient():
    """torch divides by a Python number (no reciprocal multiply): the host quotient is bit-identical."""
    x = np.random.default_rng(0).standard_normal(1000).astype(np.float32)
    for s in (3.0, 7.0, 0.1, 255.0, 3):
        ours = torchlike.tensor(x) / s
        assert ours._host_array() is not None
        np.testing.assert_array_equal(ours.numpy(), (torch.tensor(x) / s).numpy())
    ours = torchlike.tensor([1, 2, 7]) / torchlike.tensor([3, 3, 3])  # ints divide as float32
    _same(ours, torch.tensor([1, 2, 7]) / torch.tensor([3, 3, 3]))


@pytest.mark.parametrize("op", ["add", "sub", "mul", "div", "lt", "eq", "and", "logical_or"])
def test_shape_mismatch_raises_torchs_error(op):
    for sa, sb in (((3,), (4,)), ((2, 3), (3, 2))):
        ta, tb = torch.ones(sa, dtype=torch.int64), torch.ones(sb, dtype=torch.int64)
        la, lb = torchlike.ones(sa, dtype=torchlike.int64), torchlike.ones(sb, dtype=torchlike.int64)
        _, terr = _outcome(lambda: _apply(op, torch, ta, tb))
        _, oerr = _outcome(lambda: _apply(op, torchlike, la, lb))
        assert terr is not None and type(oerr) is type(terr) and str(oerr) == str(terr), (oerr, terr)
