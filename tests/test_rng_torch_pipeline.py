"""Generator state in torch's byte layout, OS seeding, and the data pipeline drawing as torch does; a
ported training program reproduces torch's weights, batches and loss curve.  Expected values come
from torch run with the same seeds."""
import itertools
import os
import subprocess
import sys
import time

import numpy as np
import pytest

import torchlike as tl

torch = pytest.importorskip("torch", reason="torch is the oracle for the random streams")


# --- state ------------------------------------------------------------------------------------------------
def test_rng_state_bytes_equal_torch_after_draws():
    for draws in (lambda m: None, lambda m: m.rand(5), lambda m: m.randn(3), lambda m: m.rand(700)):
        tl.manual_seed(9)
        torch.manual_seed(9)
        draws(tl)
        draws(torch)
        a, b = tl.get_rng_state(), torch.get_rng_state()
        assert a.dtype == tl.uint8 and tuple(a.shape) == (5056,)
        np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_torch_state_restores_in_torchlike_and_back():
    torch.manual_seed(123)
    torch.randn(3)  # leaves a cached normal in the state
    state = torch.get_rng_state()
    tl.set_rng_state(tl.tensor(state.numpy()))
    np.testing.assert_array_equal(tl.randn(5).numpy(), torch.randn(5).numpy())
    np.testing.assert_array_equal(tl.rand(700).numpy(), torch.rand(700).numpy())
    g = tl.Generator().manual_seed(77)
    tl.rand(3, generator=g)
    tg = torch.Generator()
    tg.set_state(torch.from_numpy(g.get_state().numpy().copy()))
    np.testing.assert_array_equal(tl.randn(20, generator=g).numpy(), torch.randn(20, generator=tg).numpy())
    assert tg.initial_seed() == g.initial_seed() == 77


def test_set_state_errors_match_torch():
    for bad in (tl.zeros(10, dtype=tl.uint8), tl.zeros(5056, dtype=tl.uint8)):
        with pytest.raises(RuntimeError) as e1:
            tl.Generator().set_state(bad)
        with pytest.raises(RuntimeError) as e2:
            torch.Generator().set_state(torch.from_numpy(bad.numpy()))
        assert str(e1.value) == str(e2.value)
    with pytest.raises(TypeError, match="RNG state must be a torch.ByteTensor"):
        tl.Generator().set_state(tl.zeros(5056))
    with pytest.raises(ValueError, match="Overflow when unpacking long long"):
        tl.manual_seed(2 ** 64)


def test_seed_low_32_bits_pick_stream_like_torch():
    for s in (2 ** 32 + 5, -1, 2 ** 64 - 1):
        tl.manual_seed(s)
        torch.manual_seed(s)
        assert tl.initial_seed() == torch.initial_seed()
        np.testing.assert_array_equal(tl.rand(4).numpy(), torch.rand(4).numpy())


def test_unseeded_processes_get_different_os_seeds():
    code = "import torchlike; print(torchlike.initial_seed(), torchlike.rand(2).tolist())"
    outs = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
            for _ in range(2)}
    assert len(outs) == 2
    s = tl.seed()
    assert tl.initial_seed() == s and 0 <= s < 2 ** 64


def test_fork_rng_restores_state():
    tl.manual_seed(1)
    with tl.random.fork_rng():
        a = tl.randn(3)
    np.testing.assert_array_equal(a.numpy(), tl.randn(3).numpy())


def test_compiled_code_keeps_jax_keys():
    # inside torchlike.compile the draws come from the generator's lifted JAX key: two calls differ
    @tl.compile
    def f(x):
        return x + tl.rand(4)
    tl.manual_seed(0)
    a, b = f(tl.zeros(4)), f(tl.zeros(4))
    assert not tl.equal(a, b)
    assert bool(((a >= 0) & (a < 1)).all())


# --- data pipeline ------------------------------------------------------------------------------------------
def _both(make):
    """make(module) -> list; run with each framework after the same seed."""
    tl.manual_seed(5)
    a = make(tl)
    torch.manual_seed(5)
    b = make(torch)
    return a, b


def _listify(x):
    if hasattr(x, "tolist"):
        return x.tolist()
    if isinstance(x, (list, tuple)):
        return [_listify(v) for v in x]
    return x


@pytest.mark.parametrize("replacement,num_samples", [(False, None), (True, 50), (True, 77), (False, 45)])
def test_random_sampler_matches_torch(replacement, num_samples):
    def make(m):
        s = m.utils.data.RandomSampler(range(20), replacement=replacement, num_samples=num_samples)
        g = m.Generator().manual_seed(3)
        s2 = m.utils.data.RandomSampler(range(20), replacement=replacement, num_samples=num_samples, generator=g)
        return list(s) + list(s) + list(s2)
    a, b = _both(make)
    assert a == b


def test_subset_weighted_samplers_random_split_match_torch():
    def make(m):
        d = m.utils.data
        out = [list(d.SubsetRandomSampler([5, 9, 2, 7, 1]))]
        out.append(list(d.WeightedRandomSampler([0.1, 0.9, 0.4, 0.3], 30)))
        out.append(list(d.WeightedRandomSampler([0.1, 0.9, 0.4, 0.3], 3, replacement=False)))
        parts = d.random_split(range(30), [0.5, 0.3, 0.2])
        out.append([list(p.indices) for p in parts])
        g = m.Generator().manual_seed(11)
        out.append([list(p.indices) for p in d.random_split(range(10), [3, 7], generator=g)])
        ds = d.DistributedSampler(range(23), num_replicas=3, rank=1, seed=4)
        ds.set_epoch(2)
        out.append(list(ds))
        out.append(list(d.BatchSampler(d.RandomSampler(range(10)), 3, False)))
        return out
    a, b = _both(make)
    assert a == b


def test_dataloader_shuffle_order_and_base_seed_match_torch():
    x = np.arange(40, dtype=np.float32).reshape(20, 2)

    def make(m):
        dl = m.utils.data.DataLoader(m.utils.data.TensorDataset(m.tensor(x)), batch_size=6, shuffle=True)
        epochs = [[_listify(b[0]) for b in dl] for _ in range(2)]
        g = m.Generator().manual_seed(8)
        dl2 = m.utils.data.DataLoader(m.utils.data.TensorDataset(m.tensor(x)), batch_size=4, shuffle=True,
                                      generator=g)
        it = iter(dl2)
        return epochs, [_listify(b[0]) for b in it], it._base_seed, m.rand(2).tolist()
    a, b = _both(make)
    assert a == b


def test_huge_replacement_samplers_are_lazy():
    ds = tl.utils.data.TensorDataset(tl.arange(100.0))
    t0 = time.time()
    dl = tl.utils.data.DataLoader(ds, batch_size=8, sampler=tl.utils.data.RandomSampler(
        ds, replacement=True, num_samples=int(1e10)))
    batches = list(itertools.islice(dl, 5))
    assert len(dl) == int(1e10) // 8 and len(batches) == 5 and all(b[0].shape == (8,) for b in batches)
    w = tl.utils.data.WeightedRandomSampler([0.2, 0.8], int(1e12))
    assert len(list(itertools.islice(iter(w), 1000))) == 1000
    b = tl.utils.data.BatchSampler(tl.utils.data.RandomSampler(range(10), True, int(1e15)), 4, True)
    assert len(next(iter(b))) == 4
    assert time.time() - t0 < 30
    # the lazy stream is torch's: the first draws equal torch's eager ones for the same generator
    g1, g2 = tl.Generator().manual_seed(2), torch.Generator().manual_seed(2)
    mine = list(itertools.islice(iter(tl.utils.data.RandomSampler(range(100), True, int(1e10), generator=g1)), 70))
    ref = list(itertools.islice(iter(torch.utils.data.RandomSampler(range(100), True, 70, generator=g2)), 70))
    assert mine == ref


# --- a ported program ---------------------------------------------------------------------------------------
def _build(m):
    nn = m.nn
    return nn.ModuleDict({
        "lin": nn.Linear(7, 5), "conv": nn.Conv2d(3, 4, 3), "conv1": nn.Conv1d(2, 3, 2, bias=False),
        "emb": nn.Embedding(10, 6), "ln": nn.LayerNorm(6), "bn": nn.BatchNorm2d(4), "gru": nn.GRU(4, 3),
        "lstm": nn.LSTM(3, 2), "convt": nn.ConvTranspose2d(2, 3, 2), "bil": nn.Bilinear(2, 3, 4),
        "mha": nn.MultiheadAttention(8, 2),
    })


def test_seeded_model_construction_matches_torch_state_dict():
    tl.manual_seed(0)
    a = _build(tl).state_dict()
    torch.manual_seed(0)
    b = _build(torch).state_dict()
    assert list(a) == list(b)
    for k in a:
        np.testing.assert_array_equal(a[k].numpy(), b[k].numpy(), err_msg=k)


def _train(m, steps=20):
    nn = m.nn
    m.manual_seed(0)
    rs = np.random.RandomState(0)
    x = rs.randn(64, 10).astype(np.float32)
    y = rs.randint(0, 3, 64)
    model = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Dropout(0.2), nn.Linear(32, 3))
    opt = m.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    loader = m.utils.data.DataLoader(m.utils.data.TensorDataset(m.tensor(x), m.tensor(y)), batch_size=16,
                                     shuffle=True)
    losses = []
    for xb, yb in itertools.islice(itertools.chain.from_iterable(itertools.repeat(loader)), steps):
        opt.zero_grad()
        loss = nn.functional.cross_entropy(model(xb), yb)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses


def test_sgd_with_dropout_and_shuffled_loader_follows_torch_loss_curve():
    a, b = _train(tl), _train(torch)
    # identical weights, masks and batches; only float32 rounding of the arithmetic may differ
    np.testing.assert_allclose(a, b, rtol=2e-5, atol=1e-6)


# --- DataLoader workers: base seed, per-worker seeds, worker RNGs ---------------------------------
# --- DataLoader workers: base seed, per-worker seeds, worker RNGs ---------------------------------------
def test_dataloader_worker_seeds_match_torch():
    script = os.path.join(os.path.dirname(__file__), "programs", "rng_worker_seeds.py")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([os.path.dirname(os.path.dirname(tl.__file__)),
                                                       os.environ.get("PYTHONPATH", "")]))
    outs = [subprocess.run([sys.executable, script, mod, "4"], capture_output=True, text=True, timeout=600, env=env)
            for mod in ("torch", "torchlike")]
    for r in outs:
        assert r.returncode == 0, r.stderr[-2000:]
    # workers run concurrently: the order of the lines may differ, their set may not
    torch_lines, tl_lines = (sorted(r.stdout.splitlines()) for r in outs)
    assert len(torch_lines) == 47
    assert tl_lines == torch_lines
