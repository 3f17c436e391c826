"""torchquad: numerical integration on the torch backend (through autoray): Trapezoid, Simpson, Boole,
Gauss-Legendre, Monte Carlo and VEGAS in 1-3 dimensions with float64 defaults, a seeded stochastic integrator,
a parametrised integrand differentiated through the integral with autograd, and a small fit that optimises an
integrand's parameter with Adam."""
import math

import torch
import torchquad
from torchquad import VEGAS, Boole, GaussLegendre, MonteCarlo, Simpson, Trapezoid, set_up_backend

set_up_backend("torch", data_type="float64")
torchquad.set_log_level("ERROR")  # (after set_up_backend, which logs at its own level)


def r(x, n=6):
    return round(float(x), n)


def f1(x):
    return torch.sin(x[:, 0]) * torch.exp(-x[:, 0])


def f3(x):
    return torch.exp(-(x ** 2).sum(1)) * (1 + x[:, 0] * x[:, 1])


dom1 = [[0.0, math.pi]]
dom3 = [[-1.0, 1.0]] * 3
for name, cls, n in [("trapezoid", Trapezoid, 101), ("simpson", Simpson, 101), ("boole", Boole, 101),
                     ("gauss_legendre", GaussLegendre, 20)]:
    integ = cls()
    v1 = integ.integrate(f1, dim=1, N=n, integration_domain=dom1)
    v3 = integ.integrate(f3, dim=3, N=n ** 1 if name == "gauss_legendre" else 9261, integration_domain=dom3)
    print(name, v1.dtype, r(v1), r(v3))

mc = MonteCarlo()
print("monte carlo", r(mc.integrate(f3, dim=3, N=20000, integration_domain=dom3, seed=7), 3))
vegas = VEGAS()
print("vegas", r(vegas.integrate(f3, dim=3, N=20000, integration_domain=dom3, seed=3, max_iterations=6), 2))

# differentiate an integral with respect to a parameter of the integrand
a = torch.tensor(1.5, dtype=torch.float64, requires_grad=True)
simp = Simpson()
val = simp.integrate(lambda x: torch.exp(-a * x[:, 0] ** 2), dim=1, N=201, integration_domain=[[-2.0, 2.0]])
(g,) = torch.autograd.grad(val, a)
print("integral grad", r(val), r(g))
dom = torch.tensor([[0.0, 1.0]], dtype=torch.float64, requires_grad=True)
val = Trapezoid().integrate(lambda x: x[:, 0] ** 2, dim=1, N=51, integration_domain=dom)
val.backward()
print("domain grad", r(val), [r(v) for v in dom.grad.flatten()])

# fit a parameter so that the integral of exp(-b x^2) over [-1, 1] equals 1.2
b = torch.tensor(0.1, dtype=torch.float64, requires_grad=True)
opt = torch.optim.Adam([b], lr=0.1)
for step in range(15):
    opt.zero_grad()
    val = Boole().integrate(lambda x: torch.exp(-b * x[:, 0] ** 2), dim=1, N=41, integration_domain=[[-1.0, 1.0]])
    loss = (val - 1.2) ** 2
    loss.backward()
    opt.step()
print("fit", r(b), r(loss, 8))
