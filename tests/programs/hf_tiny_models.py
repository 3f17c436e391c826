"""Tiny Hugging Face transformers models built from configs: train a few steps with torch optimizers, save and
reload with save_pretrained/from_pretrained, generate.  Prints one line per measurement; run the same script
with real torch and under ``python -m torchlike run`` and compare.

usage: hf_tiny_models.py [--init DIR] [gpt2|llama|bert|t5|vit ...]

With ``--init DIR`` the initial weights come from DIR/<model> (written there by save_pretrained when absent), so a
torch run and a torchlike run can start from the same weights and their losses compare step by step.
"""
import os
import sys
import tempfile

import numpy as np
import torch
import transformers

STEPS = 4


def batch_tokens(seed, b, t, vocab):
    return torch.from_numpy(np.random.default_rng(seed).integers(0, vocab, (b, t)))


def build(name):
    if name == "gpt2":
        cfg = transformers.GPT2Config(vocab_size=97, n_positions=32, n_embd=32, n_layer=2, n_head=4, resid_pdrop=0.0,
                                      embd_pdrop=0.0, attn_pdrop=0.0)
        return transformers.GPT2LMHeadModel(cfg), "causal"
    if name == "llama":
        cfg = transformers.LlamaConfig(vocab_size=97, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                                       num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64)
        return transformers.LlamaForCausalLM(cfg), "causal"
    if name == "bert":
        cfg = transformers.BertConfig(vocab_size=97, hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                                      intermediate_size=64, max_position_embeddings=32, hidden_dropout_prob=0.0,
                                      attention_probs_dropout_prob=0.0)
        return transformers.BertForMaskedLM(cfg), "mlm"
    if name == "t5":
        cfg = transformers.T5Config(vocab_size=97, d_model=32, d_kv=8, d_ff=64, num_layers=2, num_heads=4,
                                    decoder_start_token_id=0, pad_token_id=0, dropout_rate=0.0)
        return transformers.T5ForConditionalGeneration(cfg), "seq2seq"
    if name == "vit":
        cfg = transformers.ViTConfig(image_size=16, patch_size=4, num_channels=3, hidden_size=32,
                                     num_hidden_layers=2, num_attention_heads=4, intermediate_size=64, num_labels=5,
                                     hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0)
        return transformers.ViTForImageClassification(cfg), "image"
    raise SystemExit(f"unknown model {name}")


def inputs(kind, step):
    if kind == "causal":
        ids = batch_tokens(step, 2, 12, 97)
        return {"input_ids": ids, "labels": ids}
    if kind == "mlm":
        ids = batch_tokens(step, 2, 12, 97)
        labels = ids.clone()
        labels[:, ::2] = -100
        return {"input_ids": ids, "attention_mask": torch.ones_like(ids), "labels": labels}
    if kind == "seq2seq":
        return {"input_ids": batch_tokens(step, 2, 10, 97), "labels": batch_tokens(step + 100, 2, 6, 97)}
    rng = np.random.default_rng(step)
    return {"pixel_values": torch.from_numpy(rng.standard_normal((2, 3, 16, 16)).astype(np.float32)),
            "labels": torch.from_numpy(rng.integers(0, 5, (2,)))}


def run(name, init_dir=None):
    torch.manual_seed(0)
    model, kind = build(name)
    if init_dir is not None:
        path = os.path.join(init_dir, name)
        if os.path.exists(path):
            model = type(model).from_pretrained(path)
        else:
            model.save_pretrained(path)
    nparams = sum(p.numel() for p in model.parameters())
    print(f"{name} params {nparams}")
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    model.train()
    for step in range(STEPS):
        out = model(**inputs(kind, 0))  # one fixed batch: the loss must go down
        opt.zero_grad()
        out.loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        print(f"{name} step {step} loss {out.loss.item():.5f} logits {tuple(out.logits.shape)}")
    model.eval()
    with tempfile.TemporaryDirectory() as d:
        model.save_pretrained(d)
        again = type(model).from_pretrained(d)
    again.eval()
    batch = inputs(kind, 99)
    batch.pop("labels")
    with torch.no_grad():
        a = model(**batch).logits if kind != "seq2seq" else None
        b = again(**batch).logits if kind != "seq2seq" else None
    if a is not None:
        print(f"{name} reload maxdiff {float((a - b).abs().max()):.3g}")
    if kind in ("causal", "seq2seq"):
        prompt = batch_tokens(7, 1, 5, 97)
        gen = again.generate(prompt, max_new_tokens=6, do_sample=False, pad_token_id=0)
        print(f"{name} generate {tuple(gen.shape)} {gen[0].tolist()}")
    if kind == "mlm":
        print(f"{name} mlm argmax {a.argmax(-1)[0, :6].tolist()}")


if __name__ == "__main__":
    transformers.logging.set_verbosity_error()
    transformers.utils.logging.disable_progress_bar()
    args = sys.argv[1:]
    init = None
    if args[:1] == ["--init"]:
        init, args = args[1], args[2:]
    for n in args or ["gpt2", "llama", "bert", "t5", "vit"]:
        run(n, init)
