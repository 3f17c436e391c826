"""Collectives inside ``torch.compile``d functions on 2 processes (and the collectives alone on 4):
tests/scripts/dist_compiled.py runs under
torchlike's launcher (compiled: the collectives are XLA collectives inside each rank's one program) and under
real torch's torchrun (eager, the oracle). The results, a compiled DDP training step's losses and parameters, and
single-process torch training on the concatenated batch must agree; the compiled programs' HLO must hold the
collectives as XLA ops and no host callback."""
import os
import subprocess
import sys

import numpy as np
import pytest

from tests.test_distributed import _torch_reference  # one process, batch 16: torch's reference run

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT = os.path.join(ROOT, "tests", "scripts", "dist_compiled.py")
NAMES = ["sum", "avg", "max", "prod", "all_gather", "all_gather_into_tensor", "broadcast", "reduce_scatter_tensor",
         "reduce_scatter_max", "reduce", "scatter", "all_to_all_single", "int_sum"]


def _launch(ours, out, nproc=2, only_collectives=False):
    env = dict(os.environ, PYTHONPATH=ROOT, JAX_PLATFORMS="cpu", TORCHLIKE_COMPILATION_CACHE="0",
               OMP_NUM_THREADS="1")
    env.pop("XLA_FLAGS", None)
    launcher = ["torchlike", "run", "-m", "torch.distributed.run"] if ours else ["torch.distributed.run"]
    cmd = [sys.executable, "-m", *launcher, "--standalone", "--nproc-per-node", str(nproc), SCRIPT, str(out),
           "ours" if ours else "torch"] + (["collectives"] if only_collectives else [])
    r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-5000:]
    return [dict(np.load(out / f"{'ours' if ours else 'torch'}_rank{i}.npz")) for i in range(nproc)]


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    pytest.importorskip("torch", reason="torch is the oracle")
    out = tmp_path_factory.mktemp("dist_compiled")
    return _launch(False, out), _launch(True, out)


def _same_collectives(theirs, ours):
    for r in range(len(theirs)):
        for it in range(2):
            for k in NAMES:
                if k == "reduce" and r != 0:
                    continue  # torch's gloo uses a non-destination rank's tensor as scratch: its value is unspecified
                want, got = theirs[r][f"c{it}_{k}"], ours[r][f"c{it}_{k}"]
                assert got.dtype == want.dtype and got.shape == want.shape, (r, it, k)
                np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6, err_msg=f"rank {r} call {it} {k}")


def _xla_collectives_only(o, r):
    # 13 collectives: psum-based ones are all-reduces (sum, avg, max, the int sum, broadcast, reduce, the
    # MAX reduce-scatter), PRODUCT and the gathers are all-gathers, reduce_scatter/scatter reduce-scatters
    assert o["hlo_collectives_all_reduce"] >= 5, r
    assert o["hlo_collectives_all_gather"] >= 2, r
    assert o["hlo_collectives_reduce_scatter"] >= 1, r
    assert o["hlo_collectives_all_to_all"] >= 1, r
    assert o["hlo_collectives_callbacks"] == 0, r


def test_compiled_collectives_equal_torch(runs):
    theirs, ours = runs
    _same_collectives(theirs, ours)
    for r in range(2):
        np.testing.assert_allclose(ours[r]["subgroup"], theirs[r]["subgroup"], rtol=1e-6, err_msg=f"rank {r}")


def test_compiled_collectives_are_xla_collectives_in_the_program(runs):
    _, ours = runs
    for r in range(2):
        o = ours[r]
        _xla_collectives_only(o, r)
        # the DDP step: its gradient bucket's all-reduce is inside the step's program
        assert o["hlo_ddp_all_reduce"] >= 1 and o["hlo_ddp_callbacks"] == 0, r
        # a collective over a subgroup falls back to host callbacks: the program is not an SPMD one
        assert not o["subgroup_spmd"].any(), r


def test_compiled_ddp_step_equals_eager_and_single_process(runs):
    theirs, ours = runs
    losses, sd = _torch_reference("plain")
    for variant in ("eager", "compiled"):
        per_rank = [ours[r][f"ddp_{variant}_losses"] for r in range(2)]
        for r in range(2):  # each rank's local loss is torch DDP's
            np.testing.assert_allclose(per_rank[r], theirs[r]["ddp_eager_losses"], rtol=1e-6, atol=1e-6)
        # equal batches: the mean of the ranks' losses is the loss on the concatenated batch
        np.testing.assert_allclose((per_rank[0] + per_rank[1]) / 2, losses, rtol=1e-6, atol=1e-6)
        for r in range(2):
            keys = sorted(k[len(f"ddp_{variant}_sd_"):] for k in ours[r] if k.startswith(f"ddp_{variant}_sd_"))
            assert keys == sorted(sd)
            for k in keys:
                np.testing.assert_allclose(ours[r][f"ddp_{variant}_sd_{k}"], sd[k], rtol=1e-5, atol=1e-6,
                                           err_msg=f"{variant} rank {r} {k}")
    for r in range(2):
        np.testing.assert_allclose(ours[r]["ddp_compiled_losses"], ours[r]["ddp_eager_losses"], rtol=1e-6)


def test_compiled_collectives_on_4_processes_equal_torch(tmp_path):
    """The 13 collectives (every kind: all-reduce with each ReduceOp kind, gathers, reduce-scatters, scatter,
    all-to-all) compiled on 4 ranks equal torch's torchrun on 4 ranks, and stay XLA collectives of the program."""
    pytest.importorskip("torch", reason="torch is the oracle")
    theirs = _launch(False, tmp_path, 4, only_collectives=True)
    ours = _launch(True, tmp_path, 4, only_collectives=True)
    _same_collectives(theirs, ours)
    for r in range(4):
        _xla_collectives_only(ours[r], r)
