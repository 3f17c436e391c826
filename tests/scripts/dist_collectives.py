"""Every collective and ReduceOp over float32/float64/int64/bool, for any world size (tests/test_distributed.py
runs it on 4 processes; dist_checks.py covers 2). Each rank saves what it saw to OUT/coll{R}.npz; the test
compares with numpy's reduction of the per-rank inputs."""
import os
import sys

import numpy as np
import torch
import torch.distributed as dist

out_dir = sys.argv[1]
dist.init_process_group(backend="gloo")
rank, world = dist.get_rank(), dist.get_world_size()
DTYPES = {"float32": torch.float32, "float64": torch.float64, "int64": torch.int64, "bool": torch.bool}
OPS = {"float32": ["SUM", "AVG", "PRODUCT", "MIN", "MAX"], "float64": ["SUM", "AVG", "PRODUCT", "MIN", "MAX"],
       "int64": ["SUM", "PRODUCT", "MIN", "MAX", "BAND", "BOR", "BXOR"],
       "bool": ["SUM", "PRODUCT", "MIN", "MAX", "BAND", "BOR", "BXOR"]}
SHAPE = (2, 3)


def inp(seed, r, shape, dt):
    rs = np.random.RandomState(seed * 100 + r)
    if dt.startswith("float"):
        return rs.randn(*shape).astype(dt)
    if dt == "int64":
        return rs.randint(-5, 6, size=shape).astype(np.int64)
    return rs.rand(*shape) > 0.5


res = {}
for dt, tdt in DTYPES.items():
    for op in OPS[dt]:
        t = torch.tensor(inp(1, rank, SHAPE, dt))
        dist.all_reduce(t, op=getattr(dist.ReduceOp, op))
        assert t.dtype == tdt
        res[f"all_reduce_{op}_{dt}"] = t.numpy()
    if dt in ("float32", "int64"):  # the other collectives: 2 byte widths here; dist_checks.py runs float32/int64 on 2 ranks
        continue
    t = torch.tensor(inp(2, rank, SHAPE, dt))
    dist.broadcast(t, src=world - 1)
    res[f"broadcast_{dt}"] = t.numpy()
    lst = [torch.zeros(SHAPE, dtype=tdt) for _ in range(world)]
    dist.all_gather(lst, torch.tensor(inp(3, rank, SHAPE, dt)))
    res[f"all_gather_{dt}"] = np.stack([x.numpy() for x in lst])
    t = torch.tensor(inp(4, rank, SHAPE, dt))
    dist.reduce(t, dst=1, op=dist.ReduceOp.MAX)
    res[f"reduce_MAX_{dt}"] = t.numpy()
    g = [torch.zeros(SHAPE, dtype=tdt) for _ in range(world)] if rank == 2 else None
    dist.gather(torch.tensor(inp(5, rank, SHAPE, dt)), g, dst=2)
    if rank == 2:
        res[f"gather_{dt}"] = np.stack([x.numpy() for x in g])
    s = torch.zeros(SHAPE, dtype=tdt)
    dist.scatter(s, [torch.tensor(inp(6, 100 + i, SHAPE, dt)) for i in range(world)] if rank == 1 else None, src=1)
    res[f"scatter_{dt}"] = s.numpy()
    big = (world,) + SHAPE
    o = torch.zeros(SHAPE, dtype=tdt)
    dist.reduce_scatter_tensor(o, torch.tensor(inp(7, rank, big, dt)), op=dist.ReduceOp.MAX)
    res[f"reduce_scatter_MAX_{dt}"] = o.numpy()
    o = torch.zeros(big, dtype=tdt)
    dist.all_to_all_single(o, torch.tensor(inp(8, rank, big, dt)))
    res[f"all_to_all_single_{dt}"] = o.numpy()
o = torch.zeros(2, 3)
dist.reduce_scatter_tensor(o, torch.tensor(inp(9, rank, (world * 2, 3), "float32")))  # SUM: psum_scatter
res["reduce_scatter_SUM"] = o.numpy()
isz = [(rank + j) % 3 + 1 for j in range(world)]  # rows rank -> j
osz = [(i + rank) % 3 + 1 for i in range(world)]  # rows i -> rank
o = torch.zeros(sum(osz), 2, dtype=torch.float64)
dist.all_to_all_single(o, torch.tensor(inp(12, rank, (sum(isz), 2), "float64")), osz, isz)
res["all_to_all_uneven"] = o.numpy()
sub = dist.new_group([1, 3])  # every rank creates it; only members use it
if rank in (1, 3):
    t = torch.tensor(inp(10, rank, (3,), "float64"))
    dist.all_reduce(t, group=sub)
    res["subgroup"] = t.numpy()
ol = [None] * world
dist.all_gather_object(ol, {"rank": rank, "pad": "x" * rank})
res["all_gather_object"] = np.array(repr(ol))
np.savez(os.path.join(out_dir, f"coll{rank}.npz"), **res)
dist.barrier()
dist.destroy_process_group()
print("done", rank)
