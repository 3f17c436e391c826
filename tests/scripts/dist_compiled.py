"""A torchrun script (plain ``import torch``) run by tests/test_distributed_compiled.py: collectives inside a
compiled function, and a compiled DDP training step, on 2 ranks. Under torchlike's launcher the functions are
``torch.compile``d (their collectives are XLA collectives inside the one program); under real torch's torchrun
they run eagerly (the oracle). Each rank saves OUT/<tag>_rank{R}.npz; under torchlike also whether each
compiled program holds its collectives as XLA collectives and no host callback (read from its HLO). With a third
argument ``collectives`` only the collectives part runs (the 4-rank test)."""
import sys

import numpy as np
import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP

out_dir, tag = sys.argv[1], sys.argv[2]
only_collectives = sys.argv[3:] == ["collectives"]
ours = hasattr(torch, "_torchlike") or "torchlike" in torch.__name__ or "torchlike" in getattr(torch, "__file__", "")
dist.init_process_group(backend="gloo")
rank, world = dist.get_rank(), dist.get_world_size()
res = {}
compile_ = (lambda f: torch.compile(f, fullgraph=True)) if ours else (lambda f: f)


def inp(seed, shape):
    return torch.tensor(np.random.RandomState(seed * 10 + rank).randn(*shape).astype(np.float32))


def collectives(x, n):
    s = x * 2
    dist.all_reduce(s)
    avg = x.clone()
    dist.all_reduce(avg, op=dist.ReduceOp.AVG)
    mx = x.clone()
    dist.all_reduce(mx, op=dist.ReduceOp.MAX)
    prod = x.clone()
    dist.all_reduce(prod, op=dist.ReduceOp.PRODUCT)
    ag = [torch.zeros_like(x) for _ in range(world)]
    dist.all_gather(ag, x + 1)
    agt = torch.zeros(world * x.shape[0], x.shape[1])
    dist.all_gather_into_tensor(agt, x)
    b = x.clone()
    dist.broadcast(b, src=1)
    rs = torch.zeros(x.shape[0] // world, x.shape[1])
    dist.reduce_scatter_tensor(rs, x)
    rsl = torch.zeros_like(x)
    dist.reduce_scatter(rsl, [x * (i + 1) for i in range(world)], op=dist.ReduceOp.MAX)
    red = x.clone()
    dist.reduce(red, dst=0)
    sc = torch.zeros_like(x)
    dist.scatter(sc, [x * (i + 2) for i in range(world)] if rank == 0 else None, src=0)
    a2a = torch.zeros_like(x)
    dist.all_to_all_single(a2a, x)
    w = dist.all_reduce(n, async_op=True)  # an int64 tensor, async
    w.wait()
    return s + 1, avg, mx, prod, torch.stack(ag), agt, b, rs, rsl, red, sc, a2a, n


names = ["sum", "avg", "max", "prod", "all_gather", "all_gather_into_tensor", "broadcast", "reduce_scatter_tensor",
         "reduce_scatter_max", "reduce", "scatter", "all_to_all_single", "int_sum"]
fn = compile_(collectives)
for it in range(2):  # the second call reuses the program
    outs = fn(inp(1 + it, (2 * world, 3)), torch.tensor([rank + 1, 10 * it], dtype=torch.int64))
    for k, v in zip(names, outs):
        res[f"c{it}_{k}"] = v.numpy()


def hlo_of(cf):
    progs = [e.run.__self__ for es in cf._cache.values() for e in es if e.run is not None]
    assert progs and all(p.spmd for p in progs), "the compiled function is not an SPMD program"
    return "\n".join(p.fn.executable().as_text() for p in progs)


def count_hlo(k, cf):
    """The program's HLO: collectives are XLA ops, no host callback."""
    text = hlo_of(cf)
    res[f"hlo_{k}_all_reduce"] = np.array(text.count("all-reduce("))
    res[f"hlo_{k}_all_gather"] = np.array(text.count("all-gather("))
    res[f"hlo_{k}_reduce_scatter"] = np.array(text.count("reduce-scatter("))
    res[f"hlo_{k}_all_to_all"] = np.array(text.count("all-to-all("))
    res[f"hlo_{k}_callbacks"] = np.array(text.count("callback"))


if only_collectives:
    if ours:
        count_hlo("collectives", fn)
    np.savez(f"{out_dir}/{tag}_rank{rank}.npz", **res)
    dist.destroy_process_group()
    sys.exit(0)

# ---- a fallback: a collective over a subgroup is a host callback (the whole function then uses callbacks) --
g0 = dist.new_group([0])


def with_subgroup(x):
    y = x + 1
    dist.all_reduce(y, group=g0)  # rank 1 is not a member: its y stays
    dist.all_reduce(y)
    return y


fb = compile_(with_subgroup)
res["subgroup"] = fb(inp(5, (3,))).numpy()
if ours:
    res["subgroup_spmd"] = np.array([e.run.__self__.spmd for es in fb._cache.values() for e in es if e.run])

# ---- a DDP training step: 2 ranks x batch 8, 10 AdamW steps ------------------------------------------------
rs = np.random.RandomState(0)
X = torch.tensor(rs.randn(16, 5).astype(np.float32))
Y = torch.tensor(rs.randn(16, 3).astype(np.float32))
xs, ys = X[8 * rank:8 * rank + 8], Y[8 * rank:8 * rank + 8]
for variant in (["eager", "compiled"] if ours else ["eager"]):
    model = nn.Sequential(nn.Linear(5, 8), nn.Tanh(), nn.Linear(8, 3))
    prs = np.random.RandomState(42)
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.tensor(prs.randn(*p.shape).astype(np.float32) * 0.3) + rank)  # DDP broadcasts rank 0's
    ddp = DDP(model)
    opt = torch.optim.AdamW(ddp.parameters(), lr=0.01)

    def train_step(x, y):
        opt.zero_grad()
        loss = nn.functional.mse_loss(ddp(x), y)
        loss.backward()
        opt.step()
        return loss
    step = compile_(train_step) if variant == "compiled" else train_step
    losses = [step(xs, ys).item() for _ in range(10)]
    res[f"ddp_{variant}_losses"] = np.array(losses)
    for k, v in ddp.state_dict().items():
        res[f"ddp_{variant}_sd_{k}"] = v.detach().numpy()
    if variant == "compiled":
        res["ddp_compile_count"] = np.array(step.compile_count)

if ours:
    for k, cf in (("collectives", fn), ("ddp", step)):
        count_hlo(k, cf)
np.savez(f"{out_dir}/{tag}_rank{rank}.npz", **res)
dist.destroy_process_group()
print("done", rank, flush=True)
