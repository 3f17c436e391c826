"""info-nce-pytorch: the InfoNCE contrastive loss (in-batch negatives, unpaired and paired explicit negatives,
temperatures and reductions, the functional form, its error checks) training two small encoders of augmented
views with Adam, then retrieval accuracy of the learned embeddings."""
import torch
import torch.nn.functional as F
from info_nce import InfoNCE, info_nce


def r(x, n=4):
    if isinstance(x, torch.Tensor):
        x = x.detach().double()
        if x.numel() == 1:
            return round(float(x), n)
        return [round(float(v), n) for v in x.flatten()]
    return round(float(x), n)


torch.manual_seed(0)
N, D, E = 16, 10, 8
q, p = torch.randn(N, E), torch.randn(N, E)
neg_unpaired, neg_paired = torch.randn(12, E), torch.randn(N, 5, E)
for t in (0.1, 0.5):
    for red in ("mean", "sum", "none"):
        out = InfoNCE(temperature=t, reduction=red)(q, p)
        print("in-batch", t, red, tuple(out.shape), r(out.sum()))
print("unpaired", r(InfoNCE()(q, p, neg_unpaired)))
print("paired", r(InfoNCE(negative_mode="paired")(q, p, neg_paired)))
print("functional", r(info_nce(q, p, neg_paired, temperature=0.2, negative_mode="paired", reduction="sum")))
for bad in [lambda: InfoNCE()(q[0:1, :, None], p), lambda: InfoNCE(negative_mode="paired")(q, p, neg_unpaired),
            lambda: InfoNCE()(q, p[:3])]:
    try:
        bad()
    except ValueError as e:
        print("error", e)

# contrastive training of two encoders on two noisy views of the same items
torch.manual_seed(1)
items = torch.randn(64, D)
enc_a = torch.nn.Sequential(torch.nn.Linear(D, 32), torch.nn.ReLU(), torch.nn.Linear(32, E))
enc_b = torch.nn.Sequential(torch.nn.Linear(D, 32), torch.nn.ReLU(), torch.nn.Linear(32, E))
loss_fn = InfoNCE(temperature=0.2)
opt = torch.optim.Adam([*enc_a.parameters(), *enc_b.parameters()], lr=3e-3)
for step in range(12):
    idx = torch.randperm(64)[:16]
    view_a = items[idx] + 0.1 * torch.randn(16, D)
    view_b = items[idx] + 0.1 * torch.randn(16, D)
    hard = enc_b(items[torch.randperm(64)[:16]] + 0.1 * torch.randn(16, D)).unsqueeze(1)
    opt.zero_grad()
    loss = InfoNCE(temperature=0.2, negative_mode="paired")(enc_a(view_a), enc_b(view_b), hard) \
        if step % 3 == 2 else loss_fn(enc_a(view_a), enc_b(view_b))
    loss.backward()
    opt.step()
    if step % 3 == 2:
        print("train", step, r(loss))
with torch.no_grad():
    za = F.normalize(enc_a(items + 0.1 * torch.randn(64, D)), dim=-1)
    zb = F.normalize(enc_b(items + 0.1 * torch.randn(64, D)), dim=-1)
    sims = za @ zb.T
print("retrieval top1", r((sims.argmax(1) == torch.arange(64)).float().mean()), r(sims.diagonal().mean()))
