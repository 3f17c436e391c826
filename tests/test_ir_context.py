"""torchlike/_ir_context.py: JAX's lowerings reuse one MLIR context per thread, renewed after a bounded number of
lowerings; programs lowered in it (also from two threads at once) compute what they did with JAX's own contexts."""
import importlib.util
import threading

import numpy as np
import jax
import jax.numpy as jnp
from jax._src.interpreters import mlir

import torchlike
from torchlike import _ir_context


def test_installed_and_one_context_per_thread():
    assert _ir_context.installed()
    assert mlir.make_ir_context() is mlir.make_ir_context()
    mine = mlir.make_ir_context()
    other = []
    t = threading.Thread(target=lambda: other.append(mlir.make_ir_context()))
    t.start()
    t.join()
    assert other[0] is not mine


def test_context_renewed_after_its_lowerings(monkeypatch):
    monkeypatch.setattr(_ir_context, "_LOWERINGS_PER_CONTEXT", 3)
    first = mlir.make_ir_context()
    seen = [mlir.make_ir_context() for _ in range(6)]
    assert any(c is not first for c in seen)
    assert len({id(c) for c in seen}) >= 2


def test_programs_lowered_in_two_threads_at_once():
    results, errors = {}, []

    def work(k):
        try:
            for n in range(1, 25):  # a new shape each time: one lowering per call
                x = np.arange(n * (k + 2), dtype=np.float32).reshape(n, k + 2)
                got = jax.jit(lambda a: jnp.tanh(a) * 2 + a.sum())(x)
                np.testing.assert_allclose(np.asarray(got), np.tanh(x) * 2 + x.sum(), rtol=1e-5)
            results[k] = True
        except Exception as e:  # reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and results == {0: True, 1: True}


def test_torchlike_eager_new_shapes_still_match_numpy():
    for n in (3, 5, 7):
        a = np.linspace(-1, 1, n * 4, dtype=np.float32).reshape(n, 4)
        t = torchlike.tensor(a, requires_grad=True)
        (t.sin() * t).sum().backward()
        np.testing.assert_allclose(t.grad.numpy(), np.sin(a) + a * np.cos(a), rtol=1e-5, atol=1e-6)


def test_opt_out_keeps_jax_behaviour(monkeypatch):
    monkeypatch.setenv("TORCHLIKE_SHARED_IR_CONTEXT", "0")
    spec = importlib.util.spec_from_file_location("_ir_context_copy", _ir_context.__file__)
    copy = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(copy)
    before = mlir.make_ir_context
    copy.install()
    assert not copy.installed() and mlir.make_ir_context is before
