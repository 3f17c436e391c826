"""torchlike.compile(dynamic=None): after the first batch-size change the function is traced once with
a symbolic dim 0 (torch's "automatic dynamic"), instead of once per size."""
import numpy as np
import pytest

import torchlike

torch = pytest.importorskip("torch", reason="torch is the oracle for the values")


def test_auto_dynamic_after_first_size_change():
    torchlike.manual_seed(0)
    m = torchlike.nn.Sequential(torchlike.nn.Linear(4, 8), torchlike.nn.ReLU(), torchlike.nn.Linear(8, 2))
    tm = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2))
    tm.load_state_dict({k: torch.tensor(v.detach().numpy()) for k, v in m.state_dict().items()})
    cm = torchlike.compile(m)
    for n in (3, 5, 7, 9, 5):
        x = np.random.default_rng(n).standard_normal((n, 4)).astype(np.float32)
        np.testing.assert_allclose(cm(torchlike.tensor(x)).detach().numpy(),
                                   tm(torch.tensor(x)).detach().numpy(), rtol=1e-5, atol=1e-6)
    assert cm._compiled.compile_count == 2  # the first size, then one symbolic program for all others


def test_other_guard_changes_do_not_turn_dynamic():
    f = torchlike.compile(lambda x: x * 2)
    f(torchlike.ones(3))
    f(torchlike.ones(3, dtype=torchlike.float64))
    assert not f._auto_dynamic and f.compile_count == 2


def test_symbolic_trace_that_needs_concrete_sizes_is_tried_once():
    """A function that needs a concrete batch size (int(x.shape[0]) in arithmetic) fails its symbolic
    trace once; later sizes compile per shape without re-trying (and re-tracing) symbolically."""
    import torchlike
    import types
    calls = types.SimpleNamespace(n=0)  # (an attribute: a list or counter the trace changes runs f eagerly)

    def f(x):
        calls.n += 1
        return x.sum() * (int(x.shape[0]) % 3)

    cf = torchlike.compile(f)
    import torch
    for n in (3, 4, 5, 6):
        x = torch.arange(float(n))
        assert cf(torchlike.arange(float(n))).item() == (x.sum() * (n % 3)).item()
    # traces: size 3, size 4 symbolic (fails) + concrete, size 5, size 6
    assert calls.n == 5
