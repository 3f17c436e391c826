"""Tensor parallelism (torch.distributed.tensor.parallel) on 2 ranks. ``mlp``: Linear-ReLU-Linear with
ColwiseParallel / RowwiseParallel; ``emb``: torchtitan's plan (vocabulary-parallel Embedding to Shard(1),
SequenceParallel norms, Colwise head gathering the logits); ``sp``: a LayerNorm under SequenceParallel feeding a block that
PrepareModuleInput gathers (Shard(1) -> Replicate), Colwise then Rowwise(output_layouts=Shard(1)). Each
prints outputs, input and parameter gradients (placements, local shapes, full values) over 3 AdamW steps,
and the same losses from an unparallelised copy. Each rank writes its lines with one os.write."""
import copy
import os
import sys

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.distributed.tensor import DTensor, Replicate, Shard, init_device_mesh
from torch.distributed.tensor.parallel import (ColwiseParallel, PrepareModuleInput, RowwiseParallel,
                                               SequenceParallel, parallelize_module)


def build(mode):
    torch.manual_seed(0)
    if mode == "mlp":
        return nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 8))
    if mode == "emb":  # torchtitan's plan: vocab-parallel embedding, sequence-parallel norm, colwise head
        return nn.Sequential(nn.Embedding(10, 8), nn.LayerNorm(8),
                             nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 8)), nn.LayerNorm(8),
                             nn.Linear(8, 10))
    return nn.Sequential(nn.LayerNorm(8), nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 8)))


def plan(mode):
    if mode == "mlp":
        return {"0": ColwiseParallel(), "2": RowwiseParallel()}
    if mode == "emb":
        return {"0": RowwiseParallel(input_layouts=Replicate(), output_layouts=Shard(1)), "1": SequenceParallel(),
                "2": PrepareModuleInput(input_layouts=(Shard(1),), desired_input_layouts=(Replicate(),)),
                "2.0": ColwiseParallel(), "2.2": RowwiseParallel(output_layouts=Shard(1)), "3": SequenceParallel(),
                "4": ColwiseParallel(input_layouts=Shard(1), output_layouts=Replicate())}
    return {"0": SequenceParallel(),
            "1": PrepareModuleInput(input_layouts=(Shard(1),), desired_input_layouts=(Replicate(),)),
            "1.0": ColwiseParallel(), "1.2": RowwiseParallel(output_layouts=Shard(1))}


def funcol_lines(rank, world, mesh):
    """torch.distributed._functional_collectives on the 2 ranks: values, types and gradients of each collective
    (transformers' expert parallelism calls all_to_all_single_autograd, diffusers all_gather_tensor and
    permute_tensor, litgpt all_reduce with a list of ranks)."""
    import warnings
    import torch.distributed._functional_collectives as funcol
    out = []
    base = torch.arange(6.0).reshape(3, 2) + 10 * rank

    def case(name, fn):
        x = base.clone().requires_grad_(True)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            y = funcol.wait_tensor(fn(x * (rank + 1)))
        (y * torch.arange(y.numel(), dtype=y.dtype).reshape(y.shape)).sum().backward()
        out.append(f"R{rank} funcol {name} {tuple(y.shape)} {y.flatten().tolist()} grad {x.grad.flatten().tolist()} "
                   f"warn {sorted({m.category.__name__ for m in w})}")

    g = dist.group.WORLD
    case("all_reduce", lambda t: funcol.all_reduce(t, "sum", g))
    case("all_reduce list", lambda t: funcol.all_reduce(t, "SUM", list(range(world))))
    case("all_reduce mesh avg", lambda t: funcol.all_reduce(t, "avg", mesh).detach() + 0 * t)
    case("broadcast", lambda t: funcol.broadcast(t, 1, g))
    case("all_gather 0", lambda t: funcol.all_gather_single(t, 0, g))
    case("all_gather 1", lambda t: funcol.all_gather_tensor(t, 1, (mesh, 0)))
    case("reduce_scatter 1", lambda t: funcol.reduce_scatter_single(t, "sum", 1, g))
    case("reduce_scatter 0", lambda t: funcol.reduce_scatter_tensor(t.repeat(2, 1)[:4], "sum", 0, g))
    case("all_to_all even", lambda t: funcol.all_to_all_single(t.repeat(2, 1)[:4], None, None, g))
    sizes = [[1, 2], [2, 1]]  # rank r sends sizes[r][j] rows to rank j
    case("all_to_all uneven", lambda t: funcol.all_to_all_single_autograd(
        t, [sizes[j][rank] for j in range(world)], sizes[rank], g))
    case("permute", lambda t: funcol.permute_tensor(t.flatten(), [1, 0], g))
    ys = funcol.all_reduce_coalesced([base, base * 2], "max", g)
    out.append(f"R{rank} funcol coalesced {[y.flatten().tolist() for y in ys]}")
    return out


def full(t):
    return t.full_tensor() if isinstance(t, DTensor) else t


def main():
    mode = sys.argv[1]
    dist.init_process_group("gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    mesh = init_device_mesh("cpu", (world,))
    model = build(mode)
    ref = copy.deepcopy(model)
    parallelize_module(model, mesh, plan(mode))
    out = [f"R{rank} params {[(n, type(p).__name__, p.placements if isinstance(p, DTensor) else None, tuple(p.shape), tuple(p.to_local().shape) if isinstance(p, DTensor) else None) for n, p in model.named_parameters()]}",
           f"R{rank} sd {list(model.state_dict())}"]
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
    ref_opt = torch.optim.AdamW(ref.parameters(), lr=1e-2)
    gen = torch.Generator().manual_seed(7)
    for step in range(3):
        if mode == "emb":
            x = torch.randint(0, 10, (2, 4), generator=gen)
            y = model(x)
            loss = total = nn.functional.cross_entropy(y.reshape(-1, 10), x.roll(1, 1).reshape(-1))
            opt.zero_grad()
            loss.backward()
            out.append(f"R{rank} step {step} out DTensor={isinstance(y, DTensor)} {tuple(y.shape)} {y.sum().item():.6f} "
                       f"loss {total.item():.6f}")
        else:
            shape = (4, 8) if mode == "mlp" else (2, 4, 8)
            x = torch.randn(*shape, generator=gen)
            xs = x if mode == "mlp" else x.chunk(world, 1)[rank]
            xs = xs.clone().requires_grad_(True)
            y = model(xs)
            loss = (y * y).mean() if mode == "mlp" else (y * y).sum() / x.numel()
            opt.zero_grad()
            loss.backward()
            total = loss.detach().clone()
            if mode != "mlp":
                dist.all_reduce(total)
            out.append(f"R{rank} step {step} out DTensor={isinstance(y, DTensor)} {tuple(y.shape)} "
                       f"{y.sum().item():.6f} loss {total.item():.6f} xgrad {xs.grad.abs().sum().item():.6f}")
        for n, p in model.named_parameters():
            g = p.grad
            out.append(f"R{rank} step {step} grad {n} {type(g).__name__} {g.placements if isinstance(g, DTensor) else None} "
                       f"{tuple(g.to_local().shape) if isinstance(g, DTensor) else None} "
                       f"{full(g).abs().sum().item():.6f} {full(g).sum().item():.6f}")
        opt.step()
        ref_loss = (nn.functional.cross_entropy(ref(x).reshape(-1, 10), x.roll(1, 1).reshape(-1)) if mode == "emb"
                    else (ref(x) ** 2).mean())
        ref_opt.zero_grad()
        ref_loss.backward()
        ref_opt.step()
        out.append(f"R{rank} step {step} ref loss {ref_loss.item():.6f}")
    out.append(f"R{rank} final {[round(full(p).sum().item(), 5) for p in model.parameters()]}")
    if mode == "mlp":
        out += funcol_lines(rank, world, mesh)
    os.write(1, ("\n".join(out) + "\n").encode())
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
