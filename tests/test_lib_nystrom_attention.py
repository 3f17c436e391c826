"""nystrom-attention 0.0.14 under the drop-in runner, compared line by line with real torch: NystromAttention
(landmark means over padded sequences, the iterative Moore-Penrose pseudo-inverse, the depthwise-conv value
residual), its key-padding mask and returned attention matrices, and a two-layer Nystromformer classifier with
dropout trained with AdamW and gradient clipping."""
from conftest import lib_program_vs_torch


def test_nystrom_attention_like_torch():
    _, ours = lib_program_vs_torch("lib_nystrom_attention.py", "nystrom_attention", timeout=600, rtol=1e-4)
    assert len(ours) == 10, ours
    assert ours[0] == "out (2, 14, 16) -0.0001 0.2227 [0.2244, -0.1115, 0.2268, 0.1625]", ours[0]
    assert ours[2] == "matrices (2, 2, 16, 4) (2, 2, 4, 4) (2, 2, 4, 16) 1.0", ours[2]
    assert ours[4] == "params 6670", ours[4]
    losses = [float(line.split()[2]) for line in ours if line.startswith("train ")]
    assert len(losses) == 3 and losses[0] > losses[1] > losses[2], losses
