"""float16/bfloat16 pointwise kernels against torch's CPU kernels, bit for bit.  Most of torch's half-type
kernels compute in float32 (its opmath type) and round once; xlogy, special.xlogy, special.xlog1py and
special.entr instead run a scalar kernel whose ``std::log`` / ``std::log1p`` of a ``c10::Half`` returns a
half (c10/util/BFloat16-math.h), so ``x * log(y)`` is rounded twice: a once-rounded result differed from
torch's on ~13% of float16 inputs.  Gradients keep the float32 formula (compared at the default tolerance)."""
import numpy as np
import pytest

import torchlike
from conftest import torch

DTYPES = ["float16", "bfloat16"]
BINARY = ["xlogy", "special.xlogy", "special.xlog1py"]
EDGES_X = [0.0, 0.0, 0.0, float("nan"), 1.0, -2.0, 3.0, 0.5, float("inf"), -1.0]
EDGES_Y = [float("nan"), 0.0, -1.0, 0.0, 0.0, -1.0, float("inf"), -0.5, 2.0, float("-inf")]


def _fn(lib, name):
    f = lib
    for part in name.split("."):
        f = getattr(f, part)
    return f


def _pair(values, dt):
    a = np.asarray(values, np.float32)
    t = torch.from_numpy(a).to(getattr(torch, dt))
    return t, torchlike.from_numpy(a).to(getattr(torchlike, dt))


def _dense(n, seed, dt):
    rng = np.random.default_rng(seed)
    return _pair((rng.standard_normal(n) * 4).astype(np.float32), dt)


def _assert_equal(r, t):
    assert str(r.dtype) == str(t.dtype)
    torch.testing.assert_close(torch.from_numpy(r.float().numpy()), t.float(), rtol=0, atol=0, equal_nan=True)


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("name", BINARY)
@pytest.mark.parametrize("n", [25, 4000])  # (25: torch's scalar loop only; 4000: its vectorised loop too)
def test_binary_log_kernels_match_torch_bit_for_bit(name, dt, n):
    x, lx = _dense(n, 1, dt)
    y, ly = _dense(n, 2, dt)
    if name != "special.xlog1py":
        y, ly = y.abs(), ly.abs()  # (mostly positive, so most values are finite)
    _assert_equal(_fn(torchlike, name)(lx, ly), _fn(torch, name)(x, y))


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("name", BINARY)
def test_binary_log_kernels_edges(name, dt):
    x, lx = _pair(EDGES_X, dt)
    y, ly = _pair(EDGES_Y, dt)
    _assert_equal(_fn(torchlike, name)(lx, ly), _fn(torch, name)(x, y))


@pytest.mark.parametrize("dt", DTYPES)
def test_entr_matches_torch_bit_for_bit(dt):
    x, lx = _dense(4000, 3, dt)
    _assert_equal(torchlike.special.entr(lx.abs()), torch.special.entr(x.abs()))
    e, le = _pair(EDGES_X + [1e-7, 65000.0], dt)
    _assert_equal(torchlike.special.entr(le), torch.special.entr(e))


@pytest.mark.parametrize("dt", DTYPES)
def test_xlogy_with_a_number_and_mixed_dtypes(dt):
    x, lx = _dense(50, 4, dt)
    _assert_equal(torchlike.xlogy(2.5, lx.abs()), torch.xlogy(2.5, x.abs()))
    _assert_equal(torchlike.xlogy(lx, 3.0), torch.xlogy(x, 3.0))
    y, ly = _dense(50, 5, "float32")  # promotes to float32: computed in float32 (XLA's log: within an ulp)
    r, t = torchlike.xlogy(lx, ly.abs()), torch.xlogy(x, y.abs())
    assert str(r.dtype) == str(t.dtype)
    torch.testing.assert_close(torch.from_numpy(r.numpy()), t, equal_nan=True)


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("name", BINARY)
def test_binary_log_kernels_grad(name, dt):
    x, lx = _pair([0.5, 2.0, 3.0, 0.0, 1.5], dt)
    y, ly = _pair([0.3, 4.0, 0.25, 2.0, 7.0], dt)
    x.requires_grad_()
    y.requires_grad_()
    lx.requires_grad_()
    ly.requires_grad_()
    _fn(torch, name)(x, y).sum().backward()
    _fn(torchlike, name)(lx, ly).sum().backward()
    for r, t in ((lx.grad, x.grad), (ly.grad, y.grad)):
        assert str(r.dtype) == str(t.dtype)
        torch.testing.assert_close(torch.from_numpy(r.float().numpy()).to(t.dtype), t, equal_nan=True)


@pytest.mark.parametrize("name", BINARY + ["special.entr"])
def test_float32_and_float64_unchanged(name):
    for dt in ("float32", "float64"):
        x, lx = _dense(200, 6, dt)
        y, ly = _dense(200, 7, dt)
        args, largs = ((x.abs(), y.abs()), (lx.abs(), ly.abs())) if name != "special.entr" else ((x,), (lx,))
        r, t = _fn(torchlike, name)(*largs), _fn(torch, name)(*args)
        torch.testing.assert_close(torch.from_numpy(r.numpy()), t, equal_nan=True)


@pytest.mark.parametrize("dt", DTYPES)
def test_entr_grad_matches_torch_bit_for_bit(dt):
    # torch's derivative in the half type: grad * -(1 + log(x)), the log and the sum each stored in the type
    rng = np.random.default_rng(8)
    a = np.abs(rng.standard_normal(3000) * 3).astype(np.float32)
    a[:3] = [0.0, 1.0, np.nan]
    g = rng.standard_normal(3000).astype(np.float32)
    x, lx = _pair(a, dt)
    gt, lg = _pair(g, dt)
    x.requires_grad_()
    lx.requires_grad_()
    torch.special.entr(x).backward(gt)
    torchlike.special.entr(lx).backward(lg)
    _assert_equal(lx.grad, x.grad)


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("ord", ["fro", "nuc", 1, -1, 2, -2, float("inf"), float("-inf")])
@pytest.mark.parametrize("fn", ["matrix_norm", "norm"])
def test_matrix_norm_of_half_types(fn, ord, dt):
    # torch rejects float16/bfloat16 only for the SVD-based orders ('nuc', 2, -2)
    x, lx = _dense(12, 9, dt)
    x, lx = x.reshape(3, 4), lx.reshape(3, 4)
    try:
        t = getattr(torch.linalg, fn)(x, ord)
    except RuntimeError as e:
        with pytest.raises(RuntimeError, match=str(e)):
            getattr(torchlike.linalg, fn)(lx, ord)
        return
    r = getattr(torchlike.linalg, fn)(lx, ord)
    assert str(r.dtype) == str(t.dtype)
    torch.testing.assert_close(torch.from_numpy(r.float().numpy()).to(t.dtype), t)


@pytest.mark.parametrize("dt", DTYPES + ["float32"])
def test_linear_of_a_vector_with_a_bias_is_torchs_addmm_of_a_row(dt):
    """torch's linear of a 1-D input with a bias is addmm of the input viewed as one row, viewed back (ViewBackward0
    over AddmmBackward0): the bias is added inside the product's single rounding (torchlike added it after)."""
    rng = np.random.default_rng(0)
    x, w, b = (rng.standard_normal(s).astype(np.float32) for s in ((64,), (40, 64), (40,)))
    out = []
    for lib in (torch, torchlike):
        d = getattr(lib, dt)
        xt = lib.from_numpy(x).to(d).requires_grad_()
        y = lib.nn.functional.linear(xt, lib.from_numpy(w * 3).to(d), lib.from_numpy(b * 7).to(d))
        out.append((y.detach().float().numpy(), y.grad_fn.name(), y.grad_fn.next_functions[0][0].name()))
    if dt == "float32":  # (another summation order than torch's GEMM: equal within float32's tolerance)
        np.testing.assert_allclose(out[1][0], out[0][0], rtol=1e-5, atol=1e-5)
    else:
        np.testing.assert_array_equal(out[1][0], out[0][0])
    assert out[1][1:] == out[0][1:]
