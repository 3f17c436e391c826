"""JAX functions and Flax modules as torchlike Modules (nn.from_jax / nn.from_flax).

The oracle here is JAX/Flax itself: the wrapped module must give the outputs, gradients, state updates and
training trajectory that the same model gives when run by JAX (jax.grad, optax) directly.
"""
import numpy as np
import pytest

import jax
import jax.numpy as jnp
import optax

import torchlike

nnx = pytest.importorskip("flax.nnx", reason="flax (test extra) is not installed")


def _mlp(seed=0):
    return nnx.Sequential(nnx.Linear(3, 8, rngs=nnx.Rngs(seed)), nnx.BatchNorm(8, rngs=nnx.Rngs(seed)),
                          nnx.relu, nnx.Linear(8, 2, rngs=nnx.Rngs(seed + 1)))


X = np.random.RandomState(0).randn(16, 3).astype(np.float32)
Y = np.random.RandomState(1).randn(16, 2).astype(np.float32)


def test_from_jax_forward_and_grads_match_jax():
    params = {"w": jnp.asarray(np.arange(6.0, dtype=np.float32).reshape(3, 2)), "b": jnp.asarray([0.5, -1.0])}

    def apply(p, x):
        return jnp.tanh(x @ p["w"] + p["b"])
    m = torchlike.nn.from_jax(apply, params)
    assert sorted(n for n, _ in m.named_parameters()) == ["b", "w"]
    assert sorted(m.state_dict()) == ["b", "w"]
    x = torchlike.tensor(X)
    out = m(x)
    np.testing.assert_allclose(out.detach().numpy(), np.asarray(apply(params, jnp.asarray(X))), rtol=1e-6)
    (out ** 2).sum().backward()
    g = jax.grad(lambda p: (apply(p, jnp.asarray(X)) ** 2).sum())(params)
    np.testing.assert_allclose(m.w.grad.numpy(), np.asarray(g["w"]), rtol=1e-5)
    np.testing.assert_allclose(m.b.grad.numpy(), np.asarray(g["b"]), rtol=1e-5)


def test_from_jax_pytree_outputs_and_nested_names():
    params = {"enc": {"w": jnp.ones((3, 4))}, "dec": [jnp.ones((4, 2))]}

    def apply(p, x):
        h = x @ p["enc"]["w"]
        return {"hidden": h, "out": h @ p["dec"][0]}
    m = torchlike.nn.from_jax(apply, params)
    assert sorted(n for n, _ in m.named_parameters()) == ["dec.0", "enc.w"]
    r = m(torchlike.ones(5, 3))
    assert set(r) == {"hidden", "out"} and tuple(r["out"].shape) == (5, 2)
    assert r["out"].sum().item() == 5 * 2 * 12.0


def test_from_flax_nnx_train_step_matches_nnx():
    ours = torchlike.nn.from_flax(_mlp())
    ref = _mlp()
    names = [n for n, _ in ours.named_parameters()]
    assert names == ["layers.0.bias", "layers.0.kernel", "layers.1.bias", "layers.1.scale",
                     "layers.3.bias", "layers.3.kernel"]
    assert sorted(n for n, _ in ours.named_buffers()) == ["layers.1.mean", "layers.1.var"]
    # one forward/backward in train mode: outputs, grads and batch statistics equal NNX's own
    x, y = torchlike.tensor(X), torchlike.tensor(Y)
    loss = ((ours(x) - y) ** 2).mean()
    loss.backward()

    def ref_loss(model):
        return ((model(jnp.asarray(X)) - jnp.asarray(Y)) ** 2).mean()
    ref_value, ref_grads = nnx.value_and_grad(ref_loss)(ref)
    np.testing.assert_allclose(loss.item(), float(ref_value), rtol=1e-6)
    np.testing.assert_allclose(ours.get_parameter("layers.0.kernel").grad.numpy(),
                               np.asarray(ref_grads["layers"][0]["kernel"][...]), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(ours.get_buffer("layers.1.mean").numpy(),
                               np.asarray(ref.layers[1].mean[...]), rtol=1e-6, atol=1e-8)


def test_from_flax_trains_like_optax_and_eval_mode():
    ours = torchlike.nn.from_flax(_mlp())
    ref = _mlp()
    opt = torchlike.optim.SGD(ours.parameters(), lr=0.1)
    ref_opt = nnx.Optimizer(ref, optax.sgd(0.1), wrt=nnx.Param)
    x, y = torchlike.tensor(X), torchlike.tensor(Y)
    losses, ref_losses = [], []
    for _ in range(5):
        opt.zero_grad()
        loss = ((ours(x) - y) ** 2).mean()
        loss.backward()
        opt.step()
        losses.append(loss.item())
        value, grads = nnx.value_and_grad(lambda m: ((m(jnp.asarray(X)) - jnp.asarray(Y)) ** 2).mean())(ref)
        ref_opt.update(ref, grads)
        ref_losses.append(float(value))
    np.testing.assert_allclose(losses, ref_losses, rtol=1e-5)
    ours.eval()
    ref.eval()
    np.testing.assert_allclose(ours(x).detach().numpy(), np.asarray(ref(jnp.asarray(X))), rtol=1e-5, atol=1e-6)


def test_from_flax_inside_compile_matches_eager():
    m = torchlike.nn.from_flax(_mlp())
    m.eval()
    x = torchlike.tensor(X)
    eager = m(x).sum()
    compiled = torchlike.compile(lambda t: m(t).sum())(x)
    np.testing.assert_allclose(compiled.item(), eager.item(), rtol=1e-6)


def test_from_flax_dropout_keys_are_buffers():
    m = torchlike.nn.from_flax(nnx.Sequential(nnx.Linear(3, 3, rngs=nnx.Rngs(0)), nnx.Dropout(0.5, rngs=nnx.Rngs(1))))
    count = int(m.get_buffer("layers.1.rngs.count").item())   # the buffer is updated in place
    a = m(torchlike.ones(4, 3))
    b = m(torchlike.ones(4, 3))
    assert int(m.get_buffer("layers.1.rngs.count").item()) == count + 2
    assert not np.array_equal(a.detach().numpy(), b.detach().numpy())   # a fresh mask per call
    m.eval()
    np.testing.assert_array_equal(m(torchlike.ones(4, 3)).detach().numpy(), m(torchlike.ones(4, 3)).detach().numpy())


def test_from_flax_linen_matches_apply():
    linen = pytest.importorskip("flax.linen")
    dense = linen.Dense(4)
    variables = dense.init(jax.random.key(0), jnp.ones((1, 3)))
    m = torchlike.nn.from_flax(dense, variables)
    assert sorted(n for n, _ in m.named_parameters()) == ["bias", "kernel"]
    np.testing.assert_allclose(m(torchlike.tensor(X)).detach().numpy(),
                               np.asarray(dense.apply(variables, jnp.asarray(X))), rtol=1e-6)
    with pytest.raises(TypeError, match="variables"):
        torchlike.nn.from_flax(dense)


def test_from_flax_linen_batch_norm_updates_its_collection_like_apply_mutable():
    # a linen module that mutates a collection (BatchNorm's batch_stats in training) runs as Flax's
    # apply(..., mutable=[...]) and its buffers take the new statistics; train=False reads them
    linen = pytest.importorskip("flax.linen")

    class Net(linen.Module):
        @linen.compact
        def __call__(self, x, train=True):
            return linen.BatchNorm(use_running_average=not train, momentum=0.9)(linen.Dense(4)(x))
    net = Net()
    variables = net.init(jax.random.key(0), jnp.ones((2, 3), jnp.float32))
    m = torchlike.nn.from_flax(net, variables)
    assert sorted(n for n, _ in m.named_buffers()) == ["batch_stats.BatchNorm_0.mean", "batch_stats.BatchNorm_0.var"]
    x = np.asarray(X[:5, :3], np.float32)
    ref, new = net.apply(variables, jnp.asarray(x), mutable=["batch_stats"])
    np.testing.assert_allclose(m(torchlike.tensor(x)).detach().numpy(), np.asarray(ref), rtol=1e-5, atol=1e-6)
    for k in ("mean", "var"):
        np.testing.assert_allclose(m.get_buffer(f"batch_stats.BatchNorm_0.{k}").numpy(),
                                   np.asarray(new["batch_stats"]["BatchNorm_0"][k]), rtol=1e-6, atol=1e-7)
    evaluated = net.apply({"params": variables["params"], **new}, jnp.asarray(x), train=False)
    np.testing.assert_allclose(m(torchlike.tensor(x), train=False).detach().numpy(), np.asarray(evaluated),
                               rtol=1e-5, atol=1e-6)
