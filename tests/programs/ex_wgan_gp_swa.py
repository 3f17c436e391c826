"""Three well-known training recipes in one script (own code, synthetic 2-d data, tiny sizes):
a WGAN-GP (gradient penalty through ``torch.autograd.grad(create_graph=True)``, a critic with
``parametrizations.spectral_norm`` and ``parametrizations.weight_norm``, Adam with betas (0.5, 0.9), n_critic
steps), a custom ``torch.nn.utils.parametrize`` parametrization (a symmetric weight, with ``cached()`` and
``remove_parametrizations``), and SWA (``AveragedModel``, ``SWALR``, ``update_bn``) after a ``SequentialLR``
of ``LinearLR`` warm-up then ``CosineAnnealingLR``, plus a ``ChainedScheduler``."""
import torch
import torch.nn as nn
import torch.nn.utils.parametrize as P
from torch.nn.utils import parametrizations
from torch.optim.swa_utils import SWALR, AveragedModel, update_bn

torch.manual_seed(0)


def real_batch(n):
    angle = torch.rand(n) * 6.2831853
    return torch.stack([angle.cos(), angle.sin()], 1) * 2 + 0.05 * torch.randn(n, 2)


G = nn.Sequential(nn.Linear(4, 32), nn.ReLU(), nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, 2))
critic = nn.Sequential(parametrizations.spectral_norm(nn.Linear(2, 32)), nn.LeakyReLU(0.2),
                       parametrizations.weight_norm(nn.Linear(32, 32)), nn.LeakyReLU(0.2), nn.Linear(32, 1))
opt_g = torch.optim.Adam(G.parameters(), lr=1e-3, betas=(0.5, 0.9))
opt_c = torch.optim.Adam(critic.parameters(), lr=1e-3, betas=(0.5, 0.9))
print("critic params", [n for n, _ in critic.named_parameters()])


def gradient_penalty(real, fake):
    alpha = torch.rand(real.size(0), 1)
    mix = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
    out = critic(mix)
    grads, = torch.autograd.grad(outputs=out, inputs=mix, grad_outputs=torch.ones_like(out), create_graph=True,
                                 retain_graph=True)
    return ((grads.norm(2, dim=1) - 1) ** 2).mean()


for it in range(8):
    for _ in range(3):  # n_critic
        real = real_batch(32)
        fake = G(torch.randn(32, 4)).detach()
        opt_c.zero_grad()
        gp = gradient_penalty(real, fake)
        loss_c = critic(fake).mean() - critic(real).mean() + 10 * gp
        loss_c.backward()
        opt_c.step()
    opt_g.zero_grad()
    loss_g = -critic(G(torch.randn(32, 4))).mean()
    loss_g.backward()
    opt_g.step()
    if it % 2 == 1:
        print(f"wgan {it} critic {loss_c.item():.5f} gp {gp.item():.5f} gen {loss_g.item():.5f}")
sn = critic[0].parametrizations.weight.original
print(f"sigma-normalised weight norm {torch.linalg.matrix_norm(critic[0].weight, 2).item():.4f} "
      f"original {sn.norm().item():.5f}")


# ---- a custom parametrization ---------------------------------------------------------------------------
class Symmetric(nn.Module):
    def forward(self, X):
        return X.triu() + X.triu(1).transpose(-1, -2)


layer = nn.Linear(5, 5)
P.register_parametrization(layer, "weight", Symmetric())
print("is parametrized", P.is_parametrized(layer), P.is_parametrized(layer, "bias"),
      f"symmetric {(layer.weight - layer.weight.T).abs().max().item():.6f}")
opt = torch.optim.SGD(layer.parameters(), lr=0.1)
x = torch.randn(16, 5)
for _ in range(3):
    opt.zero_grad()
    loss = (layer(x) - x.flip(1)).pow(2).mean()
    loss.backward()
    opt.step()
with P.cached():
    w1, w2 = layer.weight, layer.weight
print(f"param loss {loss.item():.5f} cached same {w1 is w2} "
      f"grad keys {sorted(n for n, p in layer.named_parameters() if p.grad is not None)}")
P.remove_parametrizations(layer, "weight", leave_parametrized=True)
print("after remove", type(layer.weight).__name__, f"{(layer.weight - layer.weight.T).abs().max().item():.6f}")

# ---- schedulers and SWA ----------------------------------------------------------------------------------
model = nn.Sequential(nn.Linear(3, 16), nn.BatchNorm1d(16), nn.ReLU(), nn.Linear(16, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
warm = torch.optim.lr_scheduler.LinearLR(opt, start_factor=0.1, total_iters=3)
cos = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=6, eta_min=0.01)
sched = torch.optim.lr_scheduler.SequentialLR(opt, [warm, cos], milestones=[3])
swa_model = AveragedModel(model)
swa_sched = SWALR(opt, swa_lr=0.05, anneal_epochs=2, anneal_strategy="cos")
data = [(torch.randn(16, 3), torch.randn(16, 1)) for _ in range(4)]
lrs = []
for epoch in range(10):
    for xb, yb in data:
        opt.zero_grad()
        nn.functional.mse_loss(model(xb + yb), yb).backward()
        opt.step()
    if epoch >= 6:
        swa_model.update_parameters(model)
        swa_sched.step()
    else:
        sched.step()
    lrs.append(round(opt.param_groups[0]["lr"], 6))
print("lrs", lrs)
update_bn([xb + yb for xb, yb in data], swa_model)
with torch.no_grad():
    swa_model.eval()
    xb, yb = data[0]
    print(f"swa n_averaged {swa_model.n_averaged.item()} loss "
          f"{nn.functional.mse_loss(swa_model(xb + yb), yb).item():.5f} "
          f"bn mean {swa_model.module[1].running_mean[:2].tolist()[0]:.5f}")

opt2 = torch.optim.SGD([nn.Parameter(torch.zeros(1))], lr=1.0)
chain = torch.optim.lr_scheduler.ChainedScheduler([torch.optim.lr_scheduler.ConstantLR(opt2, factor=0.5,
                                                                                       total_iters=2),
                                                   torch.optim.lr_scheduler.ExponentialLR(opt2, gamma=0.9)])
seen = []
for _ in range(4):
    opt2.step()
    chain.step()
    seen.append(round(chain.get_last_lr()[0], 6))
print("chained", seen, "state keys", sorted(chain.state_dict().keys())[:3])
