"""chex in the interop tests: tree/shape assertions on ``to_jax`` parameters, outputs and gradients compared
with torch's, and chex's fake CPU devices standing in for several accelerators (``device('xla', i)``)."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import torchlike
from conftest import to_tl, torch

chex = pytest.importorskip("chex", reason="chex is a test extra")
jax = pytest.importorskip("jax")
jnp = jax.numpy

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _pair():
    torch.manual_seed(0)
    tm = torch.nn.Sequential(torch.nn.Linear(5, 8), torch.nn.Tanh(), torch.nn.Linear(8, 3))
    lm = torchlike.nn.Sequential(torchlike.nn.Linear(5, 8), torchlike.nn.Tanh(), torchlike.nn.Linear(8, 3))
    lm.load_state_dict({k: to_tl(v) for k, v in tm.state_dict().items()})
    return tm, lm


def test_to_jax_trees_outputs_and_grads_match_torch():
    tm, lm = _pair()
    apply_fn, params = torchlike.func.to_jax(lm)
    want = {k: v.detach().numpy() for k, v in tm.named_parameters()}
    chex.assert_trees_all_equal_structs(jax.tree_util.tree_map(np.asarray, params), want)
    chex.assert_trees_all_close(jax.tree_util.tree_map(np.asarray, params), want)

    x = np.random.default_rng(0).standard_normal((16, 5)).astype(np.float32)
    out = jax.jit(apply_fn)(params, jnp.asarray(x))
    chex.assert_shape(out, (16, 3))
    chex.assert_type(out, jnp.float32)
    chex.assert_trees_all_close(np.asarray(out), tm(torch.from_numpy(x)).detach().numpy(), rtol=1e-5, atol=1e-6)

    grads = jax.grad(lambda p: jnp.sum(apply_fn(p, jnp.asarray(x)) ** 2))(params)
    (tm(torch.from_numpy(x)) ** 2).sum().backward()
    chex.assert_trees_all_equal_shapes(grads, params)
    chex.assert_tree_all_finite(grads)
    chex.assert_trees_all_close(jax.tree_util.tree_map(np.asarray, grads),
                                {k: v.grad.numpy() for k, v in tm.named_parameters()}, rtol=1e-4, atol=1e-5)

    per_example = jax.vmap(apply_fn, in_axes=(None, 0))(params, jnp.asarray(x)[:, None])
    chex.assert_shape(per_example, (16, 1, 3))
    chex.assert_trees_all_close(per_example[:, 0], out, rtol=1e-5, atol=1e-6)


def test_fake_cpu_devices_are_xla_devices():
    # chex.set_n_cpu_devices must run before JAX starts a backend: a fresh interpreter
    code = textwrap.dedent("""
        import chex
        chex.set_n_cpu_devices(4)
        import jax, torchlike
        assert len(jax.devices()) == 4
        x = torchlike.ones(2, device="xla:3")
        assert str(x.device) == "xla:3" and x._value.devices() == {jax.devices()[3]}
        y = (x * 2).to("xla:1")
        assert str(y.device) == "xla:1" and y._value.devices() == {jax.devices()[1]}
        assert (y.cpu() + 1).tolist() == [3.0, 3.0]
        try:
            x + y
        except RuntimeError as e:
            print(e)
    """)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                       env={**os.environ, "PYTHONPATH": ROOT})
    assert r.returncode == 0, r.stderr[-2000:]
    # torch's text for two devices (its template, with torch_xla's device names)
    assert r.stdout.strip() == ("Expected all tensors to be on the same device, but found at least two devices, "
                                "xla:3 and xla:1!")
