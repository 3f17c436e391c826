"""torchmetrics under the drop-in runner, compared with real torch.

tests/programs/lib_torchmetrics_metrics.py runs once with real torch and once under ``python -m torchlike run``:
class metrics (Accuracy, F1Score, AUROC, AveragePrecision, regression metrics) through update/forward/compute/
reset, a MetricCollection, and the functional metrics; every printed value must match. Runs only where
torchmetrics is installed (the ``test`` extra pins it).
"""
import os
import subprocess
import sys
import textwrap

import pytest
from conftest import run_program, same_printed_lines

pytest.importorskip("torch", reason="the expected values come from torch")

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAMS = os.path.join(HERE, "programs")


def test_torchmetrics_program_matches_torch():
    pytest.importorskip("torchmetrics", reason="torchmetrics is not installed")
    script = os.path.join(PROGRAMS, "lib_torchmetrics_metrics.py")
    expected = run_program([script], runner=False, timeout=600)
    ours = run_program([script], runner=True, timeout=600)
    same_printed_lines(expected, ours, rtol=1e-5)
    names = [line.split()[0] for line in ours]
    for name in ("acc.compute", "f1.compute", "auroc.compute", "acc.after_reset", "collection.val_cm",
                 "binary_auroc", "binary_ap", "mse", "r2", "pearson", "ssim", "psnr", "stat_scores"):
        assert name in names, name


def test_torchmetrics_metric_states_without_torch_installed(tmp_path):
    """With torch hidden, torchmetrics takes torchlike for torch: a Metric's states are torchlike tensors, and
    ``state_dict``/``to``/``clone`` work on them."""
    pytest.importorskip("torchmetrics", reason="torchmetrics is not installed")
    from test_libraries import _HIDE_TORCH, _env
    wrapper, probe = tmp_path / "hide_torch.py", tmp_path / "probe.py"
    wrapper.write_text(_HIDE_TORCH)
    probe.write_text(textwrap.dedent("""
        import torch, torchmetrics
        m = torchmetrics.SumMetric()
        m.persistent(True)
        m.update(torch.tensor([1.0, 2.0, 4.0]))
        c = m.clone().to("cpu")
        print(isinstance(m.sum_value, torch.Tensor), m.compute().item(), c.compute().item(), sorted(m.state_dict()))
    """))
    out = subprocess.run([sys.executable, str(wrapper), str(probe)], capture_output=True, text=True, timeout=600,
                         env=_env(), cwd=str(tmp_path))
    assert out.returncode == 0, out.stderr[-4000:]
    assert out.stdout.splitlines()[-1] == "True 7.0 7.0 ['sum_value']"
