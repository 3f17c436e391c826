"""The eager op the compile-option and tiering tests run (test_eager_compile_options.py, test_eager_tiered.py):
a multiply feeding an add, the pattern whose last bit different XLA compile settings may round differently."""
import os
import subprocess
import sys

import numpy as np

import torchlike
from torchlike import _dispatch


def _fma(x, w):
    return x * w + 0.5 * x


def _data(n, seed=0):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((n, 7)).astype(np.float32), rng.standard_normal((n, 7)).astype(np.float32)


def _run(x, w):
    return _dispatch.dispatch(_fma, (torchlike.tensor(x), torchlike.tensor(w)), name="Fma")


def backward_in_fresh_process(env, probe, imports=""):
    """Run ``(ones(3) * 2).sum().backward()`` in a new interpreter with environment variables ``env`` added (read
    at import) and return ``[str(probe value), "[2.0, 2.0, 2.0]\\n"]`` (``probe``: an expression printed first)."""
    code = ("import torchlike\n" + imports +
            "x = torchlike.ones(3, requires_grad=True)\n"
            "(x * 2).sum().backward()\n"
            f"print({probe}, x.grad.tolist())\n")
    env = dict(os.environ, TORCHLIKE_COMPILATION_CACHE="0", **env)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout.split(None, 1)
