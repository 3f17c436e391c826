"""pyro-ppl, more of it: a Gaussian-process regression (pyro.contrib.gp) trained and predicted, normalizing flows built from
pyro transforms (spline coupling, affine autoregressive, permute) trained by likelihood, AutoMultivariateNormal /
AutoLowRankMultivariateNormal (vectorized particles) / AutoDelta guides and RenyiELBO, importance sampling, and
a few pyro distributions (Beta rsample, VonMises, ZeroInflatedPoisson, SkewLogistic)."""
import numpy as np
import torch
import pyro
import pyro.distributions as dist
import pyro.distributions.transforms as T
import pyro.contrib.gp as gp
from pyro.infer import SVI, Trace_ELBO, Importance, EmpiricalMarginal, RenyiELBO
from pyro.infer.autoguide import AutoMultivariateNormal, AutoLowRankMultivariateNormal, AutoDelta
from pyro.optim import Adam

rng = np.random.default_rng(0)
X = torch.from_numpy(rng.uniform(-3, 3, 20).astype(np.float32))
y = torch.sin(X) + 0.1 * torch.from_numpy(rng.standard_normal(20).astype(np.float32))
pyro.set_rng_seed(0)
kernel = gp.kernels.RBF(input_dim=1, variance=torch.tensor(1.0), lengthscale=torch.tensor(1.0))
gpr = gp.models.GPRegression(X, y, kernel, noise=torch.tensor(0.1))
optim = torch.optim.Adam(gpr.parameters(), lr=0.05)
losses = gp.util.train(gpr, optim, num_steps=30)
print("gpr loss", round(losses[0], 4), round(losses[-1], 4), "ls", round(gpr.kernel.lengthscale.item(), 4))
with torch.no_grad():
    mean, cov = gpr(torch.linspace(-3, 3, 4), full_cov=True, noiseless=False)
print("gpr mean", [round(v, 4) for v in mean.tolist()], "var", [round(v, 4) for v in cov.diag().tolist()])

# normalizing flows in pyro
pyro.set_rng_seed(0)
base = dist.Normal(torch.zeros(2), torch.ones(2))
flows = [T.spline_coupling(2, count_bins=8), T.affine_autoregressive(2, hidden_dims=[16]), T.Permute(torch.tensor([1, 0]))]
fd = dist.TransformedDistribution(base, flows)
params = [p for f in flows if isinstance(f, torch.nn.Module) for p in f.parameters()]
opt = torch.optim.Adam(params, lr=5e-3)
data = torch.from_numpy(np.stack([rng.normal(1, 0.5, 64), rng.normal(-1, 0.3, 64)], 1).astype(np.float32))
for step in range(4):
    loss = -fd.log_prob(data).mean()
    opt.zero_grad(); loss.backward(); opt.step()
    fd.clear_cache()
    print("flow step", step, f"{loss.item():.5f}")


def model(obs):
    loc = pyro.sample("loc", dist.Normal(0.0, 2.0))
    scale = pyro.sample("scale", dist.LogNormal(0.0, 1.0))
    with pyro.plate("n", len(obs)):
        pyro.sample("x", dist.StudentT(4.0, loc, scale), obs=obs)


obs = torch.from_numpy(rng.normal(0.7, 1.2, 30).astype(np.float32))
for name, guide, loss in [("mvn", AutoMultivariateNormal(model), Trace_ELBO()),
                          ("lowrank", AutoLowRankMultivariateNormal(model, rank=1), Trace_ELBO(num_particles=4, vectorize_particles=True)),
                          ("delta", AutoDelta(model), Trace_ELBO()),
                          ("renyi", AutoMultivariateNormal(model), RenyiELBO(alpha=0.5, num_particles=3))]:
    pyro.clear_param_store(); pyro.set_rng_seed(0)
    svi = SVI(model, guide, Adam({"lr": 0.05}), loss)
    ls = [svi.step(obs) for _ in range(25)]
    print(name, round(ls[0], 4), round(ls[-1], 4), {k: [round(v, 4) for v in t.reshape(-1).tolist()] for k, t in guide.median().items()})

pyro.set_rng_seed(0)
imp = Importance(model, guide=None, num_samples=50).run(obs)
print("importance", round(EmpiricalMarginal(imp, "loc").mean.item(), 4), round(imp.get_ESS().item(), 4))
d = dist.Beta(torch.tensor([2.0, 0.5]), torch.tensor([1.5, 3.0]))
pyro.set_rng_seed(0)
s = d.rsample((3,))
print("beta", [round(v, 5) for v in s.reshape(-1).tolist()], [round(v, 5) for v in d.log_prob(s).reshape(-1).tolist()])
print("dists", round(dist.VonMises(torch.tensor(0.5), torch.tensor(2.0)).log_prob(torch.tensor(1.0)).item(), 5),
      round(dist.ZeroInflatedPoisson(torch.tensor(2.0), gate=torch.tensor(0.3)).log_prob(torch.tensor(0.0)).item(), 5),
      round(dist.SkewLogistic(torch.tensor(0.0), torch.tensor(1.0), torch.tensor(2.0)).log_prob(torch.tensor(0.5)).item(), 5))
