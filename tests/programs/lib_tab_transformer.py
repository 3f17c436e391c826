"""tab-transformer-pytorch: TabTransformer (shared category embeddings, continuous features normalized with
given mean/std, manifold hyper-connection residual streams, an x-mlps head) and its FTTransformer, built from
configs, trained a few steps on a seeded tabular task with torch optimizers, then evaluated with attention maps
returned, special (negative) category tokens, and a state_dict round trip."""
import io

import torch
import torch.nn.functional as F
from tab_transformer_pytorch import FTTransformer, TabTransformer


def r(x, n=4):
    if isinstance(x, torch.Tensor):
        x = x.detach().double()
        if x.numel() == 1:
            return round(float(x), n)
        return [round(float(v), n) for v in x.flatten()]
    if isinstance(x, (list, tuple)):
        return [r(v, n) for v in x]
    return round(float(x), n)


torch.manual_seed(0)
N, CARDS, N_CONT = 48, (4, 3, 5), 3
x_categ = torch.stack([torch.randint(0, c, (N,)) for c in CARDS], 1)
x_cont = torch.randn(N, N_CONT) * 2 + 1
y = ((x_categ[:, 0] >= 2).float() + 0.3 * x_cont[:, 0] - 0.3 > 0.5).float().unsqueeze(1)

torch.manual_seed(1)
mean_std = torch.stack([x_cont.mean(0), x_cont.std(0)], 1)
tab = TabTransformer(categories=CARDS, num_continuous=N_CONT, dim=16, depth=2, heads=2, dim_head=8, dim_out=1,
                     mlp_hidden_mults=(2, 1), mlp_act=torch.nn.ReLU(), continuous_mean_std=mean_std,
                     attn_dropout=0.1, ff_dropout=0.1, num_residual_streams=2)
print("tab params", sum(p.numel() for p in tab.parameters()), len(list(tab.buffers())))
opt = torch.optim.AdamW(tab.parameters(), lr=3e-3, weight_decay=1e-2)
for step in range(4):
    tab.train()
    opt.zero_grad()
    loss = F.binary_cross_entropy_with_logits(tab(x_categ, x_cont), y)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(tab.parameters(), 1.0)
    opt.step()
    print("tab step", step, r(loss))
tab.eval()
with torch.no_grad():
    logits, attns = tab(x_categ[:5], x_cont[:5], return_attn=True)
print("tab eval", r(logits), tuple(attns.shape), r(attns.sum(-1).mean()))
special = x_categ[:2].clone()
special[0, 1] = -1
with torch.no_grad():
    print("tab special token", r(tab(special, x_cont[:2])))

torch.manual_seed(2)
tab1 = TabTransformer(categories=(3, 3), num_continuous=2, dim=8, depth=1, heads=2, dim_head=4, dim_out=3,
                      use_shared_categ_embed=False, num_residual_streams=1, mlp_act=torch.nn.GELU())
cls_y = torch.randint(0, 3, (16,))
opt = torch.optim.SGD(tab1.parameters(), lr=0.05, momentum=0.9)
for step in range(4):
    opt.zero_grad()
    loss = F.cross_entropy(tab1(x_categ[:16, 1:3] % 3, x_cont[:16, :2]), cls_y)
    loss.backward()
    opt.step()
print("tab single stream", r(loss))

torch.manual_seed(3)
ft = FTTransformer(categories=CARDS, num_continuous=N_CONT, dim=16, depth=2, heads=2, dim_head=8, dim_out=1,
                   attn_dropout=0.1, ff_dropout=0.1, num_residual_streams=2)
print("ft params", sum(p.numel() for p in ft.parameters()))
opt = torch.optim.Adam(ft.parameters(), lr=2e-3)
for step in range(4):
    ft.train()
    opt.zero_grad()
    loss = F.binary_cross_entropy_with_logits(ft(x_categ, x_cont), y)
    loss.backward()
    opt.step()
    print("ft step", step, r(loss))
ft.eval()
with torch.no_grad():
    logits, attns = ft(x_categ[:4], x_cont[:4], return_attn=True)
print("ft eval", r(logits), tuple(attns.shape), r(attns[0, 0, 0]))

buf = io.BytesIO()
torch.save(ft.state_dict(), buf)
buf.seek(0)
torch.manual_seed(9)
ft2 = FTTransformer(categories=CARDS, num_continuous=N_CONT, dim=16, depth=2, heads=2, dim_head=8, dim_out=1,
                    num_residual_streams=2)
ft2.load_state_dict(torch.load(buf))
ft2.eval()
with torch.no_grad():
    print("ft reloaded", torch.allclose(ft2(x_categ[:4], x_cont[:4]), logits, atol=1e-6))
print("keys", len(ft.state_dict()), sorted(ft.state_dict())[:3])
