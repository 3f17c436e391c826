"""One vector-norm kernel behind linalg.vector_norm, norm, dist, pairwise_distance, renorm and
clip_grad_norm_: torch's values at inf / NaN / zero entries for every order (negative ones included), torch's
zero gradients at the origin and at zero entries, and renorm's half-precision rounding, bit for bit."""
import math

import numpy as np
import pytest
import torch

import torchlike

INF, NAN = math.inf, math.nan
ROWS = [[INF, 1.0, 2.0], [NAN, 1.0, 2.0], [0.0, 2.0, 3.0], [0.0, 0.0, 0.0], [-INF, 0.0, 1.0], [1.5, -2.0, 0.5]]
ORDS = [2.0, 1.0, 0.0, 3.0, 0.5, -1.0, -0.5, INF, -INF]

CALLS = {
    "vector_norm": lambda m, x, y, p: m.linalg.vector_norm(x, p, dim=1),
    "norm": lambda m, x, y, p: m.norm(x, p, dim=1),
    "dist_rows": lambda m, x, y, p: m.stack([m.dist(x[i], y[i], p) for i in range(len(ROWS))]),
    "pairwise_distance": lambda m, x, y, p: m.nn.functional.pairwise_distance(x, y, p, eps=0.0),
}


def _run(m, call, p, grad):
    x = m.tensor(ROWS, dtype=m.float64, requires_grad=grad)
    y = m.zeros(len(ROWS), 3, dtype=m.float64)
    out = CALLS[call](m, x, y, p)
    if not grad:
        return out.detach().numpy(), None
    out.sum().backward()
    return out.detach().numpy(), x.grad.numpy()


@pytest.mark.parametrize("p", ORDS)
@pytest.mark.parametrize("call", sorted(CALLS))
def test_values_at_extremal_and_zero_entries_match_torch(call, p):
    want, _ = _run(torch, call, p, grad=False)
    got, _ = _run(torchlike, call, p, grad=False)
    np.testing.assert_array_equal(np.asarray(got), want)


FINITE = [[0.0, 2.0, 3.0], [0.0, 0.0, 0.0], [1.5, -2.0, 0.5]]


@pytest.mark.parametrize("p", [2.0, 1.0, 3.0, 0.5, -1.0, -0.5, INF])
def test_gradients_at_zero_entries_match_torch(p):
    grads = []
    for m in (torch, torchlike):
        x = m.tensor(FINITE, dtype=m.float64, requires_grad=True)
        m.linalg.vector_norm(x, p, dim=1).sum().backward()
        grads.append(np.asarray(x.grad.numpy()))
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-12, atol=0)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("p", [1.0, 2.0, 3.0])
def test_renorm_half_is_bit_equal_to_torch(dtype, p):
    a = np.random.RandomState(0).randn(6, 9).astype(np.float32) * 3
    want = torch.tensor(a).to(getattr(torch, dtype)).renorm(p, 0, 2.5).float().numpy()
    got = torchlike.tensor(a).to(getattr(torchlike, dtype)).renorm(p, 0, 2.5).float().numpy()
    np.testing.assert_array_equal(np.asarray(got), want)


@pytest.mark.parametrize("p", [2.0, 1.0, 3.0, -1.0, INF])
def test_clip_grad_norm_total_matches_torch(p):
    totals = []
    for m in (torch, torchlike):
        ps = [m.nn.Parameter(m.ones(3)), m.nn.Parameter(m.ones(2))]
        ps[0].grad = m.tensor([3.0, 0.0, 4.0])
        ps[1].grad = m.tensor([1.0, 2.0])
        totals.append((m.nn.utils.clip_grad_norm_(ps, 1.0, norm_type=p).item(), ps[1].grad.tolist()))
    assert totals[1][0] == pytest.approx(totals[0][0], rel=1e-6)
    assert totals[1][1] == pytest.approx(totals[0][1], rel=1e-6)
