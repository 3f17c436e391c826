"""torchdyn: its own ODE solvers (euler, midpoint, rk4, dopri5, tsit5, the implicit-Euler and asynchronous-leapfrog
ones) through torchdyn.numerics.odeint on a linear ODE with a known solution; a NeuralODE classifier on the moons
toy dataset (Augmenter, DepthCat) trained a few Adam steps with backpropagation through rk4 and with the adjoint and
interpolated-adjoint sensitivities; a continuous normalizing flow (CNF with the exact autograd trace and with
Hutchinson's estimator, create_graph=True inside the vector field); a state-dict round trip.  Prints one line per
measurement; run the same script with real torch and under ``python -m torchlike run`` and compare.
"""
import io

import numpy as np
import torch
from torch import nn
from torchdyn.core import NeuralODE
from torchdyn.datasets import ToyDataset
from torchdyn.models import CNF, hutch_trace
from torchdyn.nn import Augmenter, DepthCat
from torchdyn.numerics import odeint


def r(values, n=5):
    return [round(float(v), n) + 0.0 for v in torch.as_tensor(values).detach().flatten()]


torch.manual_seed(0)
np.random.seed(0)
A = torch.tensor([[-0.1, 2.0], [-2.0, -0.1]])
x0 = torch.tensor([[2.0, 0.0], [0.0, 1.0]])
t_span = torch.linspace(0.0, 2.0, 9)
# the reference in float64: torch's float32 matrix_exp is ~2e-5 off for 1-norms in [0.4, 0.58] (its degree-8
# Taylor band), torchlike's float32 one is not (docs/differences.md)
exact = torch.stack([x0.double() @ torch.linalg.matrix_exp(A.double() * t).T for t in t_span]).float()
for solver, kw in [("euler", {}), ("midpoint", {}), ("rk4", {}), ("dopri5", dict(atol=1e-6, rtol=1e-6)),
                   ("tsit5", dict(atol=1e-6, rtol=1e-6)), ("ieuler", {})]:
    t_eval, sol = odeint(lambda t, x: x @ A.T, x0, t_span, solver=solver, **kw)
    err = (sol - exact).abs().max().item()
    # the adaptive solvers' step sequences follow last-ulp differences of pow (their first step size): their
    # error prints as a bound
    print(f"odeint {solver} {tuple(sol.shape)} x(2) {r(sol[-1], 4)} err "
          + (f"{err:.2e}" if solver not in ("dopri5", "tsit5") else f"< 1e-5 {err < 1e-5}"))

# the moons classifier of torchdyn's tutorials, shrunk
X, y = ToyDataset().generate(n_samples=64, dataset_type="moons", noise=0.1)
print("moons", tuple(X.shape), X.dtype, y.dtype, r(X.mean(0), 4), int(y.sum()))


def make(sensitivity, solver):
    torch.manual_seed(1)
    field = nn.Sequential(DepthCat(1), nn.Linear(4 + 1, 16), nn.Tanh(), nn.Linear(16, 4))
    node = NeuralODE(field, solver=solver, sensitivity=sensitivity, atol=1e-4, rtol=1e-4,
                     atol_adjoint=1e-4, rtol_adjoint=1e-4)
    return nn.Sequential(Augmenter(augment_idx=1, augment_dims=2), node), node


span = torch.linspace(0, 1, 5)
for sensitivity, solver in [("autograd", "rk4"), ("adjoint", "rk4"), ("interpolated_adjoint", "dopri5")]:
    model, node = make(sensitivity, solver)
    head = nn.Linear(4, 2)
    optimizer = torch.optim.Adam(list(model.parameters()) + list(head.parameters()), lr=1e-2)
    losses = []
    for step in range(3):
        t_eval, traj = model[1](model[0](X), span)
        loss = nn.functional.cross_entropy(head(traj[-1]), y)
        optimizer.zero_grad()
        loss.backward()
        gnorm = torch.cat([p.grad.flatten() for p in model.parameters()]).norm()
        optimizer.step()
        losses.append(loss.item())
    digits = 4 if solver == "rk4" else 3
    print(f"node {sensitivity} {solver} losses {r(losses, digits)} grad norm {r(gnorm, digits - 1)} "
          f"t_eval {tuple(t_eval.shape)} traj {tuple(traj.shape)}")

# backpropagation and the adjoint agree on a fixed grid
grads = []
for sensitivity in ("autograd", "adjoint"):
    model, node = make(sensitivity, "rk4")
    node(model[0](X[:8]), span)[1][-1].pow(2).sum().backward()
    grads.append(torch.cat([p.grad.flatten() for p in node.parameters()]))
rel = ((grads[0] - grads[1]).norm() / grads[0].norm()).item()
print("adjoint vs autograd", r(grads[0].norm(), 4), r(grads[1].norm(), 4), "relative difference", r(rel, 3))

# continuous normalizing flow: the log-density change rides in the first state coordinate
for name, estimator in (("autograd_trace", None), ("hutch_trace", hutch_trace)):
    torch.manual_seed(2)
    net = nn.Sequential(nn.Linear(2, 16), nn.Softplus(), nn.Linear(16, 2))
    noise = torch.distributions.MultivariateNormal(torch.zeros(2), torch.eye(2)) if estimator else None
    cnf = CNF(net, trace_estimator=estimator, noise_dist=noise)
    flow = NeuralODE(cnf, solver="rk4", sensitivity="autograd")
    if estimator:
        cnf.noise = noise.sample((16,))
    z = torch.cat([torch.zeros(16, 1), X[:16]], 1)
    _, zt = flow(z, torch.linspace(0, 1, 3))
    prior = torch.distributions.MultivariateNormal(torch.zeros(2), torch.eye(2))
    nll = -(prior.log_prob(zt[-1][:, 1:]) - zt[-1][:, 0]).mean()
    nll.backward()
    print(f"cnf {name} nll {nll.item():.4f} dlogp {r(zt[-1][:3, 0], 4)} "
          f"grad {net[0].weight.grad.norm().item():.4f}")

buffer = io.BytesIO()
model, node = make("autograd", "rk4")
torch.save(model.state_dict(), buffer)
buffer.seek(0)
again, _ = make("adjoint", "rk4")
with torch.no_grad():
    for p in again.parameters():
        p.zero_()
again.load_state_dict(torch.load(buffer))
with torch.no_grad():
    same = torch.equal(again[1](again[0](X[:4]), span)[1], model[1](model[0](X[:4]), span)[1])
print("reload", sorted(model.state_dict())[:2], same)
