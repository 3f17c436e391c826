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
