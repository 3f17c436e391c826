"""Row counts that change every step compile a bounded number of programs (issue 10: sbi's neural spline flow).

A boolean mask selects a data-dependent count of elements each step (nflows' rational-quadratic splines), so
every op after it, and its pullback, meets a new shape.  Row buckets (``torchlike._row_buckets``) run such
calls on a program compiled for a padded row count where that is exact, and a backward graph whose shapes
change is not compiled whole again and again (``autograd._fused``).  Values and gradients are torch's.
"""
import numpy as np
import pytest

import torchlike
from torchlike import _row_buckets

torch = pytest.importorskip("torch", reason="torch is the oracle for the values")


def _spline_like(lib, x, w):
    """nflows' pattern: split by a mask, compute on the selected rows, write them back."""
    inside = (x >= -1) & (x <= 1)
    out = lib.zeros_like(x)
    out[~inside] = x[~inside]
    sel = x[inside]
    s = lib.softmax(w[inside, :], -1)
    c = lib.cumsum(s, -1)
    out[inside] = (sel * 2 + 1).tanh() * c[..., 3] + lib.log(s.sum(-1))
    return (out ** 2).sum()


def _steps(n_steps, seed=0):
    rng = np.random.default_rng(seed)
    compiled = []
    for k in range(n_steps):  # step k selects 20 + k of 128 elements: a count never seen before
        xn = np.where(np.arange(128) < 20 + k, 0.5, 2.0).astype(np.float32) * rng.uniform(0.5, 1.5, 128)
        xn = rng.permutation(np.where(np.arange(128) < 20 + k, xn.clip(-1, 1), xn + 1)).astype(np.float32)
        wn = rng.standard_normal((128, 5)).astype(np.float32)
        x, w = torchlike.tensor(xn, requires_grad=True), torchlike.tensor(wn, requires_grad=True)
        loss = _spline_like(torchlike, x, w)
        loss.backward()
        tx, tw = torch.tensor(xn, requires_grad=True), torch.tensor(wn, requires_grad=True)
        tloss = _spline_like(torch, tx, tw)
        tloss.backward()
        np.testing.assert_allclose(loss.item(), tloss.item(), rtol=1e-5)
        np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(w.grad.numpy(), tw.grad.numpy(), rtol=1e-5, atol=1e-6)
        compiled.append(torchlike.cache_info()["compiled"])
    return compiled


def test_masked_loop_with_changing_counts_compiles_a_bounded_number_of_programs():
    torchlike.clear_caches()
    compiled = _steps(36)
    # the row counts (20..55 selected of 128, and the rest) are new at every step: each op after the mask and
    # its pullback compiled a program per step before row buckets (16 per step, 282 in the last 16 steps); now
    # only the buckets' programs (32, 64, 128 rows) and the 3 pullbacks that scatter-add rows (the masked
    # selections' gradients, which padding cannot reproduce exactly yet) compile per count
    late = compiled[-1] - compiled[-17]
    assert late <= 3 * 16 + 8, f"{late} programs compiled in the last 16 steps: {np.diff(compiled).tolist()}"


def test_padded_results_are_exact():
    """Padded calls give torch's values and shapes (row-wise ops, and max over rows, which a repeated last row
    does not change)."""
    rng = np.random.default_rng(1)
    for k in range(_row_buckets.PAD_AFTER + 3):
        n = 11 + 3 * k
        a = rng.standard_normal((n, 7)).astype(np.float32)
        t = torchlike.tensor(a)
        got = [torchlike.softmax(t, -1), torchlike.cumsum(t, 1), t.amax(0), t.exp().sum(1)]
        ref = [torch.softmax(torch.tensor(a), -1), torch.cumsum(torch.tensor(a), 1), torch.tensor(a).amax(0),
               torch.tensor(a).exp().sum(1)]
        for g, r in zip(got, ref):
            assert tuple(g.shape) == tuple(r.shape)
            np.testing.assert_allclose(g.numpy(), r.numpy(), rtol=2e-6, atol=1e-6)


def test_changing_out_features_give_the_unpadded_values():
    """Linear layers of different widths on one input (a BERT's heads and projections) call the same function
    with the weight's rows changing; a new width is not run padded, because XLA's CPU dot computes 96 columns
    padded to 128 differently in the last bits of most elements, so a call's value hung on the calls before it (a
    model run twice printed two results). Each width's values are its unpadded program's, close to torch's."""
    import jax
    from jax import lax
    rng = np.random.default_rng(2)
    xn = rng.standard_normal((4, 16, 32)).astype(np.float32)
    x = torchlike.tensor(xn)
    exact = jax.jit(lambda x, w, b: lax.dot_general(x, w, (((2,), (1,)), ((), ()))) + b)
    for n in (30, 31, 96, 33, 200):  # two widths compile exactly, then each new width is a candidate for padding
        wn, bn = rng.standard_normal((n, 32)).astype(np.float32), rng.standard_normal(n).astype(np.float32)
        got = torchlike.nn.functional.linear(x, torchlike.tensor(wn), torchlike.tensor(bn)).numpy()
        np.testing.assert_array_equal(got, np.asarray(exact(xn, wn, bn)))
        np.testing.assert_allclose(got, torch.nn.functional.linear(torch.tensor(xn), torch.tensor(wn),
                                                                   torch.tensor(bn)).numpy(), rtol=1e-5, atol=1e-5)


def test_row_analysis_accepts_row_wise_and_rejects_row_mixing():
    import jax
    import jax.numpy as jnp

    def verdict(fn, *shapes):
        leaves = [jax.ShapeDtypeStruct(s, jnp.float32) for s in shapes]
        return _row_buckets.rowwise_outputs(fn, leaves, jax.tree_util.tree_structure(tuple(leaves)), [0])

    assert verdict(lambda x: jax.nn.softmax(x, -1), (9, 4)) == [frozenset({0})]
    assert verdict(lambda x: x.max(), (9, 4)) == [frozenset()]  # a repeated row changes no max
    assert verdict(lambda x: x.sum(0), (9, 4)) is None  # a sum over rows would count the padding
    assert verdict(lambda x: jnp.cumsum(x, 0), (9, 4)) is None
    assert verdict(lambda x: x[::-1], (9, 4)) is None
    assert verdict(lambda x: x @ x.T, (9, 4)) is None  # rows times rows
    assert verdict(lambda x: x.reshape(-1), (9, 4)) is None  # the row count becomes 4 * N
    assert verdict(lambda x: x[:, None, 0] + x[None, :, 0], (9, 4)) is None  # every row with every row
    assert verdict(lambda x, w: x @ w, (9, 4), (4, 3)) == [frozenset({0})]
    assert verdict(lambda x: jnp.ones((5, 4)) @ x.T, (9, 4)) is None  # rows as the right operand's free axis


def test_bucket_sizes():
    assert [_row_buckets.bucket(n) for n in (1, 8, 9, 16, 17, 600)] == [8, 8, 16, 16, 32, 1024]
