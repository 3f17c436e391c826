"""torchsde: an Ornstein-Uhlenbeck SDE (diagonal noise) solved with Euler, Milstein and SRK from a BrownianInterval
with a fixed entropy, a general-noise SDE, a neural SDE fitted a few steps through sdeint and through
sdeint_adjoint, and BrownianTree increments; printed values and losses."""
import torch
from torch import nn
import torchsde

torch.set_default_dtype(torch.float64)
batch, d, ts = 4, 2, torch.linspace(0, 1, 6)


class OU(nn.Module):
    noise_type, sde_type = "diagonal", "ito"

    def __init__(self):
        super().__init__()
        self.theta = nn.Parameter(torch.tensor([0.7, 1.3]))
        self.sigma = nn.Parameter(torch.tensor([0.3, 0.5]))

    def f(self, t, y):
        return -self.theta * y

    def g(self, t, y):
        return self.sigma * (1 + 0.1 * torch.sin(y))


y0 = torch.full((batch, d), 1.0)
for method in ("euler", "milstein", "srk"):
    bm = torchsde.BrownianInterval(t0=0.0, t1=1.0, size=(batch, d), entropy=1234, levy_area_approximation="space-time")
    ys = torchsde.sdeint(OU(), y0, ts, bm=bm, method=method, dt=0.05)
    print(method, list(ys.shape), [round(v, 6) for v in ys[-1].reshape(-1).tolist()])


class General(nn.Module):
    noise_type, sde_type = "general", "ito"

    def f(self, t, y):
        return torch.stack([y[:, 1], -y[:, 0]], 1)

    def g(self, t, y):
        return 0.1 * torch.stack([torch.ones_like(y), y], -1)


bm = torchsde.BrownianInterval(t0=0.0, t1=1.0, size=(batch, 2), entropy=7)
ys = torchsde.sdeint(General(), y0, ts, bm=bm, dt=0.1)
print("general", [round(v, 6) for v in ys[-1].reshape(-1).tolist()])


class Neural(nn.Module):
    noise_type, sde_type = "diagonal", "stratonovich"

    def __init__(self):
        super().__init__()
        self.drift = nn.Sequential(nn.Linear(d, 16), nn.Tanh(), nn.Linear(16, d))
        self.diff = nn.Sequential(nn.Linear(d, 16), nn.Tanh(), nn.Linear(16, d), nn.Sigmoid())

    def f(self, t, y):
        return self.drift(y)

    def g(self, t, y):
        return 0.2 * self.diff(y)


target = torch.stack([torch.exp(-t) * y0 for t in ts])
for solve, method in ((torchsde.sdeint, "midpoint"), (torchsde.sdeint_adjoint, "reversible_heun")):
    torch.manual_seed(0)
    sde = Neural()
    opt = torch.optim.Adam(sde.parameters(), lr=1e-2)
    for step in range(3):
        bm = torchsde.BrownianInterval(t0=0.0, t1=1.0, size=(batch, d), entropy=step)
        kw = dict(adjoint_method="adjoint_reversible_heun") if method == "reversible_heun" else {}
        ys = solve(sde, y0, ts, bm=bm, method=method, dt=0.1, **kw)
        loss = (ys - target).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(solve.__name__, method, "step", step, "loss", f"{loss.item():.8f}")

tree = torchsde.BrownianTree(t0=0.0, w0=torch.zeros(batch, d), t1=1.0, entropy=3)
print("tree", [round(v, 6) for v in tree(0.25, 0.75).reshape(-1).tolist()])
