"""A 2-d DeviceMesh over 4 processes: each dim's process group (torch's init_device_mesh makes one per slice),
collectives over it, local ranks, sub-meshes and the error for a missing mesh_dim, printed by
tests/programs/dist_mesh2d.py under torch's torchrun and under torchlike's runner + launcher."""
import os
import subprocess
import sys

from conftest import same_printed_lines

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROGRAM = os.path.join(ROOT, "tests", "programs", "dist_mesh2d.py")


def _run(ours):
    env = dict(os.environ, PYTHONPATH=ROOT, JAX_PLATFORMS="cpu", TORCHLIKE_COMPILATION_CACHE="0",
               OMP_NUM_THREADS="1")
    env.pop("XLA_FLAGS", None)
    launcher = ["torchlike", "run", "-m", "torch.distributed.run"] if ours else ["torch.distributed.run"]
    cmd = [sys.executable, "-m", *launcher, "--standalone", "--nproc-per-node", "4", PROGRAM]
    r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    return sorted(ln.split(": ", 1)[-1] if ln.startswith("[rank") else ln
                  for ln in r.stdout.splitlines() if ln.startswith(("R0 ", "R1 ", "R2 ", "R3 ", "[rank")))


def test_two_d_mesh_groups_match_torch():
    theirs, ours = _run(False), _run(True)
    same_printed_lines(theirs, ours, rtol=0)
    assert "R2 tp size 2 group rank 0 ranks [2, 3] sum [7.0, 70.0] gather [2.0, 3.0] sub 2 0 same [2, 3]" in ours
