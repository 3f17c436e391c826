"""CoCa-pytorch 0.1.0 under the drop-in runner, compared line by line with real torch: CoCa (parallel attention +
SwiGLU text decoder with rotary embeddings and a padding-aware CLS token, attention pooling of image tokens,
multimodal cross-attention, captioning + contrastive loss, tied logits) trained with AdamW from a small conv image
encoder (gradients, embeddings, logits) and with SGD from precomputed image tokens, and a state_dict round trip."""
from conftest import lib_program_vs_torch


def test_coca_like_torch():
    _, ours = lib_program_vs_torch("lib_coca.py", "coca_pytorch", "einops", timeout=600, rtol=1e-4)
    assert len(ours) == 10, ours
    assert ours[0] == "params 31905 False True", ours[0]
    assert ours[3] == "train 5 3.5389", ours[3]
    assert ours[6] == "logits (4, 10, 30) [-0.0904, 0.1983, 0.1494, -0.0316] [14, 15, 11, 7]", ours[6]
    assert ours[9] == "reloaded True ['img_attn_pool.context_norm.beta', 'img_attn_pool.norm.beta']", ours[9]
