"""The vmap/autocast conformance failures that are documented differences (docs/differences.md), pinned
against torch so a change in either side shows: eigenvector signs (values and V diag(w) V^T agree),
complex32 stored as complex64 (values agree: the parts are rounded to float16 as torch's), and float32 conv_transpose3d under vmap (summation order:
torch's own vmap differs from its per-example loop by as much)."""
import warnings

import numpy as np
import pytest

import torchlike
from conftest import torch


def _sym(seed):
    a = np.random.default_rng(seed).standard_normal((2, 5, 5)).astype(np.float32)
    return a + np.swapaxes(a, -1, -2)


def _eigh_vmap(L, a):
    return L.func.vmap(L.linalg.eigh)(L.tensor(a))


def _eigh_autocast(L, a):
    with L.autocast("cpu", dtype=L.bfloat16):
        return L.linalg.eigh(L.tensor(a[0]))


@pytest.mark.parametrize("run", [_eigh_vmap, _eigh_autocast], ids=["vmap", "autocast"])
def test_eigh_agrees_with_torch_up_to_eigenvector_signs(run):
    a = _sym(0)
    (tw, tv), (lw, lv) = run(torch, a), run(torchlike, a)
    assert str(lw.dtype) == str(tw.dtype) and str(lv.dtype) == str(tv.dtype)
    np.testing.assert_allclose(lw.numpy(), tw.numpy(), rtol=1e-5, atol=1e-5)
    tv, lv = tv.numpy(), lv.numpy()
    # each column equals torch's times +-1 ...
    signs = np.sign(np.sum(tv * lv, axis=-2, keepdims=True))
    np.testing.assert_allclose(lv * signs, tv, atol=1e-4)
    # ... and the decomposition is the same
    rec = lambda v, w: v @ (w[..., None] * np.swapaxes(v, -1, -2))  # noqa: E731
    np.testing.assert_allclose(rec(lv, lw.numpy()), rec(tv, tw.numpy()), atol=1e-4)


def test_chalf_is_stored_as_complex64_with_torchs_values():
    x = np.random.default_rng(1).standard_normal((2, 3)).astype(np.float32)
    t = torch.func.vmap(lambda r: r.chalf())(torch.tensor(x))
    l = torchlike.func.vmap(lambda r: r.chalf())(torchlike.tensor(x))  # noqa: E741
    assert str(t.dtype) == "torch.complex32" and str(l.dtype) == "torch.complex64"  # the documented difference
    np.testing.assert_array_equal(l.numpy(), t.to(torch.complex64).numpy())
    with torch.autocast("cpu", dtype=torch.bfloat16), torchlike.autocast("cpu", dtype=torchlike.bfloat16):
        t, l = torch.tensor(x * 1000).chalf(), torchlike.tensor(x * 1000).chalf()  # noqa: E741
    np.testing.assert_array_equal(l.numpy(), t.to(torch.complex64).numpy())  # parts rounded to float16


def test_conv_transpose3d_float32_under_vmap_within_summation_order_noise():
    rng = np.random.default_rng(2)
    x, w, b = (rng.standard_normal(s).astype(np.float32) for s in ((1, 3, 4, 4, 4), (3, 3, 3, 3, 3), (3,)))
    x = np.stack([x, x * 0.5]) * 8  # large sums: cancellation exposes the order
    kw = dict(stride=(2, 2, 2), padding=2, output_padding=(1, 1, 1))
    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for L in (torch, torchlike):
            f = lambda i, L=L: L.nn.functional.conv_transpose3d(i, L.tensor(w), L.tensor(b), **kw)  # noqa: E731
            out[L.__name__] = L.func.vmap(f)(L.tensor(x)).numpy()
        loop = np.stack([torch.nn.functional.conv_transpose3d(torch.tensor(e), torch.tensor(w), torch.tensor(b), **kw)
                         .numpy() for e in x])
        exact = torch.func.vmap(lambda i: torch.nn.functional.conv_transpose3d(
            i, torch.tensor(w).double(), torch.tensor(b).double(), **kw))(torch.tensor(x).double()).numpy()
    scale = np.abs(exact).max()
    torch_noise = max(np.abs(out["torch"] - loop).max(), np.abs(out["torch"] - exact).max())
    ours = np.abs(out["torchlike"] - exact).max()
    assert ours <= max(torch_noise, 4 * np.finfo(np.float32).eps * scale), (ours, torch_noise, scale)
    np.testing.assert_allclose(out["torchlike"], out["torch"], rtol=0, atol=8 * np.finfo(np.float32).eps * scale)

