"""PyTorch's FSDP1 tutorials as one small script ("Getting Started with FSDP" + "Advanced Model Training with
FSDP"): a size-based or transformer auto-wrap policy, MixedPrecision, a StepLR schedule, the tutorial's
all-reduced loss sums, a FULL_STATE_DICT checkpoint (rank0_only), the optimizer state through
FSDP.optim_state_dict / FSDP.optim_state_dict_to_load, a SHARDED_STATE_DICT round trip through
torch.distributed.checkpoint, and training resumed from the reloaded states. Argument: fp32 | bf16 | fp64 and
size | transformer. Each rank writes its lines with one os.write."""
import functools
import os
import sys
import tempfile

import torch
import torch.distributed as dist
import torch.distributed.checkpoint as dcp
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.distributed.fsdp import (BackwardPrefetch, FullStateDictConfig, MixedPrecision, ShardingStrategy,
                                    StateDictType)
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP
from torch.distributed.fsdp.api import FullOptimStateDictConfig
from torch.distributed.fsdp.wrap import size_based_auto_wrap_policy, transformer_auto_wrap_policy
from torch.optim.lr_scheduler import StepLR


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.fc1 = nn.Linear(dim, 2 * dim)
        self.fc2 = nn.Linear(2 * dim, dim)

    def forward(self, x):
        return x + self.fc2(F.relu(self.fc1(self.norm(x))))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 4, 3, 1)
        self.dropout1 = nn.Dropout(0.25)
        self.fc1 = nn.Linear(4 * 3 * 3, 16)
        self.blocks = nn.Sequential(Block(16), Block(16))
        self.fc2 = nn.Linear(16, 5)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = self.dropout1(x)
        x = torch.flatten(x, 1)
        x = self.blocks(F.relu(self.fc1(x)))
        return F.log_softmax(self.fc2(x), dim=1)


def train(model, rank, data, optimizer, epoch, out):
    model.train()
    ddp_loss = torch.zeros(2)
    for i, (x, y) in enumerate(data):
        optimizer.zero_grad()
        output = model(x)
        loss = F.nll_loss(output, y, reduction="sum")
        loss.backward()
        optimizer.step()
        ddp_loss[0] += loss.item()
        ddp_loss[1] += len(x)
    dist.all_reduce(ddp_loss, op=dist.ReduceOp.SUM)
    out.append(f"R{rank} Train Epoch: {epoch} \tLoss: {ddp_loss[0] / ddp_loss[1]:.6f} {output.dtype}")


def test(model, rank, data, out):
    model.eval()
    ddp_loss = torch.zeros(3)
    with torch.no_grad():
        for x, y in data:
            output = model(x)
            ddp_loss[0] += F.nll_loss(output, y, reduction="sum").item()
            pred = output.argmax(dim=1, keepdim=True)
            ddp_loss[1] += pred.eq(y.view_as(pred)).sum().item()
            ddp_loss[2] += len(x)
    dist.all_reduce(ddp_loss, op=dist.ReduceOp.SUM)
    out.append(f"R{rank} Test set: Average loss: {ddp_loss[0] / ddp_loss[2]:.6f}, "
               f"Accuracy: {int(ddp_loss[1])}/{int(ddp_loss[2])}")


def batches(rank, n, seed):
    g = torch.Generator().manual_seed(seed + rank)
    return [(torch.randn(6, 1, 8, 8, generator=g), torch.randint(0, 5, (6,), generator=g)) for _ in range(n)]


def make(prec, policy):
    torch.manual_seed(0)
    if policy == "size":
        wrap = functools.partial(size_based_auto_wrap_policy, min_num_params=100)
    else:
        wrap = functools.partial(transformer_auto_wrap_policy, transformer_layer_cls={Block})
    mp = {"bf16": MixedPrecision(param_dtype=torch.bfloat16, reduce_dtype=torch.bfloat16,
                                 buffer_dtype=torch.bfloat16),
          "fp64": MixedPrecision(param_dtype=torch.float64, reduce_dtype=torch.float32,
                                 buffer_dtype=torch.float64)}.get(prec)
    model = FSDP(Net(), auto_wrap_policy=wrap, mixed_precision=mp, sharding_strategy=ShardingStrategy.FULL_SHARD,
                 backward_prefetch=BackwardPrefetch.BACKWARD_PRE, device_id=torch.device("cpu"),
                 limit_all_gathers=True)
    return model


def main():
    prec, policy = (sys.argv[1:] + ["fp32", "size"])[:2]
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    out = []
    model = make(prec, policy)
    units = [n for n, m in model.named_modules() if isinstance(m, FSDP)]
    out.append(f"R{rank} units {units}")
    optimizer = optim.Adadelta(model.parameters(), lr=1.0)
    scheduler = StepLR(optimizer, step_size=1, gamma=0.7)
    for epoch in range(1, 3):
        train(model, rank, batches(rank, 3, epoch), optimizer, epoch, out)
        test(model, rank, batches(rank, 2, 50), out)
        scheduler.step()
    dist.barrier()
    # full model checkpoint, the advanced tutorial's save_policy
    save_policy = FullStateDictConfig(offload_to_cpu=False, rank0_only=True)
    with FSDP.state_dict_type(model, StateDictType.FULL_STATE_DICT, save_policy):
        cpu_state = model.state_dict()
    box = [tempfile.mkdtemp() if rank == 0 else None]
    dist.broadcast_object_list(box, src=0)  # one checkpoint directory for all ranks
    tmp = box[0]
    if rank == 0:
        torch.save(cpu_state, os.path.join(tmp, "model.pt"))
        out.append(f"R0 full {[(k, tuple(v.shape), str(v.dtype), round(v.sum().item(), 6)) for k, v in cpu_state.items()]}")
    else:
        out.append(f"R{rank} full {len(cpu_state)}")
    # optimizer state: full, keyed by parameter names
    with FSDP.state_dict_type(model, StateDictType.FULL_STATE_DICT, FullStateDictConfig(),
                              FullOptimStateDictConfig()):
        osd = FSDP.optim_state_dict(model, optimizer)
    st = osd["state"]
    out.append(f"R{rank} optim keys {sorted(osd)} {list(st)} {osd['param_groups'][0]['params']}")
    out.append(f"R{rank} optim lr {osd['param_groups'][0]['lr']:.6f} "
               f"{[(k, sorted(v), tuple(v['square_avg'].shape), round(v['square_avg'].sum().item(), 6)) for k, v in st.items()]}")
    # sharded state dict through torch.distributed.checkpoint
    with FSDP.state_dict_type(model, StateDictType.SHARDED_STATE_DICT):
        sd = model.state_dict()
        out.append(f"R{rank} sharded {[(k, tuple(v.shape)) for k, v in list(sd.items())[:3]]}")  # torch: ShardedTensor
        dcp.save({"model": sd}, checkpoint_id=tmp + "/dcp")
    # a fresh model and optimizer resume from the two checkpoints
    fresh = make(prec, policy)
    with FSDP.state_dict_type(fresh, StateDictType.SHARDED_STATE_DICT):
        sd = {"model": fresh.state_dict()}
        dcp.load(sd, checkpoint_id=tmp + "/dcp")
        fresh.load_state_dict(sd["model"])
    opt2 = optim.Adadelta(fresh.parameters(), lr=1.0)
    with FSDP.state_dict_type(fresh, StateDictType.FULL_STATE_DICT, FullStateDictConfig(),
                              FullOptimStateDictConfig()):
        to_load = FSDP.optim_state_dict_to_load(fresh, opt2, osd)
    opt2.load_state_dict(to_load)
    out.append(f"R{rank} loaded lr {opt2.param_groups[0]['lr']:.6f}")
    for epoch in range(3, 5):
        train(fresh, rank, batches(rank, 2, epoch), opt2, epoch, out)
        train(model, rank, batches(rank, 2, epoch), optimizer, epoch, out)
    with FSDP.summon_full_params(fresh):
        out.append(f"R{rank} summoned fc1.weight {tuple(fresh.fc1.weight.shape)} "
                   f"{fresh.fc1.weight.dtype} {fresh.fc1.weight.sum().item():.6f}")
    os.write(1, ("\n".join(out) + "\n").encode())
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
