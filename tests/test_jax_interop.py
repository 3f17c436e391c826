"""Two-way interop with JAX and optax: to_jax under jax.jit/grad/vmap with optax training tracked
against torch's Adam, explicit buffers, from_optax as a torch optimizer (with an LR scheduler), and
zero-copy conversions."""
import numpy as np
import pytest

import torchlike
from conftest import to_tl, torch

jax = pytest.importorskip("jax")
optax = pytest.importorskip("optax")
jnp = jax.numpy


def _mlp(lib):
    return lib.nn.Sequential(lib.nn.Linear(5, 8), lib.nn.Tanh(), lib.nn.Linear(8, 3))


def _pair():
    torch.manual_seed(0)
    tm = _mlp(torch)
    lm = _mlp(torchlike)
    lm.load_state_dict({k: to_tl(v) for k, v in tm.state_dict().items()})
    return tm, lm


def _data():
    rng = np.random.default_rng(1)
    return rng.standard_normal((16, 5)).astype(np.float32), rng.integers(0, 3, 16)


def test_to_jax_apply_grad_vmap_and_optax_training_match_torch_adam():
    tm, lm = _pair()
    x, y = _data()
    apply_fn, params = torchlike.func.to_jax(lm)
    assert set(params) == {k for k, _ in tm.named_parameters()}
    np.testing.assert_allclose(np.asarray(apply_fn(params, jnp.asarray(x))), tm(torch.from_numpy(x)).detach().numpy(),
                               rtol=1e-5, atol=1e-6)
    per_example = jax.vmap(apply_fn, in_axes=(None, 0))(params, jnp.asarray(x))
    assert per_example.shape == (16, 3)

    def loss_fn(p, a, t):
        return optax.softmax_cross_entropy_with_integer_labels(apply_fn(p, a), t).mean()
    tx = optax.adam(1e-2)
    state = tx.init(params)

    @jax.jit
    def step(p, s, a, t):
        loss, g = jax.value_and_grad(jax.checkpoint(loss_fn))(p, a, t)
        upd, s = tx.update(g, s, p)
        return optax.apply_updates(p, upd), s, loss
    opt = torch.optim.Adam(tm.parameters(), lr=1e-2)
    xt, yt = torch.from_numpy(x), torch.from_numpy(y)
    for _ in range(5):
        params, state, loss = step(params, state, jnp.asarray(x), jnp.asarray(y))
        opt.zero_grad()
        tloss = torch.nn.functional.cross_entropy(tm(xt), yt)
        tloss.backward()
        opt.step()
        np.testing.assert_allclose(float(loss), tloss.item(), rtol=1e-5)
    for k, p in tm.named_parameters():
        np.testing.assert_allclose(np.asarray(params[k]), p.detach().numpy(), rtol=1e-4, atol=1e-6)
    # the module itself is untouched
    assert not any(isinstance(p._x, jax.core.Tracer) for p in lm.parameters())


def test_to_jax_explicit_buffers_batchnorm():
    torch.manual_seed(0)
    tm = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.BatchNorm1d(3))
    lm = torchlike.nn.Sequential(torchlike.nn.Linear(4, 3), torchlike.nn.BatchNorm1d(3))
    lm.load_state_dict({k: to_tl(v) for k, v in tm.state_dict().items()})
    apply_fn, params, buffers = torchlike.func.to_jax(lm, buffers=True)
    x = np.random.default_rng(0).standard_normal((8, 4)).astype(np.float32)
    out, new_buffers = jax.jit(apply_fn)(params, buffers, jnp.asarray(x))
    tout = tm(torch.from_numpy(x))
    np.testing.assert_allclose(np.asarray(out), tout.detach().numpy(), rtol=1e-4, atol=1e-5)
    for k in ("1.running_mean", "1.running_var"):
        np.testing.assert_allclose(np.asarray(new_buffers[k]), tm.state_dict()[k].numpy(), rtol=1e-5, atol=1e-6)
    assert int(new_buffers["1.num_batches_tracked"]) == 1
    np.testing.assert_array_equal(np.asarray(lm[1].running_mean), np.zeros(3))  # the module's stats unchanged


def test_from_optax_behaves_like_torch_adam_with_scheduler_and_state_dict():
    tm, lm = _pair()
    x, y = _data()
    topt = torch.optim.Adam(tm.parameters(), lr=1e-2)
    lopt = torchlike.optim.from_optax(optax.inject_hyperparams(optax.adam)(learning_rate=1e-2), lm.parameters())
    assert isinstance(lopt, torchlike.optim.Optimizer) and lopt.param_groups[0]["lr"] == pytest.approx(1e-2)
    tsched = torch.optim.lr_scheduler.StepLR(topt, step_size=2, gamma=0.5)
    lsched = torchlike.optim.lr_scheduler.StepLR(lopt, step_size=2, gamma=0.5)
    xt, yt, xl, yl = torch.from_numpy(x), torch.from_numpy(y), torchlike.tensor(x), torchlike.tensor(y)
    for _ in range(6):
        for opt, m, a, t, F, sched in ((topt, tm, xt, yt, torch.nn.functional, tsched),
                                        (lopt, lm, xl, yl, torchlike.nn.functional, lsched)):
            opt.zero_grad()
            F.cross_entropy(m(a), t).backward()
            opt.step()
            sched.step()
    assert lopt.param_groups[0]["lr"] == pytest.approx(topt.param_groups[0]["lr"])
    for (k, pt), pl in zip(tm.named_parameters(), lm.parameters()):
        np.testing.assert_allclose(np.asarray(pl.detach()), pt.detach().numpy(), rtol=1e-4, atol=1e-6)
    sd = lopt.state_dict()
    fresh = torchlike.optim.from_optax(optax.inject_hyperparams(optax.adam)(learning_rate=1e-2), lm.parameters())
    fresh.load_state_dict(sd)
    a = jax.tree_util.tree_leaves(jax.tree_util.tree_map(lambda t: np.asarray(t._value), fresh.state["optax_state_0"],
                                                         is_leaf=lambda t: isinstance(t, torchlike.Tensor)))
    b = jax.tree_util.tree_leaves(jax.tree_util.tree_map(lambda t: np.asarray(t._value), lopt.state["optax_state_0"],
                                                         is_leaf=lambda t: isinstance(t, torchlike.Tensor)))
    assert len(a) == len(b) and all(np.array_equal(u, v) for u, v in zip(a, b))


def test_from_optax_frozen_params_groups_and_weights_only_state_dict(tmp_path):
    # torch skips a parameter whose .grad is None (here a frozen first layer, AdamW with weight decay);
    # add_param_group gets its own optax state; the state_dict loads with torch.load's weights_only default
    def run(lib, make_opt):
        lib.manual_seed(0)
        net = lib.nn.Sequential(lib.nn.Linear(4, 8), lib.nn.ReLU(), lib.nn.Linear(8, 1))
        net[0].weight.requires_grad_(False)
        opt = make_opt(lib, net)
        x, y = lib.ones(6, 4), lib.zeros(6, 1)
        for _ in range(4):
            opt.zero_grad()
            lib.nn.functional.mse_loss(net(x), y).backward()
            opt.step()
        return net, opt
    tnet, _ = run(torch, lambda m, n: m.optim.AdamW([{"params": n[0].parameters()}], lr=1e-2, weight_decay=0.1))
    make = lambda m, n: m.optim.from_optax(optax.adamw(1e-2, weight_decay=0.1), n[0].parameters())  # noqa: E731
    lnet, lopt = run(torchlike, make)
    np.testing.assert_array_equal(lnet[0].weight.numpy(), tnet[0].weight.numpy())  # untouched, as torch
    np.testing.assert_allclose(lnet[0].bias.detach().numpy(), tnet[0].bias.detach().numpy(), rtol=1e-5, atol=1e-6)
    lopt.add_param_group({"params": lnet[2].parameters()})
    lnet(torchlike.ones(2, 4)).sum().backward()
    before = lnet[2].weight.detach().clone()
    lopt.step()
    assert not torchlike.equal(before, lnet[2].weight.detach())
    torchlike.save(lopt.state_dict(), tmp_path / "opt.pt")
    sd = torchlike.load(tmp_path / "opt.pt")  # weights_only=True, as torch's default
    assert set(torch.load(tmp_path / "opt.pt")) == {"state", "param_groups"}  # and real torch reads it
    fresh = torchlike.optim.from_optax(optax.adamw(1e-2, weight_decay=0.1), lnet[0].parameters())
    fresh.add_param_group({"params": lnet[2].parameters()})
    fresh.load_state_dict(sd)
    for a, b in zip(jax.tree_util.tree_leaves(fresh.state_dict()["state"]), jax.tree_util.tree_leaves(lopt.state_dict()["state"])):
        assert torchlike.equal(a, b)
    lr = torchlike.optim.from_optax(optax.inject_hyperparams(optax.sgd)(learning_rate=0.1), lnet.parameters())
    assert lr.param_groups[0]["lr"] == torch.optim.SGD(tnet.parameters(), lr=0.1).param_groups[0]["lr"]


def test_from_optax_plain_transformation_with_lr_follows_torch_schedulers():
    # a plain optax.adamw / optax.sgd(momentum) has its rate built in; lr= names it, and torch schedulers
    # then scale its updates step by step as they do torch's AdamW / SGD
    for make_t, make_l in (
            (lambda ps: torch.optim.AdamW(ps, lr=1e-2, weight_decay=0.1),
             lambda ps: torchlike.optim.from_optax(optax.adamw(1e-2, weight_decay=0.1), ps, lr=1e-2)),
            (lambda ps: torch.optim.SGD(ps, lr=0.1, momentum=0.9),
             lambda ps: torchlike.optim.from_optax(optax.sgd(0.1, momentum=0.9), ps, lr=0.1))):
        tm, lm = _pair()
        x, y = _data()
        topt, lopt = make_t(tm.parameters()), make_l(lm.parameters())
        assert lopt.param_groups[0]["lr"] == topt.param_groups[0]["lr"]
        tsched = torch.optim.lr_scheduler.CosineAnnealingLR(topt, T_max=4)
        lsched = torchlike.optim.lr_scheduler.CosineAnnealingLR(lopt, T_max=4)
        xt, yt, xl, yl = torch.from_numpy(x), torch.from_numpy(y), torchlike.tensor(x), torchlike.tensor(y)
        for _ in range(5):
            for opt, m, a, t, F, sched in ((topt, tm, xt, yt, torch.nn.functional, tsched),
                                            (lopt, lm, xl, yl, torchlike.nn.functional, lsched)):
                opt.zero_grad()
                F.cross_entropy(m(a), t).backward()
                opt.step()
                sched.step()
        assert lopt.param_groups[0]["lr"] == pytest.approx(topt.param_groups[0]["lr"])
        for pt, pl in zip(tm.parameters(), lm.parameters()):
            np.testing.assert_allclose(np.asarray(pl.detach()), pt.detach().numpy(), rtol=1e-4, atol=1e-6)
    with pytest.raises(KeyError, match="lr"):  # without lr= there is no 'lr', as for any optimizer without one
        torchlike.optim.lr_scheduler.StepLR(torchlike.optim.from_optax(optax.sgd(0.1), lm.parameters()), 1)


def test_from_optax_in_compiled_step():
    tm, lm = _pair()
    x, y = _data()
    opt = torchlike.optim.from_optax(optax.sgd(0.1, momentum=0.9), lm.parameters())
    topt = torch.optim.SGD(tm.parameters(), lr=0.1, momentum=0.9)
    xl, yl = torchlike.tensor(x), torchlike.tensor(y)

    @torchlike.compile
    def step():
        opt.zero_grad()
        loss = torchlike.nn.functional.cross_entropy(lm(xl), yl)
        loss.backward()
        opt.step()
        return loss
    for _ in range(4):
        loss = step()
        topt.zero_grad()
        tloss = torch.nn.functional.cross_entropy(tm(torch.from_numpy(x)), torch.from_numpy(y))
        tloss.backward()
        topt.step()
        np.testing.assert_allclose(loss.item(), tloss.item(), rtol=1e-5)


def test_zero_copy_conversions():
    a = jnp.arange(6.0).reshape(2, 3)
    t = torchlike.from_jax(a)
    assert t.jax() is a and t.shape == (2, 3)
    t.add_(1)  # JAX arrays are immutable: the tensor rebinds, the original array is unchanged
    assert float(a[0, 0]) == 0.0 and float(t[0, 0]) == 1.0
    n = np.arange(4.0)
    assert np.array_equal(np.from_dlpack(torchlike.from_numpy(n)), n)
    assert torchlike.from_dlpack(a).tolist() == a.tolist()
    tt = torch.from_dlpack(torchlike.ones(3))
    assert tt.tolist() == [1.0, 1.0, 1.0]
