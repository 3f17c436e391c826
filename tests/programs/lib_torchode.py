"""torchode: batched ODE solving with a step size per sample (Dopri5/Tsit5 with integral and PID controllers,
Heun and Euler with fixed steps) through solve_ivp and the explicit AutoDiffAdjoint, dense-output evaluation at
per-sample time points, solver statistics, a neural ODE trained with Adam by backpropagating through the solver,
and the BacksolveAdjoint's gradients against autodiff through the solver."""
import warnings

import torch
import torch.nn as nn

warnings.filterwarnings("ignore")
import torchode as to  # noqa: E402


def r(x, n=4):
    if isinstance(x, torch.Tensor):
        x = x.detach().double()
        if x.numel() == 1:
            return round(float(x), n)
        return [round(float(v), n) for v in x.flatten()]
    return round(float(x), n)


def vdp(t, y, mu=torch.tensor([0.5, 1.0, 2.0], dtype=torch.float64)[:, None]):
    x, v = y[:, :1], y[:, 1:]
    return torch.cat([v, mu * (1 - x ** 2) * v - x], dim=1)


# float64: the first steps' error estimates are a few ulps of float32, so in float32 the adaptive controllers'
# accept/reject decisions would follow the summation order's rounding
y0 = torch.tensor([[2.0, 0.0], [1.0, 0.5], [0.5, -1.0]], dtype=torch.float64)
t_eval = torch.stack([torch.linspace(0, 3, 7), torch.linspace(0, 4, 7), torch.linspace(0, 2, 7)]).double()
sol = to.solve_ivp(vdp, y0, t_eval, method="dopri5", controller=to.IntegralController(atol=1e-6, rtol=1e-5, term=to.ODETerm(vdp)))
print("dopri5 status", sol.status.tolist(), tuple(sol.ys.shape), r(sol.ys[:, -1]))
print("dopri5 stats", {k: v.tolist() for k, v in sorted(sol.stats.items()) if k in ("n_steps", "n_accepted", "n_f_evals")})

term = to.ODETerm(vdp)
solver = to.AutoDiffAdjoint(to.Tsit5(term=term), to.PIDController(atol=1e-6, rtol=1e-5, pcoeff=0.2, icoeff=0.5, dcoeff=0.0, term=term))
sol2 = solver.solve(to.InitialValueProblem(y0=y0, t_eval=t_eval))
print("tsit5 pid", sol2.status.tolist(), r(sol2.ys[:, -1]), r((sol2.ys - sol.ys).abs().max() < 1e-3))
print("tsit5 steps", sol2.stats["n_steps"].tolist())

fixed = to.AutoDiffAdjoint(to.Heun(term=term), to.FixedStepController())
sol3 = fixed.solve(to.InitialValueProblem(y0=y0, t_eval=t_eval), dt0=torch.full((3,), 0.01, dtype=torch.float64))
print("heun fixed", r(sol3.ys[:, -1]), sol3.stats["n_steps"].tolist())
euler = to.AutoDiffAdjoint(to.Euler(term=term), to.FixedStepController())
sol4 = euler.solve(to.InitialValueProblem(y0=y0, t_eval=t_eval), dt0=torch.full((3,), 0.05, dtype=torch.float64))
print("euler fixed", r(sol4.ys[:, -1]))

# exact solution of a linear ODE for an accuracy check
lam = torch.tensor([[-1.0], [-0.5], [0.3]])
lin = to.solve_ivp(lambda t, y: lam * y, torch.ones(3, 1), torch.linspace(0, 2, 5).expand(3, 5), method="tsit5",
                   controller=to.IntegralController(atol=1e-8, rtol=1e-7))
print("linear error", r((lin.ys[:, :, 0] - torch.exp(lam * lin.ts)).abs().max() < 1e-5), r(lin.ys[:, -1, 0]))


class Field(nn.Module):
    """A small MLP vector field for a neural ODE."""

    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(2, 16), nn.Tanh(), nn.Linear(16, 2))

    def forward(self, t, y):
        return self.net(y)


torch.manual_seed(0)
f = Field()
nterm = to.ODETerm(f)
node = to.AutoDiffAdjoint(to.Dopri5(term=nterm), to.IntegralController(atol=1e-5, rtol=1e-4, term=nterm))
ts = torch.linspace(0, 1.5, 6).expand(4, 6)
starts = torch.randn(4, 2)
c, s = torch.cos(ts), torch.sin(ts)
target = torch.stack([starts[:, :1] * c - starts[:, 1:] * s, starts[:, :1] * s + starts[:, 1:] * c], -1)  # a rotation
opt = torch.optim.Adam(f.parameters(), lr=0.03)
for step in range(6):
    opt.zero_grad()
    out = node.solve(to.InitialValueProblem(y0=starts, t_eval=ts))
    loss = (out.ys - target).pow(2).mean()
    loss.backward()
    opt.step()
    if step % 2 == 1:
        print("node", step, r(loss), out.stats["n_steps"].tolist())

# backsolve adjoint vs autodiff through the solver
torch.manual_seed(1)
g = Field()
gterm = to.ODETerm(g)
ad = to.AutoDiffAdjoint(to.Dopri5(term=gterm), to.IntegralController(atol=1e-7, rtol=1e-6, term=gterm))
bs = to.BacksolveAdjoint(gterm, to.Dopri5(), to.IntegralController(atol=1e-7, rtol=1e-6))
prob_y0 = torch.randn(2, 2)
tt = torch.linspace(0, 1, 3).expand(2, 3)
ad.solve(to.InitialValueProblem(y0=prob_y0, t_eval=tt)).ys.pow(2).sum().backward()
ga = [p.grad.clone() for p in g.parameters()]
g.zero_grad()
bs.solve(to.InitialValueProblem(y0=prob_y0, t_eval=tt)).ys.pow(2).sum().backward()
gb = [p.grad.clone() for p in g.parameters()]
print("adjoint grads agree", all(torch.allclose(a, b, rtol=1e-3, atol=1e-4) for a, b in zip(ga, gb)), r(ga[0].norm()))
