"""x-transformers (lucidrains: TransformerWrapper decoder with rotary positions and grouped kv heads trained
through AutoregressiveWrapper and sampled greedily, a masked encoder, XTransformer encoder-decoder loss and
gradient) under the drop-in runner, compared line by line with the same program under real torch.
"""
from conftest import lib_program_vs_torch


def test_x_transformers_train_generate_encoder_decoder_match_torch():
    _, ours = lib_program_vs_torch("lib_x_transformers.py", "torch", "x_transformers", "einx", timeout=900)
    assert len(ours) == 9
    losses = [float(line.split()[-1]) for line in ours if line.startswith("decoder step")]
    assert len(losses) == 4 and losses[-1] < losses[0], losses
