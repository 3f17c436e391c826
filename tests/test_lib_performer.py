"""performer-pytorch 1.1.4 and linear-attention-transformer 0.19.1 (FAVOR+ and linear attention language models)
under the drop-in runner, compared line by line with the same program under real torch
(tests/programs/lib_performer.py)."""
from conftest import lib_program_vs_torch


def test_performer_and_linear_attention_transformer_like_torch():
    _, ours = lib_program_vs_torch("lib_performer.py", "torch", "performer_pytorch", "linear_attention_transformer")
    lines = [text for text in ours if not text.startswith("unable to import cuda code")]
    assert len(lines) == 18, lines
    line = {text.split(" ")[0] + " " + text.split(" ")[1]: text for text in lines}
    # the orthogonal random features come from torch's randn stream and QR
    assert line["favor projection"] == "favor projection (32, 8) [-0.758, 0.0095, -1.0688, 0.1732]"
    assert line["causal out"].endswith(" True True"), line["causal out"]
    # the reversible sequence's hand-written backward reaches every parameter and the input
    assert line["reversible encoder"].startswith("reversible encoder (2, 16, 32) -4.9346 "), line["reversible encoder"]
    assert line["performer losses"] == "performer losses [3.7979, 3.7269, 3.6384, 3.5276, 3.4466]"
    # feature_redraw_interval=3 over five training calls: redrawn once, counter restarted
    assert line["redraw calls"].startswith("redraw calls 1 False "), line["redraw calls"]
    assert line["performer generate"] == "performer generate (1, 6) [[22, 9, 36, 35, 13, 18]]"
    assert line["linear losses"] == "linear losses [3.8716, 3.7602, 3.6548, 3.5558, 3.4631]"
    assert line["linear generate"] == "linear generate [13, 11, 16, 11, 38, 11]"
