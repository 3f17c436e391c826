"""More Hugging Face transformers architectures, encoders, vision models and Mamba, built from tiny seeded configs
(no download): forward with labels, backward (with the configs' default dropout), a few AdamW steps, then eval
logits (and Mamba's greedy ``generate()``).  Prints one line per measurement; run the same script with real torch
and under ``python -m torchlike run`` and compare.

What each model exercises beyond BERT/ViT: DistilBERT's and RoBERTa's position ids from padding, ALBERT's
shared layers and factorized embeddings with its sentence-order head, ELECTRA's replaced-token discriminator
loss (BCE with logits on a mask), XLNet's two-stream relative attention (``einsum``, permutation masks),
ModernBERT's unpadded global/local attention, CLIP's contrastive loss, Swin's shifted windows (``roll``, window
partition views), ConvNeXt's depthwise convs and layer scale, HF ResNet's batch norm, SegFormer's overlapping
patch embeddings and upsampled segmentation loss, Mamba's selective scan (the slow path: no CUDA kernels).

usage: hf_more_encoders_vision.py [name ...]
"""
import sys

import numpy as np
import torch
import transformers as T

STEPS = 3
V = 97
ENC = dict(vocab_size=V, hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64,
           max_position_embeddings=64)


def build(name):
    if name == "distilbert":
        return T.DistilBertForMaskedLM(T.DistilBertConfig(vocab_size=V, dim=32, n_layers=2, n_heads=4, hidden_dim=64,
                                                          max_position_embeddings=64))
    if name == "roberta":
        return T.RobertaForMaskedLM(T.RobertaConfig(pad_token_id=1, **ENC))
    if name == "albert":
        return T.AlbertForPreTraining(T.AlbertConfig(embedding_size=16, **ENC))
    if name == "electra":
        return T.ElectraForPreTraining(T.ElectraConfig(embedding_size=16, **ENC))
    if name == "xlnet":
        return T.XLNetLMHeadModel(T.XLNetConfig(vocab_size=V, d_model=32, n_layer=2, n_head=4, d_inner=64,
                                                mem_len=None))
    if name == "modernbert":
        return T.ModernBertForMaskedLM(T.ModernBertConfig(
            vocab_size=V, hidden_size=32, intermediate_size=64, num_hidden_layers=3, num_attention_heads=4,
            max_position_embeddings=64, global_attn_every_n_layers=2, local_attention=4, pad_token_id=0,
            attn_implementation="sdpa"))
    if name == "clip":
        tower = dict(hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4)
        return T.CLIPModel(T.CLIPConfig(text_config=dict(vocab_size=V, max_position_embeddings=16, **tower),
                                        vision_config=dict(image_size=16, patch_size=4, **tower), projection_dim=16))
    if name == "swin":
        return T.SwinForImageClassification(T.SwinConfig(image_size=32, patch_size=2, embed_dim=16, depths=[2, 2],
                                                         num_heads=[2, 4], window_size=4, num_labels=5))
    if name == "convnext":
        return T.ConvNextForImageClassification(T.ConvNextConfig(num_channels=3, num_stages=2, hidden_sizes=[8, 16],
                                                                 depths=[1, 2], num_labels=5, drop_path_rate=0.1))
    if name == "resnet":
        return T.ResNetForImageClassification(T.ResNetConfig(embedding_size=8, hidden_sizes=[8, 16], depths=[1, 1],
                                                             layer_type="bottleneck", num_labels=5))
    if name == "segformer":
        return T.SegformerForSemanticSegmentation(T.SegformerConfig(
            num_encoder_blocks=2, depths=[1, 1], sr_ratios=[2, 1], hidden_sizes=[8, 16], num_attention_heads=[1, 2],
            patch_sizes=[7, 3], strides=[4, 2], decoder_hidden_size=16, num_labels=4))
    if name == "mamba":
        return T.MambaForCausalLM(T.MambaConfig(vocab_size=V, hidden_size=32, state_size=8, num_hidden_layers=2,
                                                expand=2, conv_kernel=4, use_mambapy=False))
    raise SystemExit(f"unknown model {name}")


IMAGE = {"swin": 32, "convnext": 32, "resnet": 32, "segformer": 32}


def ints(seed, shape, low=3):
    return torch.from_numpy(np.random.default_rng(seed).integers(low, V, shape))


def inputs(name, seed):
    rng = np.random.default_rng(seed)
    if name in IMAGE:
        size = IMAGE[name]
        pixels = torch.from_numpy(rng.standard_normal((2, 3, size, size)).astype(np.float32))
        if name == "segformer":
            return {"pixel_values": pixels, "labels": torch.from_numpy(rng.integers(0, 4, (2, size, size)))}
        return {"pixel_values": pixels, "labels": torch.from_numpy(rng.integers(0, 5, (2,)))}
    if name == "clip":
        return {"input_ids": ints(seed, (3, 8)), "return_loss": True,
                "pixel_values": torch.from_numpy(rng.standard_normal((3, 3, 16, 16)).astype(np.float32))}
    ids = ints(seed, (2, 12))
    mask = torch.ones_like(ids)
    if name in ("roberta", "distilbert", "albert", "electra", "modernbert"):
        ids[1, 9:] = 0 if name == "modernbert" else 1  # right padding, masked out
        mask[1, 9:] = 0
    if name in ("mamba", "xlnet"):
        return {"input_ids": ids, "labels": ids}
    if name == "electra":  # which tokens were replaced
        return {"input_ids": ids, "attention_mask": mask, "labels": torch.from_numpy(rng.integers(0, 2, (2, 12)))}
    labels = ids.masked_fill(torch.from_numpy(rng.random((2, 12)) < 0.5) | (mask == 0), -100)
    batch = {"input_ids": ids, "attention_mask": mask, "labels": labels}
    if name == "albert":
        batch["sentence_order_label"] = torch.tensor([0, 1])
    return batch


def main_logits(name, out):
    if name == "clip":
        return out.logits_per_image
    if name in ("albert", "electra") and hasattr(out, "prediction_logits"):
        return out.prediction_logits
    return out.logits


def run(name):
    torch.manual_seed(0)
    model = build(name)
    params = list(model.parameters())
    print(f"{name} params {sum(p.numel() for p in params)} abs-sum {sum(float(p.detach().abs().sum()) for p in params):.6g}")
    # SegFormer's decode-head biases feed a batch norm, so their true gradient is 0: rounding noise (1e-10) over
    # Adam's default eps would make a +-lr/20 step whose sign is chance, under torch as here
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, eps=1e-6 if name == "segformer" else 1e-8)
    model.train()
    batch = inputs(name, 0)
    for step in range(STEPS):
        out = model(**batch)
        opt.zero_grad()
        out.loss.backward()
        gnorm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        print(f"{name} step {step} loss {out.loss.item():.5f} grad-norm {gnorm.item():.5f}")
    model.eval()
    batch = inputs(name, 5)
    batch.pop("labels", None)
    batch.pop("sentence_order_label", None)
    batch.pop("return_loss", None)
    with torch.no_grad():
        logits = main_logits(name, model(**batch))
    if logits.dim() == 4:  # segmentation: each pixel's class, summed per image
        predicted = logits.argmax(1).sum((1, 2))
    else:  # the class, or the last position's token
        predicted = (logits[:, -1] if logits.dim() == 3 else logits).argmax(-1)
    print(f"{name} eval logits {tuple(logits.shape)} sum {float(logits.sum()):.4f} "
          f"abs-mean {float(logits.abs().mean()):.5f} argmax {predicted.tolist()}")
    if name == "mamba":
        out = model.generate(batch["input_ids"][:1, :6], max_new_tokens=6, do_sample=False, pad_token_id=0)
        print(f"{name} greedy {out.tolist()}")


if __name__ == "__main__":
    T.logging.set_verbosity_error()
    T.utils.logging.disable_progress_bar()
    for n in sys.argv[1:] or ["distilbert", "roberta", "albert", "electra", "xlnet", "modernbert", "clip", "swin",
                              "convnext", "resnet", "segformer", "mamba"]:
        run(n)
