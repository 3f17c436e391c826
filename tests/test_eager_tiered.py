"""Tiered compilation of eager programs (torchlike/_jit_cache.py): a shape's first call runs a quickly
compiled program, a repeated shape moves to the fully optimized one, and the results are torch's on
either tier.  Behaviour only (which tier an entry uses, results), no timing."""

import numpy as np
import pytest

import torchlike
from torchlike import _dispatch, _jit_cache
from _fma_op import _data, _fma, _run, backward_in_fresh_process

torch = pytest.importorskip("torch", reason="torch is the oracle for the results")

jnp = pytest.importorskip("jax.numpy", reason="the test op is a JAX function")


@pytest.fixture(autouse=True)
def _default_tiering():
    torchlike.set_tiered_compile(1)  # opt in (the default is off)
    yield
    torchlike.set_tiered_compile(None)


def _entry():
    return _dispatch.forward_fn(_fma, ())


def _args(n):
    x, w = _data(n)
    return jnp.asarray(x), jnp.asarray(w)


def test_a_shape_seen_once_runs_quick_and_matches_torch():
    torchlike.clear_caches()
    x, w = _data(3)
    out = _run(x, w)
    e = _entry()
    assert _jit_cache.tier_of(e, *_args(3)) == "quick"
    assert torchlike.cache_info()["quick"] >= 1
    np.testing.assert_allclose(out.numpy(), (torch.tensor(x) * torch.tensor(w) + 0.5 * torch.tensor(x)).numpy(),
                               rtol=1.3e-6, atol=1e-5)


def test_a_repeated_shape_is_promoted_and_still_matches_torch():
    torchlike.clear_caches()
    before = torchlike.cache_info()["promotions"]
    x, w = _data(4)
    expect = (torch.tensor(x) * torch.tensor(w) + 0.5 * torch.tensor(x)).numpy()
    first = _run(x, w).numpy()
    second = _run(x, w).numpy()  # the second call of the shape: recompiled at full optimization
    assert _jit_cache.tier_of(_entry(), *_args(4)) == "full"
    assert torchlike.cache_info()["promotions"] == before + 1
    for out in (first, second):
        np.testing.assert_allclose(out, expect, rtol=1.3e-6, atol=1e-5)
    # another shape is still new: quick
    _run(*_data(5))
    assert _jit_cache.tier_of(_entry(), *_args(5)) == "quick"


def test_a_settled_function_calls_its_jit_directly_and_routes_again_on_a_new_shape():
    torchlike.clear_caches()
    x, w = _data(6)
    for _ in range(2 + _jit_cache._Tier.settle):
        _run(x, w)
    e = _entry()
    assert e.fn is e.tiers.hi and e.jitted  # settled: the hot path calls the full jit, no routing
    assert e.tiers.lo._cache_size() == 0  # the quick programs were released
    # a new shape on a settled function compiles at full optimization once, then the function routes again
    out = _run(*_data(8)).numpy()
    assert not e.jitted and e.fn == e._route
    assert _jit_cache.tier_of(e, *_args(8)) == "full"
    _run(*_data(9))
    assert _jit_cache.tier_of(e, *_args(9)) == "quick"
    x8, w8 = (torch.tensor(a) for a in _data(8))
    np.testing.assert_allclose(out, (x8 * w8 + 0.5 * x8).numpy(), rtol=1.3e-6, atol=1e-5)


def _mlp_grads(lib, n, steps):
    lib.manual_seed(0)
    lin1, lin2 = lib.nn.Linear(7, 5), lib.nn.Linear(5, 3)
    with lib.no_grad():
        rng = np.random.default_rng(1)
        for p in (lin1.weight, lin1.bias, lin2.weight, lin2.bias):
            p.copy_(lib.tensor(rng.standard_normal(tuple(p.shape)).astype(np.float32)))
    x = lib.tensor(np.random.default_rng(n).standard_normal((n, 7)).astype(np.float32))
    out = []
    for _ in range(steps):
        for p in (lin1.weight, lin2.weight):
            p.grad = None
        loss = lib.nn.functional.gelu(lin2(lib.relu(lin1(x)))).pow(2).mean()
        loss.backward()
        out.append((loss.item(), lin1.weight.grad.numpy().copy(), lin2.weight.grad.numpy().copy()))
    return out


def test_training_steps_match_torch_on_both_tiers():
    """Forward, per-node pullbacks (first backward) and the fused backward (from the second) at a new
    shape (quick programs) and after promotion (full programs) give torch's loss and gradients."""
    torchlike.clear_caches()
    got, ref = _mlp_grads(torchlike, 11, 12), _mlp_grads(torch, 11, 12)
    for (l, g1, g2), (lr, r1, r2) in zip(got, ref):
        assert abs(l - lr) <= 1e-5 * max(1.0, abs(lr))
        np.testing.assert_allclose(g1, r1, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(g2, r2, rtol=1e-5, atol=1e-6)
    assert torchlike.cache_info()["promotions"] > 0


def test_tiering_off_compiles_full_programs():
    torchlike.clear_caches()
    torchlike.set_tiered_compile(0)
    x, w = _data(3)
    out = _run(x, w)
    e = _entry()
    assert e.tiers is None and _jit_cache.tier_of(e, *_args(3)) == "full"
    assert torchlike.cache_info()["quick"] == 0
    np.testing.assert_allclose(out.numpy(), (torch.tensor(x) * torch.tensor(w) + 0.5 * torch.tensor(x)).numpy(),
                               rtol=1.3e-6, atol=1e-5)


def test_promotion_after_n_calls():
    torchlike.clear_caches()
    torchlike.set_tiered_compile(3)
    x, w = _data(2)
    for k in range(4):  # three calls on the quick program, the fourth on the full one
        _run(x, w)
        assert _jit_cache.tier_of(_entry(), *_args(2)) == ("full" if k == 3 else "quick")


def test_eviction_keeps_results_right():
    torchlike.clear_caches()
    x, w = _data(3)
    a = _run(x, w).numpy()
    torchlike.clear_caches()  # every program released, the entry dropped: recompiled on demand
    b = _run(x, w).numpy()
    np.testing.assert_allclose(a, b, rtol=1.3e-6, atol=1e-6)
    assert _jit_cache.tier_of(_entry(), *_args(3)) == "quick"


def test_env_var_turns_tiering_off():
    assert backward_in_fresh_process({"TORCHLIKE_TIERED_COMPILE": "0"},
                                     "torchlike.cache_info()['quick']") == ["0", "[2.0, 2.0, 2.0]\n"]


def test_a_quick_function_called_inside_a_trace_uses_the_plain_jit():
    """JAX accepts compiler options only on a top-level jit: an op whose function is still routing
    (quick tier) but is called while tracing (torchlike.compile, jax transforms) must not pass them."""
    torchlike.clear_caches()
    x, w = _data(3)
    _run(x, w)  # the entry exists and routes (quick tier for this shape)

    @torchlike.compile
    def f(a, b):
        return _dispatch.dispatch(_fma, (a, b), name="Fma").sum()

    got = f(torchlike.tensor(x), torchlike.tensor(w)).item()
    jax = pytest.importorskip("jax", reason="jax transform of the dispatcher")
    vjit = jax.jit(lambda a, b: _dispatch.dispatch(_fma, (torchlike.from_jax(a), torchlike.from_jax(b)),
                                                   name="Fma")._value)(*_args(3))
    tx, tw = torch.tensor(x), torch.tensor(w)
    assert abs(got - float((tx * tw + 0.5 * tx).sum())) <= 1e-4
    np.testing.assert_allclose(np.asarray(vjit), (tx * tw + 0.5 * tx).numpy(), rtol=1.3e-6, atol=1e-5)


@pytest.mark.parametrize("op", ["gelu", "layer_norm", "add_alpha", "fma"])
def test_the_default_quick_tier_gives_the_full_tiers_bits(op):
    """At the default quick level (1) a shape's first call (quick program) and its later calls (full
    program) give the same bits, and both match torch."""
    torchlike.clear_caches()
    rng = np.random.default_rng(7)
    a = rng.standard_normal((5, 13)).astype(np.float32) * 3
    b = rng.standard_normal((5, 13)).astype(np.float32)

    def run(lib):
        x, y = lib.tensor(a), lib.tensor(b)
        if op == "gelu":
            return lib.nn.functional.gelu(x)
        if op == "layer_norm":
            return lib.nn.functional.layer_norm(x, (13,))
        if op == "add_alpha":
            return lib.add(x, y, alpha=3)
        return x * y + 0.5 * x

    first = run(torchlike).numpy()
    later = [run(torchlike).numpy() for _ in range(3)]
    for out in later:
        np.testing.assert_array_equal(out, first)
    np.testing.assert_allclose(first, run(torch).numpy(), rtol=1.3e-6, atol=1e-5)
    assert torchlike.cache_info()["promotions"] >= 1


def test_quick_level_zero_matches_torch_within_tolerance():
    torchlike.clear_caches()
    torchlike.set_tiered_compile(1, level=0)
    x, w = _data(3)
    out = _run(x, w)
    assert _jit_cache.tier_of(_entry(), *_args(3)) == "quick"
    assert _entry().tiers.lo is not None
    tx, tw = torch.tensor(x), torch.tensor(w)
    np.testing.assert_allclose(out.numpy(), (tx * tw + 0.5 * tx).numpy(), rtol=1.3e-6, atol=1e-5)
