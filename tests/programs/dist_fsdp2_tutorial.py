"""pytorch/examples' FSDP2 example (distributed/FSDP2: example.py, model.py, checkpoint.py, utils.py) made small:
a Transformer built on the meta device, fully_shard on each layer and the root (optionally with
MixedPrecisionPolicy and explicit prefetching), to_empty + reset_parameters, inspect_model /
inspect_mixed_precision, Adam, and the example's Checkpointer both ways: the DCP API (get/set_model_state_dict
and get/set_optimizer_state_dict with full state dicts) and the manual way (full_tensor() on rank 0; on load
distribute_tensor + nn.Parameter(DTensor) + load_state_dict(assign=True), and the optimizer's state rebuilt
with distribute_tensor). A second run resumes from the checkpoint. Argument: dcp | manual, and mp.
Each rank writes its lines with one os.write."""
import os
import sys
import tempfile
from dataclasses import dataclass

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.distributed.checkpoint.state_dict import (StateDictOptions, get_model_state_dict,
                                                     get_optimizer_state_dict, set_model_state_dict,
                                                     set_optimizer_state_dict)
from torch.distributed.fsdp import FSDPModule, MixedPrecisionPolicy, fully_shard
from torch.distributed.tensor import DTensor, Shard, distribute_tensor


@dataclass
class ModelArgs:
    n_layers: int = 2
    vocab_size: int = 32
    max_seq_len: int = 8
    dim: int = 16
    n_heads: int = 4
    dropout_p: float = 0.0


class Attention(nn.Module):
    def __init__(self, args):
        super().__init__()
        self.head_dim, self.n_heads, self.dropout_p = args.dim // args.n_heads, args.n_heads, args.dropout_p
        self.resid_dropout = nn.Dropout(args.dropout_p)
        self.wq = nn.Linear(args.dim, args.dim, bias=False)
        self.wk = nn.Linear(args.dim, args.dim, bias=False)
        self.wv = nn.Linear(args.dim, args.dim, bias=False)
        self.wo = nn.Linear(args.dim, args.dim, bias=False)

    def forward(self, x):
        bsz, seq_len, _ = x.size()
        q, k, v = (w(x).view(bsz, seq_len, self.n_heads, self.head_dim).transpose(1, 2)
                   for w in (self.wq, self.wk, self.wv))
        out = F.scaled_dot_product_attention(q, k, v, None, self.dropout_p if self.training else 0, is_causal=True)
        out = out.transpose(1, 2).contiguous().view(bsz, seq_len, -1)
        return self.resid_dropout(self.wo(out))

    def reset_parameters(self):
        for w in (self.wq, self.wk, self.wv, self.wo):
            w.reset_parameters()


class FeedForward(nn.Module):
    def __init__(self, dim, hidden_dim, dropout_p):
        super().__init__()
        self.w1 = nn.Linear(dim, hidden_dim)
        self.gelu = nn.GELU()
        self.w2 = nn.Linear(hidden_dim, dim)
        self.resid_dropout = nn.Dropout(dropout_p)

    def forward(self, x):
        return self.resid_dropout(self.w2(self.gelu(self.w1(x))))

    def reset_parameters(self):
        self.w1.reset_parameters()
        self.w2.reset_parameters()


class TransformerBlock(nn.Module):
    def __init__(self, args):
        super().__init__()
        self.attention_norm = nn.LayerNorm(args.dim)
        self.attention = Attention(args)
        self.ffn_norm = nn.LayerNorm(args.dim)
        self.feed_forward = FeedForward(args.dim, hidden_dim=4 * args.dim, dropout_p=args.dropout_p)

    def forward(self, x):
        h = x + self.attention(self.attention_norm(x))
        return h + self.feed_forward(self.ffn_norm(h))

    def reset_parameters(self):
        self.attention_norm.reset_parameters()
        self.attention.reset_parameters()
        self.ffn_norm.reset_parameters()
        self.feed_forward.reset_parameters()


class Transformer(nn.Module):
    def __init__(self, args):
        super().__init__()
        self.max_seq_len = args.max_seq_len
        self.tok_embeddings = nn.Embedding(args.vocab_size, args.dim)
        self.pos_embeddings = nn.Embedding(args.max_seq_len, args.dim)
        self.dropout = nn.Dropout(args.dropout_p)
        self.layers = nn.ModuleList(TransformerBlock(args) for _ in range(args.n_layers))
        self.norm = nn.LayerNorm(args.dim)
        self.output = nn.Linear(args.dim, args.vocab_size, bias=False)

    def forward(self, tokens):
        _bsz, seq_len = tokens.size()
        h = self.tok_embeddings(tokens) + self.pos_embeddings(torch.arange(0, seq_len, device=tokens.device))
        h = self.dropout(h)
        for layer in self.layers:
            h = layer(h)
        return self.output(self.norm(h)).float()

    def reset_parameters(self):
        self.tok_embeddings.reset_parameters()
        self.pos_embeddings.reset_parameters()
        self.norm.reset_parameters()
        self.output.reset_parameters()


def inspect_model(model, out, rank):
    assert isinstance(model, Transformer) and isinstance(model, FSDPModule)
    for param in model.parameters():
        assert param.placements == (Shard(0),) and isinstance(param, DTensor)
    out.append(f"R{rank} model {type(model).__name__} {len(list(model.parameters()))} "
               f"{[tuple(p.to_local().shape) for p in list(model.parameters())[:4]]}")


def inspect_mixed_precision(model, out, rank):
    model.unshard()
    for param in model.parameters(recurse=False):
        assert param.dtype == torch.float64
    out.append(f"R{rank} unsharded {model.output.weight.dtype} {type(model.output.weight).__name__} "
               f"{model.layers[0].attention.wq.weight.dtype} {type(model.layers[0].attention.wq.weight).__name__}")
    model.reshard()
    out.append(f"R{rank} resharded {model.output.weight.dtype} {type(model.output.weight).__name__}")


def set_modules_to_forward_prefetch(model, num_to_forward_prefetch):
    for i, layer in enumerate(model.layers):
        if i >= len(model.layers) - num_to_forward_prefetch:
            break
        layer.set_modules_to_forward_prefetch([model.layers[i + j] for j in range(1, num_to_forward_prefetch + 1)])


def set_modules_to_backward_prefetch(model, num_to_backward_prefetch):
    for i, layer in enumerate(model.layers):
        if i < num_to_backward_prefetch:
            continue
        layer.set_modules_to_backward_prefetch([model.layers[i - j] for j in range(1, num_to_backward_prefetch + 1)])


class Checkpointer:
    def __init__(self, folder, dcp_api, save_folder):
        self.folder, self.dcp_api, self.save_folder = folder, dcp_api, save_folder

    def save(self, model, optim):
        if self.dcp_api:
            opts = StateDictOptions(full_state_dict=True, cpu_offload=True)
            model_sd, optim_sd = get_model_state_dict(model, options=opts), get_optimizer_state_dict(model, optim,
                                                                                                      options=opts)
        else:
            model_sd = {k: v.full_tensor() for k, v in model.state_dict().items()}
            osd = optim.state_dict()
            optim_sd = {"param_groups": osd["param_groups"],
                        "state": {pid: {k: (v.full_tensor() if isinstance(v, DTensor) else v) for k, v in s.items()}
                                  for pid, s in osd["state"].items()}}
            if dist.get_rank() != 0:
                model_sd, optim_sd = {}, {}
        if dist.get_rank() == 0:
            torch.save(model_sd, os.path.join(self.save_folder, "model_state_dict.pt"))
            torch.save(optim_sd, os.path.join(self.save_folder, "optim_state_dict.pt"))
        dist.barrier()

    def load_model(self, model):
        full_sd = torch.load(os.path.join(self.folder, "model_state_dict.pt"), mmap=True, weights_only=True,
                             map_location="cpu")
        if self.dcp_api:
            set_model_state_dict(model=model, model_state_dict=full_sd,
                                 options=StateDictOptions(full_state_dict=True, broadcast_from_rank0=True))
            return
        meta_sharded_sd = model.state_dict()
        sharded_sd = {}
        for name, full_tensor in full_sd.items():
            meta = meta_sharded_sd.get(name)
            sharded_sd[name] = nn.Parameter(distribute_tensor(full_tensor, meta.device_mesh, meta.placements))
        model.load_state_dict(sharded_sd, strict=False, assign=True)

    def load_optim(self, model, opt):
        full_sd = torch.load(os.path.join(self.folder, "optim_state_dict.pt"), mmap=True, weights_only=True,
                             map_location="cpu")
        if self.dcp_api:
            set_optimizer_state_dict(model=model, optimizers=opt, optim_state_dict=full_sd,
                                     options=StateDictOptions(full_state_dict=True, broadcast_from_rank0=True))
            return
        _init_optim_state(opt)
        param_groups, state = opt.state_dict()["param_groups"], opt.state_dict()["state"]
        for group, full_group in zip(param_groups, full_sd["param_groups"]):
            for key, value in full_group.items():
                if key != "params":
                    group[key] = value
            for pid, full_pid in zip(group["params"], full_group["params"]):
                if pid not in state:
                    continue
                for attr, full_tensor in full_sd["state"][full_pid].items():
                    sharded = state[pid][attr]
                    state[pid][attr] = (distribute_tensor(full_tensor, sharded.device_mesh, sharded.placements)
                                        if isinstance(sharded, DTensor) else full_tensor)
        opt.load_state_dict({"param_groups": param_groups, "state": state})


def _init_optim_state(optim):
    if optim.state:
        return
    for group in optim.param_groups:
        for param in group["params"]:
            if param.grad is not None:
                raise RuntimeError("_init_optim_state precondition: param.grad must be None")
            if param.requires_grad:
                param.grad = torch.zeros_like(param)
    for group in optim.param_groups:
        if "lr" in group:
            group["lr"] = 0.0
    optim.step()
    optim.zero_grad(set_to_none=True)


def run(args_dcp, mp, folder, resume, out):
    rank = dist.get_rank()
    torch.manual_seed(0)
    margs = ModelArgs()
    with torch.device("meta"):
        model = Transformer(margs)
    kw = {"mp_policy": MixedPrecisionPolicy(param_dtype=torch.float64, reduce_dtype=torch.float32)} if mp else {}
    for layer in model.layers:
        fully_shard(layer, **kw)
    fully_shard(model, **kw)
    inspect_model(model, out, rank)
    set_modules_to_forward_prefetch(model, 1)
    set_modules_to_backward_prefetch(model, 1)
    ck = Checkpointer(folder, args_dcp, os.path.join(folder, "resumed") if resume else folder)
    if not resume:
        model.to_empty(device="cpu")
        with torch.no_grad():  # the example's reset_parameters: here one full init per parameter, then sharded
            full = Transformer(margs)
            for (name, p), q in zip(model.named_parameters(), full.parameters()):
                p.to_local().copy_(distribute_tensor(q.detach(), p.device_mesh, p.placements).to_local())
    else:
        ck.load_model(model)
    if mp:
        inspect_mixed_precision(model, out, rank)
    optim = torch.optim.Adam(model.parameters(), lr=1e-2)
    if resume:
        ck.load_optim(model, optim)
        out.append(f"R{rank} resumed lr {optim.param_groups[0]['lr']} state {len(optim.state)}")
    gen = torch.Generator().manual_seed(7 + rank + (10 if resume else 0))
    for step in range(3):
        model.unshard()
        x = torch.randint(0, margs.vocab_size, (2, margs.max_seq_len), generator=gen)
        loss = model(x).sum()
        loss.backward()
        optim.step()
        optim.zero_grad()
        out.append(f"R{rank} {'resume ' if resume else ''}step {step} loss {loss.item():.5f} {loss.dtype}")
    ck.save(model, optim)
    return model


def main():
    mode, mp = (sys.argv[1] if len(sys.argv) > 1 else "dcp"), "mp" in sys.argv[2:]
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    box = [tempfile.mkdtemp() if rank == 0 else None]
    if rank == 0:
        os.mkdir(os.path.join(box[0], "resumed"))
    dist.broadcast_object_list(box, src=0)
    out = []
    run(mode == "dcp", mp, box[0], False, out)
    model = run(mode == "dcp", mp, box[0], True, out)
    if rank == 0:
        sd = torch.load(os.path.join(box[0], "resumed", "optim_state_dict.pt"))
        first = sd["state"][next(iter(sd["state"]))]
        out.append(f"R0 saved optim {list(sd['state'])[:3]} {sd['param_groups'][0]['params'][:3]} "
                   f"{sorted(first)} {tuple(first['exp_avg'].shape)} {first['exp_avg_sq'].sum().item():.6e}")
        msd = torch.load(os.path.join(box[0], "resumed", "model_state_dict.pt"))
        out.append(f"R0 saved model {[(k, tuple(v.shape), round(v.sum().item(), 6)) for k, v in list(msd.items())[:5]]}")
    w = model.layers[0].attention.wq.weight
    out.append(f"R{rank} final {type(w).__name__} {w.to_local().sum().item():.6f} {w.full_tensor().sum().item():.6f}")
    os.write(1, ("\n".join(out) + "\n").encode())
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
