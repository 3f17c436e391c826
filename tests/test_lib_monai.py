"""MONAI (a 2-D UNet trained with DiceCELoss/DiceLoss and Adam, DiceMetric after AsDiscrete,
sliding_window_inference, array and dict transforms, BasicUNet/DynUNet/SegResNet forward passes,
monai.data.DataLoader over Dataset/CacheDataset of MetaTensor dicts) under the drop-in runner, compared line by
line with the same program under real torch.
"""
from conftest import lib_program_vs_torch


def test_monai_unet_training_metrics_inference_and_data_match_torch():
    _, ours = lib_program_vs_torch("lib_monai_seg.py", "torch", "monai", timeout=600, rtol=1e-3)
    assert len(ours) == 15
    by = {line.split()[0]: line for line in ours}
    for name in ("dicece", "dice"):
        losses = [float(v) for v in [line for line in ours if line.startswith(name + " losses")][0]
                  .split("[")[1][:-1].split(",")]
        assert losses[-1] < losses[0], (name, losses)
    assert "(1, 2, 80, 72)" in by["sliding"]
    assert all(" MetaTensor " in line for line in ours if line.startswith("batch "))  # collate keeps the subclass
    assert by["segresnet"].startswith("segresnet (2, 2, 32, 32)")
