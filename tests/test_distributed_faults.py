"""Ranks that disagree: mismatched collectives and a rank that never arrives. tests/scripts/dist_faults.py runs
under torch's torchrun (gloo, TORCH_DISTRIBUTED_DEBUG=DETAIL: torch's clear errors) and under torchlike's
launcher; every attempt must raise the same exception type with the same message on every rank."""
import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT = os.path.join(ROOT, "tests", "scripts", "dist_faults.py")
TIMEOUT_S = "6"


def _run(cmd, out, extra_env):
    env = dict(os.environ, PYTHONPATH=ROOT, JAX_PLATFORMS="cpu", TORCHLIKE_COMPILATION_CACHE="0", **extra_env)
    env.pop("XLA_FLAGS", None)
    try:  # the workers end with os._exit; the launcher's exit status is not what is compared
        subprocess.run(cmd + ["--standalone", "--nproc-per-node", "2", SCRIPT, str(out), TIMEOUT_S], env=env,
                       capture_output=True, text=True, timeout=240)
    except subprocess.TimeoutExpired as e:  # the launcher's group was killed by subprocess.run
        pytest.fail(f"launch hung: {e}")
    return [json.load(open(out / f"faults{r}.json")) for r in range(2)]


def test_mismatched_collectives_and_timeout_raise_torchs_errors(tmp_path):
    pytest.importorskip("torch", reason="torch (torchrun, gloo) is the oracle")
    (tmp_path / "torch").mkdir()
    (tmp_path / "tl").mkdir()
    want = _run([sys.executable, "-m", "torch.distributed.run"], tmp_path / "torch",
                {"TORCH_DISTRIBUTED_DEBUG": "DETAIL"})
    got = _run([sys.executable, "-m", "torchlike.distributed.run"], tmp_path / "tl", {})
    for r in range(2):
        w, g = want[r], got[r]
        for k in ["shape", "dtype", "shape_2d", "op", "all_gather"]:
            assert w[k][0] == "RuntimeError" and w[k][1].startswith("Detected mismatch between collectives")
            assert g[k] == w[k], (r, k)
        assert g["after"] == w["after"] == [3.0, 3.0]  # the group still works
    # rank 0 waited for rank 1, which never came: a RuntimeError naming rank 1 after the timeout, not a hang
    assert got[0]["timeout"] == want[0]["timeout"] == ["RuntimeError",
                                                       "[Rank 0]: Ranks 1 failed to pass monitoredBarrier in 6000 ms"]
    assert 5.5 < got[0]["timeout_s"] < 15


def test_checks_off_runs_plain_programs():
    """TORCHLIKE_DIST_CHECKS=0: collectives without the fingerprint exchange (one process, tcp:// rendezvous)."""
    code = ("import numpy as np, torchlike, torchlike.distributed as dist\n"
            "from torchlike.distributed import _engine\n"
            "assert not _engine.checks_enabled()\n"
            "dist.init_process_group('gloo', rank=0, world_size=1, init_method='tcp://127.0.0.1:0')\n"
            "t = torchlike.tensor([1., 2., 3.]); dist.all_reduce(t, op=dist.ReduceOp.MAX)\n"
            "o = torchlike.zeros(3); w = dist.all_gather_into_tensor(o, t, async_op=True); w.wait()\n"
            "print(t.tolist(), o.tolist(), w.is_completed())\n")
    env = dict(os.environ, PYTHONPATH=ROOT, JAX_PLATFORMS="cpu", TORCHLIKE_DIST_CHECKS="0")
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-3000:]
    assert r.stdout.strip() == "[1.0, 2.0, 3.0] [1.0, 2.0, 3.0] True"


def test_file_init_method_with_spawn_matches_torch():
    """mp.spawn + file:// rendezvous (no launcher): the same printed results as real torch."""
    from conftest import run_program
    env = dict(os.environ, JAX_PLATFORMS="cpu", TORCHLIKE_COMPILATION_CACHE="0")
    env.pop("XLA_FLAGS", None)
    theirs = run_program(["tests/programs/dist_file_init.py"], runner=False, env=dict(env), timeout=300)
    ours = run_program(["tests/programs/dist_file_init.py"], runner=True, env=dict(env), timeout=300)
    assert theirs == ["rank 0 of 2: sum [1.0, 3.0, 5.0] broadcast 20.0", "rank 1 of 2: sum [1.0, 3.0, 5.0] broadcast 20.0"]
    assert ours == theirs


@pytest.mark.parametrize("scheme", ["file:///tmp/x", "tcp://127.0.0.1:1"])
@pytest.mark.parametrize("kw", [{}, {"rank": 0}, {"world_size": 1}])
def test_url_init_method_missing_rank_or_world_raises_like_torch(scheme, kw):
    import torchlike.distributed as tdist
    from conftest import raises_like_torch
    if tdist.is_initialized():  # a single-process group left by an earlier test (init_device_mesh doctests)
        tdist.destroy_process_group()
    raises_like_torch(lambda m: m.distributed.init_process_group("gloo", init_method=scheme, **kw))


def test_importing_torchlike_starts_no_jax_backend():
    """jax.distributed can only start before JAX's first computation: importing torchlike (and its
    distributed, nn, optim and data packages) must not compute anything."""
    code = ("import torchlike, torchlike.distributed, torchlike.nn, torchlike.optim, torchlike.utils.data\n"
            "from jax._src import xla_bridge\n"
            "print(len(xla_bridge._backends))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         env=dict(os.environ, JAX_PLATFORMS="cpu"))
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "0"
