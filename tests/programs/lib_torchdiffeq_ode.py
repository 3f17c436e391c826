"""torchdiffeq: odeint with adaptive (dopri5, bosh3) and fixed-grid (rk4, euler) solvers on a linear ODE with a
known solution, a neural ODE (nn.Module dynamics) trained a few steps by backpropagating through the solver and
with odeint_adjoint, and an event-terminated solve (odeint_event).  Prints one line per measurement; run the
same script with real torch and under ``python -m torchlike run`` and compare.
"""
import numpy as np
import torch
from torch import nn
from torchdiffeq import odeint, odeint_adjoint, odeint_event

torch.set_default_dtype(torch.float64)
A = torch.tensor([[-0.1, 2.0], [-2.0, -0.1]])
y0 = torch.tensor([2.0, 0.0])
ts = torch.linspace(0.0, 2.0, 9)


def linear(t, y):
    return y @ A.T


exact = torch.stack([torch.linalg.matrix_exp(A * t) @ y0 for t in ts])
for method, kw in [("dopri5", dict(rtol=1e-7, atol=1e-9)), ("bosh3", dict(rtol=1e-6, atol=1e-8)),
                   ("rk4", dict(options=dict(step_size=0.05))), ("euler", dict(options=dict(step_size=0.01)))]:
    ys = odeint(linear, y0, ts, method=method, **kw)
    print(f"{method} y(2) {ys[-1].tolist()} err {(ys - exact).abs().max().item():.3e}")


class Dyn(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(2, 16), nn.Tanh(), nn.Linear(16, 2))
        self.nfe = 0

    def forward(self, t, y):
        self.nfe += 1
        return self.net(y)


rng = np.random.default_rng(0)
batch_y0 = torch.from_numpy(rng.standard_normal((8, 2)))
target = odeint(linear, batch_y0, ts, method="dopri5", rtol=1e-7, atol=1e-9)
# the direct solve trains with the fixed-grid rk4 solver, the adjoint with dopri5
for solve, method, opts in ((odeint, "rk4", dict(options=dict(step_size=0.05))),
                            (odeint_adjoint, "dopri5", dict(rtol=1e-5, atol=1e-7))):
    torch.manual_seed(0)
    func = Dyn()
    opt = torch.optim.Adam(func.parameters(), lr=1e-2)
    for step in range(3):
        pred = solve(func, batch_y0, ts, method=method, **opts)
        loss = (pred - target).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        gnorm = torch.cat([p.grad.flatten() for p in func.parameters()]).norm()
        opt.step()
        print(f"{solve.__name__} step {step} loss {loss.item():.6f} grad norm {gnorm.item():.6f}")
    print(f"{solve.__name__} function evaluations {func.nfe}")

# adjoint gradients against direct backpropagation through the same solver (fixed grid: the same arithmetic)
torch.manual_seed(1)
func = Dyn()
for solve in (odeint, odeint_adjoint):
    func.zero_grad()
    y0g = batch_y0.clone().requires_grad_(True)
    solve(func, y0g, ts, method="rk4", options=dict(step_size=0.1)).pow(2).sum().backward()
    print(f"{solve.__name__} rk4 dL/dy0 {y0g.grad.sum().item():.6f} dL/dW {func.net[0].weight.grad.sum().item():.6f}")

# direct backpropagation through an adaptive solver: dopri5 fills its stage buffer through ``.data``
func.zero_grad()
y0g = batch_y0.clone().requires_grad_(True)
odeint(func, y0g, ts, method="dopri5", rtol=1e-5, atol=1e-7).pow(2).sum().backward()
print(f"dopri5 backprop dL/dy0 {y0g.grad.sum().item():.6f} dL/dW {func.net[0].weight.grad.sum().item():.6f}")


def hit_zero(t, y):  # the first time y[0] crosses zero
    return y[0]


t_event, y_event = odeint_event(linear, y0, torch.tensor(0.0), event_fn=hit_zero, method="dopri5",
                                rtol=1e-8, atol=1e-10)
print(f"event t {t_event.item():.6f} y {[round(v, 6) + 0.0 for v in y_event[-1].tolist()]}")
