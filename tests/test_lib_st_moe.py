"""st-moe-pytorch 0.1.8 under the drop-in runner, compared line by line with real torch: a SparseMoEBlock (top-2
gating with capacity limits, stochastic second-expert routing, Gumbel-noised gates, balance and router z-losses,
GEGLU experts) trained with Adam, the dispatch tensors in training and eval capacity, eval output, a top-3 MoE with
CoLT5's differentiable top-k (input and gate gradients), and a state_dict round trip."""
from conftest import lib_program_vs_torch


def test_st_moe_like_torch():
    _, ours = lib_program_vs_torch("lib_st_moe.py", "st_moe_pytorch", "colt5_attention", "beartype", timeout=600,
                                   rtol=1e-4)
    assert len(ours) == 10, ours
    assert ours[0] == "params 5148 4", ours[0]
    assert ours[3] == "train 5 1.0688 0.8515 2.5655", ours[3]
    assert ours[5] == "dispatch train (2, 16, 4, 5) [[4.0, 5.0, 5.0, 5.0], [5.0, 5.0, 5.0, 5.0]] 21.0371", ours[5]
    assert ours[6] == "dispatch eval (2, 16, 4, 8) [[4.0, 6.0, 8.0, 8.0], [7.0, 8.0, 6.0, 8.0]] 0.0 0.0", ours[6]
    assert ours[9] == "reloaded True ['threshold_eval', 'threshold_train', 'to_gates.weight']", ours[9]
