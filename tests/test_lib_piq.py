"""piq 0.8.0 under the drop-in runner, compared line by line with real torch: the full-reference metrics (PSNR,
SSIM, MS-SSIM, IW-SSIM, GMSD, MS-GMSD, FSIM, VSI, MDSI, HaarPSI, SR-SIM, DSS, VIF, total variation), their Loss
modules driving Adam steps, and FID/KID/PR/MSID over a small extractor's features.  piq declares torchvision
as a dependency (installed with ``--no-deps`` here); the program stands in for ``torchvision.models``, which only
the VGG/Inception metrics it does not run use."""
from conftest import lib_program_vs_torch


def test_piq_metrics_and_losses_like_torch():
    _, ours = lib_program_vs_torch("lib_piq.py", "piq", timeout=600, rtol=1e-3)
    assert len(ours) == 23, ours
    assert ours[0] == "psnr 21.9708 2 25.4966", ours[0]
    assert ours[1] == "ssim 0.3998 0.4001 [0.3891, 0.3944]", ours[1]
    assert ours[4] == "fsim 0.6651 0.7338", ours[4]
    assert ours[10].startswith("loss ssim [0.6002, "), ours[10]
    assert ours[18] == "feats (24, 12) -0.2375 -0.2354", ours[18]
    assert ours[21] == "pr 0.6667 0.9167", ours[21]
