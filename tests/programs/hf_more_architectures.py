"""More Hugging Face transformers architectures, decoder-only and encoder-decoder, built from tiny seeded configs
(no download): forward with labels, backward, a few AdamW steps, then ``generate()`` (greedy everywhere, one
beam search, one seeded sampling).  Prints one line per measurement; run the same script with real torch and under
``python -m torchlike run`` and compare.

What each model exercises beyond Llama/GPT-2: Mistral's sliding-window mask, Mixtral's and Qwen2-MoE's top-k
routing (``one_hot``, ``index_add_``, ``torch.where`` on the expert mask, the auxiliary load-balancing loss),
Qwen3's per-head q/k RMSNorm, Gemma's scaled embeddings and Gemma2's attention/final logit soft-capping,
Phi3's fused qkv, Falcon's and GPT-NeoX's parallel attention, BLOOM's ALiBi bias, Whisper's conv front end on
log-mel features, Pegasus' sinusoidal positions, Marian and MT5.

usage: hf_more_architectures.py [name ...]
"""
import sys

import numpy as np
import torch
import transformers as T

STEPS = 3
V = 97
DEC = dict(vocab_size=V, hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
           num_key_value_heads=2, max_position_embeddings=64)
S2S = dict(vocab_size=V, d_model=32, encoder_layers=2, decoder_layers=2, encoder_attention_heads=4,
           decoder_attention_heads=4, encoder_ffn_dim=64, decoder_ffn_dim=64, max_position_embeddings=64,
           pad_token_id=0, eos_token_id=1, decoder_start_token_id=2, bos_token_id=2)


def build(name):
    if name == "mistral":
        return T.MistralForCausalLM(T.MistralConfig(sliding_window=4, **DEC))
    if name == "mixtral":
        return T.MixtralForCausalLM(T.MixtralConfig(num_local_experts=4, num_experts_per_tok=2,
                                                    router_aux_loss_coef=0.02, **DEC))
    if name == "qwen2":
        return T.Qwen2ForCausalLM(T.Qwen2Config(**DEC))
    if name == "qwen3":
        return T.Qwen3ForCausalLM(T.Qwen3Config(head_dim=8, **DEC))
    if name == "qwen2_moe":
        return T.Qwen2MoeForCausalLM(T.Qwen2MoeConfig(num_experts=4, num_experts_per_tok=2, moe_intermediate_size=32,
                                                      shared_expert_intermediate_size=32, **DEC))
    if name == "gemma":
        return T.GemmaForCausalLM(T.GemmaConfig(head_dim=8, **DEC))
    if name == "gemma2":
        return T.Gemma2ForCausalLM(T.Gemma2Config(head_dim=8, sliding_window=4, attn_logit_softcapping=5.0,
                                                  final_logit_softcapping=3.0, query_pre_attn_scalar=8,
                                                  attn_implementation="eager", **DEC))
    if name == "phi3":
        return T.Phi3ForCausalLM(T.Phi3Config(pad_token_id=0, **DEC))
    if name == "falcon":
        return T.FalconForCausalLM(T.FalconConfig(vocab_size=V, hidden_size=32, num_hidden_layers=2,
                                                  num_attention_heads=4, new_decoder_architecture=True,
                                                  num_kv_heads=2, hidden_dropout=0.0, attention_dropout=0.0))
    if name == "gpt_neox":
        return T.GPTNeoXForCausalLM(T.GPTNeoXConfig(vocab_size=V, hidden_size=32, num_hidden_layers=2,
                                                    num_attention_heads=4, intermediate_size=64, rotary_pct=0.5,
                                                    max_position_embeddings=64))
    if name == "bloom":
        return T.BloomForCausalLM(T.BloomConfig(vocab_size=V, hidden_size=32, n_layer=2, n_head=4))
    if name == "whisper":
        return T.WhisperForConditionalGeneration(T.WhisperConfig(
            vocab_size=V, num_mel_bins=16, encoder_layers=2, decoder_layers=2, encoder_attention_heads=4,
            decoder_attention_heads=4, encoder_ffn_dim=64, decoder_ffn_dim=64, d_model=32, max_source_positions=16,
            max_target_positions=32, pad_token_id=0, eos_token_id=1, decoder_start_token_id=2, bos_token_id=2,
            suppress_tokens=None, begin_suppress_tokens=None))
    if name == "pegasus":
        return T.PegasusForConditionalGeneration(T.PegasusConfig(**S2S))
    if name == "marian":
        return T.MarianMTModel(T.MarianConfig(**S2S))
    if name == "mt5":
        return T.MT5ForConditionalGeneration(T.MT5Config(vocab_size=V, d_model=32, d_kv=8, d_ff=64, num_layers=2,
                                                         num_heads=4, decoder_start_token_id=0, pad_token_id=0,
                                                         eos_token_id=1))
    raise SystemExit(f"unknown model {name}")


SEQ2SEQ = ("whisper", "pegasus", "marian", "mt5")


def ints(seed, shape, low=3):
    return torch.from_numpy(np.random.default_rng(seed).integers(low, V, shape))


def inputs(name, seed):
    if name == "whisper":
        feats = np.random.default_rng(seed).standard_normal((2, 16, 32)).astype(np.float32)
        return {"input_features": torch.from_numpy(feats), "labels": ints(seed + 1, (2, 6))}
    if name in SEQ2SEQ:
        ids = ints(seed, (2, 10))
        ids[1, 8:] = 0  # padding, masked out
        return {"input_ids": ids, "attention_mask": (ids != 0).long(), "labels": ints(seed + 1, (2, 6))}
    ids = ints(seed, (2, 12))
    mask = torch.ones_like(ids)
    mask[1, :3] = 0  # left padding, as batched generation pads
    labels = ids.masked_fill(mask == 0, -100)
    return {"input_ids": ids, "attention_mask": mask, "labels": labels}


def run(name):
    torch.manual_seed(0)
    model = build(name)
    params = list(model.parameters())
    print(f"{name} params {sum(p.numel() for p in params)} abs-sum {sum(float(p.detach().abs().sum()) for p in params):.6g}")
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    model.train()
    batch = inputs(name, 0)
    if name in ("mixtral", "qwen2_moe"):
        batch["output_router_logits"] = True  # the load-balancing loss joins the loss
    for step in range(STEPS):
        out = model(**batch)
        opt.zero_grad()
        out.loss.backward()
        gnorm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        aux = getattr(out, "aux_loss", None)
        extra = f" aux {aux.item():.5f}" if aux is not None else ""
        print(f"{name} step {step} loss {out.loss.item():.5f} grad-norm {gnorm.item():.5f}{extra}")
    model.eval()
    batch = inputs(name, 5)
    batch.pop("labels")
    with torch.no_grad():
        if name in SEQ2SEQ:
            batch["decoder_input_ids"] = ints(6, (2, 4))
        logits = model(**batch).logits
        batch.pop("decoder_input_ids", None)
    print(f"{name} eval logits {tuple(logits.shape)} sum {float(logits.sum()):.4f} "
          f"argmax {logits[0, -1].argmax().item()}")
    gen = dict(max_new_tokens=5, pad_token_id=0)
    if name in SEQ2SEQ:
        out = model.generate(**batch, do_sample=False, **gen)
    else:
        out = model.generate(batch["input_ids"], attention_mask=batch["attention_mask"], do_sample=False, **gen)
    print(f"{name} greedy {out.tolist()}")
    if name in ("llama_like", "mistral", "bloom", "marian"):
        out = model.generate(**{k: v for k, v in batch.items()}, do_sample=False, num_beams=3, **gen)
        print(f"{name} beam {out.tolist()}")
    if name in ("qwen2", "gpt_neox", "pegasus"):
        torch.manual_seed(1)
        out = model.generate(**batch, do_sample=True, top_k=10, top_p=0.9, temperature=0.8, **gen)
        print(f"{name} sample {out.tolist()}")


if __name__ == "__main__":
    T.logging.set_verbosity_error()
    T.utils.logging.disable_progress_bar()
    for n in sys.argv[1:] or ["mistral", "mixtral", "qwen2", "qwen3", "qwen2_moe", "gemma", "gemma2", "phi3",
                              "falcon", "gpt_neox", "bloom", "whisper", "pegasus", "marian", "mt5"]:
        run(n)
