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
