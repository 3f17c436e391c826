"""muon-optimizer (Keller Jordan's Muon): the bfloat16 Newton-Schulz orthogonalisation on its own, SingleDeviceMuon
on a small MLP's matrices, SingleDeviceMuonWithAuxAdam with Muon for hidden matrices and Adam for embeddings,
heads and gains (its documented parameter-group split), and the distributed Muon/MuonWithAuxAdam in a
one-process gloo group."""
import os

import torch
import torch.distributed as dist
import torch.nn.functional as F
from muon import (Muon, MuonWithAuxAdam, SingleDeviceMuon, SingleDeviceMuonWithAuxAdam,
                  zeropower_via_newtonschulz5)


def r(x, n=4):
    if isinstance(x, torch.Tensor):
        x = x.detach().double()
        if x.numel() == 1:
            return round(float(x), n)
        return [round(float(v), n) for v in x.flatten()]
    return round(float(x), n)


torch.manual_seed(0)
G = torch.randn(6, 10)
O = zeropower_via_newtonschulz5(G, steps=5)
sv = torch.linalg.svdvals(O.float())
print("newton-schulz", O.dtype, tuple(O.shape), r(sv.min(), 2), r(sv.max(), 2))
print("newton-schulz tall", tuple(zeropower_via_newtonschulz5(G.T, steps=5).shape))

X = torch.randn(64, 12)
Y = (X[:, :3].sum(1) > 0).long()


def make(seed):
    torch.manual_seed(seed)
    return torch.nn.ModuleDict({"embed": torch.nn.Linear(12, 32), "hidden": torch.nn.Linear(32, 32, bias=False),
                                "norm": torch.nn.LayerNorm(32), "head": torch.nn.Linear(32, 2)})


def forward(m):
    return m["head"](m["norm"](F.relu(m["hidden"](F.relu(m["embed"](X))))))


def train(m, opt, steps=5):
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        loss = F.cross_entropy(forward(m), Y)
        loss.backward()
        opt.step()
        losses.append(round(loss.item(), 3))
    return losses


m = make(1)
opt = SingleDeviceMuon([m["hidden"].weight, m["embed"].weight], lr=0.02, momentum=0.95, weight_decay=0.01)
print("single muon", train(m, opt), r(m["hidden"].weight.norm(), 2))


def groups(m):
    hidden = [m["hidden"].weight]
    other = [p for n, p in m.named_parameters() if n != "hidden.weight"]
    return [dict(params=hidden, use_muon=True, lr=0.02, weight_decay=0.01),
            dict(params=other, use_muon=False, lr=3e-3, betas=(0.9, 0.95), weight_decay=0.01)]


m = make(2)
opt = SingleDeviceMuonWithAuxAdam(groups(m))
print("single muon+adam", train(m, opt), sorted(opt.state[m["head"].weight]), sorted(opt.state[m["hidden"].weight]))

os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
os.environ.setdefault("MASTER_PORT", "29533")
dist.init_process_group("gloo", rank=0, world_size=1)
m = make(3)
opt = Muon([m["hidden"].weight, m["embed"].weight], lr=0.02)
print("dist muon", train(m, opt, steps=3))
m = make(4)
opt = MuonWithAuxAdam(groups(m))
print("dist muon+adam", train(m, opt, steps=3))
dist.destroy_process_group()
