"""``TORCHLIKE_CPU_ASYNC_DISPATCH=0`` (read at import) turns JAX's asynchronous CPU dispatch off; unset, JAX's
default (on) stands.  Each case runs in a fresh process: the flag only counts before JAX makes its CPU client."""
import os
import subprocess
import sys

import pytest

PROGRAM = ("import torchlike, jax\n"
           "x = torchlike.ones(64, 64)\n"
           "y = (x @ x).relu().sum()\n"
           "print(jax.config.read('jax_cpu_enable_async_dispatch'), y.item())\n")


@pytest.mark.parametrize("value,expected", [(None, "True"), ("0", "False"), ("1", "True")])
def test_async_dispatch_knob(value, expected):
    env = {k: v for k, v in os.environ.items() if k != "TORCHLIKE_CPU_ASYNC_DISPATCH"}
    if value is not None:
        env["TORCHLIKE_CPU_ASYNC_DISPATCH"] = value
    r = subprocess.run([sys.executable, "-c", PROGRAM], env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.split() == [expected, "262144.0"]  # 64 * 64 * 64: the same result either way
