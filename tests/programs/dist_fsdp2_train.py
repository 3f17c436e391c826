"""A typical FSDP2 training script (pytorch/examples distributed/FSDP2 style): fully_shard on each block, then
the root; AdamW; a few steps; a full state dict gathered with get_model_state_dict; rank-0 checkpoint lines.
Argument hsdp (4 ranks): fully_shard over a (2, 2) mesh (HSDP: two replica groups).
Each rank writes its lines with one os.write (two ranks' unbuffered output must not interleave mid-line)."""
import os
import sys

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.distributed.checkpoint.state_dict import StateDictOptions, get_model_state_dict, get_optimizer_state_dict
from torch.distributed.fsdp import FSDPModule, fully_shard
from torch.distributed.tensor import DTensor, Shard


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.fc1 = nn.Linear(dim, 3 * dim)
        self.fc2 = nn.Linear(3 * dim, dim)

    def forward(self, x):
        return x + self.fc2(F.gelu(self.fc1(self.norm(x))))


class Net(nn.Module):
    def __init__(self, vocab=11, dim=8, depth=2):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim)
        self.blocks = nn.ModuleList(Block(dim) for _ in range(depth))
        self.head = nn.Linear(dim, vocab)

    def forward(self, idx):
        x = self.emb(idx)
        for b in self.blocks:
            x = b(x)
        return self.head(x)


def main():
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    torch.manual_seed(0)
    model = Net()
    kw = {}
    if "hsdp" in sys.argv[1:]:  # HSDP: a (2, world / 2) mesh, replicate over dim 0, shard over dim 1
        from torch.distributed.device_mesh import init_device_mesh
        kw["mesh"] = init_device_mesh("cpu", (2, dist.get_world_size() // 2),
                                      mesh_dim_names=("dp_replicate", "dp_shard"))
    for block in model.blocks:
        fully_shard(block, **kw)
    fully_shard(model, **kw)
    out = [f"R{rank} placements {model.head.weight.placements}"]
    w = model.blocks[0].fc1.weight
    out.append(f"R{rank} wrapped {type(model).__name__} {isinstance(model, FSDPModule)} "
               f"{isinstance(model.blocks[1], FSDPModule)} {isinstance(w, DTensor)} {isinstance(w, nn.Parameter)}")
    out.append(f"R{rank} shard {w.placements[-1] == Shard(0)} global {tuple(w.shape)} local {tuple(w.to_local().shape)} "
               f"head.bias local {tuple(model.head.bias.to_local().shape)} local-sum {w.to_local().sum().item():.5f}")
    out.append(f"R{rank} names {[n for n, _ in model.named_parameters()][:4]} "
               f"numel {sum(p.numel() for p in model.parameters())}")
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2, weight_decay=0.1)
    gen = torch.Generator().manual_seed(100 + rank)
    for step in range(4):
        idx = torch.randint(0, 11, (4, 6), generator=gen)
        logits = model(idx[:, :-1])
        loss = F.cross_entropy(logits.reshape(-1, 11), idx[:, 1:].reshape(-1))
        opt.zero_grad()
        loss.backward()
        g = model.blocks[1].fc2.weight.grad
        gsum = g.full_tensor().abs().sum().item()
        norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 0.5)
        opt.step()
        out.append(f"R{rank} step {step} loss {loss.item():.6f} grad {isinstance(g, DTensor)} "
                   f"{tuple(g.to_local().shape)} {gsum:.6f} norm {norm.item():.6f}")
    full = model.head.weight.full_tensor()
    out.append(f"R{rank} head full {tuple(full.shape)} {full.sum().item():.6f}")
    sd = get_model_state_dict(model, options=StateDictOptions(full_state_dict=True, cpu_offload=True))
    osd = get_optimizer_state_dict(model, opt, options=StateDictOptions(full_state_dict=True, cpu_offload=True))
    if rank == 0:
        out.append(f"R0 sd {len(sd)} {list(sd)[:5]}")
        out.append(f"R0 sd values {[(k, tuple(v.shape), round(v.sum().item(), 5)) for k, v in list(sd.items())[:6]]}")
        st = osd["state"]["blocks.0.fc1.weight"]
        out.append(f"R0 osd {sorted(osd)} {len(osd['state'])} {sorted(st)} {tuple(st['exp_avg'].shape)} "
                   f"{st['exp_avg_sq'].sum().item():.8f}")
    else:
        out.append(f"R1 sd {len(sd)} osd {len(osd.get('state', {}))}")
    sd = get_model_state_dict(model)
    out.append(f"R{rank} sharded sd {type(sd['head.weight']).__name__} {tuple(sd['head.weight'].to_local().shape)}")
    os.write(1, ("\n".join(out) + "\n").encode())
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
