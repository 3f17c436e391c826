"""A torchrun script (plain ``import torch``) run by tests/test_distributed.py under torchlike's launcher:
every collective over several dtypes/shapes/ReduceOps, then DDP training. Each rank saves what it saw to
OUT/rank{R}.npz; the test compares with numpy (collectives) and torch (training)."""
import os
import sys
import time

import numpy as np
import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP

T0 = time.time()

out_dir = sys.argv[1]
dist.init_process_group(backend="gloo")
rank, world = dist.get_rank(), dist.get_world_size()
assert int(os.environ["LOCAL_RANK"]) == rank and int(os.environ["WORLD_SIZE"]) == world
res = {"backend": np.array(dist.get_backend()), "initialized": np.array(dist.is_initialized())}

DTYPES = {"float32": torch.float32, "int64": torch.int64, "bool": torch.bool}
SHAPES = [(3,), (2, 4)]


def inp(seed, r, shape, dt):
    rs = np.random.RandomState(seed * 100 + r)
    if dt == "float32":
        return rs.randn(*shape).astype(np.float32)
    if dt == "int64":
        return rs.randint(-5, 6, size=shape).astype(np.int64)
    return rs.rand(*shape) > 0.5


OPS = {"float32": ["SUM", "AVG", "PRODUCT", "MIN", "MAX"],
       "int64": ["SUM", "PRODUCT", "MIN", "MAX", "BAND", "BOR", "BXOR"],
       "bool": ["SUM", "PRODUCT", "MIN", "MAX", "BAND", "BOR", "BXOR"]}

for dt, tdt in DTYPES.items():
    for si, shape in enumerate(SHAPES):
        tag = f"{dt}_{si}"
        for op in OPS[dt]:
            t = torch.tensor(inp(1, rank, shape, dt))
            same = t  # in place: the object passed in holds the result
            dist.all_reduce(t, op=getattr(dist.ReduceOp, op))
            assert same is t and t.dtype == tdt
            res[f"all_reduce_{op}_{tag}"] = t.numpy()
        t = torch.tensor(inp(2, rank, shape, dt))
        dist.broadcast(t, src=1)
        res[f"broadcast_{tag}"] = t.numpy()
        lst = [torch.zeros(shape, dtype=tdt) for _ in range(world)]
        dist.all_gather(lst, torch.tensor(inp(3, rank, shape, dt)))
        res[f"all_gather_{tag}"] = np.stack([x.numpy() for x in lst])
        o = torch.zeros((world * shape[0],) + shape[1:], dtype=tdt)
        dist.all_gather_into_tensor(o, torch.tensor(inp(3, rank, shape, dt)))
        res[f"all_gather_into_tensor_{tag}"] = o.numpy()
        t = torch.tensor(inp(4, rank, shape, dt))
        dist.reduce(t, dst=0, op=dist.ReduceOp.MAX)
        res[f"reduce_MAX_{tag}"] = t.numpy()
        g = [torch.zeros(shape, dtype=tdt) for _ in range(world)] if rank == 0 else None
        dist.gather(torch.tensor(inp(5, rank, shape, dt)), g, dst=0)
        if rank == 0:
            res[f"gather_{tag}"] = np.stack([x.numpy() for x in g])
        s = torch.zeros(shape, dtype=tdt)
        sl = [torch.tensor(inp(6, 100 + i, shape, dt)) for i in range(world)] if rank == 1 else None
        dist.scatter(s, sl, src=1)
        res[f"scatter_{tag}"] = s.numpy()
        big = (world * 2,) + shape
        for op in ["SUM", "MAX"] if dt != "bool" else ["MAX"]:
            o = torch.zeros((2,) + shape, dtype=tdt)
            dist.reduce_scatter_tensor(o, torch.tensor(inp(7, rank, big, dt)), op=getattr(dist.ReduceOp, op))
            res[f"reduce_scatter_{op}_{tag}"] = o.numpy()
        o = torch.zeros(big, dtype=tdt)
        dist.all_to_all_single(o, torch.tensor(inp(8, rank, big, dt)))
        res[f"all_to_all_single_{tag}"] = o.numpy()

print(f"collectives {time.time() - T0:.1f}s", flush=True)
# point to point, async, groups, objects
if rank == 0:
    dist.send(torch.arange(5, dtype=torch.float32) * 3, dst=1)
else:
    r = torch.zeros(5)
    assert dist.recv(r, src=0) == 0
    res["recv"] = r.numpy()
t = torch.full((4,), float(rank + 1))
w = dist.all_reduce(t, async_op=True)
w.wait()
assert w.is_completed()
res["async_all_reduce"] = t.numpy()
grp = dist.new_group([0, 1])
t = torch.full((2,), float(rank + 10))
dist.all_reduce(t, group=grp)
res["group_all_reduce"] = t.numpy()
dist.barrier()
objs = [{"rank": rank, "msg": "hi" * (rank + 1)}, rank] if rank == 1 else [None, None]
dist.broadcast_object_list(objs, src=1)
res["broadcast_object_list"] = np.array(repr(objs))
ol = [None] * world
dist.all_gather_object(ol, ("r", rank, [rank] * (rank + 2)))
res["all_gather_object"] = np.array(repr(ol))
gl = [None] * world if rank == 0 else None
dist.gather_object({"x": rank * 7}, gl, dst=0)
if rank == 0:
    res["gather_object"] = np.array(repr(gl))



@torch.compile(fullgraph=True)  # collectives inside a compiled function: no graph break
def in_program(x):
    y = x * 2
    dist.all_reduce(y)
    o = torch.zeros(2 * world, 3)
    dist.all_gather_into_tensor(o, y)
    b = x.clone()
    dist.broadcast(b, src=1)
    gl = [torch.zeros(2, 3) for _ in range(world)] if rank == 0 else None
    dist.gather(x + 1, gl, dst=0)
    sc = torch.zeros(2, 3)
    dist.scatter(sc, [x * (i + 1) for i in range(world)] if rank == 1 else None, src=1)
    rsc = torch.zeros(2, 3)
    dist.reduce_scatter(rsc, [x * (i + 1) for i in range(world)])
    a2a = [torch.zeros(2, 3) for _ in range(world)]
    dist.all_to_all(a2a, [x + 10 * i for i in range(world)])
    return y + 1, o, b, torch.stack(gl) if rank == 0 else torch.zeros(1), sc, rsc, torch.stack(a2a)


for name, v in zip(["all_reduce", "all_gather_into_tensor", "broadcast", "gather", "scatter", "reduce_scatter",
                    "all_to_all"],
                   in_program(torch.tensor(inp(11, rank, (2, 3), "float32")))):
    res[f"compiled_{name}"] = v.numpy()

# ---- DDP ----------------------------------------------------------------------------------------------
def init_params(model):
    rs = np.random.RandomState(42)
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.tensor(rs.randn(*p.shape).astype(np.float32) * 0.3))
            if rank == 1:
                p.add_(1.0)  # DDP must broadcast rank 0's values


rs = np.random.RandomState(0)
X = torch.tensor(rs.randn(16, 5).astype(np.float32))
Y = torch.tensor(rs.randn(16, 3).astype(np.float32))
xs, ys = X[8 * rank:8 * rank + 8], Y[8 * rank:8 * rank + 8]


class WithUnused(nn.Module):
    def __init__(self):
        super().__init__()
        self.l1, self.l2, self.unused = nn.Linear(5, 8), nn.Linear(8, 3), nn.Linear(3, 3)

    def forward(self, x):
        return self.l2(torch.tanh(self.l1(x)))


for variant in ["plain", "no_sync", "unused", "syncbn", "hook", "compiled"]:
    if variant == "unused":
        model = WithUnused()
    elif variant == "syncbn":
        model = nn.SyncBatchNorm.convert_sync_batchnorm(nn.Sequential(nn.Linear(5, 4, bias=False), nn.BatchNorm1d(4),
                                                                      nn.Tanh(), nn.Linear(4, 3)))
    else:
        model = nn.Sequential(nn.Linear(5, 8), nn.Tanh(), nn.Linear(8, 3))
    init_params(model)
    ddp = DDP(model, find_unused_parameters=(variant == "unused"))
    assert ddp.module is model
    if variant == "hook":
        from torch.distributed.algorithms.ddp_comm_hooks import default_hooks
        ddp.register_comm_hook(None, default_hooks.allreduce_hook)
    opt = torch.optim.AdamW(ddp.parameters(), lr=0.01)
    losses = []

    def train_step(x, y):
        opt.zero_grad()
        loss = nn.functional.mse_loss(ddp(x), y)
        loss.backward()
        opt.step()
        return loss
    # fullgraph: the whole step, DDP's bucket all-reduces included, is one compiled program (no graph break)
    compiled_step = torch.compile(train_step, fullgraph=True) if variant == "compiled" else None
    for step in range(10):
        if compiled_step is not None:
            loss = compiled_step(xs, ys)
        elif variant == "no_sync":
            opt.zero_grad()
            with ddp.no_sync():
                l0 = nn.functional.mse_loss(ddp(xs[:4]), ys[:4]) / 2
                l0.backward()
            l1 = nn.functional.mse_loss(ddp(xs[4:]), ys[4:]) / 2
            l1.backward()
            loss = l0 + l1
        else:
            opt.zero_grad()
            loss = nn.functional.mse_loss(ddp(xs), ys)
            loss.backward()
        if compiled_step is None:
            opt.step()
        lt = loss.detach().clone()
        dist.all_reduce(lt, op=dist.ReduceOp.AVG)
        losses.append(lt.item())
        if variant == "plain" and step == 4 and rank == 0:  # a checkpoint that dist_resume.py continues from
            torch.save({"model": ddp.module.state_dict(), "optimizer": opt.state_dict(), "epoch": step + 1},
                       os.path.join(out_dir, "resume.pt"))
    res[f"ddp_{variant}_losses"] = np.array(losses)
    for k, v in ddp.state_dict().items():
        res[f"ddp_{variant}_sd_{k}"] = v.numpy()
    res[f"ddp_{variant}_keys"] = np.array(list(ddp.state_dict().keys()))
    print(f"ddp {variant} {time.time() - T0:.1f}s", flush=True)

# DistributedSampler with set_epoch
for shuffle in (False, True):
    sampler = torch.utils.data.DistributedSampler(list(range(10)), shuffle=shuffle, seed=3)
    for ep in range(2):
        sampler.set_epoch(ep)
        res[f"sampler_{shuffle}_{ep}"] = np.array(list(sampler))

if rank == 0:
    torch.save(ddp.module.state_dict(), os.path.join(out_dir, "ckpt.pt"))
np.savez(os.path.join(out_dir, f"rank{rank}.npz"), **res)
dist.barrier()
dist.destroy_process_group()
print("done", rank)
