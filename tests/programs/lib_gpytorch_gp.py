"""gpytorch: exact GP regression (ConstantMean, ScaleKernel(RBFKernel), GaussianLikelihood) trained with Adam on
the exact marginal log likelihood, then posterior predictions
(the variational GP also matches torch but doubles the run time: left out for CI time)."""
import math

import gpytorch
import torch

torch.manual_seed(0)
train_x = torch.linspace(0, 1, 20)
train_y = torch.sin(train_x * (2 * math.pi)) + 0.1 * torch.randn(train_x.size())


class ExactGPModel(gpytorch.models.ExactGP):
    def __init__(self, x, y, likelihood):
        super().__init__(x, y, likelihood)
        self.mean_module = gpytorch.means.ConstantMean()
        self.covar_module = gpytorch.kernels.ScaleKernel(gpytorch.kernels.RBFKernel())

    def forward(self, x):
        return gpytorch.distributions.MultivariateNormal(self.mean_module(x), self.covar_module(x))


likelihood = gpytorch.likelihoods.GaussianLikelihood()
model = ExactGPModel(train_x, train_y, likelihood)
model.train()
likelihood.train()
opt = torch.optim.Adam(model.parameters(), lr=0.1)
mll = gpytorch.mlls.ExactMarginalLogLikelihood(likelihood, model)
for i in range(5):
    opt.zero_grad()
    loss = -mll(model(train_x), train_y)
    loss.backward()
    opt.step()
    print(f"iter {i} loss {loss.item():.5f} lengthscale {model.covar_module.base_kernel.lengthscale.item():.5f} "
          f"noise {model.likelihood.noise.item():.5f}")
model.eval()
likelihood.eval()
with torch.no_grad(), gpytorch.settings.fast_pred_var():
    pred = likelihood(model(torch.linspace(0, 1, 5)))
    lower, upper = pred.confidence_region()
print("mean", " ".join(f"{v:.5f}" for v in pred.mean.tolist()))
print("lower", " ".join(f"{v:.5f}" for v in lower.tolist()))
print("upper", " ".join(f"{v:.5f}" for v in upper.tolist()))

