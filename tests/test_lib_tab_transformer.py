"""tab-transformer-pytorch 0.6.1 under the drop-in runner, compared line by line with real torch: TabTransformer
(shared category embeddings, continuous mean/std normalization, hyper-connection residual streams, an x-mlps
head) and FTTransformer trained a few steps with AdamW/SGD/Adam (dropout on, gradient clipping), attention maps
returned in eval mode, a special (negative) category token, and a state_dict round trip."""
from conftest import lib_program_vs_torch


def test_tab_transformer_like_torch():
    _, ours = lib_program_vs_torch("lib_tab_transformer.py", "tab_transformer_pytorch", timeout=600, rtol=1e-3)
    assert len(ours) == 16, ours
    assert ours[0] == "tab params 19821 4", ours[0]
    assert ours[1] == "tab step 0 0.722", ours[1]
    assert ours[5].endswith("(2, 5, 2, 3, 3) 1.0"), ours[5]
    assert ours[8] == "ft params 9373", ours[8]
    assert ours[14] == "ft reloaded True", ours[14]
