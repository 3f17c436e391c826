"""``torch.masked`` compared with torch: reductions, along-a-dim ops, normalize/logaddexp, gradients
through the unmasked elements, cumulative ops keeping the input dtype, complex logsumexp."""
import math

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="torch is the oracle for these tests")
import torchlike  # noqa: E402
from conftest import assert_same, to_tl  # noqa: E402

RNG = np.random.default_rng(0)


# --- torch.masked: cumulative ops keep the input dtype, complex logsumexp ----------------------------------
@pytest.mark.parametrize("dtype", [torch.int32, torch.int8, torch.uint8, torch.int64, torch.float32])
def test_masked_cumsum_cumprod_keep_dtype(dtype):
    x = torch.tensor([[1, 2, 3], [4, 5, 6]]).to(dtype)
    m = torch.tensor([[True, False, True], [False, True, True]])
    for op in ("cumsum", "cumprod"):
        assert_same(getattr(torchlike.masked, op)(to_tl(x), 1, mask=to_tl(m)), getattr(torch.masked, op)(x, 1, mask=m),
                    rtol=None, atol=None)


@pytest.mark.parametrize("dtype", [torch.complex64, torch.complex128])
def test_masked_logsumexp_complex(dtype):
    g = torch.Generator().manual_seed(5)
    x = torch.randn(3, 4, generator=g, dtype=dtype)
    m = torch.tensor([[True, False, True, True], [False, False, False, False], [True, True, False, True]])
    assert_same(torchlike.masked.logsumexp(to_tl(x), 1, mask=to_tl(m)), torch.masked.logsumexp(x, 1, mask=m),
                rtol=None, atol=None)


# --- reductions, along-a-dim ops, normalize, gradients --------------------------------------------
# --- torch.masked ------------------------------------------------------------------------------------
XM = RNG.standard_normal((3, 4)).astype(np.float32)


MM = RNG.random((3, 4)) > 0.5
MM[1] = False


def _masked(name, *args, **kw):
    def conv(v, m):
        return (m.tensor(v) if isinstance(v, np.ndarray) else v)
    r = getattr(torch.masked, name)(*[conv(a, torch) for a in args], **{k: conv(v, torch) for k, v in kw.items()})
    l = getattr(torchlike.masked, name)(*[conv(a, torchlike) for a in args], **{k: conv(v, torchlike) for k, v in kw.items()})
    assert_same(l, r, 1e-5, 1e-6)


@pytest.mark.parametrize("name", ["sum", "prod", "amax", "amin", "mean", "norm", "std", "var", "logsumexp"])
def test_masked_reductions(name):
    lead = (2.0,) if name == "norm" else ()  # norm's second argument is ord
    for dim in (None, 1, (0, 1)):
        for kw in ({}, {"keepdim": True}):
            _masked(name, XM, *lead, dim, mask=MM, **kw)
            _masked(name, XM, *lead, dim, mask=MM[0], **kw)
            _masked(name, XM, *lead, dim, **kw)
    if name in ("sum", "prod", "amax", "amin"):
        _masked(name, RNG.integers(-5, 5, (3, 4)), 1, mask=MM)


@pytest.mark.parametrize("name", ["argmax", "argmin", "median", "softmax", "log_softmax", "softmin", "cumsum",
                                  "cumprod"])
def test_masked_along_dim(name):
    _masked(name, XM, 1, mask=MM)
    _masked(name, XM, 0, mask=MM)
    _masked(name, XM, 1)


def test_masked_misc():
    _masked("normalize", XM, 2.0, 1, mask=MM)
    _masked("normalize", XM, 1.0, 0)
    _masked("logaddexp", XM, XM[::-1].copy(), input_mask=MM, other_mask=MM[::-1].copy())
    _masked("var", XM, 1, False, mask=MM)
    _masked("std", XM, 1, correction=0, mask=MM)
    _masked("norm", XM, -math.inf, 1, mask=MM)
    _masked("prod", np.array([[True, False], [True, True]]), mask=None)
    with pytest.raises(ValueError, match="mean"):
        torchlike.masked.mean(torchlike.tensor([1, 2]))
    # gradients flow only through the unmasked elements
    xt, xl = torch.tensor(XM, requires_grad=True), torchlike.tensor(XM, requires_grad=True)
    torch.masked.sum(xt, 1, mask=torch.tensor(MM)).sum().backward()
    torchlike.masked.sum(xl, 1, mask=torchlike.tensor(MM)).sum().backward()
    assert_same(xl.grad, xt.grad, 1e-6, 1e-6)
