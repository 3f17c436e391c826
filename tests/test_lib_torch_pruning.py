"""Torch-Pruning 1.6 (a dependency graph read from autograd's grad_fn graph; manual group pruning, MetaPruner with
L1/L2 magnitude, BN-scale and Taylor importance, iterative pruning, MACs, fine-tuning) on a residual CNN with a
concatenation, a flatten-into-Linear CNN and a transformer block, under the drop-in runner, compared line by
line with the same program under real torch.
"""
from conftest import lib_program_vs_torch


def test_torch_pruning_graphs_groups_and_pruners_like_torch():
    _, ours = lib_program_vs_torch("lib_torch_pruning.py", "torch", "torch_pruning", timeout=600, rtol=1e-4)
    assert len(ours) == 29, ours
    line = {text.split(" ")[0] + " " + text.split(" ")[1]: text for text in ours}
    # the graph torch-pruning reads from grad_fn: node kinds and the groups coupled by adds/concat/flatten
    assert line["resnet graph"].endswith("[1, 6, 5, 5, 15, 4, 4]"), line["resnet graph"]
    assert "('CONCAT', 1)" in line["resnet graph"] and "('RESHAPE', 1)" in line["resnet graph"]
    assert ours[2] == "resnet stem group 15 ['BatchNorm2d', 'Conv2d', '_ElementWiseOp']", ours[2]
    assert ours[3] == "resnet stem group ok True", ours[3]
    assert "right:6x13x3x3 bn_cat:18 proj:24x18x3x3" in ours[4], ours[4]
    assert ours[6] == "resnet history [('stem', True, [2, 6, 9]), ('right', True, [0, 5])]"
    assert ours[7].startswith("resnet L1 4188 829314 stem:8x3x3x3"), ours[7]
    assert line["flat fc1"].startswith("flat fc1 idxs [[16, 17,"), line["flat fc1"]
    assert "fc1:24x112" in line["flat magnitude"], line["flat magnitude"]
    assert [text.split()[3] for text in ours if text.startswith("taylor step")] == ["10555", "6597", "4188"]
    assert "fc1:96x32 fc2:32x96" in line["vit pruned"], line["vit pruned"]
