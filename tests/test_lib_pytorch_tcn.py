"""pytorch-tcn 1.2.3 under the drop-in runner, compared line by line with real torch: TCNs built from configs
(causal with weight_norm parametrizations, gated GELU with skip connections, non-causal batch/layer norm, NLC
input with embeddings and dilation reset, output projections) trained a few steps; streaming inference one step
at a time through the padding buffers equal to the full causal forward; buffer resets; a state_dict round trip."""
from conftest import lib_program_vs_torch


def test_pytorch_tcn_like_torch():
    _, ours = lib_program_vs_torch("lib_pytorch_tcn.py", "pytorch_tcn", timeout=600, rtol=1e-4)
    assert len(ours) == 11, ours
    assert ours[0].startswith("causal weight_norm 753 [0.5378, 0.4366, 0.3595, 0.3144] (4, 1, 24)"), ours[0]
    assert ours[4] == "nlc embeddings (4, 24, 2) 0.1591 [1, 2, 4, 1]", ours[4]
    assert ours[5].startswith("streaming (1, 1, 24) True"), ours[5]
    assert ours[6] == "buffers [(1, 3, 2), (1, 8, 2), (1, 8, 4)]", ours[6]
    assert ours[9] == "reloaded True", ours[9]
