"""The XLA compiler options of eager programs (torchlike/_jit_cache.py, ``set_eager_compile_options``):
opted in ("quick"), per-op forwards, pullbacks and fused backwards on the CPU backend compile at LLVM -O1
with XLA's classic loop emitters (cheaper compiles of a new shape's programs).  Behaviour only (which options a program
carries, results against torch, calls made while JAX traces, errors), no timing."""

import numpy as np
import pytest

import torchlike
from torchlike import _dispatch, _jit_cache
from _fma_op import _data, _fma, _run, backward_in_fresh_process
from conftest import raises_like_torch

torch = pytest.importorskip("torch", reason="torch is the oracle for the results")
jax = pytest.importorskip("jax", reason="the test op is a JAX function")
jnp = jax.numpy


@pytest.fixture(autouse=True)
def _default_options():
    torchlike.set_tiered_compile(0)
    torchlike.set_eager_compile_options("quick")
    torchlike.clear_caches()
    yield
    torchlike.set_eager_compile_options(None)
    torchlike.set_tiered_compile(None)
    torchlike.clear_caches()


def _torch_fma(x, w):
    tx, tw = torch.tensor(x), torch.tensor(w)
    return (tx * tw + 0.5 * tx).numpy()


def _options_of(entry, *args):
    """The compiler options the entry's jit lowers with (JAX keeps them on its lowering)."""
    kvs = getattr(entry.fn.lower(*args)._lowering, "_compiler_options_kvs", False)
    if kvs is False:
        pytest.skip("this jax keeps a lowering's compiler options elsewhere")
    return dict(kvs or ())


@pytest.mark.skipif(jax.default_backend() != "cpu", reason="the options apply on the CPU backend only")
def test_eager_programs_carry_the_options_and_match_torch():
    x, w = _data(3)
    out = _run(x, w).numpy()
    e = _dispatch.forward_fn(_fma, ())
    assert _options_of(e, jnp.asarray(x), jnp.asarray(w)) == _jit_cache._EAGER_OPTIONS
    # XLA's classic emitters do not contract the multiply feeding the add into an FMA: torch's bits,
    # which rounds each of its three ops
    np.testing.assert_array_equal(out, _torch_fma(x, w))
    torchlike.set_eager_compile_options({})  # XLA's defaults, for functions cached from now on
    torchlike.clear_caches()
    out2 = _run(x, w).numpy()
    e2 = _dispatch.forward_fn(_fma, ())
    assert e2 is not e and e2.raw is None
    assert _options_of(e2, jnp.asarray(x), jnp.asarray(w)) == {}
    np.testing.assert_allclose(out2, out, rtol=1.3e-6, atol=1e-6)  # XLA's default emitters: an FMA


def _mlp_steps(lib, sizes):
    lib.manual_seed(0)
    lin1, lin2 = lib.nn.Linear(7, 5), lib.nn.Linear(5, 3)
    rng = np.random.default_rng(1)
    with lib.no_grad():
        for p in (lin1.weight, lin1.bias, lin2.weight, lin2.bias):
            p.copy_(lib.tensor(rng.standard_normal(tuple(p.shape)).astype(np.float32)))
    opt = lib.optim.SGD([lin1.weight, lin1.bias, lin2.weight, lin2.bias], lr=0.05)
    out = []
    for n in sizes:  # new shapes, a repeated one (its fused backward), per-node pullbacks on first sightings
        x = lib.tensor(np.random.default_rng(n).standard_normal((n, 7)).astype(np.float32))
        opt.zero_grad()
        loss = lib.nn.functional.gelu(lin2(lib.relu(lin1(x)))).pow(2).mean()
        loss.backward()
        out.append((loss.item(), lin1.weight.grad.numpy().copy(), lin2.weight.grad.numpy().copy()))
        opt.step()
    return out


@pytest.mark.parametrize("options", ["quick", None], ids=["quick", "default"])
def test_training_at_new_shapes_matches_torch(options):
    torchlike.set_eager_compile_options(options)
    sizes = (3, 9, 4, 9, 9, 1)
    for (l, g1, g2), (lr, r1, r2) in zip(_mlp_steps(torchlike, sizes), _mlp_steps(torch, sizes)):
        assert abs(l - lr) <= 1e-5 * max(1.0, abs(lr))
        np.testing.assert_allclose(g1, r1, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(g2, r2, rtol=1e-5, atol=1e-6)


def test_an_op_with_options_called_while_jax_traces_uses_the_plain_jit():
    """JAX accepts compiler options only on a top-level jit: the same cached op inside
    torchlike.compile, jax.jit and jax.grad runs its jit without options (and torch's results)."""
    x, w = _data(3)
    _run(x, w)  # the entry exists, with options

    @torchlike.compile
    def f(a, b):
        return _dispatch.dispatch(_fma, (a, b), name="Fma").sum()

    got = f(torchlike.tensor(x), torchlike.tensor(w)).item()
    ja, jw = jnp.asarray(x), jnp.asarray(w)
    traced = jax.jit(lambda a, b: _dispatch.dispatch(_fma, (torchlike.from_jax(a), torchlike.from_jax(b)),
                                                     name="Fma")._value)(ja, jw)
    grad = jax.grad(lambda a: _dispatch.dispatch(_fma, (torchlike.from_jax(a), torchlike.from_jax(jw)),
                                                 name="Fma")._value.sum())(ja)
    tx, tw = torch.tensor(x, requires_grad=True), torch.tensor(w)
    ref = tx * tw + 0.5 * tx
    ref.sum().backward()
    assert abs(got - float(ref.sum().detach())) <= 1e-4
    np.testing.assert_allclose(np.asarray(traced), ref.detach().numpy(), rtol=1.3e-6, atol=1e-5)
    np.testing.assert_allclose(np.asarray(grad), tx.grad.numpy(), rtol=1.3e-6, atol=1e-6)
    # the eager hot path is untouched by the traced calls
    np.testing.assert_allclose(_run(x, w).numpy(), ref.detach().numpy(), rtol=1.3e-6, atol=1e-5)


def test_errors_of_ops_with_options_read_like_torch():
    raises_like_torch(lambda m: m.ones(2, 3) + m.ones(4, 5))
    raises_like_torch(lambda m: m.ones(2, 3) @ m.ones(4, 5))


def test_the_default_is_xla_defaults_and_the_env_var_opts_in():
    torchlike.set_eager_compile_options(None)
    torchlike.clear_caches()
    x, w = _data(2)
    _run(x, w)
    assert _dispatch.forward_fn(_fma, ()).raw is None
    with pytest.raises(ValueError, match="expected 'quick'"):
        torchlike.set_eager_compile_options("fast")
    assert backward_in_fresh_process({"TORCHLIKE_EAGER_COMPILE_OPTIONS": "1"},
                                     "any(e.raw is not None for e in _jit_cache._Budget.clock)",
                                     imports="from torchlike import _jit_cache\n") == ["True", "[2.0, 2.0, 2.0]\n"]


def test_gpu_backend_compiles_eager_programs_without_autotuning(monkeypatch):
    # on a GPU, eager programs skip XLA's GEMM/fusion autotuning (bench/gpu_results.md: GPT-mini's first
    # eager step 60.5 s -> 8.7 s on an H200); TORCHLIKE_GPU_AUTOTUNE=1 restores it; the CPU keeps its own
    torchlike.set_eager_compile_options(None)
    assert _jit_cache._options() is None  # this CPU machine: XLA's defaults
    monkeypatch.setattr(jax, "default_backend", lambda: "gpu")
    assert _jit_cache._options() == {"xla_gpu_autotune_level": 0}
    monkeypatch.setenv("TORCHLIKE_GPU_AUTOTUNE", "1")
    assert _jit_cache._env_gpu_options() == {}
    monkeypatch.setattr(_jit_cache._Tier, "gpu_options", _jit_cache._env_gpu_options())
    assert _jit_cache._options() is None


def test_gpu_options_are_ignored_by_the_cpu_compiler():
    # a CPU tensor's eager program on a GPU machine carries the GPU options: XLA's CPU compiler ignores them
    x, w = _data(16)
    plain = jax.jit(_fma)(jnp.asarray(x), jnp.asarray(w))
    tuned = jax.jit(_fma, compiler_options={"xla_gpu_autotune_level": 0})(jnp.asarray(x), jnp.asarray(w))
    np.testing.assert_array_equal(np.asarray(plain), np.asarray(tuned))
    np.testing.assert_allclose(np.asarray(tuned), _torch_fma(x, w), rtol=1e-6)
