"""torchmetrics under the drop-in runner, compared with real torch.

tests/programs/lib_torchmetrics_metrics.py runs once with real torch and once under ``python -m torchlike run``:
class metrics (Accuracy, F1Score, AUROC, AveragePrecision, regression metrics) through update/forward/compute/
reset, a MetricCollection, and the functional metrics; every printed value must match. Runs only where
torchmetrics is installed (the ``test`` extra pins it).
"""
import pytest
from conftest import lib_program_vs_torch

pytest.importorskip("torch", reason="the expected values come from torch")


def test_torchmetrics_program_matches_torch():
    _, ours = lib_program_vs_torch("lib_torchmetrics_metrics.py", "torchmetrics", timeout=600, rtol=1e-5)
    names = [line.split()[0] for line in ours]
    for name in ("acc.compute", "f1.compute", "auroc.compute", "acc.after_reset", "collection.val_cm",
                 "binary_auroc", "binary_ap", "mse", "r2", "pearson", "ssim", "psnr", "stat_scores"):
        assert name in names, name


def test_torchmetrics_more_metrics_match_torch():
    # MultilabelRankingAveragePrecision ranks each sample's irrelevant labels with ``ranks[inverse]``; for a sample
    # with none both are empty, which torchlike used to reject as out of bounds. (Kendall runs on 12 points: its
    # per-element loop slices a new length each time, one XLA compile per op and shape, 27 s for 50 points.)
    _, ours = lib_program_vs_torch("lib_torchmetrics_more.py", "torchmetrics", timeout=600, rtol=1e-4)
    names = [line.split()[0] for line in ours]
    for name in ("calib", "ml_rap", "kendall", "ssim", "sisdr", "cramers", "ari", "dice", "f_auroc", "f_ms_ssim"):
        assert name in names, name
