"""Embedding / cross_entropy / nll_loss pick rows with a clamped gather once the indices were range-checked
on the host (eager CPU): values, gradients and errors must stay torch's."""
import numpy as np
import pytest
import torch

import torchlike as tl
import torchlike.nn.functional as TF


def _pair(a, dtype=None, rg=False):
    t = torch.tensor(a, dtype=dtype, requires_grad=rg)
    l = tl.tensor(a, dtype=getattr(tl, str(dtype).split(".")[-1]) if dtype is not None else None,
                  requires_grad=rg)
    return t, l


@pytest.mark.parametrize("padding_idx", [None, 2, -1])
def test_embedding_values_and_grad(padding_idx):
    rng = np.random.default_rng(0)
    w = rng.standard_normal((7, 5)).astype(np.float32)
    idx = rng.integers(0, 7, (4, 6))
    tw, lw = _pair(w, rg=True)
    ti, li = _pair(idx)
    to = torch.nn.functional.embedding(ti, tw, padding_idx=padding_idx)
    lo = TF.embedding(li, lw, padding_idx=padding_idx)
    np.testing.assert_allclose(lo.detach().numpy(), to.detach().numpy(), rtol=0, atol=0)
    g = rng.standard_normal(to.shape).astype(np.float32)
    to.backward(torch.tensor(g))
    lo.backward(tl.tensor(g))
    np.testing.assert_allclose(lw.grad.numpy(), tw.grad.numpy(), rtol=1e-6, atol=1e-6)


def test_embedding_out_of_range_is_torchs_error():
    w = np.ones((3, 2), np.float32)
    for bad in ([0, 3], [-1, 0]):
        with pytest.raises(IndexError) as te:
            torch.nn.functional.embedding(torch.tensor(bad), torch.tensor(w))
        with pytest.raises(IndexError) as le:
            TF.embedding(tl.tensor(bad), tl.tensor(w))
        assert str(le.value) == str(te.value)


@pytest.mark.parametrize("kw", [{}, {"ignore_index": 1}, {"reduction": "sum"}, {"reduction": "none"},
                                {"label_smoothing": 0.2}, {"weight": True}])
@pytest.mark.parametrize("fn", ["cross_entropy", "nll_loss"])
def test_class_losses_values_and_grad(fn, kw):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((9, 6)).astype(np.float32)
    y = rng.integers(0, 6, (9,))
    y[2] = 1
    if fn == "nll_loss" and "label_smoothing" in kw:
        pytest.skip("nll_loss has no label_smoothing argument (torch)")
    tkw, lkw = dict(kw), dict(kw)
    if kw.get("weight"):
        wv = rng.uniform(0.5, 2.0, 6).astype(np.float32)
        tkw["weight"], lkw["weight"] = torch.tensor(wv), tl.tensor(wv)
    tx, lx = _pair(x, rg=True)
    ty, ly = _pair(y)
    to = getattr(torch.nn.functional, fn)(tx, ty, **tkw)
    lo = getattr(TF, fn)(lx, ly, **lkw)
    np.testing.assert_allclose(lo.detach().numpy(), to.detach().numpy(), rtol=1e-5, atol=1e-6)
    to.sum().backward()
    lo.sum().backward()
    np.testing.assert_allclose(lx.grad.numpy(), tx.grad.numpy(), rtol=1e-5, atol=1e-6)


def test_cross_entropy_out_of_range_target_is_torchs_error():
    x = np.zeros((3, 4), np.float32)
    with pytest.raises(IndexError) as te:
        torch.nn.functional.cross_entropy(torch.tensor(x), torch.tensor([0, 4, 1]))
    with pytest.raises(IndexError) as le:
        TF.cross_entropy(tl.tensor(x), tl.tensor([0, 4, 1]))
    assert str(le.value) == str(te.value)


def test_compiled_loss_matches_eager():
    """Under a trace the indices cannot be checked on the host: the filling gather is kept there."""
    rng = np.random.default_rng(2)
    w = tl.tensor(rng.standard_normal((10, 4)).astype(np.float32))
    idx = tl.tensor(rng.integers(0, 10, (3, 5)))
    y = tl.tensor(rng.integers(0, 4, (15,)))

    def f(w, idx, y):
        return TF.cross_entropy(TF.embedding(idx, w).view(15, 4), y)

    np.testing.assert_allclose(tl.compile(f)(w, idx, y).numpy(), f(w, idx, y).numpy(), rtol=1e-6)


# The host range check's one-reduction common case (``_views.all_in_range``: an unsigned max) and the closer look
# it falls back to: every index dtype, the bounds themselves, negative values, ignore_index in and out of range.
@pytest.mark.parametrize("dt", ["int64", "int32"])
@pytest.mark.parametrize("idx", [[0, 6, 3], [6, 6], [7, 0], [-1, 2], [-7, 1], [2 ** 31 - 1, 0]])
def test_embedding_index_bounds_like_torch(dt, idx):
    from tests.conftest import raises_like_torch, same_as_torch
    w = np.arange(14, dtype=np.float32).reshape(7, 2)
    if all(0 <= i < 7 for i in idx):
        same_as_torch(lambda m, w: m.nn.functional.embedding(m.tensor(idx, dtype=getattr(m, dt)), w), w)
        same_as_torch(lambda m, w: m.nn.functional.embedding(m.tensor(idx, dtype=getattr(m, dt)), w,
                                                             padding_idx=-1), w)
    else:
        raises_like_torch(lambda m: m.nn.functional.embedding(m.tensor(idx, dtype=getattr(m, dt)), m.tensor(w)))


@pytest.mark.parametrize("dt", ["int64", "uint8"])
@pytest.mark.parametrize("case", ["in_range", "top", "ignored_default", "ignored_in_range", "ignored_negative",
                                  "over", "negative", "ignore_is_over"])
@pytest.mark.parametrize("kw", [{}, {"reduction": "sum"}, {"reduction": "none"}, {"label_smoothing": 0.1},
                                {"weight": True}])
def test_cross_entropy_target_bounds_like_torch(dt, case, kw):
    from tests.conftest import raises_like_torch, same_as_torch
    t, ign = {"in_range": ([0, 5, 2, 1], -100), "top": ([5, 5, 5, 0], -100),
              "ignored_default": ([0, -100, 3, 3], -100), "ignored_in_range": ([0, 2, 3, 2], 2),
              "ignored_negative": ([-1, 4, 0, -1], -1), "over": ([0, 6, 1, 1], -100),
              "negative": ([0, -2, 1, 1], -100), "ignore_is_over": ([9, 1, 9, 0], 9)}[case]
    if dt == "uint8" and min(t) < 0:
        pytest.skip("a negative target has no uint8 form")
    if dt == "uint8" and case == "over" and kw.get("reduction") == "none":
        pytest.skip("torch's reduction='none' kernel prints a uint8 target as a character ('Target \\x06 is out of "
                    "bounds.'); torchlike prints the number, as torch's other reductions do: an open difference of "
                    "the message, not of this check")
    x = np.random.default_rng(3).standard_normal((4, 6)).astype(np.float32)
    wv = np.linspace(0.5, 2.0, 6).astype(np.float32)

    def fn(m, x):
        k = dict(kw)
        if k.pop("weight", None):
            k["weight"] = m.tensor(wv)
        return m.nn.functional.cross_entropy(x, m.tensor(t, dtype=getattr(m, dt)), ignore_index=ign, **k)
    if case in ("over", "negative"):
        raises_like_torch(lambda m: fn(m, m.tensor(x)))
    else:
        same_as_torch(fn, x)
