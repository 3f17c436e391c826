"""pyro-ppl: Bayesian linear regression by SVI (a hand-written guide and an AutoNormal guide, Trace_ELBO and
TraceMeanField_ELBO), posterior Predictive samples, a Gaussian mixture with enumerated discrete sites
(TraceEnum_ELBO), and a short NUTS chain; fixed seeds, printed losses and posterior summaries."""
import numpy as np
import torch
import pyro
import pyro.distributions as dist
from pyro.infer import SVI, Trace_ELBO, TraceMeanField_ELBO, TraceEnum_ELBO, Predictive, MCMC, NUTS
from pyro.infer.autoguide import AutoNormal, AutoDiagonalNormal
from pyro.optim import Adam, ClippedAdam
from pyro import poutine

rng = np.random.default_rng(0)
x = torch.from_numpy(rng.standard_normal((50, 2)).astype(np.float32))
y = x @ torch.tensor([1.5, -0.7]) + 0.3 + 0.1 * torch.from_numpy(rng.standard_normal(50).astype(np.float32))


def model(x, y=None):
    w = pyro.sample("w", dist.Normal(torch.zeros(2), torch.ones(2)).to_event(1))
    b = pyro.sample("b", dist.Normal(0.0, 1.0))
    sigma = pyro.sample("sigma", dist.HalfNormal(1.0))
    with pyro.plate("data", x.shape[0]):
        return pyro.sample("obs", dist.Normal(x @ w + b, sigma), obs=y)


def guide(x, y=None):
    w_loc = pyro.param("w_loc", torch.zeros(2))
    w_scale = pyro.param("w_scale", torch.ones(2), constraint=dist.constraints.positive)
    b_loc = pyro.param("b_loc", torch.tensor(0.0))
    s_loc = pyro.param("s_loc", torch.tensor(0.5), constraint=dist.constraints.positive)
    pyro.sample("w", dist.Normal(w_loc, w_scale).to_event(1))
    pyro.sample("b", dist.Normal(b_loc, 0.1))
    pyro.sample("sigma", dist.Delta(s_loc))


def fit(guide, loss, optim, steps):
    pyro.clear_param_store()
    pyro.set_rng_seed(0)
    svi = SVI(model, guide, optim, loss=loss)
    losses = [svi.step(x, y) for _ in range(steps)]
    return losses


for name, g, loss, optim in [("manual", guide, Trace_ELBO(), Adam({"lr": 0.05})),
                             ("autonormal", AutoNormal(model), Trace_ELBO(), ClippedAdam({"lr": 0.05})),
                             ("autodiag", AutoDiagonalNormal(model), TraceMeanField_ELBO(), Adam({"lr": 0.05}))]:
    losses = fit(g, loss, optim, 60)
    print(f"{name} elbo first {losses[0]:.4f} mid {losses[30]:.4f} last {losses[-1]:.4f}")
    params = {k: [round(v, 4) for v in pyro.param(k).detach().reshape(-1).tolist()]
              for k in sorted(pyro.get_param_store().keys())}
    print(f"{name} params {params}")

pyro.set_rng_seed(1)
pred = Predictive(model, guide=g, num_samples=100)(x[:3])
print("predictive", {k: list(v.shape) for k, v in sorted(pred.items())}, pred["obs"].mean(0).tolist())
tr = poutine.trace(poutine.condition(model, data={"w": torch.tensor([1.0, -1.0]), "b": torch.tensor(0.2),
                                                   "sigma": torch.tensor(0.5)})).get_trace(x, y)
tr.compute_log_prob()
print("log_joint", round(tr.log_prob_sum().item(), 4), sorted(tr.nodes.keys()))

# Gaussian mixture with the assignment enumerated out
data = torch.from_numpy(
    np.concatenate([rng.normal(-2, 0.3, 20), rng.normal(2, 0.3, 20)]).astype(np.float32))


@pyro.infer.config_enumerate
def mix(data):
    weights = pyro.sample("weights", dist.Dirichlet(torch.ones(2)))
    with pyro.plate("components", 2):
        locs = pyro.sample("locs", dist.Normal(0.0, 5.0))
    with pyro.plate("data", len(data)):
        z = pyro.sample("z", dist.Categorical(weights))
        pyro.sample("obs", dist.Normal(locs[z], 0.3), obs=data)


def mix_guide(data):
    w = pyro.param("mw", torch.ones(2) / 2, constraint=dist.constraints.simplex)
    locs = pyro.param("mlocs", torch.tensor([-1.0, 1.0]))
    pyro.sample("weights", dist.Delta(w).to_event(1))
    with pyro.plate("components", 2):
        pyro.sample("locs", dist.Delta(locs))


pyro.clear_param_store()
pyro.set_rng_seed(0)
svi = SVI(mix, mix_guide, Adam({"lr": 0.1}), loss=TraceEnum_ELBO(max_plate_nesting=1))
losses = [svi.step(data) for _ in range(40)]
print(f"mixture loss {losses[0]:.4f} {losses[-1]:.4f} locs {[round(v, 4) for v in pyro.param('mlocs').tolist()]} "
      f"weights {[round(v, 4) for v in pyro.param('mw').tolist()]}")

pyro.set_rng_seed(0)
mcmc = MCMC(NUTS(model, max_tree_depth=4), num_samples=20, warmup_steps=20, disable_progbar=True)
mcmc.run(x, y)
s = mcmc.get_samples()
print("nuts", {k: [round(v, 6) for v in t.mean(0).reshape(-1).tolist()] for k, t in sorted(s.items())})
