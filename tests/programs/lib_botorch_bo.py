"""BoTorch: Bayesian optimisation of Branin in double precision. A SingleTaskGP (Normalize/Standardize
transforms) fitted by fit_gpytorch_mll (scipy L-BFGS-B on the exact marginal log likelihood), its fitted
hyperparameters and posterior; LogExpectedImprovement, qLogExpectedImprovement (seeded Sobol QMC sampler) and
UpperConfidenceBound at fixed points; three BO iterations of optimize_acqf with qLogEI; a two-objective
ModelListGP with qLogNoisyExpectedHypervolumeImprovement.

Numbers are printed rounded: the fitted hyperparameters come out of an iterative optimiser, so last-bit
differences between XLA and ATen kernels can move them slightly; the comparison uses a relative tolerance."""
import warnings

import torch
from botorch.acquisition import (LogExpectedImprovement, UpperConfidenceBound, qLogExpectedImprovement,
                                 qLogNoisyExpectedImprovement)
from botorch.acquisition.multi_objective.logei import qLogNoisyExpectedHypervolumeImprovement
from botorch.fit import fit_gpytorch_mll
from botorch.models import ModelListGP, SingleTaskGP
from botorch.models.transforms import Normalize, Standardize
from botorch.optim import optimize_acqf
from botorch.sampling import SobolQMCNormalSampler
from botorch.test_functions import Branin
from gpytorch.mlls import ExactMarginalLogLikelihood

warnings.filterwarnings("ignore")
torch.set_default_dtype(torch.float64)


def fmt(t, digits=4):
    return [round(float(v), digits) for v in t.reshape(-1)]


branin = Branin(negate=True)
bounds = branin.bounds
torch.manual_seed(0)
train_x = bounds[0] + (bounds[1] - bounds[0]) * torch.rand(12, 2)
train_y = branin(train_x).unsqueeze(-1)
print("train best", round(train_y.max().item(), 4))


def fit(x, y):
    model = SingleTaskGP(x, y, input_transform=Normalize(d=2), outcome_transform=Standardize(m=1))
    mll = ExactMarginalLogLikelihood(model.likelihood, model)
    fit_gpytorch_mll(mll)
    return model


model = fit(train_x, train_y)
print("lengthscale", fmt(model.covar_module.lengthscale, 3))
print("noise", fmt(model.likelihood.noise, 5))
test_x = torch.tensor([[0.0, 5.0], [3.0, 2.0], [-2.0, 10.0], [9.0, 3.0]])
with torch.no_grad():
    post = model.posterior(test_x)
    print("post mean", fmt(post.mean, 3))
    print("post var", fmt(post.variance, 3))

best_f = train_y.max()
cand = test_x.unsqueeze(1)
with torch.no_grad():
    print("logEI", fmt(LogExpectedImprovement(model, best_f=best_f)(cand), 3))
    print("UCB", fmt(UpperConfidenceBound(model, beta=0.2)(cand), 3))
    sampler = SobolQMCNormalSampler(sample_shape=torch.Size([128]), seed=1)
    qlei = qLogExpectedImprovement(model, best_f=best_f, sampler=sampler)
    print("qLogEI", fmt(qlei(test_x.reshape(2, 2, 2)), 3))

for it in range(3):
    torch.manual_seed(it)
    acqf = qLogExpectedImprovement(model, best_f=train_y.max(),
                                   sampler=SobolQMCNormalSampler(sample_shape=torch.Size([64]), seed=it))
    candidate, value = optimize_acqf(acqf, bounds=bounds, q=1, num_restarts=4, raw_samples=32,
                                     options={"maxiter": 50})
    new_y = branin(candidate).unsqueeze(-1)
    train_x = torch.cat([train_x, candidate])
    train_y = torch.cat([train_y, new_y])
    print("iter", it, "candidate", fmt(candidate, 2), "acq", round(value.item(), 2),
          "best", round(train_y.max().item(), 3))
    model = fit(train_x, train_y)

# two objectives: Branin and a shifted quadratic, one GP each in a ModelListGP
y2 = -((train_x - torch.tensor([2.0, 4.0])) ** 2).sum(-1, keepdim=True) / 10
models = [SingleTaskGP(train_x, y, input_transform=Normalize(d=2), outcome_transform=Standardize(m=1))
          for y in (train_y, y2)]
mlist = ModelListGP(*models)
for m in models:
    fit_gpytorch_mll(ExactMarginalLogLikelihood(m.likelihood, m))
with torch.no_grad():
    print("modellist mean", fmt(mlist.posterior(test_x).mean, 2))
    ref = torch.tensor([-150.0, -10.0])
    nehvi = qLogNoisyExpectedHypervolumeImprovement(
        mlist, ref_point=ref, X_baseline=train_x, sampler=SobolQMCNormalSampler(torch.Size([32]), seed=0),
        prune_baseline=False)
    print("qLogNEHVI", fmt(nehvi(cand), 2))
    nei = qLogNoisyExpectedImprovement(model, X_baseline=train_x, sampler=SobolQMCNormalSampler(
        torch.Size([64]), seed=0), prune_baseline=False)
    print("qLogNEI", fmt(nei(cand), 2))
