"""Tiny Hugging Face models beyond text (SigLIP, Wav2Vec2 CTC, Longformer) built from configs, saved and reloaded
with save_pretrained/from_pretrained, then trained a few AdamW steps. Prints one line per measurement; run the same
script with real torch and under ``python -m torchlike run`` and compare.

What each model exercised: SigLIP's attention-pooling head is an ``nn.MultiheadAttention`` that from_pretrained
must not re-initialize after loading (transformers guards the init functions of ``sys.modules["torch.nn.init"]``);
Wav2Vec2's CTC loss runs under ``torch.backends.cudnn.flags``; Longformer calls ``new_ones(size=...)``.

usage: hf_vision_audio_models.py [siglip|wav2vec2|longformer ...]
"""
import sys
import tempfile

import numpy as np
import torch
import transformers

STEPS = 3


def build(name):
    if name == "siglip":
        tower = dict(hidden_size=32, intermediate_size=64, num_hidden_layers=1, num_attention_heads=4)
        cfg = transformers.SiglipConfig(text_config=dict(vocab_size=97, max_position_embeddings=16, **tower),
                                        vision_config=dict(image_size=32, patch_size=8, **tower))
        return transformers.SiglipModel(cfg)
    if name == "wav2vec2":
        cfg = transformers.Wav2Vec2Config(
            vocab_size=12, hidden_size=32, num_hidden_layers=1, num_attention_heads=4, intermediate_size=64,
            conv_dim=(8, 8), conv_stride=(5, 2), conv_kernel=(10, 3), num_conv_pos_embeddings=8,
            num_conv_pos_embedding_groups=2, hidden_dropout=0.0, attention_dropout=0.0, activation_dropout=0.0,
            feat_proj_dropout=0.0, mask_time_prob=0.0, layerdrop=0.0, pad_token_id=0, ctc_loss_reduction="mean")
        return transformers.Wav2Vec2ForCTC(cfg)
    if name == "longformer":
        cfg = transformers.LongformerConfig(
            vocab_size=97, hidden_size=32, num_hidden_layers=1, num_attention_heads=4, intermediate_size=64,
            hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0, num_labels=5, attention_window=4,
            max_position_embeddings=64, pad_token_id=1)
        return transformers.LongformerForSequenceClassification(cfg)
    raise SystemExit(f"unknown model {name}")


def inputs(name, seed):
    rng = np.random.default_rng(seed)
    if name == "siglip":
        return {"input_ids": torch.from_numpy(rng.integers(0, 97, (2, 8))), "return_loss": True,
                "pixel_values": torch.from_numpy(rng.standard_normal((2, 3, 32, 32)).astype(np.float32))}
    if name == "wav2vec2":
        return {"input_values": torch.from_numpy(rng.standard_normal((2, 400)).astype(np.float32)),
                "labels": torch.from_numpy(rng.integers(1, 12, (2, 5)))}
    ids = torch.from_numpy(rng.integers(3, 97, (2, 12)))
    return {"input_ids": ids, "attention_mask": torch.ones_like(ids),
            "labels": torch.from_numpy(rng.integers(0, 5, (2,)))}


def run(name):
    torch.manual_seed(0)
    model = build(name)
    with tempfile.TemporaryDirectory() as d:
        model.save_pretrained(d)
        model = type(model).from_pretrained(d)
    print(f"{name} params {sum(p.numel() for p in model.parameters())} "
          f"abs-sum {sum(float(p.detach().abs().sum()) for p in model.parameters()):.6g}")
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    model.train()
    for step in range(STEPS):
        out = model(**inputs(name, 0))
        opt.zero_grad()
        out.loss.backward()
        opt.step()
        print(f"{name} step {step} loss {out.loss.item():.5f}")
    model.eval()
    batch = inputs(name, 9)
    batch.pop("labels", None)
    with torch.no_grad():
        out = model(**batch)
    logits = out.logits_per_image if name == "siglip" else out.logits
    print(f"{name} eval logits {tuple(logits.shape)} {float(logits.abs().mean()):.5f}")


if __name__ == "__main__":
    transformers.logging.set_verbosity_error()
    transformers.utils.logging.disable_progress_bar()
    for n in sys.argv[1:] or ["siglip", "wav2vec2", "longformer"]:
        run(n)
