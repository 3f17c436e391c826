"""kornia's transform-aware paths (each call asks ``torch._C._are_functorch_transforms_active()``): blurs,
brightness/contrast, focal/dice losses and their gradients, morphology, ssim, one_hot, distance_transform, under
``torch.func.vmap``/``grad`` too, and augmentations with ``same_on_batch``; runner vs real torch line by line."""
from conftest import lib_program_vs_torch


def test_kornia_transform_aware_paths_like_torch():
    _, ours = lib_program_vs_torch("lib_kornia_transform_paths.py", "torch", "kornia", timeout=600, rtol=1e-4)
    assert len(ours) == 24
    by_name = {line.split()[0]: line for line in ours}
    assert by_name["one_hot"].startswith("one_hot (2, 4, 6, 6) float32 72.000")
    assert by_name["vmap_box_blur"].startswith("vmap_box_blur (3, 3, 8, 8) float32")
    # same_on_batch draws one brightness for the batch: the two images differ from the per-image draw
    assert ours[-8].split()[7] != ours[-7].split()[7]
