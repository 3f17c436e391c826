"""torchmetrics' less-used metrics (74 of them: classification curves at fixed recall/precision, retrieval at k,
clustering, text edit distances, MS-SSIM, PSNR-B, PIT, segmentation, nominal, running aggregations, wrappers)
under the drop-in runner, compared line by line with the same program under real torch."""
from conftest import lib_program_vs_torch


def test_torchmetrics_less_used_metrics_like_torch():
    _, ours = lib_program_vs_torch("lib_torchmetrics_less_used.py", "torch", "torchmetrics", timeout=600, rtol=1e-4)
    assert len(ours) == 74
    assert not [line for line in ours if " ERR " in line], "every metric computes a value under torch"
    assert any(line.startswith("PeakSignalNoiseRatioWithBlockedEffect () ") for line in ours)
