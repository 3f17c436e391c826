"""pytorch-msssim 1.0.0 under the drop-in runner, compared line by line with real torch: ssim/ms_ssim (per-image,
custom windows, constants and scale weights, non-negative SSIM, 3-D volumes) and the SSIM/MS_SSIM modules as the
loss of a tiny denoiser trained with Adam."""
from conftest import lib_program_vs_torch


def test_pytorch_msssim_like_torch():
    _, ours = lib_program_vs_torch("lib_pytorch_msssim.py", "pytorch_msssim", timeout=600, rtol=1e-3)
    assert len(ours) == 4, ours
    assert ours[0] == "pm ssim 0.3998 [0.3988, 0.4008] 0.4329", ours[0]
    assert ours[1] == "pm ms_ssim 0.7424 [0.7415, 0.7433]", ours[1]
    assert ours[2] == "pm ssim3d 0.3649", ours[2]
    assert ours[3].startswith("pm train [0.4398, "), ours[3]
