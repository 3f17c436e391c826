"""gpt-fast-style generate.py (pytorch-labs/gpt-fast): a Llama-style Transformer with a ``KVCache`` module
(``k_cache[:, :, input_pos] = k``), RMSNorm, rotary embeddings from ``torch.polar``, a load-state-dict pre-hook
fusing wq/wk/wv into wqkv, GQA by ``repeat_interleave``, ``setup_caches`` under ``with torch.device(...)``,
prefill + ``decode_one_token`` compiled by ``torch.compile(mode="reduce-overhead", fullgraph=True)`` behind a
flag, ``torch._inductor.config`` knobs, ``@torch.no_grad()`` and ``torch.inference_mode()``, sampling by
``argmax(probs / exponential_)`` after top-k, a model built on the ``meta`` device and loaded with
``assign=True`` from a ``mmap``/``weights_only`` checkpoint, int8 weight-only quantization
(``WeightOnlyInt8QuantHandler``: per-channel scales, ``F.linear(x, weight.to(dtype=x.dtype)) * scales``) and
speculative decoding with a draft model. Small sizes, random weights; prints tokens and rounded numbers."""
import argparse
import contextlib
import itertools
import os
import sys
import tempfile
import time
from dataclasses import dataclass
from typing import Optional

import torch
import torch._inductor.config
import torch.nn as nn
from torch import Tensor
from torch.nn import functional as F
from torch.nn.attention import SDPBackend


def device_sync(device):
    if "cuda" in device:
        torch.cuda.synchronize(device)
    elif ("cpu" in device) or ("mps" in device):
        pass
    else:
        print(f"device={device} is not yet suppported")


torch._inductor.config.coordinate_descent_tuning = True
torch._inductor.config.triton.unique_kernel_names = True
# Experimental features to reduce compilation times, will be on by default in future
torch._inductor.config.fx_graph_cache = True
# compiled code draws its random numbers as eager code does (the comparison with torch needs the same tokens)
torch._inductor.config.fallback_random = True

# ----------------------------------------------------------------------------- model.py


def find_multiple(n: int, k: int) -> int:
    if n % k == 0:
        return n
    return n + k - (n % k)


@dataclass
class ModelArgs:
    block_size: int = 64
    vocab_size: int = 96
    n_layer: int = 2
    n_head: int = 4
    dim: int = 32
    intermediate_size: int = None
    n_local_heads: int = -1
    head_dim: int = 64
    rope_base: float = 10000
    norm_eps: float = 1e-5

    def __post_init__(self):
        if self.n_local_heads == -1:
            self.n_local_heads = self.n_head
        if self.intermediate_size is None:
            hidden_dim = 4 * self.dim
            n_hidden = int(2 * hidden_dim / 3)
            self.intermediate_size = find_multiple(n_hidden, 16)
        self.head_dim = self.dim // self.n_head

    @classmethod
    def from_name(cls, name: str):
        if name in transformer_configs:
            return cls(**transformer_configs[name])
        # fuzzy search
        config = [config for config in transformer_configs if config.lower() in str(name).lower()]
        assert len(config) == 1, name
        return cls(**transformer_configs[config[0]])


transformer_configs = {
    "tiny-llama": dict(n_layer=2, n_head=4, dim=32, n_local_heads=2),
    "tiny-draft": dict(n_layer=1, n_head=2, dim=16),
}


class KVCache(nn.Module):
    def __init__(self, max_batch_size, max_seq_length, n_heads, head_dim, dtype=torch.bfloat16):
        super().__init__()
        cache_shape = (max_batch_size, n_heads, max_seq_length, head_dim)
        self.register_buffer('k_cache', torch.zeros(cache_shape, dtype=dtype))
        self.register_buffer('v_cache', torch.zeros(cache_shape, dtype=dtype))

    def update(self, input_pos, k_val, v_val):
        # input_pos: [S], k_val: [B, H, S, D]
        assert input_pos.shape[0] == k_val.shape[2]

        k_out = self.k_cache
        v_out = self.v_cache
        k_out[:, :, input_pos] = k_val
        v_out[:, :, input_pos] = v_val

        return k_out, v_out


class Transformer(nn.Module):
    def __init__(self, config: ModelArgs) -> None:
        super().__init__()
        self.config = config

        self.tok_embeddings = nn.Embedding(config.vocab_size, config.dim)
        self.layers = nn.ModuleList(TransformerBlock(config) for _ in range(config.n_layer))
        self.norm = RMSNorm(config.dim, eps=config.norm_eps)
        self.output = nn.Linear(config.dim, config.vocab_size, bias=False)

        self.freqs_cis: Optional[Tensor] = None
        self.mask_cache: Optional[Tensor] = None
        self.max_batch_size = -1
        self.max_seq_length = -1

    def setup_caches(self, max_batch_size, max_seq_length):
        if self.max_seq_length >= max_seq_length and self.max_batch_size >= max_batch_size:
            return
        head_dim = self.config.dim // self.config.n_head
        max_seq_length = find_multiple(max_seq_length, 8)
        self.max_seq_length = max_seq_length
        self.max_batch_size = max_batch_size
        dtype = self.output.weight.dtype
        # For quantized layers, dtype is encoded in scales
        if hasattr(self.output, "scales"):
            dtype = self.output.scales.dtype
        elif hasattr(self.output, "scales_and_zeros"):
            dtype = self.output.scales_and_zeros.dtype
        for b in self.layers:
            b.attention.kv_cache = KVCache(max_batch_size, max_seq_length, self.config.n_local_heads, head_dim, dtype)

        self.freqs_cis = precompute_freqs_cis(self.config.block_size, self.config.dim // self.config.n_head,
                                              self.config.rope_base, dtype)
        self.causal_mask = torch.tril(torch.ones(self.max_seq_length, self.max_seq_length, dtype=torch.bool))

    def forward(self, idx: Tensor, input_pos: Optional[Tensor] = None) -> Tensor:
        assert self.freqs_cis is not None, "Caches must be initialized first"
        mask = self.causal_mask[None, None, input_pos]
        freqs_cis = self.freqs_cis[input_pos]
        x = self.tok_embeddings(idx)

        for i, layer in enumerate(self.layers):
            x = layer(x, input_pos, freqs_cis, mask)
        x = self.norm(x)
        logits = self.output(x)
        return logits

    @classmethod
    def from_name(cls, name: str):
        return cls(ModelArgs.from_name(name))


class TransformerBlock(nn.Module):
    def __init__(self, config: ModelArgs) -> None:
        super().__init__()
        self.attention = Attention(config)
        self.feed_forward = FeedForward(config)
        self.ffn_norm = RMSNorm(config.dim, config.norm_eps)
        self.attention_norm = RMSNorm(config.dim, config.norm_eps)

    def forward(self, x: Tensor, input_pos: Tensor, freqs_cis: Tensor, mask: Tensor) -> Tensor:
        h = x + self.attention(self.attention_norm(x), freqs_cis, mask, input_pos)
        out = h + self.feed_forward(self.ffn_norm(h))
        return out


class Attention(nn.Module):
    def __init__(self, config: ModelArgs):
        super().__init__()
        assert config.dim % config.n_head == 0

        total_head_dim = (config.n_head + 2 * config.n_local_heads) * config.head_dim
        # key, query, value projections for all heads, but in a batch
        self.wqkv = nn.Linear(config.dim, total_head_dim, bias=False)
        self.wo = nn.Linear(config.dim, config.dim, bias=False)
        self.kv_cache = None

        self.n_head = config.n_head
        self.head_dim = config.head_dim
        self.n_local_heads = config.n_local_heads
        self.dim = config.dim
        self._register_load_state_dict_pre_hook(self.load_hook)

    def load_hook(self, state_dict, prefix, *args):
        if prefix + "wq.weight" in state_dict:
            wq = state_dict.pop(prefix + "wq.weight")
            wk = state_dict.pop(prefix + "wk.weight")
            wv = state_dict.pop(prefix + "wv.weight")
            state_dict[prefix + "wqkv.weight"] = torch.cat([wq, wk, wv])

    def forward(self, x: Tensor, freqs_cis: Tensor, mask: Tensor, input_pos: Optional[Tensor] = None) -> Tensor:
        bsz, seqlen, _ = x.shape

        kv_size = self.n_local_heads * self.head_dim
        q, k, v = self.wqkv(x).split([self.dim, kv_size, kv_size], dim=-1)

        q = q.view(bsz, seqlen, self.n_head, self.head_dim)
        k = k.view(bsz, seqlen, self.n_local_heads, self.head_dim)
        v = v.view(bsz, seqlen, self.n_local_heads, self.head_dim)

        q = apply_rotary_emb(q, freqs_cis)
        k = apply_rotary_emb(k, freqs_cis)

        q, k, v = map(lambda x: x.transpose(1, 2), (q, k, v))

        if self.kv_cache is not None:
            k, v = self.kv_cache.update(input_pos, k, v)

        k = k.repeat_interleave(self.n_head // self.n_local_heads, dim=1)
        v = v.repeat_interleave(self.n_head // self.n_local_heads, dim=1)
        y = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, dropout_p=0.0)

        y = y.transpose(1, 2).contiguous().view(bsz, seqlen, self.dim)

        y = self.wo(y)
        return y


class FeedForward(nn.Module):
    def __init__(self, config: ModelArgs) -> None:
        super().__init__()
        self.w1 = nn.Linear(config.dim, config.intermediate_size, bias=False)
        self.w3 = nn.Linear(config.dim, config.intermediate_size, bias=False)
        self.w2 = nn.Linear(config.intermediate_size, config.dim, bias=False)

    def forward(self, x: Tensor) -> Tensor:
        return self.w2(F.silu(self.w1(x)) * self.w3(x))


class RMSNorm(nn.Module):
    def __init__(self, dim: int, eps: float = 1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def _norm(self, x):
        return x * torch.rsqrt(torch.mean(x * x, dim=-1, keepdim=True) + self.eps)

    def forward(self, x: Tensor) -> Tensor:
        output = self._norm(x.float()).type_as(x)
        return output * self.weight


def precompute_freqs_cis(seq_len: int, n_elem: int, base: int = 10000, dtype: torch.dtype = torch.bfloat16) -> Tensor:
    freqs = 1.0 / (base ** (torch.arange(0, n_elem, 2)[: (n_elem // 2)].float() / n_elem))
    t = torch.arange(seq_len, device=freqs.device)
    freqs = torch.outer(t, freqs)
    freqs_cis = torch.polar(torch.ones_like(freqs), freqs)
    cache = torch.stack([freqs_cis.real, freqs_cis.imag], dim=-1)
    return cache.to(dtype=dtype)


def apply_rotary_emb(x: Tensor, freqs_cis: Tensor) -> Tensor:
    xshaped = x.float().reshape(*x.shape[:-1], -1, 2)
    freqs_cis = freqs_cis.view(1, xshaped.size(1), 1, xshaped.size(3), 2)
    x_out2 = torch.stack(
        [
            xshaped[..., 0] * freqs_cis[..., 0] - xshaped[..., 1] * freqs_cis[..., 1],
            xshaped[..., 1] * freqs_cis[..., 0] + xshaped[..., 0] * freqs_cis[..., 1],
        ],
        -1,
    )

    x_out2 = x_out2.flatten(3)
    return x_out2.type_as(x)

# ----------------------------------------------------------------------------- quantize.py


def dynamically_quantize_per_channel(x, quant_min, quant_max, target_dtype):
    # assumes symmetric quantization
    # assumes axis == 0
    # assumes dense memory format
    # default setup for affine quantization of activations
    eps = torch.finfo(torch.float32).eps

    # get min and max
    min_val, max_val = torch.aminmax(x, dim=1)

    # calculate scales and zero_points based on min and max
    min_val_neg = torch.min(min_val, torch.zeros_like(min_val))
    max_val_pos = torch.max(max_val, torch.zeros_like(max_val))
    device = min_val_neg.device

    max_val_pos = torch.max(-min_val_neg, max_val_pos)
    scales = max_val_pos / (float(quant_max - quant_min) / 2)
    # ensure scales is the same dtype as the original tensor
    scales = torch.clamp(scales, min=eps).to(x.dtype)
    zero_points = torch.zeros(min_val_neg.size(), dtype=torch.int64, device=device)

    # quantize based on qmin/qmax/scales/zp
    x_div = x / scales.unsqueeze(-1)
    x_round = torch.round(x_div)
    x_zp = x_round + zero_points.unsqueeze(-1)
    quant = torch.clamp(x_zp, quant_min, quant_max).to(target_dtype)

    return quant, scales, zero_points


def replace_linear_weight_only_int8_per_channel(module):
    for name, child in module.named_children():
        if isinstance(child, nn.Linear):
            setattr(module, name, WeightOnlyInt8Linear(child.in_features, child.out_features))
        else:
            replace_linear_weight_only_int8_per_channel(child)


class WeightOnlyInt8QuantHandler:
    def __init__(self, mod):
        self.mod = mod

    @torch.no_grad()
    def create_quantized_state_dict(self):
        cur_state_dict = self.mod.state_dict()
        for fqn, mod in self.mod.named_modules():
            if isinstance(mod, torch.nn.Linear):
                int8_weight, scales, _ = dynamically_quantize_per_channel(mod.weight.float(), -128, 127, torch.int8)
                cur_state_dict[f"{fqn}.weight"] = int8_weight
                cur_state_dict[f"{fqn}.scales"] = scales.to(mod.weight.dtype)

        return cur_state_dict

    def convert_for_runtime(self):
        replace_linear_weight_only_int8_per_channel(self.mod)
        return self.mod


class WeightOnlyInt8Linear(torch.nn.Module):
    __constants__ = ['in_features', 'out_features']
    in_features: int
    out_features: int
    weight: torch.Tensor

    def __init__(self, in_features: int, out_features: int, bias: bool = True,
                 device=None, dtype=None) -> None:
        factory_kwargs = {'device': device, 'dtype': dtype}
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.register_buffer("weight", torch.empty((out_features, in_features), dtype=torch.int8))
        self.register_buffer("scales", torch.ones(out_features, dtype=torch.bfloat16))
        del factory_kwargs

    def forward(self, input: torch.Tensor) -> torch.Tensor:
        return F.linear(input, self.weight.to(dtype=input.dtype)) * self.scales

# ----------------------------------------------------------------------------- generate.py


def multinomial_sample_one_no_sync(probs_sort):  # Does multinomial sampling without a cuda synchronization
    q = torch.empty_like(probs_sort).exponential_(1)
    return torch.argmax(probs_sort / q, dim=-1, keepdim=True).to(dtype=torch.int)


def logits_to_probs(logits, temperature: float = 1.0, top_k: Optional[int] = None):
    logits = logits / max(temperature, 1e-5)

    if top_k is not None:
        v, _ = torch.topk(logits, min(top_k, logits.size(-1)))
        pivot = v.select(-1, -1).unsqueeze(-1)
        logits = torch.where(logits < pivot, -float("Inf"), logits)
    probs = torch.nn.functional.softmax(logits, dim=-1)
    return probs


def sample(logits, temperature: float = 1.0, top_k: Optional[int] = None):
    probs = logits_to_probs(logits[:, -1], temperature, top_k)
    idx_next = multinomial_sample_one_no_sync(probs)
    return idx_next, probs


def prefill(model: Transformer, x: torch.Tensor, input_pos: torch.Tensor, **sampling_kwargs) -> torch.Tensor:
    # input_pos: [B, S]
    logits = model(x, input_pos)
    return sample(logits, **sampling_kwargs)[0]


def decode_one_token(model: Transformer, x: torch.Tensor, input_pos: torch.Tensor, **sampling_kwargs):
    # input_pos: [B, 1]
    assert input_pos.shape[-1] == 1
    logits = model(x, input_pos)
    return sample(logits, **sampling_kwargs)


def decode_n_tokens(model: Transformer, cur_token: torch.Tensor, input_pos: torch.Tensor, num_new_tokens: int,
                    callback=lambda _: _, **sampling_kwargs):
    new_tokens, new_probs = [], []
    for i in range(num_new_tokens):
        with torch.nn.attention.sdpa_kernel([SDPBackend.MATH]):  # Actually better for Inductor to codegen attention here
            next_token, next_prob = decode_one_token(
                model, cur_token, input_pos, **sampling_kwargs
            )
            input_pos += 1
            new_tokens.append(next_token.clone())
            callback(new_tokens[-1])
            new_probs.append(next_prob.clone())
            cur_token = next_token.clone()

    return new_tokens, new_probs


def model_forward(model, x, input_pos):
    return model(x, input_pos)


def speculative_decode(model: Transformer, draft_model: Transformer, cur_token: torch.Tensor,
                       input_pos: int, speculate_k: int, **sampling_kwargs) -> torch.Tensor:
    # draft model inference sequentially
    device = cur_token.device
    orig_input_pos = torch.tensor([input_pos], dtype=torch.int64, device=cur_token.device)
    draft_tokens, draft_probs = decode_n_tokens(draft_model, cur_token.view(1, -1), orig_input_pos.clone(),
                                                speculate_k, **sampling_kwargs)

    draft_tokens = torch.cat(draft_tokens).view(-1)  # (the batched sample() gives (1, 1) tokens)
    # parallel inference on target model using draft tokens
    target_logits = model_forward(
        model,
        torch.cat([cur_token.view(1), draft_tokens]).view(1, -1),
        torch.arange(input_pos, input_pos + speculate_k + 1, device=cur_token.device)
    )
    target_probs = logits_to_probs(target_logits[0], **sampling_kwargs)
    draft_probs = torch.stack(draft_probs).view(speculate_k, -1)
    # q: target prob, p: draft prob
    # q >= p: always accept draft token
    # q < p: q/p prob to accept draft token
    p = draft_probs[torch.arange(0, speculate_k, device=device), draft_tokens]
    q = target_probs[torch.arange(0, speculate_k, device=device), draft_tokens]
    accept_draft_prob = torch.minimum(torch.ones(()), q[:speculate_k] / p)
    rejected_locations = (torch.rand_like(accept_draft_prob) > accept_draft_prob).nonzero()

    if rejected_locations.shape[0] == 0:  # All draft tokens have been accepted
        accept_length = speculate_k + 1
        last_token = multinomial_sample_one_no_sync(target_probs[-1]).long()
        # fill last token into draft model
        model_forward(
            draft_model,
            draft_tokens[-1].view(1, -1),
            orig_input_pos + speculate_k,
        )
        return torch.cat([draft_tokens, last_token])
    else:
        accept_length = rejected_locations[0].item()
        p = draft_probs[accept_length]
        q = target_probs[accept_length]
        new = q - p
        new = torch.where(new > 0, new, 0.0)
        new = new / new.sum()
        next_token = multinomial_sample_one_no_sync(new).long()
        return torch.cat([draft_tokens[:accept_length], next_token])


@torch.no_grad()
def generate(model: Transformer, prompt: torch.Tensor, max_new_tokens: int, batch_size: int, *,
             interactive: bool, draft_model: Transformer, speculate_k: Optional[int] = 8,
             callback=lambda x: x, **sampling_kwargs) -> torch.Tensor:
    """Takes a conditioning sequence (prompt) as input and continues to generate as many tokens as requested."""
    is_speculative = draft_model is not None
    # create an empty tensor of the expected final shape and fill in the current tokens
    T = prompt.size(-1)
    T_new = T + max_new_tokens
    if interactive:
        max_seq_length = 350
    else:
        max_seq_length = min(T_new, model.config.block_size)

    device, dtype = prompt.device, prompt.dtype
    max_seq_length = max_seq_length + speculate_k + 1 if is_speculative else max_seq_length
    with torch.device(device):
        model.setup_caches(max_batch_size=batch_size, max_seq_length=max_seq_length)
        if is_speculative and draft_model is not model:
            draft_model.setup_caches(max_batch_size=batch_size, max_seq_length=max_seq_length)

    # create an empty tensor of the expected final shape and fill in the current tokens
    empty = torch.empty(batch_size, T_new, dtype=dtype, device=device)
    # We are just making the same prompt for every batch
    prompt = prompt.view(1, -1).repeat(batch_size, 1)
    empty[:, :T] = prompt
    seq = empty
    input_pos = torch.arange(0, T, device=device)

    next_token = prefill(model, prompt.view(batch_size, -1), input_pos, **sampling_kwargs).clone()
    if is_speculative:
        prefill(draft_model, prompt.view(batch_size, -1), input_pos, **sampling_kwargs)
    seq[:, T] = next_token.squeeze()

    input_pos = torch.tensor([T], device=device, dtype=torch.int)
    accept_counts = [0] * (speculate_k + 1)

    if is_speculative:
        input_pos = input_pos.item()  # for speculative decoding easier to keep on host
        while input_pos < T_new - 1:
            cur_token = next_token.view(())

            next_tokens = speculative_decode(
                model, draft_model, cur_token, input_pos, speculate_k, **sampling_kwargs
            )

            accept_counts[len(next_tokens) - 1] += 1
            num_added = min(T_new - input_pos - 1, len(next_tokens))
            seq[0, input_pos + 1: input_pos + num_added + 1] = next_tokens[: num_added]
            for i in next_tokens[: num_added]:
                callback(i)
            input_pos = input_pos + num_added
            next_token = next_tokens[-1]
    else:
        generated_tokens, _ = decode_n_tokens(model, next_token.view(batch_size, -1), input_pos,
                                              max_new_tokens - 1, callback=callback, **sampling_kwargs)
        seq[:, T + 1:] = torch.cat(generated_tokens, dim=-1)

    generate_stats = {
        'accept_counts': accept_counts
    }
    return seq, generate_stats


_decode_one_token, _prefill, _model_forward = decode_one_token, prefill, model_forward


def encode_tokens(tokenizer, string, bos=True, device="cpu"):
    tokens = tokenizer.encode(string)
    if bos:
        tokens = [tokenizer.bos_id()] + tokens
    return torch.tensor(tokens, dtype=torch.int, device=device)


class ByteTokenizer:
    """A stand-in for the SentencePiece tokenizer: printable bytes shifted past bos/eos."""

    def encode(self, s):
        return [(ord(c) - 30) % 94 + 2 for c in s]

    def decode(self, ids):
        return "".join(chr((i - 2) % 94 + 32) for i in ids)

    def bos_id(self):
        return 1

    def eos_id(self):
        return 0


def make_checkpoint(path, name, precision, seed):
    """What scripts/convert_hf_checkpoint.py writes: separate wq/wk/wv weights, merged by the load hook."""
    torch.manual_seed(seed)
    config = ModelArgs.from_name(name)
    sd = {}
    model = Transformer(config)
    for k, v in model.state_dict().items():
        if k.endswith("wqkv.weight"):
            pre = k[: -len("wqkv.weight")]
            q, kk, vv = v.split([config.dim, config.n_local_heads * config.head_dim,
                                 config.n_local_heads * config.head_dim])
            sd[pre + "wq.weight"], sd[pre + "wk.weight"], sd[pre + "wv.weight"] = q * 4, kk * 4, vv * 4
        else:
            sd[k] = v * (3 if k.startswith(("output", "tok_")) else 1)
    sd = {k: v.to(precision) for k, v in sd.items()}
    torch.save(sd, path)


def _load_model(checkpoint_path, device, precision, use_tp):
    with torch.device('meta'):
        model = Transformer.from_name(os.path.basename(checkpoint_path))
    print("meta model", model.output.weight.device, model.output.weight.is_meta)

    if "int8" in str(checkpoint_path):
        print("Using int8 weight-only quantization!")
        simple_quantizer = WeightOnlyInt8QuantHandler(model)
        model = simple_quantizer.convert_for_runtime()

    checkpoint = torch.load(str(checkpoint_path), mmap=True, weights_only=True)
    if "model" in checkpoint and "stories" in str(checkpoint_path):
        checkpoint = checkpoint["model"]
    model.load_state_dict(checkpoint, assign=True)

    model = model.to(device=device, dtype=precision)
    return model.eval()


def _get_model_size(model):
    model_size = 0
    for name, child in model.named_children():
        if not isinstance(child, torch.nn.Embedding):
            model_size += sum(
                [
                    p.numel() * p.dtype.itemsize
                    for p in itertools.chain(child.parameters(), child.buffers())
                ]
            )
    return model_size


def quantize_int8(checkpoint_path, precision, device):
    """quantize.py --mode int8: load, quantize each Linear per channel, save next to the checkpoint."""
    with torch.device('meta'):
        model = Transformer.from_name(os.path.basename(checkpoint_path))
    checkpoint = torch.load(str(checkpoint_path), mmap=True, weights_only=True)
    model.load_state_dict(checkpoint, assign=True)
    model = model.to(dtype=precision, device=device)
    quant_handler = WeightOnlyInt8QuantHandler(model)
    quantized_state_dict = quant_handler.create_quantized_state_dict()
    dir_name = os.path.dirname(checkpoint_path)
    base_name = os.path.basename(checkpoint_path)
    new_base_name = base_name.replace('.pth', 'int8.pth')
    quantize_path = os.path.join(dir_name, new_base_name)
    torch.save(quantized_state_dict, quantize_path)
    w = quantized_state_dict["layers.0.attention.wqkv.weight"]
    s = quantized_state_dict["layers.0.attention.wqkv.scales"]
    print("int8 wqkv", w.dtype, tuple(w.shape), int(w.int().abs().max()), int(w.int().sum()),
          "scales", s.dtype, round(s.float().sum().item(), 6))
    return quantize_path


def main(prompt, num_samples, max_new_tokens, batch_size, top_k, temperature, checkpoint_path, compile,
         compile_prefill, profile, draft_checkpoint_path, speculate_k, device, precision):
    global decode_one_token, prefill
    tokenizer = ByteTokenizer()
    print(f"Using device={device}")
    is_speculative = draft_checkpoint_path is not None

    t0 = time.time()
    model = _load_model(checkpoint_path, device, precision, False)
    if is_speculative:
        draft_model = _load_model(draft_checkpoint_path, device, precision, False)
    else:
        draft_model = None
    device_sync(device=device)  # MKG
    print(f"Time to load model: {time.time() - t0 >= 0}")
    print("wqkv merged by the load hook", tuple(model.layers[0].attention.wqkv.weight.shape),
          model.layers[0].attention.wqkv.weight.dtype, type(model.output).__name__)

    encoded = encode_tokens(tokenizer, prompt, bos=True, device=device)
    prompt_length = encoded.size(-1)

    torch.manual_seed(1234)
    model_size = _get_model_size(model)
    print("model size", model_size)
    if compile:
        if is_speculative:  # and use_tp:  # and ("cuda" in device):
            torch._inductor.config.triton.cudagraph_trees = False  # Bug with cudagraph trees in this case

        if is_speculative:
            global model_forward, logits_to_probs
            model_forward = torch.compile(model_forward, mode="reduce-overhead", fullgraph=True)

        decode_one_token = torch.compile(decode_one_token, mode="reduce-overhead", fullgraph=True)

        # Uncomment to squeeze more perf out of prefill
        if compile_prefill:
            prefill = torch.compile(prefill, fullgraph=True, dynamic=True)

    aggregate_metrics = {
        'tokens_per_sec': [],
        'accept_counts': [],
    }
    start = -1 if compile else 0

    for i in range(start, num_samples):
        device_sync(device=device)  # MKG
        t0 = time.perf_counter()
        if (i != num_samples - 1 or not profile):
            prof = contextlib.nullcontext()
        else:
            prof = torch.profiler.profile()
        with prof:
            y, metrics = generate(
                model,
                encoded,
                max_new_tokens,
                batch_size=batch_size,
                draft_model=draft_model,
                speculate_k=speculate_k,
                interactive=False,
                callback=lambda x: x,
                temperature=temperature,
                top_k=top_k,
            )
            aggregate_metrics['accept_counts'].append(metrics['accept_counts'])
        if i == -1:
            print(f"Compilation time: {time.perf_counter() - t0 >= 0}")
            continue
        device_sync(device=device)  # MKG
        t = time.perf_counter() - t0

        print(f"sample {i}: {tokenizer.decode(y[0].tolist())!r} {y.dtype} {tuple(y.shape)}")
        if batch_size > 1:
            print(f"  batch rows equal to row 0: {[bool(torch.equal(y[0], r)) for r in y[1:]]}")
        tokens_generated = y.size(-1) - prompt_length
        generated_tokens_sec = tokens_generated / max(t, 1e-9)
        aggregate_metrics['tokens_per_sec'].append(generated_tokens_sec)
        print(f"  tokens generated {tokens_generated}, kv cache sum "
              f"{model.layers[0].attention.kv_cache.k_cache.float().abs().sum().item():.4f}")
    if is_speculative:
        counts_aggregated = [sum(i) for i in zip(*aggregate_metrics['accept_counts'])]
        acceptance_probs = [i / sum(counts_aggregated) for i in counts_aggregated]
        print(f"Acceptance probs: {[round(p, 4) for p in acceptance_probs]}")
        print(f"Mean Accepted: {sum([idx * i for idx, i in enumerate(counts_aggregated)]) / sum(counts_aggregated):.4f}")
    print(f"Memory used: {torch.cuda.max_memory_reserved() / 1e9 if torch.cuda.is_available() else 0:.02f} GB")
    return model


if __name__ == '__main__':
    parser = argparse.ArgumentParser(description='Your CLI description.')
    parser.add_argument('--prompt', type=str, default="Hello, my name is", help='Input prompt.')
    parser.add_argument('--num_samples', type=int, default=2, help='Number of samples.')
    parser.add_argument('--max_new_tokens', type=int, default=12, help='Maximum number of new tokens.')
    parser.add_argument('--batch_size', type=int, default=2, help='Batch size to benchmark with')
    parser.add_argument('--top_k', type=int, default=20, help='Top-k for sampling.')
    parser.add_argument('--temperature', type=float, default=0.8, help='Temperature for sampling.')
    parser.add_argument('--compile', action='store_true', help='Whether to compile the model.')
    parser.add_argument('--compile_prefill', action='store_true', help='Whether to compile the prefill')
    parser.add_argument('--profile', action='store_true', help='Profile path.')
    parser.add_argument('--speculate_k', type=int, default=3, help='Speculative execution depth.')
    parser.add_argument('--device', type=str, default="cpu", help='Device to use')
    args = parser.parse_args()

    tmp = tempfile.mkdtemp()
    ckpt = os.path.join(tmp, "tiny-llama.pth")
    draft = os.path.join(tmp, "tiny-draft.pth")
    make_checkpoint(ckpt, "tiny-llama", torch.bfloat16, seed=0)
    make_checkpoint(draft, "tiny-draft", torch.bfloat16, seed=1)
    int8_ckpt = quantize_int8(ckpt, torch.bfloat16, args.device)

    # (bf16 runs keep prompt + new tokens within 8 positions: torch's CPU flash attention takes its scalar exp on
    # rows shorter than a 16-float vector, which torchlike reproduces bit for bit; longer bf16 rows differ in
    # the last bit (docs/differences.md), enough to flip a sampled token now and then)
    for label, path, precision, draft_path, compile_now, prompt, new_tokens in (
            ("bf16", ckpt, torch.bfloat16, None, args.compile, "Hi, I", 3),
            ("fp32", ckpt, torch.float32, None, args.compile, args.prompt, args.max_new_tokens),
            ("int8", int8_ckpt, torch.bfloat16, None, args.compile, "Hey!", 4),
            ("fp32 compiled", ckpt, torch.float32, None, True, args.prompt, args.max_new_tokens),
            ("speculative fp32", ckpt, torch.float32, draft, False, args.prompt, args.max_new_tokens)):
        print(f"== {label}")
        decode_one_token, prefill, model_forward = (sys.modules[__name__].__dict__[f"_{n}"]
                                                    for n in ("decode_one_token", "prefill", "model_forward"))
        with torch.inference_mode() if label == "int8" else contextlib.nullcontext():
            model = main(prompt, args.num_samples, new_tokens,
                         1 if draft_path else args.batch_size, args.top_k, args.temperature, path, compile_now,
                         args.compile_prefill, args.profile, draft_path, args.speculate_k, args.device, precision)
        if label == "int8":
            lin = model.layers[0].feed_forward.w1
            x = torch.randn(2, lin.in_features, dtype=torch.bfloat16)
            print("int8 linear", type(lin).__name__, lin.weight.dtype, lin.scales.dtype,
                  [round(v, 3) for v in lin(x)[0, :4].float().tolist()],
                  "inference tensor", model.layers[0].attention.kv_cache.k_cache.is_inference())
