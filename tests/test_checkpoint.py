"""torch.utils.checkpoint: values, gradients, RNG replay, errors and warnings as torch's; remat when compiled."""
import warnings

import numpy as np
import pytest
import torch

import torchlike


def _model(T):
    T.manual_seed(0)
    return T.nn.Sequential(T.nn.Linear(4, 8), T.nn.Dropout(0.5), T.nn.Tanh(), T.nn.Linear(8, 2))


@pytest.mark.parametrize("reentrant", [True, False])
def test_checkpoint_matches_torch_with_dropout(reentrant):
    def run(T):
        m = _model(T)
        x = T.randn(3, 4, requires_grad=True)
        y = T.utils.checkpoint.checkpoint(m, x, use_reentrant=reentrant)
        y.pow(2).sum().backward()
        return y.detach().numpy(), x.grad.numpy(), m[0].weight.grad.numpy(), type(y.grad_fn).__name__
    ours, theirs = run(torchlike), run(torch)
    assert ours[3] == theirs[3]
    for a, b in zip(ours[:3], theirs[:3]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_checkpoint_sequential_matches_torch():
    def run(T):
        m = _model(T)
        x = T.randn(5, 4, requires_grad=True)
        y = T.utils.checkpoint.checkpoint_sequential(m, 2, x, use_reentrant=True)
        y.sum().backward()
        return y.detach().numpy(), x.grad.numpy()
    for a, b in zip(run(torchlike), run(torch)):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def _messages(T, fn):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        fn(T)
    return [str(x.message) for x in w if issubclass(x.category, UserWarning)]


@pytest.mark.parametrize("fn", [
    lambda T: T.utils.checkpoint.checkpoint(T.nn.Linear(2, 2), T.ones(1, 2, requires_grad=True)),
    lambda T: T.utils.checkpoint.checkpoint_sequential(T.nn.Sequential(T.nn.Linear(2, 2)), 1,
                                                       T.ones(1, 2, requires_grad=True)),
    lambda T: T.utils.checkpoint.checkpoint(T.nn.Linear(2, 2), T.ones(1, 2), use_reentrant=True),
])
def test_warnings_match_torch(fn):
    theirs = _messages(torch, fn)
    assert theirs and _messages(torchlike, fn) == theirs


def test_errors_match_torch():
    for T in (torch, torchlike):
        lin = T.nn.Linear(2, 2)
        x = T.ones(1, 2, requires_grad=True)
        y = T.utils.checkpoint.checkpoint(lin, x, use_reentrant=True)
        with pytest.raises(RuntimeError, match="incompatible with .grad()"):
            T.autograd.grad(y.sum(), x)
        with pytest.raises(ValueError, match="Unexpected keyword arguments: foo"):
            T.utils.checkpoint.checkpoint(lin, x, use_reentrant=True, foo=1)


def test_compiled_checkpoint_rematerializes(monkeypatch):
    import torchlike.utils.checkpoint as ck
    calls = []
    real = ck.jax.checkpoint
    monkeypatch.setattr(ck.jax, "checkpoint", lambda f, *a, **k: calls.append(f) or real(f, *a, **k))
    torchlike.manual_seed(0)
    blk = torchlike.nn.Sequential(torchlike.nn.Linear(4, 8), torchlike.nn.Tanh(), torchlike.nn.Linear(8, 4))
    head = torchlike.nn.Linear(4, 1)
    x = torchlike.randn(3, 4)

    def step(x):
        for p in list(blk.parameters()) + list(head.parameters()):
            p.grad = None
        loss = head(ck.checkpoint(blk, x, use_reentrant=False)).pow(2).sum()
        loss.backward()
        return loss, blk[0].weight.grad.clone()
    eager_loss, eager_grad = step(x)
    assert not calls                              # eagerly: plain recording
    loss, grad = torchlike.compile(step)(x)
    assert calls                                  # compiled: the block is one jax.checkpoint region
    np.testing.assert_allclose(loss.item(), eager_loss.item(), rtol=1e-6)
    np.testing.assert_allclose(grad.numpy(), eager_grad.numpy(), rtol=1e-5, atol=1e-7)


def test_selective_checkpoint_contexts_like_torch():
    import functools

    from torch.utils.checkpoint import CheckpointPolicy as TP
    from torch.utils.checkpoint import create_selective_checkpoint_contexts as t_sac

    from torchlike.utils.checkpoint import CheckpointPolicy, create_selective_checkpoint_contexts
    assert [(p.name, p.value) for p in CheckpointPolicy] == [(p.name, p.value) for p in TP]

    def run(lib, make):
        lib.manual_seed(0)
        m = lib.nn.Sequential(lib.nn.Linear(4, 4), lib.nn.GELU(), lib.nn.Linear(4, 2))
        x = lib.randn(3, 4, requires_grad=True)

        def policy(ctx, op, *args, **kwargs):
            return TP.MUST_SAVE if lib is torch else CheckpointPolicy.MUST_SAVE
        for spec in ([lib.ops.aten.mm.default], policy):
            out = lib.utils.checkpoint.checkpoint(m, x, use_reentrant=False, context_fn=functools.partial(make, spec))
            out.sum().backward()
        return np.array(out.tolist()), np.array(x.grad.tolist())

    ref, ours = run(torch, t_sac), run(torchlike, create_selective_checkpoint_contexts)
    np.testing.assert_allclose(ours[0], ref[0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ours[1], ref[1], rtol=1e-5, atol=1e-6)
    with pytest.raises(TypeError, match="policy_fn_or_list must be either a function or a list of ops."):
        create_selective_checkpoint_contexts(3)
    with pytest.raises(TypeError, match="policy_fn_or_list must be either a function or a list of ops."):
        t_sac(3)


@pytest.mark.parametrize("reentrant", [True, False])
def test_recomputation_side_effects_match_torch(reentrant):
    """Both forms run the region again in backward, as torch recomputes it: BatchNorm's running statistics and
    ``num_batches_tracked`` move twice (under bfloat16 autocast too), a forward hook fires again, dropout replays
    the forward's RNG state and the global RNG stream is left where the forward left it; once per backward (a
    retained graph's second backward runs it again), never when the region runs without grad."""
    def run(T):
        T.manual_seed(0)
        m = T.nn.Sequential(T.nn.Conv2d(2, 3, 3), T.nn.BatchNorm2d(3), T.nn.Dropout(0.3), T.nn.ReLU())
        calls = []
        m[1].register_forward_hook(lambda mod, i, o: calls.append(round(float(o.detach().float().sum()), 3)))
        x = T.randn(4, 2, 5, 5, requires_grad=True)
        out = T.utils.checkpoint.checkpoint(m, x, use_reentrant=reentrant)
        two = T.utils.checkpoint.checkpoint(lambda t: (m(t), m[0](t)), x, use_reentrant=reentrant)
        after_fwd = (m[1].num_batches_tracked.item(), len(calls))
        (out.sum() + two[0].mean() + two[1].mean()).backward(retain_graph=True)
        state = [m[1].num_batches_tracked.item(), len(calls), T.rand(1).item()]
        out.sum().backward()
        with T.no_grad():
            T.utils.checkpoint.checkpoint(m, x, use_reentrant=reentrant)
        g32 = x.grad.numpy().copy()
        with T.autocast("cpu", dtype=T.bfloat16):
            y = T.utils.checkpoint.checkpoint(m, x, use_reentrant=reentrant)
        y.float().sum().backward()
        return (after_fwd, state, m[1].num_batches_tracked.item(), len(calls), calls[:4],
                np.round(m[1].running_mean.numpy(), 4).tolist(), np.round(g32.sum(), 3), y.dtype,
                x.grad.numpy() - g32)
    ours, theirs = run(torchlike), run(torch)
    assert ours[:5] == theirs[:5]
    np.testing.assert_allclose(ours[5], theirs[5], atol=2e-4)  # (bfloat16 batches among them)
    assert ours[6] == pytest.approx(theirs[6], abs=2e-3)  # the float32 backwards
    assert str(ours[7]) == str(theirs[7])
    # the bfloat16 region's gradient: within a bfloat16 ulp of its magnitude (~1.5) element by element (its sum over
    # 200 elements moved by 5e-3 with a one-ulp change in the half-type batch-norm kernel's rounding)
    np.testing.assert_allclose(ours[8], theirs[8], atol=1.6e-2)
