"""torchattacks 3.5.1 under the drop-in runner, compared line by line with real torch: FGSM, PGD (Linf and L2),
MI-FGSM, DI-FGSM, TI-FGSM, EOT-PGD, TPGD, CW, DeepFool and APGD against a small seeded CNN, targeted modes,
input normalization, and Attack.save / load. APGD seeds ``torch.cuda.random`` (a module torchlike lacked) right
after the CPU generator: without a GPU that must leave the CPU stream alone, as torch does."""
from conftest import lib_program_vs_torch


def test_torchattacks_like_torch():
    _, ours = lib_program_vs_torch("lib_torchattacks.py", "torchattacks", timeout=600, rtol=1e-4)
    assert len(ours) == 23, ours
    assert ours[0].startswith("train "), ours[0]
    assert ours[11].startswith("apgd (16, 3, 8, 8) 0.0941"), ours[11]
    assert ours[-1] == "loaded (8, 3, 8, 8) [0, 1, 2, 3, 0, 1, 2, 3] 0.0314", ours[-1]
