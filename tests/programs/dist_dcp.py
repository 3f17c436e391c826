"""torch.distributed.checkpoint round trips (the DCP tutorial's pattern: an AppState Stateful around
get_state_dict/set_state_dict). ``save DIR``: 2 ranks train an FSDP2 model two steps and dcp.save it with a
sharded DTensor and plain values; prints the checkpoint's table of contents. ``load DIR``: a fresh model
(fully_shard when world size > 1, plain on 1 rank) loads it, prints what it got and one more training step.
Each rank writes its lines with one os.write."""
import os
import sys

import torch
import torch.distributed as dist
import torch.distributed.checkpoint as dcp
import torch.nn as nn
import torch.nn.functional as F
from torch.distributed.checkpoint.state_dict import (StateDictOptions, get_optimizer_state_dict, get_state_dict,
                                                     set_state_dict)
from torch.distributed.checkpoint.stateful import Stateful
from torch.distributed.fsdp import fully_shard
from torch.distributed.tensor import DTensor, Shard, distribute_tensor, init_device_mesh


class AppState(Stateful):
    def __init__(self, model, optimizer):
        self.model, self.optimizer = model, optimizer

    def state_dict(self):
        model_sd, optim_sd = get_state_dict(self.model, self.optimizer)
        return {"model": model_sd, "optim": optim_sd}

    def load_state_dict(self, state_dict):
        set_state_dict(self.model, self.optimizer, model_state_dict=state_dict["model"],
                       optim_state_dict=state_dict["optim"])


def build(seed, shard):
    torch.manual_seed(seed)
    model = nn.Sequential(nn.Linear(5, 8), nn.Tanh(), nn.Linear(8, 3))
    if shard:
        fully_shard(model[0])
        fully_shard(model)
    return model, torch.optim.AdamW(model.parameters(), lr=1e-2, weight_decay=0.1)


def step(model, opt, seed):
    gen = torch.Generator().manual_seed(seed)
    x, y = torch.randn(6, 5, generator=gen), torch.randn(6, 3, generator=gen)
    loss = F.mse_loss(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    return loss.item()


def full(t):
    return t.full_tensor() if isinstance(t, DTensor) else t


def main():
    mode, path = sys.argv[1], sys.argv[2]
    dist.init_process_group("gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    mesh = init_device_mesh("cpu", (world,))
    out = []
    if mode == "save":
        model, opt = build(0, True)
        losses = [step(model, opt, s) for s in range(2)]
        w = distribute_tensor(torch.arange(15.).reshape(5, 3), mesh, [Shard(0)])
        dcp.save({"app": AppState(model, opt), "extra": {"epoch": 3, "w": w, "b": torch.ones(4, dtype=torch.int64)}},
                 checkpoint_id=path)
        out.append(f"R{rank} losses {losses}")
        if rank == 0:
            md = dcp.FileSystemReader(path).read_metadata()
            out.append(f"R0 files {sorted(os.listdir(path))} version {md.version}")
            for k in sorted(md.state_dict_metadata):
                v = md.state_dict_metadata[k]
                if isinstance(v, dcp.TensorStorageMetadata):
                    chunks = sorted((tuple(c.offsets), tuple(c.sizes)) for c in v.chunks)
                    out.append(f"R0 md {k} T {str(v.properties.dtype)} {tuple(v.size)} {chunks}")
                else:
                    out.append(f"R0 md {k} {type(v).__name__} path {md.planner_data[k]}")
            # every stored item is one torch.save archive of its chunk
            info = sorted(md.storage_data.items(), key=lambda kv: (kv[0].fqn, tuple(kv[0].offset or ())))
            out.append(f"R0 items {[(i.fqn, None if i.offset is None else tuple(i.offset)) for i, _ in info]}")
    else:
        model, opt = build(1, world > 1)
        w = distribute_tensor(torch.zeros(5, 3), mesh, [Shard(0)]) if world > 1 else torch.zeros(5, 3)
        extra = {"epoch": 0, "w": w, "b": torch.zeros(4, dtype=torch.int64)}
        state = {"app": AppState(model, opt), "extra": extra}
        dcp.load(state, checkpoint_id=path)
        out.append(f"R{rank} epoch {state['extra']['epoch']} b {extra['b'].tolist()} w {full(w).tolist()} "
                   f"local {tuple(w.to_local().shape) if isinstance(w, DTensor) else None}")
        osd = get_optimizer_state_dict(model, opt, options=StateDictOptions(full_state_dict=True))
        for n, p in model.named_parameters():
            st = osd["state"][n]
            out.append(f"R{rank} {n} {full(p).sum().item():.6f} {full(p).abs().sum().item():.6f} "
                       f"exp_avg {st['exp_avg'].sum().item():.8f} sq {st['exp_avg_sq'].sum().item():.10f} "
                       f"step {float(st['step'])}")
        out.append(f"R{rank} next loss {step(model, opt, 2):.6f} lr {opt.param_groups[0]['lr']}")
    os.write(1, ("\n".join(out) + "\n").encode())
    dist.barrier()  # (torch's gloo aborts a rank whose peer tears the group down first)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
