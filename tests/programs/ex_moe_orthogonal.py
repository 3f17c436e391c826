"""A small mixture-of-experts layer trained a few steps: a zero-initialised router (every score ties, so
torch's top-k / sort / mode choose among equal values), load-balancing statistics with bincount and
histogram, an orthogonal-parametrized expert, spectral norms, and the SDPA backend switches.  Prints the
routing and losses; run under torch and under ``python -m torchlike run`` it must print the same."""
import warnings

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils import parametrizations as P

warnings.simplefilter("ignore", FutureWarning)
torch.manual_seed(0)
T, D, E, K = 24, 8, 6, 2


class MoE(nn.Module):
    def __init__(self):
        super().__init__()
        self.gate = nn.Linear(D, E, bias=False)
        nn.init.zeros_(self.gate.weight)  # every token's scores tie at the start
        self.experts = nn.ModuleList([nn.Linear(D, D) for _ in range(E)])
        P.orthogonal(self.experts[0])
        P.orthogonal(self.experts[1], orthogonal_map="cayley")
        P.orthogonal(self.experts[2], orthogonal_map="householder")

    def forward(self, x):
        probs = F.softmax(self.gate(x), dim=-1)
        w, idx = torch.topk(probs, K, dim=-1)
        flat = idx.flatten()
        order = torch.argsort(flat)  # groups the (token, slot) pairs by expert
        out = torch.zeros_like(x)
        for e in range(E):
            tok = order[flat[order] == e] // K
            if tok.numel():
                gw = w.flatten()[order[flat[order] == e]].unsqueeze(-1)
                out.index_add_(0, tok, self.experts[e](x[tok]) * gw)
        load = torch.bincount(flat, weights=w.flatten(), minlength=E)
        return out, probs, idx, order, load


moe = MoE()
print(sorted(moe.state_dict().keys())[:6])
opt = torch.optim.SGD(moe.parameters(), lr=0.1)
x = torch.randn(T, D)
y = torch.randn(T, D)
for step in range(4):
    out, probs, idx, order, load = moe(x)
    aux = E * (probs.mean(0) * load.detach() / load.sum().detach()).sum()  # bincount has no derivative
    loss = F.mse_loss(out, y) + 0.01 * aux
    print(step, idx[:5].tolist(), order[:8].tolist(), torch.mode(idx[:, 0]))
    print(load, f"{loss.item():.5f}")
    opt.zero_grad()
    loss.backward()
    opt.step()

w0 = moe.experts[0].weight
print(torch.linalg.matrix_norm(w0, 2), torch.linalg.matrix_norm(w0, "nuc"), torch.norm(w0, "nuc"))
print(torch.histogram(probs[:, 0], bins=3), torch.kthvalue(idx.flatten(), 10))
print(torch.sort(idx.flatten()), torch.topk(idx.flatten().float(), 5, sorted=False))
with torch.nn.attention.sdpa_kernel([torch.nn.attention.SDPBackend.MATH]):
    print(torch.backends.cuda.flash_sdp_enabled(), torch.backends.cuda.math_sdp_enabled())
with torch.backends.cuda.sdp_kernel(enable_math=False):
    print(torch.backends.cuda.math_sdp_enabled(), torch.backends.cuda.cudnn_sdp_enabled())
print(torch.floor_divide(w0[0, :3], 0.1))
