"""info-nce-pytorch 0.1.4 under the drop-in runner, compared line by line with real torch: the InfoNCE loss with
in-batch, unpaired and paired negatives across temperatures and reductions, the functional form, its ValueError
checks, and two encoders trained contrastively with Adam, then retrieval from their embeddings."""
from conftest import lib_program_vs_torch


def test_info_nce_like_torch():
    _, ours = lib_program_vs_torch("lib_info_nce.py", "info_nce", timeout=600, rtol=1e-4)
    assert len(ours) == 17, ours
    assert ours[0] == "in-batch 0.1 mean () 6.0274", ours[0]
    assert ours[7] == "paired 4.5657", ours[7]
    assert ours[10] == "error <negative_keys> must have 3 dimensions if <negative_mode> == 'paired'.", ours[10]
    assert ours[15] == "train 11 0.4626", ours[15]
