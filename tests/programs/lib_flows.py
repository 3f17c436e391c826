"""nflows and normflows: normalizing flows trained a few steps on a seeded numpy two-moons data set.

nflows: a masked affine autoregressive flow (MAF) with permutations and batch norm, rational-quadratic spline
coupling and autoregressive transforms, an LU linear transform, ``Flow`` with a ``StandardNormal`` base,
``log_prob``, ``sample``, ``sample_and_log_prob``, ``transform_to_noise`` and a conditional MAF.
normflows: RealNVP (MaskedAffineFlow + ActNorm), a Glow-style coupling block, coupled/autoregressive neural
spline flows, ``forward_kld`` by maximum likelihood, ``reverse_kld`` against the TwoMoons target, planar and
radial flows, ``sample``, ``log_prob`` and save/load. Runs are short so float rounding cannot diverge."""
import os
import tempfile

import numpy as np
import torch
from torch import nn


def r(x, n=4):
    return round(float(x), n)


def moons(n, seed):
    """Two interleaving half circles with Gaussian noise (numpy only)."""
    rng = np.random.default_rng(seed)
    k = n // 2
    t1, t2 = rng.uniform(0, np.pi, k), rng.uniform(0, np.pi, n - k)
    a = np.stack([np.cos(t1), np.sin(t1)], 1)
    b = np.stack([1 - np.cos(t2), 0.5 - np.sin(t2)], 1)
    x = np.concatenate([a, b]) + 0.08 * rng.standard_normal((n, 2))
    y = np.concatenate([np.zeros(k), np.ones(n - k)])
    return x.astype(np.float32), y.astype(np.float32)


xs, ys = moons(256, 0)
x, y = torch.from_numpy(xs), torch.from_numpy(ys)[:, None]
probe = torch.tensor([[0.0, 0.5], [1.0, -0.3], [-0.8, 0.2]])


def train(name, flow, loss_fn, steps=5, lr=1e-3):
    # Adam's eps is raised from 1e-8: shifts that batch norm / ActNorm / a trainable base make redundant have
    # gradients of pure rounding noise (~1e-8) that the default eps would turn into full-size steps.
    opt = torch.optim.Adam(flow.parameters(), lr=lr, eps=1e-4)
    losses = []
    for _ in range(steps):
        loss = loss_fn()
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(r(loss.item()))
    n = sum(p.numel() for p in flow.parameters())
    print(name, "params", n, "losses", losses)


# ---------------------------------------------------------------- nflows
from nflows.distributions.normal import ConditionalDiagonalNormal, StandardNormal  # noqa: E402
from nflows.flows.base import Flow  # noqa: E402
from nflows.flows.realnvp import SimpleRealNVP  # noqa: E402
from nflows.nn.nets import ResidualNet  # noqa: E402
from nflows.transforms.autoregressive import (  # noqa: E402
    MaskedAffineAutoregressiveTransform,
    MaskedPiecewiseRationalQuadraticAutoregressiveTransform,
)
from nflows.transforms.base import CompositeTransform  # noqa: E402
from nflows.transforms.coupling import PiecewiseRationalQuadraticCouplingTransform  # noqa: E402
from nflows.transforms.lu import LULinear  # noqa: E402
from nflows.transforms.normalization import BatchNorm  # noqa: E402
from nflows.transforms.permutations import RandomPermutation, ReversePermutation  # noqa: E402


def nflows_report(name, flow, context=None):
    flow.eval()
    with torch.no_grad():
        lp = flow.log_prob(probe, context=context)
        print(name, "log_prob", [r(v) for v in lp])
        noise = flow.transform_to_noise(probe, context=context)
        print(name, "noise", [[r(v) for v in row] for row in noise])
        torch.manual_seed(1)
        if context is None:
            s = flow.sample(5)
            s2, lp2 = flow.sample_and_log_prob(4)
        else:
            s = flow.sample(2, context=context[:2])
            s2, lp2 = flow.sample_and_log_prob(2, context=context[:2])
        print(name, "sample", list(s.shape), r(s.sum()), r(s.abs().mean()),
              "sample_and_log_prob", list(s2.shape), [r(v) for v in lp2.flatten()])


torch.manual_seed(0)
maf = Flow(CompositeTransform([
    MaskedAffineAutoregressiveTransform(features=2, hidden_features=16),
    ReversePermutation(features=2),
    BatchNorm(features=2),
    MaskedAffineAutoregressiveTransform(features=2, hidden_features=16, num_blocks=2, use_residual_blocks=False,
                                        activation=torch.tanh),
    RandomPermutation(features=2),
]), StandardNormal(shape=[2]))
train("nflows maf", maf, lambda: -maf.log_prob(inputs=x).mean())
nflows_report("nflows maf", maf)

torch.manual_seed(0)
mask = torch.tensor([1, 0])
nsf = Flow(CompositeTransform([
    PiecewiseRationalQuadraticCouplingTransform(
        mask=mask, transform_net_create_fn=lambda i, o: ResidualNet(i, o, hidden_features=16, num_blocks=1),
        num_bins=4, tails="linear", tail_bound=3.0),
    LULinear(2, identity_init=True),
    MaskedPiecewiseRationalQuadraticAutoregressiveTransform(features=2, hidden_features=16, num_bins=4,
                                                           tails="linear", tail_bound=3.0),
    ReversePermutation(features=2),
    PiecewiseRationalQuadraticCouplingTransform(
        mask=1 - mask, transform_net_create_fn=lambda i, o: ResidualNet(i, o, hidden_features=16, num_blocks=1),
        num_bins=4, tails="linear", tail_bound=3.0),
]), StandardNormal(shape=[2]))
train("nflows nsf", nsf, lambda: -nsf.log_prob(inputs=x).mean())
nflows_report("nflows nsf", nsf)
with torch.no_grad():
    z, logdet = nsf._transform(probe)
    back, logdet_inv = nsf._transform.inverse(z)
print("nflows nsf invert", r((back - probe).abs().max(), 3), r((logdet + logdet_inv).abs().max(), 3))

torch.manual_seed(0)
cmaf = Flow(CompositeTransform([
    MaskedAffineAutoregressiveTransform(features=2, hidden_features=16, context_features=1),
    ReversePermutation(features=2),
    MaskedAffineAutoregressiveTransform(features=2, hidden_features=16, context_features=1),
]), ConditionalDiagonalNormal(shape=[2], context_encoder=nn.Linear(1, 4)))
train("nflows cmaf", cmaf, lambda: -cmaf.log_prob(inputs=x, context=y).mean())
nflows_report("nflows cmaf", cmaf, context=torch.tensor([[0.0], [1.0], [0.0]]))

torch.manual_seed(0)
rnvp = SimpleRealNVP(features=2, hidden_features=16, num_layers=2, num_blocks_per_layer=1)
train("nflows realnvp", rnvp, lambda: -rnvp.log_prob(x).mean())
nflows_report("nflows realnvp", rnvp)

# ---------------------------------------------------------------- normflows
import normflows as nf  # noqa: E402


def nf_report(name, model):
    model.eval()
    with torch.no_grad():
        print(name, "log_prob", [r(v) for v in model.log_prob(probe)])
        torch.manual_seed(1)
        s, lq = model.sample(4)
        print(name, "sample", list(s.shape), r(s.sum()), [r(v) for v in lq])
        z = model.inverse(probe)
        back = model.forward(z)
        print(name, "invert", r((back - probe).abs().max(), 3))


torch.manual_seed(0)
flows = []
b = torch.tensor([0.0, 1.0])
for i in range(3):
    s = nf.nets.MLP([2, 16, 2], init_zeros=True)
    t = nf.nets.MLP([2, 16, 2], init_zeros=True)
    flows += [nf.flows.MaskedAffineFlow(b if i % 2 == 0 else 1 - b, t, s), nf.flows.ActNorm(2)]
realnvp = nf.NormalizingFlow(nf.distributions.DiagGaussian(2), flows)
with torch.no_grad():
    realnvp.forward_kld(x)  # the first call initializes ActNorm from data
train("normflows realnvp", realnvp, lambda: realnvp.forward_kld(x))
nf_report("normflows realnvp", realnvp)

torch.manual_seed(0)
flows = []
for i in range(2):
    pm = nf.nets.MLP([1, 16, 2], init_zeros=True)
    flows += [nf.flows.AffineCouplingBlock(pm), nf.flows.Permute(2, mode="swap"),
              nf.flows.LULinearPermute(2), nf.flows.Permute(2, mode="shuffle")]
glowish = nf.NormalizingFlow(nf.distributions.DiagGaussian(2, trainable=False), flows)
train("normflows glowish", glowish, lambda: glowish.forward_kld(x))
nf_report("normflows glowish", glowish)

torch.manual_seed(0)
flows = []
for i in range(2):
    flows += [nf.flows.CoupledRationalQuadraticSpline(2, 1, 16, num_bins=4, tail_bound=3.0),
              nf.flows.AutoregressiveRationalQuadraticSpline(2, 1, 16, num_bins=4, tail_bound=3.0),
              nf.flows.LULinearPermute(2)]
nsf2 = nf.NormalizingFlow(nf.distributions.DiagGaussian(2), flows)
train("normflows nsf", nsf2, lambda: nsf2.forward_kld(x))
nf_report("normflows nsf", nsf2)

# reverse KL against the TwoMoons target with planar and radial flows
torch.manual_seed(0)
target = nf.distributions.TwoMoons()
rev = nf.NormalizingFlow(nf.distributions.DiagGaussian(2),
                         [nf.flows.Planar((2,)), nf.flows.Radial((2,)), nf.flows.Planar((2,), act="leaky_relu"),
                          nf.flows.MaskedAffineAutoregressive(2, 16, num_blocks=1)], p=target)
train("normflows reverse", rev, lambda: rev.reverse_kld(num_samples=64), lr=5e-3)
torch.manual_seed(2)
with torch.no_grad():
    print("normflows reverse alpha", r(rev.reverse_alpha_div(num_samples=64, alpha=0.5), 3),
          "target", [r(v) for v in target.log_prob(probe)])
rev.eval()
torch.manual_seed(1)
with torch.no_grad():
    s, lq = rev.sample(4)
print("normflows reverse sample", list(s.shape), r(s.sum()), [r(v) for v in lq])

with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "nsf.pt")
    nsf2.save(path)
    torch.manual_seed(5)
    fresh = nf.NormalizingFlow(nf.distributions.DiagGaussian(2), [
        m for _ in range(2) for m in (nf.flows.CoupledRationalQuadraticSpline(2, 1, 16, num_bins=4, tail_bound=3.0),
                                      nf.flows.AutoregressiveRationalQuadraticSpline(2, 1, 16, num_bins=4,
                                                                                     tail_bound=3.0),
                                      nf.flows.LULinearPermute(2))])
    fresh.load(path)
    fresh.eval()
    with torch.no_grad():
        same = torch.allclose(fresh.log_prob(probe), nsf2.log_prob(probe))
    print("normflows load same", same, len(torch.load(path)))
