"""A new input shape is cheap: compilations per new batch size of a small training step (counted with
torchlike's own cache counters, never timed), results equal to torch's, and the whole-graph backward
program (autograd/_fused.py, small graphs from their second backward, large ones once they recur) behaving
like the per-node engine (torch as the oracle)."""
import numpy as np
import pytest

import torchlike
from torchlike.autograd import _fused

torch = pytest.importorskip("torch", reason="torch is the oracle for these comparisons")


@pytest.fixture
def big_cache():
    torchlike.set_cache_size(100000)  # nothing evicted while counting
    yield
    torchlike.set_cache_size(None)


def _data(n, seed):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((n, 16)).astype(np.float32), rng.standard_normal((n, 8)).astype(np.float32)


def _mlp(lib):
    lib.manual_seed(0)
    model = lib.nn.Sequential(lib.nn.Linear(16, 32), lib.nn.ReLU(), lib.nn.Linear(32, 8))
    rng = np.random.default_rng(1)
    with lib.no_grad():
        for p in model.parameters():
            p.copy_(lib.tensor((rng.standard_normal(tuple(p.shape)) * 0.1).astype(np.float32)))
    return model, lib.optim.SGD(model.parameters(), lr=0.05)


def _step(lib, model, opt, n, seed=None):
    x, y = _data(n, n if seed is None else seed)
    opt.zero_grad()
    loss = lib.nn.functional.mse_loss(model(lib.tensor(x)), lib.tensor(y))
    loss.backward()
    opt.step()
    return loss


def test_linear_relu_mse_step_compiles_at_most_five_programs_per_new_shape(big_cache):
    model, opt = _mlp(torchlike)
    for n in (2, 3):  # warm up: the optimizer's program, the per-node pullbacks, the graph's first sighting
        _step(torchlike, model, opt, n)
    per_shape = []
    for n in (4, 5, 6, 7):
        before = torchlike.cache_info()["programs"]
        _step(torchlike, model, opt, n)
        per_shape.append(torchlike.cache_info()["programs"] - before)
    # two linear forwards, relu, mse, and ONE backward program (not one pullback per op) were 5 per shape; a
    # graph whose shapes change between backwards now runs per node (autograd/_fused.py), and the ops whose
    # rows are independent run a padded program of a bucket of rows (_row_buckets): after the bucket's
    # programs (once), only the pullbacks that sum over rows (linear's weight and bias, mse) compile per shape
    assert sum(per_shape) <= 20 and max(per_shape[1:]) <= 5, per_shape
    # a shape seen once before: its quick programs (tiered compilation) are recompiled fully optimized,
    # the same five programs; from then on the shape compiles nothing
    info = torchlike.cache_info()
    _step(torchlike, model, opt, 5)
    assert torchlike.cache_info()["programs"] - info["programs"] <= 5
    assert torchlike.cache_info()["promotions"] - info["promotions"] <= 5
    before = torchlike.cache_info()["programs"]
    _step(torchlike, model, opt, 5)  # the graph recurs at one shape: its one backward program is compiled now
    assert torchlike.cache_info()["programs"] - before <= 1
    before = torchlike.cache_info()["programs"]
    _step(torchlike, model, opt, 5)
    assert torchlike.cache_info()["programs"] == before


def test_training_with_changing_shapes_matches_torch():
    tl_model, tl_opt = _mlp(torchlike)
    t_model, t_opt = _mlp(torch)
    for n in (3, 7, 5, 7, 3, 1, 12):
        a = _step(torchlike, tl_model, tl_opt, n)
        b = _step(torch, t_model, t_opt, n)
        assert a.item() == pytest.approx(b.item(), rel=1e-5, abs=1e-6)
        for p, q in zip(tl_model.parameters(), t_model.parameters()):
            np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-5, atol=1e-6)
            np.testing.assert_allclose(p.detach().numpy(), q.detach().numpy(), rtol=1e-5, atol=1e-6)


def test_cache_bound_holds_across_many_shapes():
    torchlike.set_cache_size(24)
    try:
        model, opt = _mlp(torchlike)
        for n in range(1, 16):
            _step(torchlike, model, opt, n)
            info = torchlike.cache_info()
            assert info["programs"] + info["functions"] <= 24, info
        assert info["evictions"] > 0
        loss = _step(torchlike, model, opt, 3)  # evicted programs are simply recompiled
        assert np.isfinite(loss.item())
    finally:
        torchlike.set_cache_size(None)


def _graph(lib, x, w):
    h = x @ w
    a, b = h.split([2, 3], dim=1)  # a multi-output node; b's gradient flows, a's is unused below
    return (b.tanh() * w.sum() + (x * x).sum()).sum()  # w and x each reach several nodes


@pytest.mark.parametrize("steps", [1, 3])
def test_fused_backward_fan_out_and_unused_outputs_match_torch(steps):
    rng = np.random.default_rng(3)
    xs, ws = rng.standard_normal((4, 6)).astype(np.float32), rng.standard_normal((6, 5)).astype(np.float32)
    res = []
    for lib in (torchlike, torch):
        x, w = lib.tensor(xs, requires_grad=True), lib.tensor(ws, requires_grad=True)
        for _ in range(steps):  # the graph's second sighting and later run as one program
            _graph(lib, x, w).backward()
        res.append((x.grad.numpy(), w.grad.numpy()))
    for a, b in zip(*res):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)


def _twice_error(lib, retain):
    x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = (x * x).sum()
    y.backward(retain_graph=retain)
    try:
        y.backward()
    except RuntimeError as e:
        return "error", str(e)
    return "ok", x.grad.tolist()


def test_fused_backward_retain_graph_and_second_backward_error_like_torch():
    for _ in range(2):  # second round: the structure is fused
        assert _twice_error(torchlike, True) == _twice_error(torch, True)
        assert _twice_error(torchlike, False) == _twice_error(torch, False)


def _inplace_error(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    y = x * 1.0
    z = (y.exp()).sum()
    y.mul_(2)
    try:
        z.backward()
    except RuntimeError as e:
        return type(e).__name__, str(e).split(",")[0]
    return "ok", None


def test_fused_backward_reports_inplace_modification_like_torch():
    for _ in range(2):
        assert _inplace_error(torchlike) == _inplace_error(torch)


def test_hooks_still_run_with_the_fused_path():
    res = []
    for lib in (torchlike, torch):
        seen = []
        x = lib.tensor([1.0, -2.0, 3.0], requires_grad=True)
        for _ in range(2):
            h = x * 3
            h.register_hook(lambda g: seen.append(g.tolist()) or g * 2)
            (h * h).sum().backward()
        res.append((seen, x.grad.tolist()))
    assert res[0] == res[1]


def _deep_step(lib, x, ws):
    h = x
    for w in ws:  # 30 blocks of matmul, tanh, add: ~90 nodes, above the small-graph limit
        h = (h @ w).tanh() + h
    return (h * h).mean()


def test_large_graph_is_fused_after_recurring_and_matches_torch():
    rng = np.random.default_rng(5)
    xs = rng.standard_normal((4, 8)).astype(np.float32)
    wss = [(rng.standard_normal((8, 8)) * 0.3).astype(np.float32) for _ in range(30)]
    res, programs = [], []
    for lib in (torchlike, torch):
        x = lib.tensor(xs)
        ws = [lib.tensor(w, requires_grad=True) for w in wss]
        grads = []
        for step in range(_fused.LARGE_SIGHTINGS + 1):
            before = len(_fused._programs)
            _deep_step(lib, x, ws).backward()
            if lib is torchlike:
                programs.append(len(_fused._programs) - before)
            grads.append([w.grad.numpy().copy() for w in ws])
        res.append(grads)
    # per-node pullbacks until the structure has recurred LARGE_SIGHTINGS times, then one program
    assert programs == [0] * (_fused.LARGE_SIGHTINGS - 1) + [1, 0]
    for k, (a_step, b_step) in enumerate(zip(*res)):  # accumulated gradients equal torch's, fused or not
        for a, b in zip(a_step, b_step):  # float32 through 30 blocks: within 1e-5 of the largest entry
            np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5 * np.abs(b).max(), err_msg=f"step {k}")


def test_changing_python_scalars_compile_nothing_new_and_match_torch(big_cache):
    # a hand-written SGD loop under a schedule (p.add_(g, alpha=-lr)) and a float power whose exponent
    # changes: the scalar is an argument of the cached program, so a new value compiles nothing
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal(6).astype(np.float32), rng.standard_normal(6).astype(np.float32)

    def ops(lib, s):
        a, b = lib.tensor(x, requires_grad=True), lib.tensor(y, requires_grad=True)
        outs = [a.add(b, alpha=s), a.sub(b, alpha=-s), a.abs() ** (1.3 + s), b.abs().pow(-s - 0.25)]
        sum(o.sum() for o in outs).backward()
        with lib.no_grad():
            p = a.detach().clone()
            p.add_(b, alpha=-s)
        return [o.detach().numpy() for o in outs] + [a.grad.numpy(), b.grad.numpy(), p.numpy()]

    ops(torchlike, 0.1)
    ops(torchlike, 0.1)  # the second backward of a graph compiles its whole-graph program (_fused)
    before = torchlike.cache_info()["compiled"]
    for s in (0.15, 0.2371, 0.5, 0.6, 1.9):
        for ours, theirs in zip(ops(torchlike, s), ops(torch, s)):
            np.testing.assert_allclose(ours, theirs, rtol=2e-6, atol=1e-7)
    assert torchlike.cache_info()["compiled"] == before


def test_huge_graph_needs_proportionally_more_sightings_before_it_is_compiled():
    # an unrolled solver's ~600-node backward: compiling it costs seconds, so it stays on the per-node pullbacks
    # for 2 x LARGE_SIGHTINGS - 1 backwards (600 nodes: two started HUGE_NODES), then runs as one program
    assert _fused._sightings_needed(_fused.SMALL_NODES) == 2
    assert _fused._sightings_needed(_fused.HUGE_NODES) == _fused.LARGE_SIGHTINGS
    assert _fused._sightings_needed(_fused.HUGE_NODES + 1) == 2 * _fused.LARGE_SIGHTINGS
    rng = np.random.default_rng(6)
    x = torchlike.tensor(rng.standard_normal((2, 3)).astype(np.float32))
    w = torchlike.tensor(rng.standard_normal((3, 3)).astype(np.float32) * 0.1, requires_grad=True)
    tw = torch.tensor(w.detach().numpy(), requires_grad=True)
    programs = []
    need = _fused._sightings_needed(600)
    assert need == 2 * _fused.LARGE_SIGHTINGS
    for _ in range(need + 1):
        before = len(_fused._programs)
        for lib, ww in ((torchlike, w), (torch, tw)):
            h = x if lib is torchlike else torch.tensor(x.numpy())
            for _ in range(200):  # 3 nodes per block: ~600 nodes
                h = (h @ ww).tanh() + h
            (h * h).mean().backward()
            if lib is torchlike:
                programs.append(len(_fused._programs) - before)
    assert programs == [0] * (need - 1) + [1, 0]
    np.testing.assert_allclose(w.grad.numpy(), tw.grad.numpy(), rtol=1e-4, atol=1e-5 * np.abs(tw.grad.numpy()).max())
