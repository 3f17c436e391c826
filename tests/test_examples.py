"""The examples in examples/ run (each asserts its own result: loss falls, gradients agree)."""
import os
import runpy
import subprocess
import sys

import pytest

EXAMPLES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples")
NAMES = sorted(f for f in os.listdir(EXAMPLES) if f.endswith(".py"))


def test_there_are_examples():
    assert {"optax_finetune_jit.py", "flax_layer_in_model.py", "per_sample_grads_vmap.py",
            "bf16_autocast_training.py"} <= set(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_example_runs(name):
    if name.startswith("flax"):
        pytest.importorskip("flax", reason="flax (test extra) is not installed")
    r = subprocess.run([sys.executable, os.path.join(EXAMPLES, name)], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    assert r.stdout.strip(), "an example reports what it measured"


def test_examples_have_docstrings_with_run_line():
    for name in NAMES:
        doc = runpy.run_path(os.path.join(EXAMPLES, name), run_name="not_main").get("__doc__") or ""
        assert f"python examples/{name}" in doc, name
