"""torchio 1.2.1 under the drop-in runner, compared line by line with real torch: Subjects of in-memory
ScalarImage/LabelMap volumes, preprocessing (RescaleIntensity, masked ZNormalization, Resample, CropOrPad,
ToCanonical), augmentation seeded with torch.manual_seed (RandomFlip, RandomAffine, RandomElasticDeformation,
noise, bias field, gamma, blur, OneOf, Compose) with its history and inverse, SubjectsDataset + DataLoader, a
patch Queue (uniform and label samplers) training a tiny 3-D conv net, and GridSampler/GridAggregator inference."""
from conftest import lib_program_vs_torch


def test_torchio_transforms_queue_grid_like_torch():
    _, ours = lib_program_vs_torch("lib_torchio.py", "torchio", timeout=600, rtol=1e-3)
    assert len(ours) == 28, ours
    assert ours[8].startswith("flip (1, 20, 18, 16) torch.float32 153.53 142.434 76.935 427.4"), ours[8]
    assert ours[17] == "history ['ToCanonical', 'Affine', 'ZNormalization', 'Noise']", ours[17]
    assert ours[21] == "dataset 3 (1, 20, 18, 16) 41", ours[21]
    assert ours[23].endswith("[7, 0, 7, 15, 8, 15]") and ours[24].endswith("[12, 5, 6, 20, 13, 14]"), ours[23:25]
    assert ours[25].endswith("[671, 5089, 0]"), ours[25]
