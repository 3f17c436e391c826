"""open_clip (open-clip-torch) under the drop-in runner: tiny CLIP models (ViT and ModifiedResNet image towers)
created from registered configs without pretrained weights, the bundled tokenizer, torchvision preprocessing,
encode_image/encode_text and ClipLoss training, compared line by line with real torch.  Also the functional
multi-head attention with an output projection of another width (the ModifiedResNet attention pool), vs torch.
"""
import os

import numpy as np
import pytest
from conftest import lib_program_vs_torch


def test_open_clip_tiny_models_match_torch():
    env = dict(os.environ, HF_HUB_OFFLINE="1")
    _, ours = lib_program_vs_torch("lib_open_clip.py", "torch", "open_clip", "torchvision", "PIL", "ftfy", "regex", env=env, timeout=900)
    assert any(line.endswith("visual ModifiedResNet") for line in ours)
    for name in ("tiny-vit", "tiny-rn"):
        losses = [float(line.split()[-1]) for line in ours if line.startswith(f"{name} step")]
        assert len(losses) == 3 and losses[-1] < losses[0], (name, losses)


@pytest.mark.parametrize("need_weights", [False, True])
def test_mha_forward_output_projection_of_another_width_like_torch(need_weights):
    torch = pytest.importorskip("torch", reason="compared with real torch")
    import torchlike
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(s).astype(np.float32) for s in ((5, 3, 8), (8, 8), (8, 8), (8, 8), (24,), (4, 8), (4,))]
    results = []
    for mod in (torch, torchlike):
        x, qw, kw, vw, b, ow, ob = [mod.tensor(a, requires_grad=True) for a in arrays]
        o, w = mod.nn.functional.multi_head_attention_forward(
            x, x, x, 8, 2, None, b, None, None, False, 0.0, ow, ob, training=False, need_weights=need_weights,
            use_separate_proj_weight=True, q_proj_weight=qw, k_proj_weight=kw, v_proj_weight=vw)
        (o * o).sum().backward()
        results.append((o.detach().numpy(), qw.grad.numpy(), ow.grad.numpy(), None if w is None else w.detach().numpy()))
    for a, b in zip(*results):
        if a is None:
            assert b is None
        else:
            np.testing.assert_allclose(b, a, rtol=1e-4, atol=1e-4)
