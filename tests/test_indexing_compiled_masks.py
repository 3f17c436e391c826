"""``t[mask] = v`` and ``index_put(t, (mask,), v)`` under ``torchlike.compile`` with a traced bool mask: one
graph (torch's compiler captures them too), written as ``where`` - values, dtypes and gradients against torch.
A value with one entry per selected element still needs the mask's count: that call breaks the graph and
runs eagerly (same result)."""
import numpy as np
import pytest
import torch

import torchlike

X = np.random.default_rng(0).standard_normal((4, 3, 5)).astype(np.float32)


def _set(index_fn, value_fn):
    def f(t, x):
        x = x.clone()
        x[index_fn(t, x)] = value_fn(t, x)
        return x
    return f


CASES = {
    "scalar": _set(lambda t, x: x > 0, lambda t, x: 0.0),
    "int_scalar_on_float": _set(lambda t, x: x > 0.5, lambda t, x: 7),
    "0d_float64_tensor": _set(lambda t, x: x < 0, lambda t, x: t.tensor(2.5, dtype=t.float64)),
    "one_element_tensor": _set(lambda t, x: x < 0, lambda t, x: t.tensor([3.0])),
    "leading_mask_row_value": _set(lambda t, x: x[:, 0, 0] > 0, lambda t, x: t.arange(5.0)),
    "leading_mask_block_value": _set(lambda t, x: x[:, :, 0] > 0, lambda t, x: t.arange(5.0)[None]),
    "mask_after_slice": (lambda t, x: _slice_put(t, x)),
    "ellipsis_then_mask": _set(lambda t, x: (Ellipsis, x[0, 0] > 0), lambda t, x: -1.0),
    "int_then_mask": _set(lambda t, x: (1, x[1] > 0), lambda t, x: 9.0),
    "none_then_mask": _set(lambda t, x: (None, x > 0), lambda t, x: 4.0),
    "index_put": lambda t, x: t.index_put(x, (x > 0,), t.tensor(1.5)),
    "index_put_accumulate": lambda t, x: t.index_put(x, (x[:, 0, 0] > 0,), t.ones(3, 5), accumulate=True),
    "index_put_": lambda t, x: x.clone().index_put_((x[..., 0] < 0,), t.tensor(-2.0)),
}


def _slice_put(t, x):
    x = x.clone()
    x[:, x[0, :, 0] > 0] = 5.0
    return x


@pytest.mark.parametrize("name", sorted(CASES))
def test_traced_mask_write_is_one_graph_and_matches_torch(name):
    fn = CASES[name]
    expected = fn(torch, torch.tensor(X))
    got = torchlike.compile(lambda x: fn(torchlike, x), fullgraph=True)(torchlike.tensor(X))
    assert got.dtype is getattr(torchlike, str(expected.dtype).split(".")[1])
    np.testing.assert_array_equal(got.numpy(), expected.numpy())


@pytest.mark.parametrize("accumulate", [False, True])
def test_traced_mask_write_gradients(accumulate):
    w = np.random.default_rng(1).standard_normal(X.shape).astype(np.float32)

    def f(t, x, v, wt):
        y = x * 2
        if accumulate:
            y = t.index_put(y, (x[:, 0, 0] > 0,), v, accumulate=True)
        else:
            y[x > 0] = v
        return (y * wt).sum()

    v0 = np.float32(0.75) if not accumulate else np.full((3, 5), 0.75, np.float32)
    tx, tv = torch.tensor(X, requires_grad=True), torch.tensor(v0, requires_grad=True)
    f(torch, tx, tv, torch.tensor(w)).backward()
    lx, lv = torchlike.tensor(X, requires_grad=True), torchlike.tensor(v0, requires_grad=True)
    out = torchlike.compile(lambda a, b: f(torchlike, a, b, torchlike.tensor(w)), fullgraph=True)(lx, lv)
    out.backward()
    np.testing.assert_allclose(lx.grad.numpy(), tx.grad.numpy(), rtol=1e-6)
    np.testing.assert_allclose(lv.grad.numpy(), tv.grad.numpy(), rtol=1e-5)


def test_value_per_selected_element_still_breaks_and_runs_eagerly():
    def f(t, x):
        x = x.clone()
        m = x > 0
        x[m] = t.arange(int(np.sum(X > 0)), dtype=t.float32)
        return x
    expected = f(torch, torch.tensor(X))
    got = torchlike.compile(lambda x: f(torchlike, x))(torchlike.tensor(X))
    np.testing.assert_array_equal(got.numpy(), expected.numpy())
    with pytest.raises(torchlike._dynamo.exc.Unsupported):
        torchlike.compile(lambda x: f(torchlike, x), fullgraph=True)(torchlike.tensor(X))


def test_mask_shape_mismatch_keeps_torchs_error():
    def f(t, x):
        x = x.clone()
        x[t.ones(3, dtype=t.bool)] = 1.0
        return x
    with pytest.raises(IndexError, match="The shape of the mask"):
        f(torch, torch.tensor(X))
    with pytest.raises(IndexError, match="The shape of the mask"):
        torchlike.compile(lambda x: f(torchlike, x))(torchlike.tensor(X))


@pytest.mark.parametrize("mask_fn", [lambda x: x > 0, lambda x: x[0, 0] > 0, lambda x: x[:, :1, :] < 0])
def test_masked_scatter_with_traced_mask_is_one_graph(mask_fn):
    src = np.arange(60, dtype=np.float32) * 0.5
    w = np.random.default_rng(2).standard_normal(X.shape).astype(np.float32)

    def f(t, x, s):
        return (x.masked_scatter(mask_fn(x), s) * t.tensor(w)).sum(), x.masked_scatter(mask_fn(x), s)

    tx, ts = torch.tensor(X, requires_grad=True), torch.tensor(src, requires_grad=True)
    tl, tout = f(torch, tx, ts)
    tl.backward()
    lx, ls = torchlike.tensor(X, requires_grad=True), torchlike.tensor(src, requires_grad=True)
    ll, lout = torchlike.compile(lambda a, b: f(torchlike, a, b), fullgraph=True)(lx, ls)
    ll.backward()
    np.testing.assert_array_equal(lout.detach().numpy(), tout.detach().numpy())
    np.testing.assert_array_equal(lx.grad.numpy(), tx.grad.numpy())
    np.testing.assert_array_equal(ls.grad.numpy(), ts.grad.numpy())
