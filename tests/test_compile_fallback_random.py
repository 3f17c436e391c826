"""``torch._inductor.config.fallback_random = True`` makes random ops in compiled code draw as eager code does
(torch's switch for comparing compiled and eager runs; gpt-fast's compiled sampling, dropout in a compiled
training step). torchlike's compiled CPU draws then run torch's eager kernels on the generator's MT19937 stream
at run time (an ordered ``io_callback``), so they equal torch's eager values, in program order, and eager code
after the call continues the same stream."""
import numpy as np
import pytest

import torchlike

torch = pytest.importorskip("torch", reason="the expected values come from real torch")


def _draws(lib, x):
    F = lib.nn.functional
    q = lib.empty_like(x).exponential_(1)
    return [lib.argmax(x / q, dim=-1), F.dropout(x, 0.5, training=True), lib.rand(3), lib.randn(2, 5),
            lib.randint(0, 10, (6,)), lib.empty(7).uniform_(-2, 3), lib.empty(5).normal_(1.0, 2.0),
            lib.empty(9).bernoulli_(0.3), lib.rand_like(x, dtype=lib.float64), lib.randn(3, dtype=lib.bfloat16)]


def _run(lib, fn, x):
    lib.manual_seed(7)
    first = fn(x)
    between = lib.rand(4)  # eager, after a compiled call: the stream continues where the program left it
    second = fn(x)
    return [t.float().numpy() for t in first + [between] + second]


@pytest.mark.parametrize("fullgraph", [True, False])
def test_compiled_draws_equal_torchs_eager_draws(fullgraph):
    x0 = np.random.default_rng(0).random((4, 10)).astype(np.float32)
    expected = _run(torch, lambda x: _draws(torch, x), torch.tensor(x0))
    with torchlike._inductor.config.patch(fallback_random=True):
        compiled = torchlike.compile(lambda x: _draws(torchlike, x), fullgraph=fullgraph)
        got = _run(torchlike, compiled, torchlike.tensor(x0))
        again = _run(torchlike, compiled, torchlike.tensor(x0))  # the cached program draws again at run time
    for e, g, a in zip(expected, got, again):
        np.testing.assert_array_equal(g, e)
        np.testing.assert_array_equal(a, e)


def test_compiled_training_step_with_dropout_matches_torchs_eager_step():
    def steps(lib, compile_it):
        lib.manual_seed(0)
        m = lib.nn.Sequential(lib.nn.Linear(6, 8), lib.nn.Dropout(0.3), lib.nn.ReLU(), lib.nn.Linear(8, 1))
        fwd = torchlike.compile(m) if compile_it else m
        x = lib.randn(5, 6)
        lib.manual_seed(3)
        out = []
        for _ in range(3):
            m.zero_grad()
            loss = fwd(x).pow(2).mean()
            loss.backward()
            out.append((loss.item(), m[0].weight.grad.numpy().copy()))
        return out

    expected = steps(torch, False)
    with torchlike._inductor.config.patch(fallback_random=True):
        got = steps(torchlike, True)
    for (le, ge), (lg, gg) in zip(expected, got):
        assert lg == pytest.approx(le, rel=1e-6)
        np.testing.assert_allclose(gg, ge, rtol=1e-5, atol=1e-7)


def test_without_fallback_random_compiled_draws_leave_torchs_stream_alone():
    # the default: compiled draws come from the generator's JAX key, the MT19937 stream does not move
    compiled = torchlike.compile(lambda x: x + torchlike.rand(3))
    torchlike.manual_seed(5)
    compiled(torchlike.zeros(3))
    after = torchlike.rand(2).numpy()
    torch.manual_seed(5)
    np.testing.assert_array_equal(after, torch.rand(2).numpy())
