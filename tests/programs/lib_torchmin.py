"""pytorch-minimize (torchmin): scipy-style minimizers on torch autograd: BFGS, L-BFGS, CG, Newton-CG, exact
Newton, dogleg, trust-region Newton-CG and exact trust region on a seeded Rosenbrock (gradients, Hessian-vector
products with create_graph, full Hessians from torch.autograd.functional), least_squares (trust-region reflective
with a Jacobian), minimize_constr (scipy's trust-constr driven by torch gradients), and the Minimizer /
ScipyMinimizer optimizers fitting a small regression model."""
import torch
import torch.nn.functional as F
from torchmin import Minimizer, ScipyMinimizer, least_squares, minimize, minimize_constr


def r(x, n=4):
    if isinstance(x, torch.Tensor):
        x = x.detach().double()
        if x.numel() == 1:
            return round(float(x), n)
        return [round(float(v), n) for v in x.flatten()]
    if isinstance(x, (list, tuple)):
        return [r(v, n) for v in x]
    return round(float(x), n)


def rosen(x):
    return torch.sum(100 * (x[..., 1:] - x[..., :-1] ** 2) ** 2 + (1 - x[..., :-1]) ** 2, dim=-1)


torch.manual_seed(0)
x0 = torch.randn(4, dtype=torch.float64) * 0.5
for method in ["bfgs", "l-bfgs", "cg", "newton-cg", "newton-exact", "dogleg", "trust-ncg", "trust-exact"]:
    res = minimize(rosen, x0, method=method, max_iter=60, tol=1e-8)
    print(method, r(res.fun, 6), r(res.x, 3), int(res.nit) > 0, bool(res.success) or int(res.nit) == 60)

# least squares: fit an exponential decay
t = torch.linspace(0, 3, 25, dtype=torch.float64)
y = 2.5 * torch.exp(-1.3 * t) + 0.4 + 0.01 * torch.randn(25, dtype=torch.float64)


def resid(p):
    return p[0] * torch.exp(-p[1] * t) + p[2] - y


ls = least_squares(resid, torch.tensor([1.0, 0.5, 0.0], dtype=torch.float64), max_nfev=50)
print("least_squares", r(ls.x, 3), r(ls.cost, 6), ls.status in (1, 2, 3, 4))

# constrained: minimize rosenbrock in 2-D inside the unit disk
con = minimize_constr(lambda x: rosen(x), torch.tensor([0.1, 0.1], dtype=torch.float64),
                      constr=dict(fun=lambda x: x.square().sum(), ub=1.0), max_iter=100)
print("constrained", r(con.x, 3), r(con.fun, 4), r(con.x.square().sum(), 3))

# optimizers on a model
torch.manual_seed(1)
X = torch.randn(40, 3)
Y = X @ torch.tensor([1.5, -2.0, 0.5]) + 0.3 + 0.05 * torch.randn(40)
model = torch.nn.Linear(3, 1)
opt = Minimizer(model.parameters(), method="bfgs", max_iter=30, tol=1e-9)


def closure():
    opt.zero_grad()
    return F.mse_loss(model(X).squeeze(-1), Y)


loss = opt.step(closure)
print("Minimizer", r(loss, 5), r(model.weight, 3), r(model.bias, 3))
model2 = torch.nn.Linear(3, 1)
opt2 = ScipyMinimizer(model2.parameters(), method="L-BFGS-B", options={"maxiter": 50})


def closure2():
    opt2.zero_grad()
    loss = F.mse_loss(model2(X).squeeze(-1), Y)
    loss.backward()
    return loss


loss2 = opt2.step(closure2)
print("ScipyMinimizer", r(loss2, 5), r(model2.weight, 3), r(model2.bias, 3))
