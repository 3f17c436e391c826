"""denoising-diffusion-pytorch 2.3.4 under the drop-in runner, compared line by line with real torch: a tiny Unet
(resnet blocks, linear and full attention, sinusoidal time embeddings) trained two Adam steps as a GaussianDiffusion
with the pred_v objective and min-SNR loss weights, then sampled with DDIM (3 of 10 steps), and the diffusion's
registered noise-schedule buffers.

Found nothing to fix. The package imports torchvision (its image Trainer's transforms and utils), not installed beside
this torch: the program puts empty stand-ins in its place. A Unet1D/GaussianDiffusion1D training step also agreed
(loss 1.462, gradient L1 387.5523 vs torch's 387.5523/387.5522) but took ~20 s of compilation under torchlike here,
so it is left out of the program."""
from conftest import lib_program_vs_torch


def test_denoising_diffusion_unet_training_and_ddim_sampling_like_torch():
    t, ours = lib_program_vs_torch("lib_denoising_diffusion.py", "denoising_diffusion_pytorch", "ema_pytorch",
                                   "accelerate", timeout=600, rtol=1e-4)
    assert len(ours) == 5, ours
    assert ours[0] == "params 79787 pred_v True", ours[0]
    assert ours[3].startswith("sample (2, 3, 8, 8)"), ours[3]
    assert ours[4] == t[4] == "buffers [0.960507, 0.5, 3.9e-05] 4.5", (t[4], ours[4])
