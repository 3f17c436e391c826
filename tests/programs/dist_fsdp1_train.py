"""A typical FSDP1 training script (FullyShardedDataParallel with an auto-wrap policy, DistributedSampler,
gradient clipping, a FULL_STATE_DICT checkpoint written by rank 0; HYBRID_SHARD: over a (1, world) device mesh,
HYBRID_SHARD_2x2: over a (2, world / 2) one on 4 ranks, two replica groups). Each rank writes its lines with one os.write."""
import functools
import os
import sys
import tempfile

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.distributed.fsdp import FullStateDictConfig, ShardingStrategy, StateDictType
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP
from torch.distributed.fsdp.wrap import size_based_auto_wrap_policy, transformer_auto_wrap_policy
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.fc1 = nn.Linear(dim, 2 * dim)
        self.fc2 = nn.Linear(2 * dim, dim)

    def forward(self, x):
        return x + self.fc2(torch.tanh(self.fc1(x)))


class Net(nn.Module):
    def __init__(self, dim=6):
        super().__init__()
        self.inp = nn.Linear(5, dim)
        self.blocks = nn.Sequential(Block(dim), Block(dim))
        self.out = nn.Linear(dim, 3)

    def forward(self, x):
        return self.out(self.blocks(self.inp(x)))


def main():
    strategy = sys.argv[1] if len(sys.argv) > 1 else "FULL_SHARD"
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    torch.manual_seed(0)
    data = TensorDataset(torch.randn(64, 5), torch.randint(0, 3, (64,)))
    sampler = DistributedSampler(data, shuffle=True, seed=1)
    loader = DataLoader(data, batch_size=8, sampler=sampler)
    if strategy == "size":
        policy = functools.partial(size_based_auto_wrap_policy, min_num_params=200)
        strategy = "SHARD_GRAD_OP"
    else:
        policy = functools.partial(transformer_auto_wrap_policy, transformer_layer_cls={Block})
    extra = {}
    if strategy.startswith("HYBRID_SHARD"):  # HSDP: replicate over mesh dim 0, shard over dim 1
        from torch.distributed.device_mesh import init_device_mesh
        n = dist.get_world_size()
        shape = {"HYBRID_SHARD": (1, n), "HYBRID_SHARD_2x2": (2, n // 2)}[strategy]  # 1 group, or 2 replicas
        extra["device_mesh"] = init_device_mesh("cpu", shape, mesh_dim_names=("replicate", "shard"))
        strategy = "HYBRID_SHARD"
    model = FSDP(Net(), auto_wrap_policy=policy, sharding_strategy=getattr(ShardingStrategy, strategy),
                 device_id=torch.device("cpu"), **extra)
    out = [f"R{rank} units {sum(isinstance(m, FSDP) for m in model.modules())} "
           f"{type(model.blocks[0]).__name__ if strategy != 'SHARD_GRAD_OP' else ''}"]
    opt = torch.optim.AdamW(model.parameters(), lr=5e-3)
    for epoch in range(2):
        sampler.set_epoch(epoch)
        for i, (x, y) in enumerate(loader):
            loss = F.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            norm = model.clip_grad_norm_(1.0)
            opt.step()
            avg = loss.detach().clone()
            dist.all_reduce(avg, op=dist.ReduceOp.SUM)
            avg = avg * 2 / dist.get_world_size()
            if i % 2 == 0:
                out.append(f"R{rank} epoch {epoch} it {i} loss {loss.item():.6f} avg {avg.item() / 2:.6f} "
                           f"norm {norm.item():.6f}")
    cfg = FullStateDictConfig(rank0_only=True)  # offload_to_cpu=True fails in torch on CPU tensors
    with FSDP.state_dict_type(model, StateDictType.FULL_STATE_DICT, cfg):
        sd = model.state_dict()
    if rank == 0:
        path = os.path.join(tempfile.mkdtemp(), "ckpt.pt")
        torch.save(sd, path)
        back = torch.load(path)
        out.append(f"R0 keys {list(back)}")
        out.append(f"R0 values {[(tuple(v.shape), round(v.sum().item(), 5)) for v in back.values()]}")
        fresh = Net()
        fresh.load_state_dict(back)
        x = torch.linspace(-1, 1, 10).reshape(2, 5)
        out.append(f"R0 reloaded {fresh(x).sum().item():.6f}")
    else:
        out.append(f"R{rank} sd {len(sd)}")
    with FSDP.summon_full_params(model):
        out.append(f"R{rank} full inp.weight {tuple(model.inp.weight.shape)} {model.inp.weight.sum().item():.6f}")
    os.write(1, ("\n".join(out) + "\n").encode())
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
