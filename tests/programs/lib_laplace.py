"""laplace-torch: post-hoc Laplace approximations of a small trained MLP. Regression with a full GGN over all
weights (curvlinops backend), prior precision by marginal likelihood, GLM predictive mean and variance; a
last-layer KFAC classifier (the library default) with probit predictive; a diagonal Laplace with the BackPACK
backend; a Kron Laplace through ASDL (asdfghjkl 0.1a4); subnetwork and functional (GP) Laplace;
and online marginal-likelihood training (marglik_training)."""
import copy
import warnings

import torch
from torch.utils.data import DataLoader, TensorDataset

from laplace import Laplace, marglik_training
from laplace.curvature import AsdlGGN, BackPackGGN
from laplace.utils import LargestMagnitudeSubnetMask

warnings.filterwarnings("ignore")


def r(x, n=4):
    if isinstance(x, torch.Tensor):
        x = x.detach().double()
        if x.numel() == 1:
            return round(float(x), n)
        return [round(float(v), n) for v in x.flatten()]
    if isinstance(x, (list, tuple)):
        return [r(v, n) for v in x]
    return round(float(x), n)


def mlp(d_in, d_out, seed):
    torch.manual_seed(seed)
    return torch.nn.Sequential(torch.nn.Linear(d_in, 16), torch.nn.Tanh(), torch.nn.Linear(16, d_out))


def train(model, loader, loss_fn, steps):
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    for _ in range(steps):
        for x, y in loader:
            opt.zero_grad()
            loss = loss_fn(model(x), y)
            loss.backward()
            opt.step()
    return loss


# regression: y = sin(3x) + noise
torch.manual_seed(0)
X = torch.linspace(-2, 2, 48).unsqueeze(-1)
Y = torch.sin(3 * X) + 0.1 * torch.randn_like(X)
reg_loader = DataLoader(TensorDataset(X, Y), batch_size=16)
reg = mlp(1, 1, 1)
print("reg train", r(train(reg, reg_loader, torch.nn.MSELoss(), 40)))

la = Laplace(reg, "regression", subset_of_weights="all", hessian_structure="full")
la.fit(reg_loader)
print("full H", tuple(la.H.shape), r(la.H.diagonal().sum(), 2), r(la.n_params))
print("full logml", r(la.log_marginal_likelihood(), 3))
la.optimize_prior_precision(method="marglik", n_steps=50, lr=1e-1)
print("prior prec", r(la.prior_precision, 3), "sigma", r(la.sigma_noise, 3))
Xt = torch.tensor([[-2.5], [0.0], [1.0], [3.0]])
f_mu, f_var = la(Xt, pred_type="glm")
print("glm mean", r(f_mu.squeeze(), 3))
print("glm var", r(f_var.squeeze(), 3))
print("posterior cov diag", r(la.posterior_covariance.diagonal()[:4], 4))
torch.manual_seed(7)
samples = la.predictive_samples(Xt, pred_type="nn", n_samples=5)
print("nn samples", tuple(samples.shape), r(samples[:, 1].squeeze(), 3))

# classification: three Gaussian blobs, last-layer Kron (library default)
torch.manual_seed(2)
centers = torch.tensor([[0.0, 2.0], [-2.0, -1.0], [2.0, -1.0]])
Xc = torch.cat([c + 0.7 * torch.randn(20, 2) for c in centers])
Yc = torch.arange(3).repeat_interleave(20)
cls_loader = DataLoader(TensorDataset(Xc, Yc), batch_size=20, shuffle=False)
clf = mlp(2, 3, 3)
print("clf train", r(train(clf, cls_loader, torch.nn.CrossEntropyLoss(), 30)))
la_ll = Laplace(clf, "classification")
la_ll.fit(cls_loader)
print("ll kron", type(la_ll).__name__, r(la_ll.n_params), r(la_ll.log_marginal_likelihood(), 3))
la_ll.optimize_prior_precision(method="marglik", n_steps=30, lr=1e-1)
print("ll prior", r(la_ll.prior_precision, 3))
Xq = torch.tensor([[0.0, 2.0], [0.0, 0.0], [5.0, 5.0]])
print("ll probit", r(la_ll(Xq, link_approx="probit"), 3))
print("map probs", r(torch.softmax(clf(Xq), -1), 3))

# diagonal GGN through BackPACK over all weights
la_d = Laplace(clf, "classification", subset_of_weights="all", hessian_structure="diag", backend=BackPackGGN)
la_d.fit(cls_loader)
print("diag H", r(la_d.H.sum(), 2), r(la_d.H[:3], 4))
print("diag logml", r(la_d.log_marginal_likelihood(prior_precision=torch.tensor(1.0)), 3))
print("diag probit", r(la_d(Xq, link_approx="probit")[1], 3))

# Kron GGN through ASDL
# (on a copy: ASDL leaves regular backward hooks that torch refuses to mix with BackPACK's full ones)
la_k = Laplace(copy.deepcopy(reg), "regression", subset_of_weights="all", hessian_structure="kron", backend=AsdlGGN)
la_k.fit(reg_loader)
print("asdl kron logml", r(la_k.log_marginal_likelihood(), 3))
mu_k, var_k = la_k(Xt, pred_type="glm")
print("asdl kron var", r(var_k.squeeze(), 3))

# subnetwork Laplace over the 10 largest-magnitude weights, and the functional (GP) Laplace
subnet = LargestMagnitudeSubnetMask(reg, n_params_subnet=10).select()
print("subnet idx", subnet.tolist())
la_s = Laplace(reg, "regression", subset_of_weights="subnetwork", hessian_structure="full", subnetwork_indices=subnet)
la_s.fit(reg_loader)
print("subnet", r(la_s.log_marginal_likelihood(), 3), r(la_s(Xt)[1].squeeze(), 3))
la_gp = Laplace(reg, "regression", subset_of_weights="all", hessian_structure="gp", n_subset=12)
la_gp.fit(reg_loader)
print("gp", r(la_gp.log_marginal_likelihood(), 3), r(la_gp(Xt)[1].squeeze(), 3))

# online marginal-likelihood training
torch.manual_seed(4)
model = mlp(1, 1, 5)
la_m, model, margliks, losses = marglik_training(
    model, reg_loader, likelihood="regression", hessian_structure="kron", backend=BackPackGGN,
    n_epochs=4, n_hypersteps=5, marglik_frequency=2, n_epochs_burnin=2, optimizer_kwargs={"lr": 1e-2},
    enable_backprop=False)
print("marglik", len(margliks), r(margliks[-1], 2), r(losses[-1], 3))
print("marglik prior", r(la_m.prior_precision, 3), r(la_m.sigma_noise, 3))
