"""The drop-in runner runs an unmodified PyTorch script; its checkpoint loads in real torch."""
import os
import subprocess
import sys

import pytest
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "scripts", "train_mnist_like.py")


def _run(*args):
    out = subprocess.run([sys.executable, "-m", "torchlike", "run", SCRIPT, *args], capture_output=True,
                         text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout


@pytest.mark.parametrize("extra", [[], ["--compile"]])
def test_unmodified_script_trains_and_checkpoint_loads_in_torch(extra):
    out = _run("--epochs", "2", *extra)
    losses = [float(line.split()[3]) for line in out.splitlines() if line.startswith("epoch")]
    assert len(losses) == 2 and losses[1] < losses[0]
    path = next(line.split()[1] for line in out.splitlines() if line.startswith("CKPT"))
    ck = torch.load(path)  # real torch reads what torchlike wrote
    assert ck["epoch"] == 2
    assert ck["model"][("_orig_mod." if extra else "") + "fc1.weight"].shape == (16, 144)
    assert set(ck["opt"]) == {"state", "param_groups"}
    assert ck["opt"]["param_groups"][0]["lr"] == pytest.approx(0.49)
    prefix = "_orig_mod." if extra else ""  # torch's compiled modules prefix their state_dict keys too
    assert list(ck["model"])[:2] == [prefix + "conv1.weight", prefix + "conv1.bias"]


def test_missing_api_is_a_clear_not_implemented_error(tmp_path):
    script = tmp_path / "uses_missing.py"
    script.write_text("import torch\ntorch.some_future_api(1)\n")
    out = subprocess.run([sys.executable, "-m", "torchlike", "run", str(script)], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode != 0
    assert "NotImplementedError" in out.stderr and "torch.some_future_api" in out.stderr


def test_dataloader_workers_under_the_runner_see_torchlike():
    script = os.path.join(HERE, "scripts", "loader_workers.py")
    out = subprocess.run([sys.executable, "-m", "torchlike", "run", script], capture_output=True, text=True,
                         timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    lines = out.stdout.strip().splitlines()
    assert lines[0] == "torchlike.tensor [0.0, 1.0, 2.0, 3.0] [0, 1, 4, 9]" and len(lines) == 4


def test_nanogpt_style_script_trains_and_samples():
    script = os.path.join(HERE, "scripts", "nanogpt_like.py")
    out = subprocess.run([sys.executable, "-m", "torchlike", "run", script], capture_output=True, text=True,
                         timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    losses = [float(line.split()[-1]) for line in out.stdout.splitlines() if line.startswith("iter")]
    assert len(losses) == 4 and losses[-1] < losses[0]
    assert out.stdout.strip().splitlines()[-1].startswith("[[0, ")
