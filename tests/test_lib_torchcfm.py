"""torchcfm 1.0.7 (conditional flow matching: the CFM/target/variance-preserving/OT/Schrodinger-bridge probability
paths, POT minibatch OT plans and Wasserstein distances, an MLP vector field trained with CFM and OT-CFM, sampling
with torchdiffeq and torchdyn's NeuralODE, the class-conditional image UNet) under the drop-in runner, compared
line by line with the same program under real torch.
"""
from conftest import lib_program_vs_torch


def test_torchcfm_paths_ot_training_sampling_unet_like_torch():
    _, ours = lib_program_vs_torch("lib_torchcfm.py", "torch", "torchcfm", "ot", "torchdyn", "torchdiffeq",
                                   timeout=900)
    assert len(ours) == 20, ours
    line = {text.split(" ")[0]: text for text in ours}
    assert line["samples"].startswith("samples (64, 2) torch.float32 [-0.3678, 3.5353, 6.0582] (64, 2)"), line
    assert line["plan"] == "plan (64, 64) 1.0 64"
    assert line["wasserstein"] == "wasserstein 2.914 2.686"
    assert line["guided"].endswith("torch.int64 212 28"), line["guided"]
    losses = next(text for text in ours if text.startswith("otcfm losses"))
    otcfm = [float(v) for v in losses.split("[")[1].rstrip("]").split(", ")]
    assert len(otcfm) == 4 and otcfm[-1] < otcfm[0], losses
    assert line["torchdyn"].startswith("torchdyn trajectory (5, 32, 2) "), line["torchdyn"]
    unet = [float(text.split()[3]) for text in ours if text.startswith("unet step")]
    assert len(unet) == 2 and unet[1] < unet[0], unet
    assert ours[-1] == "reload ['net.0.weight', 'net.0.bias'] True"
