"""peft: LoRA on tiny GPT-2 and Llama models built from configs (no download).  get_peft_model,
print_trainable_parameters, a few AdamW steps, save_pretrained / PeftModel.from_pretrained into a temporary
directory, merge_and_unload.  Prints one line per measurement; run the same script with real torch and under
``python -m torchlike run`` and compare.
"""
import contextlib
import io
import tempfile

import numpy as np
import torch
import transformers
from peft import LoraConfig, PeftModel, TaskType, get_peft_model


def build(name):
    torch.manual_seed(0)
    if name == "gpt2":
        cfg = transformers.GPT2Config(vocab_size=61, n_positions=16, n_embd=16, n_layer=2, n_head=2, resid_pdrop=0.0,
                                      embd_pdrop=0.0, attn_pdrop=0.0)
        return transformers.GPT2LMHeadModel(cfg), ["c_attn"]
    cfg = transformers.LlamaConfig(vocab_size=61, hidden_size=16, intermediate_size=32, num_hidden_layers=2,
                                   num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=32)
    return transformers.LlamaForCausalLM(cfg), ["q_proj", "v_proj"]


def tokens(seed):
    return torch.from_numpy(np.random.default_rng(seed).integers(0, 61, (2, 8)))


def run(name):
    base, targets = build(name)
    base.eval()
    ids = tokens(100)
    with torch.no_grad():
        ref = base(input_ids=ids).logits
    print(f"{name} base logits sum {ref.sum().item():.5f}")
    cfg = LoraConfig(task_type=TaskType.CAUSAL_LM, r=4, lora_alpha=8, lora_dropout=0.0, target_modules=targets)
    model = get_peft_model(base, cfg)
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        model.print_trainable_parameters()
    print(f"{name} {buf.getvalue().strip()}")
    trainable, total = model.get_nb_trainable_parameters()
    print(f"{name} trainable {trainable} total {total}")
    names = sorted(n for n, p in model.named_parameters() if p.requires_grad)
    print(f"{name} first trainable {names[0]} count {len(names)}")
    with torch.no_grad():  # lora_B starts at zero: the adapted model equals the base model
        print(f"{name} adapted equals base {torch.equal(model(input_ids=ids).logits, ref)}")
    opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-2)
    model.train()
    for step in range(4):
        x = tokens(0)  # one batch: the loss must fall
        loss = model(input_ids=x, labels=x).loss
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"{name} step {step} loss {loss.item():.5f}")
    model.eval()
    with torch.no_grad():
        tuned = model(input_ids=ids).logits
    print(f"{name} tuned logits sum {tuned.sum().item():.5f} changed {not torch.allclose(tuned, ref)}")
    with tempfile.TemporaryDirectory() as d:
        model.save_pretrained(d)
        base2, _ = build(name)
        reloaded = PeftModel.from_pretrained(base2, d)
        reloaded.eval()
        with torch.no_grad():
            diff = (reloaded(input_ids=ids).logits - tuned).abs().max().item()
        print(f"{name} reload maxdiff {diff:.6f}")
    merged = model.merge_and_unload()
    print(f"{name} merged type {type(merged).__name__} has lora {any('lora' in n for n, _ in merged.named_modules())}")
    with torch.no_grad():
        mdiff = (merged(input_ids=ids).logits - tuned).abs().max().item()
    print(f"{name} merged maxdiff below 1e-4 {mdiff < 1e-4}")


if __name__ == "__main__":
    for n in ("gpt2", "llama"):
        run(n)
