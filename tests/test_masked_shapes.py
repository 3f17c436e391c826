"""Data-dependent shapes (issue 10): boolean masks, ``masked_select``, ``nonzero``, ``unique`` make a new row count
at each call, and the programs after them run at padded row counts (``torchlike._row_buckets``).  Values, dtypes,
shapes and gradients are torch's at every mask density (empty and full masks, 0-d, non-contiguous inputs), and a
new count inside a warmed bucket compiles nothing (forward, backward and the engine's gradient sums)."""
import numpy as np
import pytest

import torchlike
from conftest import XlaCompiles, raises_like_torch, same_as_torch

torch = pytest.importorskip("torch", reason="torch is the oracle for the values")



def _select_rows(m, x, keep):
    return (x[keep] * 2).tanh() + x[keep].exp()


def _two_dim_mask(m, x, keep):
    y = x.reshape(8, 8, 3)
    return y[keep.reshape(8, 8)].sin() * y[keep.reshape(8, 8)]


def _masked_select(m, x, keep):
    return m.masked_select(x, keep[:, None]).cos()


def _valid_mean(m, x, keep):
    loss = (x ** 2).sum(-1)
    return loss[keep].mean()


def _nonzero(m, x, keep):
    idx = keep.nonzero()
    return x[idx[:, 0]].sigmoid(), idx, m.nonzero(keep, as_tuple=True)[0]


def _detection(m, x, keep):  # positives by IoU, their box regression loss
    boxes, targets = x[:, :2], x[:, 1:]
    pos = keep & (x[:, 0] > -3)
    return m.nn.functional.smooth_l1_loss(boxes[pos], targets[pos], reduction="sum"), pos.sum()


def _episode_mask(m, x, keep):  # RL: advantages of the steps inside an episode, normalised
    adv = x[:, 0] * 0.9 + x[:, 1]
    a = adv[keep]
    return (a - a.mean()) ** 2, m.where(keep, adv, m.zeros_like(adv))


def _write_back(m, x, keep):  # nflows' spline: the selected rows computed apart and written back
    out = m.zeros_like(x)
    out[~keep] = x[~keep]
    out[keep] = (x[keep] * 3).tanh()
    return out * x


def _non_contiguous(m, x, keep):
    return x.t()[:, keep].t().exp() + x[keep]


def _unique(m, x, keep):
    labels = (x[:, 0] * 3).floor().to(m.int64)
    return m.unique(labels[keep], return_counts=True, sorted=True), x[keep].sum(0)


def _linear_on_selected(m, x, keep):  # a layer on the selected rows: its weight gradient sums over them
    w = x[:3, :].t() * 0.5
    keep = keep | (m.arange(64) == 0)  # (amax of no row is an error)
    h = x[keep] @ w
    return h.relu().sum(0), h.prod(0), (h * h).sum() / keep.sum(), h.amax(0), h.argmax(0)


WORKLOADS = [_select_rows, _two_dim_mask, _masked_select, _valid_mean, _nonzero, _detection, _episode_mask,
             _write_back, _non_contiguous, _unique, _linear_on_selected]


@pytest.mark.parametrize("fn", WORKLOADS, ids=lambda f: f.__name__.strip("_"))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_values_and_gradients_match_torch_at_every_mask_density(fn, dtype):
    rng = np.random.default_rng(7)
    densities = [0.0, 1.0] + list(rng.uniform(0, 1, 14))  # counts landing in buckets of 8, 16, 32, 64 rows
    for p in densities:
        x = rng.standard_normal((64, 3)).astype(dtype)
        keep = rng.uniform(size=64) < p
        same_as_torch(fn, x, keep, quiet=True)


def test_zero_dim_and_errors_as_torch():
    same_as_torch(lambda m, x: (x[m.tensor(True)] * 2, x[m.tensor(False)]), np.array(3.0, np.float32))
    rng = np.random.default_rng(3)
    for n in (5, 9, 13, 17, 21):  # past PAD_AFTER compiled shapes: the padded programs' error path too
        x = rng.standard_normal((n, 2)).astype(np.float32)
        same_as_torch(lambda m, x: x[x[:, 0] > 0].exp(), x)
        raises_like_torch(lambda m, x: x[m.ones(n + 1, dtype=m.bool)], x)


def _train_step(lib, x, w, keep):
    """A masked training step: the selected rows through a small spline-like computation, written back, the
    loss over the valid rows; the gradients reach the leaves through the mask's scatter-add and gradient sums."""
    sel = x[keep]
    s = lib.softmax(w[keep, :], -1)
    c = lib.cumsum(s, -1)
    out = lib.zeros_like(x)
    out[~keep] = x[~keep]
    out[keep] = (sel * 2 + 1).tanh() * c[..., 3] + lib.log(s.sum(-1))
    loss = (out ** 2)[keep].mean() + out.sum()
    loss.backward()
    return loss


def test_a_new_count_in_a_warmed_bucket_compiles_nothing():
    rng = np.random.default_rng(0)
    wn = rng.standard_normal((128, 5)).astype(np.float32)

    def step(count, check=False):
        keep = np.zeros(128, bool)
        keep[rng.permutation(128)[:count]] = True
        xn = rng.uniform(-1, 1, 128).astype(np.float32)
        x, w = torchlike.tensor(xn, requires_grad=True), torchlike.tensor(wn, requires_grad=True)
        with XlaCompiles() as c:
            loss = _train_step(torchlike, x, w, torchlike.tensor(keep))
            got = loss.item(), x.grad.numpy(), w.grad.numpy()
        if check:  # the padded programs' results are torch's
            tx, tw = torch.tensor(xn, requires_grad=True), torch.tensor(wn, requires_grad=True)
            tloss = _train_step(torch, tx, tw, torch.tensor(keep))
            np.testing.assert_allclose(got[0], tloss.item(), rtol=1e-5)
            np.testing.assert_allclose(got[1], tx.grad.numpy(), rtol=1e-5, atol=1e-6)
            np.testing.assert_allclose(got[2], tw.grad.numpy(), rtol=1e-5, atol=1e-6)
        return c.n

    for count in (40, 41, 42, 43, 44, 60, 61):  # exact programs, then the 64-row buckets (selected and the rest)
        step(count)
    # selected 45..58 -> the bucket of 64 rows; the rest 70..83 -> 128: counts never seen, buckets warmed
    compiled = [step(count, check=True) for count in (45, 50, 55, 58)]
    assert compiled == [0, 0, 0, 0], f"programs compiled for new counts inside warmed buckets: {compiled}"
