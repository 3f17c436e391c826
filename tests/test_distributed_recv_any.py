"""recv/irecv without ``src`` (any source): a 3-rank torchrun script prints the same lines under torch's torchrun
and under torchlike's runner + launcher (including torch's ValueError for recv_object_list without src)."""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT = os.path.join(ROOT, "tests", "programs", "dist_recv_any.py")


def _lines(cmd):
    env = dict(os.environ, PYTHONPATH=ROOT, JAX_PLATFORMS="cpu", TORCHLIKE_COMPILATION_CACHE="0",
               OMP_NUM_THREADS="1")
    env.pop("XLA_FLAGS", None)
    r = subprocess.run([sys.executable, "-m", *cmd, "--standalone", "--nproc-per-node", "3", SCRIPT], env=env,
                       capture_output=True, text=True, timeout=420)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    lines = [ln.split(": ", 1)[1] if ln.startswith("[rank") else ln for ln in r.stdout.splitlines()]
    return sorted(ln for ln in lines if ln.startswith("R0 "))


def test_recv_from_any_source_like_torch():
    theirs = _lines(["torch.distributed.run"])
    assert len(theirs) == 4
    assert _lines(["torchlike", "run", "-m", "torch.distributed.run"]) == theirs
