"""denoising-diffusion-pytorch 2.3.4 under the drop-in runner, compared line by line with real torch: a tiny Unet
(resnet blocks, linear and full attention, sinusoidal time embeddings) trained two Adam steps as a GaussianDiffusion
with the pred_v objective and min-SNR loss weights, then sampled with DDIM (3 of 10 steps), and the diffusion's
registered noise-schedule buffers; a Unet1D GaussianDiffusion1D loss and its gradient.

Found nothing to fix (the 1-D gradient's L1 norm, ~387.55, agrees to ~3e-7 relative). The package imports torchvision
(its image Trainer's transforms and utils), not installed beside this torch: the program puts empty stand-ins in its
place."""
from conftest import lib_program_vs_torch


def test_denoising_diffusion_unet_training_and_ddim_sampling_like_torch():
    t, ours = lib_program_vs_torch("lib_denoising_diffusion.py", "denoising_diffusion_pytorch", "ema_pytorch",
                                   "accelerate", timeout=600, rtol=1e-4)
    assert len(ours) == 6, ours
    assert ours[0] == "params 79787 pred_v True", ours[0]
    assert ours[3].startswith("sample (2, 3, 8, 8)"), ours[3]
    assert ours[4] == t[4] == "buffers [0.960507, 0.5, 3.9e-05] 4.5", (t[4], ours[4])
    assert ours[5].startswith("1d loss 1.462 387.55"), ours[5]
