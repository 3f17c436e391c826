"""torch.distributed's batched point-to-point calls, object send/recv, subgroups, backend queries and the
monitored barrier: one 2-rank script run by torch's torchrun and by torchlike's launcher, same printed lines."""
import os
import subprocess
import sys

import pytest

import torchlike.distributed as dist

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT = os.path.join(ROOT, "tests", "programs", "dist_p2p_batch_subgroups.py")


def _lines(cmd, env):
    r = subprocess.run([sys.executable, "-m", *cmd, "--standalone", "--nproc-per-node", "2", SCRIPT], env=env,
                       capture_output=True, text=True, timeout=420)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    return sorted(ln.split(": ", 1)[-1] if ln.startswith("[") else ln
                  for ln in r.stdout.splitlines() if "R0 " in ln or "R1 " in ln)


def test_script_prints_what_torch_prints():
    env = dict(os.environ, PYTHONPATH=ROOT, JAX_PLATFORMS="cpu", TORCHLIKE_COMPILATION_CACHE="0",
               OMP_NUM_THREADS="1")
    env.pop("XLA_FLAGS", None)
    theirs = _lines(["torch.distributed.run"], env)
    ours = _lines(["torchlike", "run", "-m", "torch.distributed.run"], env)
    assert len(theirs) == 13
    assert ours == theirs


def test_backend_queries_match_torch():
    import torch.distributed as tdist
    for dev in ("cpu", "cuda", "xpu", "mps"):
        assert dist.get_default_backend_for_device(dev) == tdist.get_default_backend_for_device(dev)
    with pytest.raises(ValueError, match="Default backend not registered for device : meta"):
        dist.get_default_backend_for_device("meta")
    for b in ("gloo", "mpi", "ucc", "xccl", "foo"):
        assert dist.is_backend_available(b) == tdist.is_backend_available(b), b
    for op in ("SUM", "AVG", "MAX", "MIN", "PRODUCT", "BAND", "BOR", "BXOR"):
        assert dist.supports_complex(getattr(dist.ReduceOp, op)) == tdist.supports_complex(getattr(tdist.ReduceOp, op))
    assert dist.get_debug_level().name == tdist.get_debug_level().name
    assert [c.__name__ for c in dist.QueueEmptyError.__mro__[:4]] == \
        [c.__name__ for c in tdist.QueueEmptyError.__mro__[:4]]


def test_node_local_rank_without_launcher(monkeypatch):
    import torch.distributed as tdist
    monkeypatch.delenv("LOCAL_RANK", raising=False)
    assert dist.get_node_local_rank(fallback_rank=3) == tdist.get_node_local_rank(fallback_rank=3) == 3
    for mod in (dist, tdist):
        with pytest.raises(RuntimeError, match="LOCAL_RANK is not in the environment"):
            mod.get_node_local_rank()
