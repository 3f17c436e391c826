"""PaLM-pytorch 0.2.2 under the drop-in runner, compared line by line with real torch: a PaLM language model
(parallel multi-query attention + SwiGLU with rotary embeddings, tied logits) trained with Adam through its
AutoregressiveWrapper, its cached mask/rotary buffers re-registered for a longer input, top-k sampling stopping at
an end token, the ALiBi/RMSNorm "lite" model trained with SGD, and a state_dict round trip."""
from conftest import lib_program_vs_torch


def test_palm_like_torch():
    _, ours = lib_program_vs_torch("lib_palm.py", "palm_pytorch", "einops", timeout=600, rtol=1e-4)
    assert len(ours) == 13, ours
    assert ours[0] == "params 18272 True", ours[0]
    assert ours[3] == "lm 5 2.781", ours[3]
    assert ours[5] == "cached (12, 12) (12, 8) ['mask', 'norm.beta', 'pos_emb', 'rotary_emb.inv_freq']", ours[5]
    assert ours[8] == "generate [[19, 6, 23], [17, 23, 0], [3, 23, 0]] True", ours[8]
    assert ours[11] == "saved keys 16 False", ours[11]
    assert ours[12] == "reloaded True", ours[12]
