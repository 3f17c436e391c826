"""litgpt (Lightning AI) the way its users drive it, without downloads: ``litgpt.GPT`` built from its named
configs shrunk to a few layers (Pythia: GPT-NeoX MLP, parallel residual, partial rotary; Llama 3.2: RMSNorm,
SwiGLU, grouped-query attention, llama3 RoPE scaling; Gemma 2: GeGLU, logit soft-capping, sliding window,
post-norms, scaled embeddings; Phi-2: shared attention norm, tanh GELU, lm-head bias; Mixtral: mixture of
experts; Qwen3: q/k norm), the forward pass and ``chunked_cross_entropy`` loss, a few AdamW steps, KV-cache
generation with ``litgpt.generate.base.generate`` (greedy and seeded top-k/top-p sampling), a LoRA model
(``litgpt.lora.GPT``, ``mark_only_lora_as_trainable``, training, ``merge_lora_weights``), and a state-dict
round trip through ``torch.save``/``torch.load``."""
import io

import torch
from litgpt import GPT, Config
from litgpt.generate.base import generate
from litgpt.lora import GPT as LoRAGPT
from litgpt.lora import Config as LoRAConfig
from litgpt.lora import lora_filter, mark_only_lora_as_trainable, merge_lora_weights
from litgpt.utils import chunked_cross_entropy, num_parameters

V = 96
SMALL = dict(n_layer=2, block_size=48, vocab_size=V, padded_vocab_size=V)
FAMILIES = {
    "pythia-14m": dict(n_embd=32, n_head=4, head_size=8, intermediate_size=64),
    "Llama-3.2-1B": dict(n_embd=32, n_head=4, n_query_groups=2, head_size=8, intermediate_size=48),
    "gemma-2-2b": dict(n_embd=32, n_head=4, n_query_groups=2, head_size=8, intermediate_size=48,
                       attention_scores_scalar=8, sliding_window_size=6, sliding_window_indices=[1, 0]),
    "phi-2": dict(n_embd=32, n_head=4, head_size=8, intermediate_size=64),
    "Mixtral-8x7B-v0.1": dict(n_embd=32, n_head=4, n_query_groups=1, head_size=8, intermediate_size=24,
                              n_expert=4, n_expert_per_token=2),
    "Qwen3-0.6B": dict(n_embd=32, n_head=4, n_query_groups=2, head_size=8, intermediate_size=48),
}


def r(x, n=4):
    return round(float(x), n)


def batch(g, n=4, t=16, counting=False):
    if counting:  # runs of consecutive tokens: a pattern a few steps can learn
        ids = (torch.randint(0, V, (n, 1), generator=g) + torch.arange(t + 1)) % V
    else:
        ids = torch.randint(0, V, (n, t + 1), generator=g)
    return ids[:, :-1], ids[:, 1:]


def train(model, steps, lr=3e-3, seed=0, counting=False):
    g = torch.Generator().manual_seed(seed)
    opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=lr, weight_decay=0.1)
    losses = []
    model.train()
    for _ in range(steps):
        x, y = batch(g, counting=counting)
        logits = model(x)
        loss = chunked_cross_entropy(logits[..., :-1, :], y[..., :-1], chunk_size=0)
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        losses.append(r(loss.item()))
    return losses


def families():
    for name, sizes in FAMILIES.items():
        cfg = Config.from_name(name, **SMALL, **sizes)
        torch.manual_seed(0)
        model = GPT(cfg)
        model.apply(model._init_weights)
        g = torch.Generator().manual_seed(1)
        x, y = batch(g, n=2, t=12)
        model.eval()
        with torch.no_grad():
            logits = model(x)
        loss = chunked_cross_entropy(logits, y, chunk_size=4)
        print(name, cfg.mlp_class_name, cfg.norm_class_name, cfg.rope_n_elem, num_parameters(model),
              tuple(logits.shape), logits.dtype, r(logits.sum(), 3), r(logits.abs().mean()), r(loss))
        print(name, "train", train(model, 3))


def kv_generate():
    cfg = Config.from_name("Llama-3.2-1B", **SMALL, **FAMILIES["Llama-3.2-1B"])
    torch.manual_seed(0)
    model = GPT(cfg)
    print("counting train", train(model, 12, lr=2e-2, counting=True))
    model.eval()
    model.max_seq_length = 32
    model.set_kv_cache(batch_size=1)
    prompt = torch.tensor([3, 14, 15, 92, 65, 35], dtype=torch.long)
    with torch.inference_mode():
        greedy = generate(model, prompt, 20, temperature=0.0)
    print("greedy", greedy.tolist())
    model.clear_kv_cache()
    model.set_kv_cache(batch_size=1)
    torch.manual_seed(1234)
    with torch.inference_mode():
        sampled = generate(model, prompt, 20, temperature=0.9, top_k=20, top_p=0.9, include_prompt=False)
    print("sampled", sampled.tolist())
    k = model.transformer.h[0].attn.kv_cache.k
    print("kv cache", tuple(k.shape), k.dtype, r(k.abs().sum(), 3))
    # the cached decode agrees with a full forward of the same sequence
    model.clear_kv_cache()
    with torch.no_grad():
        full = model(greedy[None, :-1])
    print("greedy consistent", full[0, 5:].argmax(-1).tolist() == greedy[6:].tolist())


def lora():
    cfg = LoRAConfig.from_name("pythia-14m", **SMALL, **FAMILIES["pythia-14m"], lora_r=4, lora_alpha=8,
                               lora_dropout=0.0, lora_query=True, lora_value=True, lora_projection=True,
                               lora_mlp=True, lora_head=True)
    torch.manual_seed(0)
    model = LoRAGPT(cfg)
    mark_only_lora_as_trainable(model)
    trainable = sorted({n.split(".")[-1] for n, p in model.named_parameters() if p.requires_grad})
    print("lora trainable", trainable, num_parameters(model, requires_grad=True),
          num_parameters(model, requires_grad=False))
    print("lora train", train(model, 4, lr=1e-2))
    model.eval()
    g = torch.Generator().manual_seed(5)
    x, _ = batch(g, n=2, t=10)
    with torch.no_grad():
        before = model(x)
        merge_lora_weights(model)
        after = model(x)
    print("lora merge", r(before.sum(), 3), r((before - after).abs().max(), 4) < 1e-3)
    adapters = {k: v for k, v in model.state_dict().items() if lora_filter(k, v)}
    print("lora adapters", len(adapters), r(sum(v.float().abs().sum() for v in adapters.values()), 3))


def save_load():
    cfg = Config.from_name("phi-2", **SMALL, **FAMILIES["phi-2"])
    torch.manual_seed(3)
    model = GPT(cfg)
    train(model, 2)
    buf = io.BytesIO()
    torch.save(model.state_dict(), buf)
    buf.seek(0)
    state = torch.load(buf, weights_only=True)
    with torch.device("meta"):
        fresh = GPT(cfg)
    fresh.to_empty(device="cpu")
    fresh.load_state_dict(state)
    fresh.max_seq_length = 24  # rebuilds the rope cache (a non-persistent buffer) on the CPU
    model.eval()
    fresh.eval()
    x = torch.arange(12).view(1, 12) % V
    with torch.no_grad():
        a, b = model(x), fresh(x)
    print("state", len(state), sorted(state)[:3], torch.equal(a, b), r(b.sum(), 3))
    half = GPT(cfg).to(torch.bfloat16)
    half.load_state_dict(state)
    with torch.no_grad():
        h = half(x)
    print("bf16", h.dtype, r(h.float().sum(), 1))


def main():
    families()
    kv_generate()
    lora()
    save_load()


if __name__ == "__main__":
    main()
