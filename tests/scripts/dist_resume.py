"""Resume DDP training from a checkpoint, in a fresh launch (run by tests/test_distributed.py after
dist_checks.py, whose "plain" run saved OUT/resume.pt on rank 0 after 5 of its 10 steps): load model, optimizer
and sampler epoch, wrap in DDP again and train the remaining 5 epochs; the losses must continue the curve of
an uninterrupted run. Writes OUT/resume{R}.npz."""
import os
import sys

import numpy as np
import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset

out_dir = sys.argv[1]
dist.init_process_group(backend="gloo")
rank = dist.get_rank()
ckpt = torch.load(os.path.join(out_dir, "resume.pt"), map_location="cpu")
model = nn.Sequential(nn.Linear(5, 8), nn.Tanh(), nn.Linear(8, 3))
model.load_state_dict(ckpt["model"])
ddp = DDP(model)
opt = torch.optim.AdamW(ddp.parameters(), lr=0.01)
opt.load_state_dict(ckpt["optimizer"])
rs = np.random.RandomState(0)
data = TensorDataset(torch.tensor(rs.randn(16, 5).astype(np.float32)), torch.tensor(rs.randn(16, 3).astype(np.float32)))
sampler = DistributedSampler(data, shuffle=False)  # rank r: samples r, r+2, ...: together the full batch
loader = DataLoader(data, batch_size=8, sampler=sampler)
losses = []
for epoch in range(ckpt["epoch"], 10):
    sampler.set_epoch(epoch)
    for x, y in loader:
        opt.zero_grad()
        loss = nn.functional.mse_loss(ddp(x), y)
        loss.backward()
        opt.step()
        lt = loss.detach().clone()
        dist.all_reduce(lt, op=dist.ReduceOp.AVG)
        losses.append(lt.item())
res = {"losses": np.array(losses), "start": np.array(ckpt["epoch"])}
res.update({f"sd_{k}": v.numpy() for k, v in ddp.state_dict().items()})
np.savez(os.path.join(out_dir, f"resume{rank}.npz"), **res)
dist.destroy_process_group()
print("resumed", rank)
