"""minGRU-pytorch 0.2.1 under the drop-in runner, compared line by line with real torch: a minLM language model with
causal convolutions and dropout trained with AdamW, a minLSTM language model, parallel (log-space scan) versus
recurrent decoding with cached hidden states, greedy generation, single minGRU/minLSTM layers continuing from a
hidden state (input gradients), the minGRU/attention hybrid, and a state_dict round trip."""
from conftest import lib_program_vs_torch


def test_mingru_like_torch():
    _, ours = lib_program_vs_torch("lib_mingru.py", "minGRU_pytorch", "einops", timeout=600, rtol=1e-4)
    assert len(ours) == 11, ours
    assert ours[0] == "params 12216 False", ours[0]
    assert ours[3] == "gru lm 5 2.5982", ours[3]
    assert ours[5].startswith("parallel vs recurrent 1.0 (4, 1, 24)"), ours[5]
    assert ours[6] == "greedy [[12, 15, 5, 13, 4, 14, 14, 14, 14]]", ours[6]
    assert ours[10] == "reloaded True 2.5047", ours[10]
