"""Two conformance failures mended, checked against torch 2.13: ``nextafter``'s gradient (torch passes the
gradient to ``input``, broadcast, and gives ``other`` zero) and ``poisson_nll_loss`` on integer or mixed-dtype
inputs (torch's formula goes through exp/log, so the result is floating)."""
import numpy as np
import pytest
import torch

import torchlike as tl


@pytest.mark.parametrize("xs,os", [((4,), (4,)), ((3, 1), (1, 4)), ((2, 3), ())])
def test_nextafter_gradient_matches_torch(xs, os):
    rng = np.random.default_rng(1)
    x, o = rng.standard_normal(xs), rng.standard_normal(os)

    def run(lib):
        a, b = lib.tensor(x, requires_grad=True), lib.tensor(o, requires_grad=True)
        y = lib.nextafter(a, b)
        y.backward(lib.ones_like(y) * 3)
        return y, a.grad, b.grad
    for got, want in zip(run(tl), run(torch)):
        assert got.dtype.__repr__() == want.dtype.__repr__()
        np.testing.assert_array_equal(got.detach().numpy(), want.detach().numpy())


@pytest.mark.parametrize("dtypes", [("int64", "int64"), ("float32", "float64"), ("int64", "float32"),
                                    ("float64", "int64")])
@pytest.mark.parametrize("kw", [{}, {"log_input": False}, {"full": True}, {"reduction": "none"}])
def test_poisson_nll_loss_result_dtype_matches_torch(dtypes, kw):
    i, t = np.array([[1, 2], [3, 4]]), np.array([[2, 2], [1, 0]])

    def run(lib):
        return lib.nn.functional.poisson_nll_loss(lib.tensor(i, dtype=getattr(lib, dtypes[0])),
                                                  lib.tensor(t, dtype=getattr(lib, dtypes[1])), **kw)
    got, want = run(tl), run(torch)
    assert repr(got.dtype) == repr(want.dtype)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=2e-6)


_FFTS = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fft2", "ifft2", "rfft2", "irfft2", "hfft2", "ihfft2",
         "fftn", "ifftn", "rfftn", "irfftn", "hfftn", "ihfftn"]


@pytest.mark.parametrize("name", _FFTS)
@pytest.mark.parametrize("x,kw", [(1.0, {}), (1.0, {"dim": (0,)}), (1.0, {"dim": ()}), ([1.0, 2.0, 3.0], {"dim": ()})])
def test_fft_dims_of_a_scalar_and_empty_dims_match_torch(name, x, kw):
    """torch wraps FFT dims without the scalar allowance (IndexError for a 0-dim input), and the one-sided
    n-dimensional transforms need at least one axis."""
    if "dim" in kw and not name.endswith("n"):
        kw = {} if kw["dim"] == () else {"dim": kw["dim"][0]} if not name.endswith("2") else kw
    results = []
    for lib in (torch, tl):
        try:
            v = getattr(lib.fft, name)(lib.tensor(x), **kw)
            results.append(("value", v.tolist(), repr(v.dtype)))
        except Exception as e:  # noqa: BLE001  (compared with torch's exception below)
            results.append((type(e).__name__, str(e)))
    assert results[1] == results[0]
