"""g-mlp-pytorch 0.1.5 under the drop-in runner, compared line by line with real torch: a causal gMLP language model
(tiny attention, token shifting, two gating heads) trained with Adam through AutoregressiveWrapper and sampled
with top-k + multinomial, causality of its logits, the circulant-matrix gating unit's gradients, gMLPVision with
stochastic depth trained with SGD (which layers survive each step), and a state_dict round trip."""
from conftest import lib_program_vs_torch


def test_g_mlp_like_torch():
    _, ours = lib_program_vs_torch("lib_g_mlp.py", "g_mlp_pytorch", "einops", timeout=600, rtol=1e-4)
    assert len(ours) == 15, ours
    assert ours[0] == "params 11156 16", ours[0]
    assert ours[5] == "causal 0.0 1.0", ours[5]
    assert ours[6] == "generate (6,) [6, 9, 11, 8, 7, 7]", ours[6]
    assert ours[10] == "vision 1 1.0649 [3]", ours[10]
    assert ours[14] == "reloaded True", ours[14]
