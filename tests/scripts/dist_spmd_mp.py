"""torchlike.dist across processes (run by tests/test_dist_spmd.py under torchlike's launcher, 2 ranks): a global
mesh over every process's device; data_parallel and fully_shard train steps where each rank passes its own
part of the batch. Rank 0 saves losses and parameters to OUT/spmd.npz; the test compares with torch."""
import os
import sys

import jax
import numpy as np
from jax.experimental import multihost_utils

import torchlike
import torchlike.dist  # noqa: F401 - the module (the attribute torchlike.dist is torch.dist, the op)
import torchlike.distributed as dist

D = sys.modules["torchlike.dist"]

out_dir = sys.argv[1]
dist.init_process_group("gloo")
rank = dist.get_rank()
mesh = D.make_mesh()
assert mesh.shape["dp"] == 2 and jax.process_count() == 2
rs = np.random.RandomState(0)
X, Y = rs.randn(16, 6).astype(np.float32), rs.randn(16, 4).astype(np.float32)
xs, ys = torchlike.tensor(X[8 * rank:8 * rank + 8]), torchlike.tensor(Y[8 * rank:8 * rank + 8])


def build():
    m = torchlike.nn.Sequential(torchlike.nn.Linear(6, 8), torchlike.nn.Tanh(), torchlike.nn.Linear(8, 4))
    prs = np.random.RandomState(42)
    with torchlike.no_grad():
        for p in m.parameters():
            p.copy_(torchlike.tensor(prs.randn(*p.shape).astype(np.float32) * 0.3))
    return m


res = {}
for kind in ["data_parallel", "fully_shard"]:
    model = build()
    if kind == "fully_shard":
        D.fully_shard(model, mesh)
    opt = torchlike.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)

    def step(x, y):
        opt.zero_grad()
        loss = torchlike.nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        return loss
    step = D.data_parallel(step, mesh, module=model, optimizer=opt)
    res[f"{kind}_losses"] = np.array([step(xs, ys).item() for _ in range(5)])
    for i, p in enumerate(model.parameters()):
        res[f"{kind}_p{i}"] = np.asarray(multihost_utils.process_allgather(p._value, tiled=True))
    res[f"{kind}_bytes"] = np.array(D.bytes_per_device(list(model.parameters())))
if rank == 0:
    np.savez(os.path.join(out_dir, "spmd.npz"), **res)
dist.barrier()
print("done", rank)
