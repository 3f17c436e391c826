"""torchlike.compile on a device that is not JAX's default: a training step's second call must not compile
again.  Parameters moved with ``.to(device)`` are committed to it, state made there by factories is not, and
JAX caches a program per committedness (it compiled GPT-mini's step twice on an H200: bench/gpu_results.md).
Here the device is 'xla:1', the second of two simulated CPU devices, in a fresh process."""
import os
import subprocess
import sys
import textwrap

import pytest
from conftest import simulated_devices_env

torch = pytest.importorskip("torch", reason="torch is the oracle for the losses")

SCRIPT = textwrap.dedent("""
    import json, sys
    import jax
    mod = __import__(sys.argv[1])
    dev = sys.argv[2]
    compiles = []
    jax.monitoring.register_event_duration_secs_listener(
        lambda name, *a, **k: compiles.append(1) if name == "/jax/core/compile/backend_compile_duration" else None)
    mod.manual_seed(0)
    net = mod.nn.Sequential(mod.nn.Linear(8, 16), mod.nn.ReLU(), mod.nn.Linear(16, 3)).to(dev)
    opt = mod.optim.AdamW(net.parameters(), lr=1e-2)
    x = mod.linspace(-1, 1, 64, device=dev).view(8, 8)
    y = mod.arange(8, device=dev) % 3

    def step():
        opt.zero_grad()
        loss = mod.nn.functional.cross_entropy(net(x), y)
        loss.backward()
        opt.step()
        return loss

    fn = mod.compile(step) if mod.__name__ == "torchlike" else step
    losses, counts = [], []
    for _ in range(4):
        losses.append(fn().item())
        counts.append(len(compiles))
    print(json.dumps({"losses": losses, "compiles_after": counts,
                      "device": str(next(net.parameters()).device)}))
""")


def _run(mod, dev):
    env = simulated_devices_env(2, TORCHLIKE_COMPILATION_CACHE="off")
    out = subprocess.run([sys.executable, "-c", SCRIPT, mod, dev], capture_output=True, text=True, env=env,
                         timeout=600, cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    assert out.returncode == 0, out.stderr[-3000:]
    import json
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_compiled_step_on_a_non_default_device_compiles_once():
    ours = _run("torchlike", "xla:1")
    assert ours["device"] == "xla:1"
    # the step's programs compile during call 1; calls 2-4 compile nothing
    assert ours["compiles_after"][1] == ours["compiles_after"][0] == ours["compiles_after"][3], ours
    theirs = _run("torch", "cpu")
    import numpy as np
    np.testing.assert_allclose(ours["losses"], theirs["losses"], rtol=1e-5)
