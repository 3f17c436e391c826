"""karpathy/llm.c train_gpt2.py-style (the PyTorch reference the C/CUDA trainer is checked against): a GPT-2
whose ``CausalSelfAttention`` takes ``F.scaled_dot_product_attention(is_causal=True)`` behind a ``FLASH`` flag
(the masked manual path otherwise), ``NewGELU`` written with ``torch.pow``/``tanh``, weight tying,
``LLMC_RESIDUAL_SCALE_FLAG``/``LLMC_SKIP_INIT`` attributes steering ``_init_weights`` through a seeded
``torch.Generator`` passed to ``torch.nn.init.normal_``, ``forward(return_logits=False)`` and the
``x[:, [-1], :]`` inference shortcut, ``configure_optimizers`` with decay / no-decay groups and the ``fused``
check through ``inspect.signature``, the ``.bin`` writers (an int32 header tensor, ``.numpy().tobytes()``,
the bfloat16 ``view(torch.int16)`` trick, vocabulary padding with ``F.pad``, ``struct.pack`` for the
tokenizer), token shards in llm.c's format (256-int32 header with magic 20240520, uint16 tokens) read back
with ``np.frombuffer``, a ``DistributedDataLoader``, ``torch.compile``, gradient accumulation, ``clip_grad_norm_``,
a warmup + linear-decay schedule with ``learning_rate_decay_frac``, validation, top-k ``generate`` and the
training loop under ``torch.amp.autocast(device_type='cpu', dtype=torch.bfloat16)`` (llm.c autocasts on CUDA;
this CPU run autocasts too). Single process, synthetic character tokens, small sizes; prints rounded numbers
one fact per line (no timings)."""
import glob
import hashlib
import inspect
import math
import os
import struct
import tempfile
import time
from contextlib import nullcontext
from dataclasses import dataclass

import numpy as np
import torch
import torch._inductor.config as config
import torch.distributed as dist
import torch.nn as nn
from torch.distributed import destroy_process_group, init_process_group
from torch.distributed.optim import ZeroRedundancyOptimizer
from torch.nn import functional as F
from torch.nn.parallel import DistributedDataParallel as DDP

# using a global to toggle flash-attention
FLASH = 0


class NewGELU(nn.Module):
    """Careful there are a few versions of GeLU, this one is the exact one used by OpenAI"""
    def forward(self, input):
        return 0.5 * input * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (input + 0.044715 * torch.pow(input, 3.0))))


class CausalSelfAttention(nn.Module):

    def __init__(self, config):
        super().__init__()
        assert config.n_embd % config.n_head == 0
        # key, query, value projections for all heads, but in a batch
        self.c_attn = nn.Linear(config.n_embd, 3 * config.n_embd)
        # output projection
        self.c_proj = nn.Linear(config.n_embd, config.n_embd)
        self.c_proj.LLMC_RESIDUAL_SCALE_FLAG = 1
        # regularization
        self.n_head = config.n_head
        self.n_embd = config.n_embd
        # not really a 'bias', more of a mask, but following the OpenAI/HF naming though
        self.register_buffer("bias", torch.tril(torch.ones(config.block_size, config.block_size))
                             .view(1, 1, config.block_size, config.block_size))

    def forward(self, x):
        B, T, C = x.size()  # batch size, sequence length, embedding dimensionality (n_embd)
        # calculate query, key, values for all heads in batch and move head forward to be the batch dim
        qkv = self.c_attn(x)
        q, k, v = qkv.split(self.n_embd, dim=2)
        k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)  # (B, nh, T, hs)
        q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)  # (B, nh, T, hs)
        v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)  # (B, nh, T, hs)
        if FLASH:
            # flashattention
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        else:
            # manual implementation of attention
            # this materializes the large (T,T) matrix for all the queries and keys
            att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
            att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float('-inf'))
            att = F.softmax(att, dim=-1)
            y = att @ v  # (B, nh, T, T) x (B, nh, T, hs) -> (B, nh, T, hs)
        y = y.transpose(1, 2).contiguous().view(B, T, C)  # re-assemble all head outputs side by side
        # output projection
        y = self.c_proj(y)
        return y


class MLP(nn.Module):

    def __init__(self, config):
        super().__init__()
        self.c_fc = nn.Linear(config.n_embd, 4 * config.n_embd)
        self.gelu = NewGELU()
        self.c_proj = nn.Linear(4 * config.n_embd, config.n_embd)
        self.c_proj.LLMC_RESIDUAL_SCALE_FLAG = 1

    def forward(self, x):
        x = self.c_fc(x)
        x = self.gelu(x)
        x = self.c_proj(x)
        return x


class Block(nn.Module):

    def __init__(self, config):
        super().__init__()
        self.ln_1 = nn.LayerNorm(config.n_embd)
        self.attn = CausalSelfAttention(config)
        self.ln_2 = nn.LayerNorm(config.n_embd)
        self.mlp = MLP(config)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        x = x + self.mlp(self.ln_2(x))
        return x

# -----------------------------------------------------------------------------
# The main GPT-2 model


@dataclass
class GPTConfig:
    block_size: int = 1024
    vocab_size: int = 50257
    n_layer: int = 12
    n_head: int = 12
    n_embd: int = 768


class GPT(nn.Module):

    def __init__(self, config):
        super().__init__()
        self.config = config

        self.transformer = nn.ModuleDict(dict(
            wte=nn.Embedding(config.vocab_size, config.n_embd),
            wpe=nn.Embedding(config.block_size, config.n_embd),
            h=nn.ModuleList([Block(config) for _ in range(config.n_layer)]),
            ln_f=nn.LayerNorm(config.n_embd),
        ))
        self.lm_head = nn.Linear(config.n_embd, config.vocab_size, bias=False)
        self.lm_head.LLMC_SKIP_INIT = 1  # don't init this one, we will tie weights
        self.transformer.wte.weight = self.lm_head.weight  # https://paperswithcode.com/method/weight-tying

        # init all weights, use a torch rng object to be very careful
        self.init_rng = torch.Generator()
        self.init_rng.manual_seed(42)
        self.apply(self._init_weights)

    def _init_weights(self, module):
        if isinstance(module, nn.Linear):
            # apply special scaled init to the residual projections, per GPT-2 paper
            std = 0.02 if not hasattr(module, 'LLMC_RESIDUAL_SCALE_FLAG') else 0.02 / math.sqrt(2 * self.config.n_layer)
            # we want to skip initializing lm_head, which shares parameters with wte
            # and wte was already initialized down below during the Embedding init
            if not hasattr(module, 'LLMC_SKIP_INIT'):
                torch.nn.init.normal_(module.weight, mean=0.0, std=std, generator=self.init_rng)
            if module.bias is not None:
                torch.nn.init.zeros_(module.bias)
        elif isinstance(module, nn.Embedding):
            torch.nn.init.normal_(module.weight, mean=0.0, std=0.02, generator=self.init_rng)

    def forward(self, idx, targets=None, return_logits=True):
        device = idx.device
        b, t = idx.size()
        assert t <= self.config.block_size, f"Cannot forward sequence of length {t}, block size is only {self.config.block_size}"
        pos = torch.arange(0, t, dtype=torch.long, device=device)  # shape (t)

        # forward the GPT model itself
        tok_emb = self.transformer.wte(idx)  # token embeddings of shape (b, t, n_embd)
        pos_emb = self.transformer.wpe(pos)  # position embeddings of shape (t, n_embd)
        x = tok_emb + pos_emb

        for block in self.transformer.h:
            x = block(x)
        x = self.transformer.ln_f(x)

        if targets is not None:
            # if we are given some desired targets also calculate the loss
            logits = self.lm_head(x)
            loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1), ignore_index=-1)
        else:
            # inference-time mini-optimization: only forward the lm_head on the very last position
            logits = self.lm_head(x[:, [-1], :])  # note: using list [-1] to preserve the time dim
            loss = None

        # there are performance reasons why not returning logits is prudent, if not needed
        if not return_logits:
            logits = None

        return logits, loss

    def configure_optimizers(self, weight_decay, learning_rate, betas, device_type, zero_stage):
        # start with all of the candidate parameters
        param_dict = {pn: p for pn, p in self.named_parameters()}
        # filter out those that do not require grad
        param_dict = {pn: p for pn, p in param_dict.items() if p.requires_grad}
        # create optim groups. Any parameters that is 2D will be weight decayed, otherwise no.
        # i.e. all weight tensors in matmuls + embeddings decay, all biases and layernorms don't.
        decay_params = [p for n, p in param_dict.items() if p.dim() >= 2]
        nodecay_params = [p for n, p in param_dict.items() if p.dim() < 2]
        optim_groups = [
            {'params': decay_params, 'weight_decay': weight_decay},
            {'params': nodecay_params, 'weight_decay': 0.0}
        ]
        num_decay_params = sum(p.numel() for p in decay_params)
        num_nodecay_params = sum(p.numel() for p in nodecay_params)
        print0(f"num decayed parameter tensors: {len(decay_params)}, with {num_decay_params:,} parameters")
        print0(f"num non-decayed parameter tensors: {len(nodecay_params)}, with {num_nodecay_params:,} parameters")
        # Create AdamW optimizer and use the fused version if it is available
        fused_available = 'fused' in inspect.signature(torch.optim.AdamW).parameters
        use_fused = fused_available and device_type == 'cuda'
        print0(f"using fused AdamW: {use_fused}")
        if zero_stage == 1:
            print0("using ZeroRedundancyOptimizer")
            optimizer = ZeroRedundancyOptimizer(**optim_groups[0], optimizer_class=torch.optim.AdamW,
                                                lr=learning_rate, betas=betas, fused=use_fused)
            optimizer.add_param_group(optim_groups[1])
        else:
            print0("using regular AdamW")
            optimizer = torch.optim.AdamW(optim_groups, lr=learning_rate, betas=betas, fused=use_fused)
        return optimizer

    @torch.no_grad()
    def generate(self, idx, max_new_tokens, temperature=1.0, top_k=None):
        """
        Take a conditioning sequence of indices idx (LongTensor of shape (b,t)) and complete
        the sequence max_new_tokens times, feeding the predictions back into the model each time.
        Most likely you'll want to make sure to be in model.eval() mode of operation for this.
        """
        for _ in range(max_new_tokens):
            # if the sequence context is growing too long we must crop it at block_size
            idx_cond = idx if idx.size(1) <= self.config.block_size else idx[:, -self.config.block_size:]
            # forward the model to get the logits for the index in the sequence
            logits, _ = self(idx_cond)
            # pluck the logits at the final step and scale by desired temperature
            logits = logits[:, -1, :] / temperature
            # optionally crop the logits to only the top k options
            if top_k is not None:
                v, _ = torch.topk(logits, min(top_k, logits.size(-1)))
                logits[logits < v[:, [-1]]] = -float('Inf')
            # apply softmax to convert logits to (normalized) probabilities
            probs = F.softmax(logits, dim=-1)
            # sample from the distribution
            idx_next = torch.multinomial(probs, num_samples=1)
            # append sampled index to the running sequence and continue
            idx = torch.cat((idx, idx_next), dim=1)

        return idx

# -----------------------------------------------------------------------------
# Our own simple Distributed Data Loader


def _peek_data_shard(filename):
    # only reads the header, returns header data
    with open(filename, "rb") as f:
        # first read the header, which is 256 int32 integers (4 bytes each)
        header = np.frombuffer(f.read(256*4), dtype=np.int32)
    if header[0] != 20240520:
        print("ERROR: magic number mismatch in the data .bin file!")
        exit(1)
    assert header[1] == 1, "unsupported version"
    ntok = header[2]  # number of tokens (claimed)
    return ntok  # for now just return the number of tokens


def _load_data_shard(filename):
    with open(filename, "rb") as f:
        # first read the header, which is 256 int32 integers (4 bytes each)
        header = np.frombuffer(f.read(256*4), dtype=np.int32)
        assert header[0] == 20240520, "magic number mismatch in the data .bin file"
        assert header[1] == 1, "unsupported version"
        ntok = header[2]  # number of tokens (claimed)
        # the rest of it are tokens, stored as uint16
        tokens = np.frombuffer(f.read(), dtype=np.uint16)
    assert len(tokens) == ntok, "number of tokens read does not match header?"
    return tokens


class DistributedDataLoader:
    def __init__(self, filename_pattern, B, T, process_rank, num_processes):
        self.process_rank = process_rank
        self.num_processes = num_processes
        self.B = B
        self.T = T

        # glob files that match the pattern
        self.files = sorted(glob.glob(filename_pattern))
        assert len(self.files) > 0, f"did not find any files that match the pattern {filename_pattern}"

        # load and validate all data shards, count number of tokens in total
        ntok_total = 0
        for fname in self.files:
            shard_ntok = _peek_data_shard(fname)
            assert shard_ntok >= num_processes * B * T + 1
            ntok_total += shard_ntok
        self.ntok_total = ntok_total
        print0(f"DataLoader: total number of tokens: {ntok_total:,} across {len(self.files)} files")

        # kick things off
        self.current_shard = None
        self.reset()

    def reset(self):
        # we're being a bit clever here: if we already had shard 0 loaded,
        # then don't do the work to reload it, just reset the pointer
        if self.current_shard != 0:
            self.current_shard = 0
            self.tokens = _load_data_shard(self.files[self.current_shard])
        self.current_position = self.process_rank * self.B * self.T

    def advance(self):  # advance to next data shard
        self.current_shard = (self.current_shard + 1) % len(self.files)
        self.current_position = self.process_rank * self.B * self.T
        self.tokens = _load_data_shard(self.files[self.current_shard])

    def next_batch(self):
        B = self.B
        T = self.T
        buf = self.tokens[self.current_position: self.current_position+B*T+1]
        buf = torch.tensor(buf.astype(np.int32), dtype=torch.long)
        x = (buf[:-1]).view(B, T)  # inputs
        y = (buf[1:]).view(B, T)  # targets
        # advance the start pointer in current shard
        self.current_position += B * T * self.num_processes
        # if loading the next batch would be out of bounds advance the shard
        if self.current_position + (B * T * self.num_processes + 1) > len(self.tokens):
            self.advance()
        return x, y

# -----------------------------------------------------------------------------
# Python -> C bridge utilities for saving params/grads/activations to .bin files


def write_fp32(tensor, file):
    t = tensor.detach().cpu().to(torch.float32)
    b = t.numpy().tobytes()
    file.write(b)


def write_bf16(tensor, file):
    t = tensor.detach().cpu().to(torch.bfloat16)
    # numpy doesn't have bf16 datatype so we have to trick it
    t = t.view(torch.int16)  # trick: reinterpret as int16
    b = t.numpy().tobytes()
    file.write(b)


def write_tensors(model_tensors, L, file, dtype):
    # writes the GPT-2 model's weights to a binary file
    assert dtype in {"float32", "bfloat16"}
    write_fun = write_fp32 if dtype == "float32" else write_bf16
    write_fun(model_tensors["transformer.wte.weight"], file)  # (V, C)
    write_fun(model_tensors["transformer.wpe.weight"], file)  # (T, C)
    # per layer kind, all L layers in turn: ln_1 (L, C) x2, c_attn (L, 3C, C) (L, 3C), attn c_proj (L, C, C)
    # (L, C), ln_2 (L, C) x2, c_fc (L, 4C, C) (L, 4C), mlp c_proj (L, C, 4C) (L, C)
    for kind in ["ln_1.weight", "ln_1.bias", "attn.c_attn.weight", "attn.c_attn.bias", "attn.c_proj.weight",
                 "attn.c_proj.bias", "ln_2.weight", "ln_2.bias", "mlp.c_fc.weight", "mlp.c_fc.bias",
                 "mlp.c_proj.weight", "mlp.c_proj.bias"]:
        for i in range(L):
            write_fun(model_tensors[f"transformer.h.{i}.{kind}"], file)
    write_fun(model_tensors["transformer.ln_f.weight"], file)  # (C, )
    write_fun(model_tensors["transformer.ln_f.bias"], file)  # (C, )


@torch.no_grad()
def pad_vocab(tensor, multiple=128, value=0):
    """
    The dimension of the vocab size in GPT-2 is 50,257
    which is unfortunately a very unfriendly number for a lot of
    matrix operations on the GPU. So we pad it to the nearest
    friendlier multiple, e.g. 50,304 if multiple=128 when we
    export the weights into C land. This is a NOOP algorithmically
    and is only done to make the tensor operations more efficient.
    """
    assert tensor.ndim == 2
    V, C = tensor.shape
    assert V == 50257 or V == 62, "just being defensive here"
    # calculate padded vocab size by rounding up to nearest multiple
    Vp = ((V + multiple - 1) // multiple) * multiple
    # pad the tensor
    pad_rows = Vp - V
    padded = tensor if pad_rows == 0 else F.pad(tensor, (0, 0, 0, pad_rows), value=value)
    assert padded.shape == (Vp, C)
    return padded


def write_model(model, filename, dtype):
    # everything we need to instantiate the model
    # 1) header is: version int, GPTConfig ints, padding to 1024 bytes
    assert dtype in {"float32", "bfloat16"}  # float16 todo maybe later
    version = {
        "float32": 3,  # 3: all tensors are fp32, padded vocab
        "bfloat16": 5,  # 5: all tensors are bf16, padded vocab
    }[dtype]
    header = torch.zeros(256, dtype=torch.int32)
    header[0] = 20240326  # magic
    header[1] = version  # checkpoint version
    header[2] = model.config.block_size
    header[3] = model.config.vocab_size
    header[4] = model.config.n_layer
    header[5] = model.config.n_head
    header[6] = model.config.n_embd
    # 2) the parameters follow the header
    params = {name: param.cpu() for name, param in model.named_parameters()}
    # pad the vocab to a multiple of 128 here at export, for efficiency in C
    wte = params["transformer.wte.weight"]  # (V, C)
    wte_padded = pad_vocab(wte)  # (Vp, C)
    params["transformer.wte.weight"] = wte_padded  # (Vp, C)
    print(f"padded vocab size from {wte.size(0)} to {wte_padded.size(0)}")
    header[7] = wte_padded.size(0)  # padded vocab size store in header
    # now write to file
    with open(filename, "wb") as file:
        file.write(header.numpy().tobytes())  # header
        write_tensors(params, model.config.n_layer, file, dtype)  # params
    print(f"wrote {os.path.basename(filename)}")


def write_state(model, x, y, logits, loss, filename):
    # the state is used for debugging.
    # it contains information about the input, logits, loss, and the parameter gradients
    # this can be used for checking the computation correctness in C
    header = torch.zeros(256, dtype=torch.int32)
    header[0] = 20240327  # magic
    header[1] = 2  # run state version = 2 (1 -> 2 for padded vocab changes)
    header[2] = x.size(0)  # batch size of the batch, B
    header[3] = x.size(1)  # temporal extent of the batch, T
    grads = {name: param.grad.cpu() for name, param in model.named_parameters()}
    # pad the vocab grads here as well, to mirror write_model
    wte_grad = grads["transformer.wte.weight"]  # (V, C)
    wte_grad_padded = pad_vocab(wte_grad, value=0)  # (Vp, C) # TODO later maybe pad with nan?
    grads["transformer.wte.weight"] = wte_grad_padded  # (Vp, C)
    print(f"padded vocab size in reference grads from {wte_grad.size(0)} to {wte_grad_padded.size(0)}")
    with open(filename, "wb") as file:
        # header
        file.write(header.numpy().tobytes())
        # input x
        file.write(x.cpu().numpy().astype("int32").tobytes())  # (B, T)
        # targets y
        file.write(y.cpu().numpy().astype("int32").tobytes())  # (B, T)
        # logits (result of the model forward pass)
        write_fp32(logits.cpu(), file)
        # loss (single float, result of the cross entropy loss)
        write_fp32(loss.cpu(), file)
        # gradients
        write_tensors(grads, model.config.n_layer, file, "float32")
    print(f"wrote {os.path.basename(filename)}")


class CharTokenizer:
    """Stands in for tiktoken's gpt2 encoding: characters of a fixed alphabet, the last id is <|endoftext|>."""
    def __init__(self, chars):
        self.chars = chars
        self.eot_token = len(chars)
        self.max_token_value = len(chars)

    def encode(self, s):
        return [self.chars.index(c) for c in s]

    def decode_bytes(self, ids):
        return b"<|endoftext|>" if ids == [self.eot_token] else "".join(self.chars[i] for i in ids).encode()

    def decode(self, ids):
        return "".join("|" if i == self.eot_token else self.chars[i] for i in ids)


def write_tokenizer(enc, filename):
    n = enc.max_token_value + 1
    header = torch.zeros(256, dtype=torch.int32)
    header[0] = 20240328  # magic
    header[1] = 2  # tokenizer version = 2 (1 -> 2: includes EOT token)
    header[2] = n  # number of tokens
    header[3] = enc.eot_token  # EOT token
    with open(filename, "wb") as file:
        file.write(header.numpy().tobytes())
        for i in range(n):
            b = enc.decode_bytes([i])
            length = len(b)
            assert length < 256, f"Token length exceeds 255: {length}"
            file.write(struct.pack("<B", length))  # Write the length as a 1-byte unsigned integer
            file.write(b)  # Write the actual bytes
    print(f"wrote {os.path.basename(filename)}")


def write_datafile(filename, toks):
    """llm.c's data_common.write_datafile: a 256-int32 header then the tokens as uint16."""
    assert len(toks) < 2**31, "token count too large"  # ~2.1B tokens
    header = np.zeros(256, dtype=np.int32)
    header[0] = 20240520  # magic
    header[1] = 1  # version
    header[2] = len(toks)  # number of tokens after the 256*4 bytes of header (each 2 bytes as uint16)
    toks_np = np.array(toks, dtype=np.uint16)
    with open(filename, "wb") as f:
        f.write(header.tobytes())
        f.write(toks_np.tobytes())


def print0(*args, **kwargs):
    # modified print that only prints from the master process
    # if this is not a distributed run, it's just a print
    if int(os.environ.get("RANK", 0)) == 0:
        print(*args, **kwargs)


def file_facts(filename, dtype):
    """Size, header and a rounded sum of the payload of a written .bin file (what the C side would read)."""
    with open(filename, "rb") as f:
        header = np.frombuffer(f.read(256 * 4), dtype=np.int32)
        payload = f.read()
    if dtype == "bfloat16":
        vals = (np.frombuffer(payload, dtype=np.uint16).astype(np.uint32) << 16).view(np.float32)
    else:
        vals = np.frombuffer(payload, dtype=np.float32)
    return len(payload) + 1024, header[:8].tolist(), round(float(np.abs(vals.astype(np.float64)).sum()), 3)


if __name__ == "__main__":
    import argparse
    print0(f"Running pytorch {torch.version.__version__[:2]}")

    parser = argparse.ArgumentParser()
    parser.add_argument("--input_bin", type=str, default="", help="input .bin to train on")
    parser.add_argument("--input_val_bin", type=str, default="", help="input .bin to eval validation loss on")
    parser.add_argument("--output_dir", type=str, default="", help="output directory to which to write logs and checkpoints")
    parser.add_argument("--model", type=str, default="d2", help="d2 (a tiny from-scratch model)")
    parser.add_argument("--batch_size", type=int, default=4, help="batch size, in units of #batch dimensions")
    parser.add_argument("--sequence_length", type=int, default=16, help="sequence length")
    parser.add_argument("--total_batch_size", type=int, default=128, help="total desired batch size, in units of #tokens")
    parser.add_argument("--num_iterations", type=int, default=8, help="number of iterations to run")
    parser.add_argument("--inference_only", type=int, default=0, help="only run inference")
    parser.add_argument("--learning_rate", type=float, default=3e-3, help="learning rate warmup iterations")
    parser.add_argument("--warmup_iters", type=int, default=2, help="learning rate warmup iterations")
    parser.add_argument("--learning_rate_decay_frac", type=float, default=0.1, help="learning rate warmup iterations")
    parser.add_argument("--weight_decay", type=float, default=0.1, help="weight decay")
    parser.add_argument("--grad_clip", type=float, default=1.0, help="maximum gradient magnitude")
    parser.add_argument("--val_loss_every", type=int, default=4, help="every how mant steps to evaluate val loss?")
    parser.add_argument("--val_max_steps", type=int, default=2, help="how many batches of val to average?")
    parser.add_argument("--sample_every", type=int, default=4, help="how often to sample from the model?")
    parser.add_argument("--overfit_single_batch", type=int, default=0, help="overfit just one batch of data")
    parser.add_argument("--tensorcores", type=int, default=1, help="use tensorcores")
    parser.add_argument("--device", type=str, default="cpu", help="by default we autodetect, or set it here")
    parser.add_argument("--compile", type=int, default=1, help="torch.compile the model")
    parser.add_argument("--flash", type=int, default=1, help="use flash attention")
    parser.add_argument("--dtype", type=str, default="bfloat16", help="float32|float16|bfloat16")
    parser.add_argument("--zero_stage", type=int, default=0, help="zero redundancy optimizer stage (0/1/2/3)")
    parser.add_argument("--write_tensors", type=int, default=1, help="write tensors to disk")
    args = parser.parse_args()

    B, T = args.batch_size, args.sequence_length
    assert 1 <= T <= 1024
    assert args.dtype in {"float32", "float16", "bfloat16"}
    assert args.model in {"d2"}

    ddp = int(os.environ.get('RANK', -1)) != -1  # is this a ddp run?
    if ddp:
        assert torch.cuda.is_available(), "for now i think we need CUDA for DDP"
        init_process_group(backend='nccl')
        ddp_rank = int(os.environ['RANK'])
        ddp_local_rank = int(os.environ['LOCAL_RANK'])
        ddp_world_size = int(os.environ['WORLD_SIZE'])
        device = f'cuda:{ddp_local_rank}'
        torch.cuda.set_device(device)
        master_process = ddp_rank == 0  # this process will do logging, checkpointing etc.
        seed_offset = 0  # each process gets the exact same seed
        zero_stage = args.zero_stage
    else:
        ddp_rank = 0
        ddp_local_rank = 0
        zero_stage = 0
        ddp_world_size = 1
        master_process = True
        seed_offset = 0
        if args.device:
            device = args.device
        else:
            device = "cpu"
            if torch.cuda.is_available():
                device = "cuda"
            elif hasattr(torch.backends, "mps") and torch.backends.mps.is_available():
                device = "mps"
    print(f"using device: {device}")
    device_type = 'cuda' if 'cuda' in device else 'cpu'

    tokens_per_fwdbwd = B * T * ddp_world_size
    assert args.total_batch_size % tokens_per_fwdbwd == 0
    grad_accum_steps = args.total_batch_size // tokens_per_fwdbwd
    print0(f"total desired batch size: {args.total_batch_size}")
    print0(f"=> calculated gradient accumulation steps: {grad_accum_steps}")

    ptdtype = {'float32': torch.float32, 'bfloat16': torch.bfloat16, 'float16': torch.float16}[args.dtype]
    ctx = torch.amp.autocast(device_type=device_type, dtype=ptdtype) if args.dtype != "float32" else nullcontext()

    torch.manual_seed(42)
    if torch.cuda.is_available():
        torch.cuda.manual_seed(42)

    if args.tensorcores:
        torch.set_float32_matmul_precision('high')
    print0("matmul precision", torch.get_float32_matmul_precision())

    assert args.flash in {0, 1}
    FLASH = args.flash

    enc = CharTokenizer("abcdefghijklmnopqrstuvwxyz .,;:!?'\n" + "ABCDEFGHIJKLMNOPQRSTUVWXYZ")
    out = tempfile.mkdtemp()
    if master_process and args.write_tensors:  # tokenizer is technically not tensors but ok
        write_tokenizer(enc, os.path.join(out, "gpt2_tokenizer.bin"))
        with open(os.path.join(out, "gpt2_tokenizer.bin"), "rb") as f:
            tok_bytes = f.read()
        print0("tokenizer file", len(tok_bytes), np.frombuffer(tok_bytes[:16], dtype=np.int32).tolist(),
               tok_bytes[1024:1030])

    rng = np.random.default_rng(0)
    words = ["the", "king", "queen", "said", "and", "to", "of", "my", "lord", "thou", "art", "good"]
    text = " ".join(rng.choice(words, size=900)) + "."
    toks = [enc.eot_token] + enc.encode(text)
    split = int(0.8 * len(toks))
    write_datafile(os.path.join(out, "tiny_train_000001.bin"), toks[:split])
    write_datafile(os.path.join(out, "tiny_val_000000.bin"), toks[split:])
    args.input_bin = os.path.join(out, "tiny_train_*.bin")
    args.input_val_bin = os.path.join(out, "tiny_val_*.bin")

    model_config = {
        "d2": GPTConfig(block_size=32, vocab_size=62, n_layer=2, n_head=4, n_embd=32),
    }[args.model]
    model = GPT(model_config)
    model.train()
    model.to(device)
    print0("init sums", round(model.transformer.wte.weight.abs().sum().item(), 4),
           round(model.transformer.h[1].mlp.c_proj.weight.std().item(), 6),
           model.lm_head.weight is model.transformer.wte.weight)
    if args.compile:
        if hasattr(config, "coordinate_descent_tuning"):
            config.coordinate_descent_tuning = True  # suggested by @Chillee
        print0("compiling the model...")
        model = torch.compile(model)

    # -------------------------------------------------------------------------

    train_loader = DistributedDataLoader(args.input_bin, B, T, ddp_rank, ddp_world_size)
    val_loader = None
    if args.input_val_bin:
        val_loader = DistributedDataLoader(args.input_val_bin, B, T, ddp_rank, ddp_world_size)

    # -------------------------------------------------------------------------

    if master_process and args.write_tensors and (not args.inference_only):
        x, y = train_loader.next_batch()
        x, y = x.to(device), y.to(device)
        logits, loss = model(x, y)
        loss.backward()
        print0("reference loss", round(loss.item(), 5), "logits", tuple(logits.shape), logits.dtype)
        model_to_size = {"d2": "d2"}
        model_size_str = model_to_size[args.model]  # e.g. "124M", or "d12"
        io_model = model._orig_mod if args.compile else model
        write_model(io_model, os.path.join(out, f"gpt2_{model_size_str}.bin"), "float32")
        write_model(io_model, os.path.join(out, f"gpt2_{model_size_str}_bf16.bin"), "bfloat16")
        write_state(io_model, x, y, logits, loss, os.path.join(out, f"gpt2_{model_size_str}_debug_state.bin"))
        for name, kind in [("gpt2_d2.bin", "float32"), ("gpt2_d2_bf16.bin", "bfloat16")]:
            size, header, total = file_facts(os.path.join(out, name), kind)
            print0(name, "bytes", size, "header", header, "abs sum", total)
            with open(os.path.join(out, name), "rb") as f:
                print0(name, "md5", hashlib.md5(f.read()).hexdigest())
        size, header, total = file_facts(os.path.join(out, "gpt2_d2_debug_state.bin"), "float32")
        print0("debug state bytes", size, "header", header)
        with open(os.path.join(out, "gpt2_d2_debug_state.bin"), "rb") as f:
            f.seek(1024)
            xs = np.frombuffer(f.read(B * T * 4), dtype=np.int32)
            f.seek(1024 + 2 * B * T * 4 + logits.numel() * 4)
            ref_loss = np.frombuffer(f.read(4), dtype=np.float32)[0]
            grads_payload = np.frombuffer(f.read(), dtype=np.float32)
        print0("state x matches", bool((xs == x.numpy().reshape(-1)).all()), "loss in file", round(float(ref_loss), 5))
        print0("state grads", grads_payload.size, round(float(np.abs(grads_payload.astype(np.float64)).sum()), 3))
        train_loader.reset()

    # -------------------------------------------------------------------------

    if ddp:
        model = DDP(model, device_ids=[ddp_local_rank])
    raw_model = model.module if ddp else model  # always contains the "raw" unwrapped model
    raw_model = getattr(raw_model, "_orig_mod", raw_model)  # the compiled wrapper's module

    optimizer = raw_model.configure_optimizers(weight_decay=args.weight_decay,
                                               learning_rate=args.learning_rate, betas=(0.9, 0.95),
                                               device_type=device, zero_stage=zero_stage)
    print0("groups", [(len(g["params"]), g["weight_decay"], g["betas"], g["fused"]) for g in optimizer.param_groups])

    def get_lr(it):
        min_lr = args.learning_rate * args.learning_rate_decay_frac
        if it < args.warmup_iters:
            return args.learning_rate * (it+1) / args.warmup_iters
        if it > args.num_iterations:
            return min_lr
        decay_ratio = (it - args.warmup_iters) / (args.num_iterations - args.warmup_iters)
        assert 0 <= decay_ratio <= 1
        return min_lr + (args.learning_rate - min_lr) * (1.0 - decay_ratio)

    timings = []
    norm = -1.0  # dummy value to print in inference-only mode
    for step in range(args.num_iterations + 1):
        t0 = time.time()
        last_step = (step == args.num_iterations)

        if (args.val_loss_every > 0
                and (step % args.val_loss_every == 0 or last_step)) \
                and (val_loader is not None):
            model.eval()
            val_loader.reset()
            with torch.no_grad():
                val_loss = 0.0
                for _ in range(args.val_max_steps):
                    x, y = val_loader.next_batch()
                    x, y = x.to(device), y.to(device)
                    _, loss = model(x, y, return_logits=False)
                    val_loss += loss.item()
                val_loss /= args.val_max_steps
            print0(f"val loss {val_loss:.5f}")

        if (args.sample_every > 0
                and (step % args.sample_every == 0 or last_step)) \
                and master_process:
            model.eval()
            start_ids = [enc.eot_token]
            xg = (torch.tensor(start_ids, dtype=torch.long, device=device)[None, ...])
            max_new_tokens = 16
            temperature = 1.0
            top_k = 40
            yg = raw_model.generate(xg, max_new_tokens, temperature=temperature, top_k=top_k)
            print0('---------------')
            print0(repr(enc.decode(yg[0].tolist())))
            print0('---------------')

        if last_step:
            break

        # --------------- TRAINING SECTION BEGIN -----------------
        model.train()
        optimizer.zero_grad(set_to_none=True)
        if args.overfit_single_batch:
            train_loader.reset()
        lossf = 0.0  # for getting the mean loss (as simple float) over the accumulation steps
        for micro_step in range(grad_accum_steps):
            x, y = train_loader.next_batch()
            x, y = x.to(device), y.to(device)
            if ddp:
                model.require_backward_grad_sync = (micro_step == grad_accum_steps - 1)
            with ctx:
                _, loss = model(x, y, return_logits=False)
                loss = loss / grad_accum_steps
                lossf += loss.detach()  # keep track of the mean loss
            if not args.inference_only:
                loss.backward()
        if ddp:
            dist.all_reduce(lossf, op=dist.ReduceOp.AVG)
        lossf = lossf.item()
        norm = torch.nn.utils.clip_grad_norm_(model.parameters(), args.grad_clip)
        lr = get_lr(step)
        for param_group in optimizer.param_groups:
            param_group['lr'] = lr
        optimizer.step()
        # --------------- TRAINING SECTION END -------------------

        if device == "mps":
            torch.mps.synchronize()
        elif device == "cuda":
            torch.cuda.synchronize()
        t1 = time.time()
        tokens_per_second = grad_accum_steps * ddp_world_size * B * T / (t1-t0)
        print0(f"step {step+1:4d}/{args.num_iterations} | train loss {lossf:.5f} | norm {norm:.4f} | lr {lr:.2e}")
        if step > 0 and step > args.num_iterations - 20:
            timings.append(t1-t0)

    timings = timings[-20:]
    print0(f"final {len(timings)} iters avg time positive: {np.mean(timings) > 0}")
    print0(f"peak memory consumption: {torch.cuda.max_memory_allocated() // 1024 // 1024 if device == 'cuda' else 0} MiB")
    print0("param dtype after autocast training", next(raw_model.parameters()).dtype,
           "adam state", sorted(optimizer.state[raw_model.lm_head.weight]))

    # -------------------------------------------------------------------------
    if ddp:
        destroy_process_group()
