"""open_clip without downloads: tiny CLIP models (ViT and ModifiedResNet image towers) from configs registered
with add_model_config, no pretrained weights; the bundled BPE tokenizer, the preprocessing transforms on a PIL
image, encode_image / encode_text, logits, and a few training steps with ClipLoss.  Prints one line per
measurement; run the same script with real torch and under ``python -m torchlike run`` and compare.
"""
import json
import os
import tempfile

import numpy as np
import torch
from _torchvision_schemas import load_or_define

_LIB = load_or_define()

import open_clip  # noqa: E402
from PIL import Image  # noqa: E402

TEXT = {"context_length": 16, "vocab_size": 49408, "width": 32, "heads": 2, "layers": 2}
CONFIGS = {
    "tiny-vit": {"embed_dim": 16, "vision_cfg": {"image_size": 32, "layers": 2, "width": 32, "head_width": 16,
                                                 "patch_size": 8}, "text_cfg": TEXT},
    "tiny-rn": {"embed_dim": 16, "vision_cfg": {"image_size": 32, "layers": [1, 1, 1, 1], "width": 8,
                                                "head_width": 16}, "text_cfg": TEXT},
}


def show(name, x):
    print(f"{name} {tuple(x.shape)} {x.sum().item():.5f} {x.abs().sum().item():.5f} "
          f"{[round(v, 5) for v in x.flatten()[:3].tolist()]}")


with tempfile.TemporaryDirectory() as d:
    for name, cfg in CONFIGS.items():
        with open(os.path.join(d, f"{name}.json"), "w") as f:
            json.dump(cfg, f)
    open_clip.add_model_config(d)

rng = np.random.default_rng(0)
image = Image.fromarray(rng.integers(0, 256, (40, 48, 3), dtype=np.uint8))
tokenizer = open_clip.get_tokenizer("tiny-vit")
captions = ["a photo of a cat", "a diagram", "two dogs playing in the snow", "a red car"]
tokens = tokenizer(captions)
print(f"tokens {tuple(tokens.shape)} {tokens.dtype} {tokens[0, :7].tolist()}")

for name in CONFIGS:
    torch.manual_seed(0)
    model, _, preprocess = open_clip.create_model_and_transforms(name, pretrained=None)
    model.eval()
    print(f"{name} params {sum(p.numel() for p in model.parameters())} visual {type(model.visual).__name__}")
    pixels = preprocess(image).unsqueeze(0)
    show(f"{name} preprocess", pixels)
    images = torch.cat([pixels, pixels.flip(-1), pixels * 0.5, pixels.roll(3, dims=-2)])
    with torch.no_grad():
        img = model.encode_image(images, normalize=True)
        txt = model.encode_text(tokens, normalize=True)
        show(f"{name} image features", img)
        show(f"{name} text features", txt)
        probs = (model.logit_scale.exp() * img @ txt.T).softmax(dim=-1)
        show(f"{name} probs", probs)
        out = model(images, tokens)
        print(f"{name} forward keys {sorted(out) if isinstance(out, dict) else len(out)} "
              f"logit_scale {float(out[2] if isinstance(out, tuple) else out['logit_scale']):.5f}")
    model.train()
    loss_fn = open_clip.ClipLoss()
    # eps 1e-4, not AdamW's 1e-8: Adam's first steps move a weight by ~lr however small its gradient, so gradients
    # that are rounding noise (attnpool's key bias has none in exact arithmetic; ~3e-8 here) would move by ~lr in
    # each framework's own direction (with eps 1e-8 the loss after one step differed by 4e-4)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, eps=1e-4)
    for step in range(3):
        image_features, text_features, logit_scale = model(images, tokens)[:3]
        loss = loss_fn(image_features, text_features, logit_scale)
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"{name} step {step} loss {loss.item():.5f}")
