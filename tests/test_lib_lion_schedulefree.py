"""lion-pytorch (Lion) and schedulefree (AdamWScheduleFree, SGDScheduleFree with train/eval weight switching)
optimizing a small model under the drop-in runner, compared line by line with the same program under real torch.
"""
from conftest import lib_program_vs_torch


def test_lion_and_schedulefree_optimizers_match_torch():
    _, ours = lib_program_vs_torch("lib_lion_schedulefree.py", "torch", "lion_pytorch", "schedulefree", timeout=600)
    assert len(ours) == 9
    for line in ours[0::3]:
        losses = [float(v) for v in line.split("[")[1].rstrip("]").split(",")]
        assert len(losses) == 8 and losses[-1] < losses[0], line
