"""tests/test_cuda_gpu.py on a simulated GPU, so CI (no GPU) runs the 'cuda' code paths: device placement,
mixed-device errors, moves with gradients, pinned batches, compiled steps and autocast on a device that is
not JAX's default.  The simulated device is a second CPU device (tests/_simulated_gpu.py); the reference is
torch's CPU.  Deselected, as they need a real GPU: the runtime queries (device name, capability, memory
figures) and the DDP script (a subprocess with the nccl backend)."""
import os
import subprocess
import sys

import pytest
from conftest import simulated_devices_env

pytest.importorskip("torch", reason="torch is the oracle")

HERE = os.path.dirname(os.path.abspath(__file__))
NEEDS_REAL_GPU = ["test_cuda_runtime_queries", "test_ddp_script_with_nccl_backend_runs_on_one_gpu"]


def test_cuda_tests_pass_on_a_simulated_gpu(tmp_path):
    env = simulated_devices_env(2, HERE)
    cmd = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "_simulated_gpu", "-q", "--tb=short",
           "-k", " and ".join(f"not {n}" for n in NEEDS_REAL_GPU), "--junitxml", str(tmp_path / "r.xml"),
           os.path.join(HERE, "test_cuda_gpu.py")]
    out = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=900, cwd=os.path.dirname(HERE))
    assert out.returncode == 0, out.stdout[-6000:] + out.stderr[-2000:]
    import xml.etree.ElementTree as ET
    suite = ET.parse(tmp_path / "r.xml").getroot().find("testsuite")
    counts = {k: int(suite.get(k)) for k in ("tests", "failures", "errors", "skipped")}
    # every collected test ran on the simulated GPU (none skipped for want of one)
    assert counts["tests"] >= 45 and counts["failures"] == counts["errors"] == counts["skipped"] == 0, counts
