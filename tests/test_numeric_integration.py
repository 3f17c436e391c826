"""Numerical integration and differentiation compared with torch: ``trapezoid`` / ``trapz`` /
``cumulative_trapezoid`` (float, integer and bool samples, spacing forms) and ``gradient``."""
import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="torch is the oracle for these tests")
import torchlike  # noqa: E402
from conftest import assert_same, raises_like_torch, to_tl, torch_or_tl  # noqa: E402

RNG = np.random.default_rng(0)
_R0 = np.random.default_rng(0)
A = _R0.standard_normal((3, 5)).astype(np.float32)
W = _R0.random(5).astype(np.float32)


# --- trapezoid rules on integer samples -----------------------------------------------------------------
@pytest.mark.parametrize("dtype", [torch.uint8, torch.int8, torch.int32, torch.int64])
def test_trapezoid_integer_samples(dtype):
    y = torch.tensor([[200, 10, 3, 90], [7, 250, 100, 255]]).to(dtype)
    xs = [torch.tensor([1, 3, 4, 9], dtype=torch.uint8), torch.tensor([1, 3, 4, 9]),
          torch.tensor([0.5, 1.0, 3.0, 3.5])]
    for fn in ("trapezoid", "trapz", "cumulative_trapezoid"):
        assert_same(getattr(torchlike, fn)(to_tl(y)), getattr(torch, fn)(y), rtol=None, atol=None)
        if fn != "trapz":
            assert_same(getattr(torchlike, fn)(to_tl(y), dx=2.5), getattr(torch, fn)(y, dx=2.5), rtol=None, atol=None)
        for x in xs:
            assert_same(getattr(torchlike, fn)(to_tl(y), to_tl(x)), getattr(torch, fn)(y, x), rtol=None, atol=None)


def test_trapezoid_bool_rejected_like_torch():
    y = torch.tensor([True, False, True])
    for fn in ("trapezoid", "cumulative_trapezoid"):
        raises_like_torch(torch_or_tl(lambda: getattr(torch, fn)(y), lambda: getattr(torchlike, fn)(to_tl(y))))
        raises_like_torch(torch_or_tl(lambda: getattr(torch, fn)(y, torch.tensor([1, 2, 3])),
                                      lambda: getattr(torchlike, fn)(to_tl(y), torchlike.tensor([1, 2, 3]))))


# --- gradient, cumulative_trapezoid of float samples ----------------------------------------------
@pytest.mark.parametrize("kw", [{}, {"spacing": 2.0}, {"edge_order": 2}, {"dim": 1}, {"spacing": [2.0, 0.5]},
                                {"dim": (0, 1), "spacing": 3.0, "edge_order": 2}, {"spacing": "coords"},
                                {"spacing": "coords", "edge_order": 2}])
def test_gradient(kw):
    y = RNG.standard_normal((4, 5))
    kt, kl = dict(kw), dict(kw)
    if kw.get("spacing") == "coords":
        c0, c1 = np.cumsum(RNG.random(4) + 0.1), np.cumsum(RNG.random(5) + 0.1)
        kt["spacing"], kl["spacing"] = (torch.tensor(c0), torch.tensor(c1)), (torchlike.tensor(c0), torchlike.tensor(c1))
    assert_same(torchlike.gradient(torchlike.tensor(y), **kl), torch.gradient(torch.tensor(y), **kt), 1e-6, 1e-9)
    assert_same(torchlike.gradient(torchlike.tensor(np.asarray([1, 4, 9, 16]))),
                torch.gradient(torch.tensor(np.asarray([1, 4, 9, 16]))), 1e-6, 1e-6)


@pytest.mark.parametrize("dt", ["float16", "bfloat16", "float32"])
@pytest.mark.parametrize("kw", [{}, {"spacing": 0.3}, {"spacing": 3, "dim": 0}, {"spacing": 0.3, "edge_order": 2},
                                {"coords": True}, {"coords": True, "edge_order": 2}])
def test_gradient_rounds_each_op_as_torchs_composite(kw, dt):
    # torch's gradient is a composite of tensor ops: (y[2:] - y[:-2]) / h, then / 2; in a half type every op's
    # result is stored in the type and h is a float32 (it was cast to the half type, and the ops fused: the
    # strict sweep's float16 failure); float32 divides by h then 2 (not by 2 h)
    y0 = (RNG.standard_normal((7, 9)) * 3).astype(np.float32)
    c0 = np.cumsum(RNG.uniform(0.1, 1.0, 9)).astype(np.float32)
    res = []
    for L in (torch, torchlike):
        k = dict(kw)
        if k.pop("coords", False):
            k.update(dim=1, spacing=(L.tensor(c0).to(getattr(L, dt)),))
        res.append(L.gradient(L.tensor(y0).to(getattr(L, dt)), **k))
    if dt == "float32" and ("coords" in kw or "edge_order" in kw):  # (XLA fuses a * y0 + b * y1 into FMAs)
        assert_same(res[1], res[0], 1e-6, 1e-6)
        return
    assert len(res[1]) == len(res[0])
    for g, w in zip(*res):
        assert str(g.dtype) == str(w.dtype)
        np.testing.assert_array_equal(np.asarray(g.double().numpy()), w.double().numpy())


def test_cumulative_trapezoid():
    y = RNG.standard_normal((3, 5))
    assert_same(torchlike.cumulative_trapezoid(torchlike.tensor(y)),
                torch.cumulative_trapezoid(torch.tensor(y)), 1e-6, 1e-6)
    assert_same(torchlike.cumulative_trapezoid(torchlike.tensor(y), dx=0.3, dim=0),
                torch.cumulative_trapezoid(torch.tensor(y), dx=0.3, dim=0), 1e-6, 1e-6)
    x = np.cumsum(RNG.random(5))
    assert_same(torchlike.cumulative_trapezoid(torchlike.tensor(y), torchlike.tensor(x)),
                torch.cumulative_trapezoid(torch.tensor(y), torch.tensor(x)), 1e-6, 1e-6)
    assert_same(torchlike.cumulative_trapezoid(torchlike.tensor(np.asarray([1, 2, 3]))),
                torch.cumulative_trapezoid(torch.tensor(np.asarray([1, 2, 3]))), 1e-6, 1e-6)


def test_trapezoid_float_samples():
    assert_same(torchlike.trapezoid(torchlike.tensor(A)), torch.trapezoid(torch.tensor(A)))
    assert_same(torchlike.trapezoid(torchlike.tensor(A), torchlike.tensor(W)),
                torch.trapezoid(torch.tensor(A), torch.tensor(W)), atol=1e-6)
    assert_same(torchlike.trapezoid(torchlike.tensor(A), dx=0.5, dim=0), torch.trapezoid(torch.tensor(A), dx=0.5, dim=0))
