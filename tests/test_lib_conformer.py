"""conformer 0.3.2 under the drop-in runner, compared line by line with real torch: a two-block Conformer encoder
trained with SGD (BatchNorm running statistics, eval output), a causal convolution module, a causal block's input
and relative-position gradients, attention with padding and context masks, and a state_dict round trip."""
from conftest import lib_program_vs_torch


def test_conformer_like_torch():
    _, ours = lib_program_vs_torch("lib_conformer.py", "conformer", "einops", timeout=600, rtol=1e-4)
    assert len(ours) == 11, ours
    assert ours[0] == "params 26960 88", ours[0]
    assert ours[3] == "train 5 0.6324", ours[3]
    assert ours[6] == "causal conv 0.0 1.0", ours[6]
    assert ours[10] == "reloaded True", ours[10]
