"""nflows and normflows, the less used parts: nflows' piecewise linear/quadratic/cubic spline couplings and
autoregressive transforms, SVD/QR/Householder/naive linear transforms, elementwise nonlinearities and CDF
transforms, ActNorm, an image flow (squeeze, 1x1 convolution, conv affine coupling, a multiscale composite
transform), the MADE mixture-of-Gaussians density and BoxUniform; normflows' multiscale Glow on 8x8 images with
class-conditional bases, a residual flow with Lipschitz-constrained (induced-norm) layers, circular splines on a
periodic coordinate, Gaussian-mixture and uniform bases, Metropolis-Hastings and HMC layers, a conditional
flow. Each is trained a couple of steps with a fixed seed; log-probabilities, inverses and samples are printed
rounded."""
import numpy as np
import torch
from torch import nn


def r(x, n=4):
    return round(float(x), n)


def rl(xs, n=4):
    return [r(v, n) for v in torch.as_tensor(xs).detach().flatten()]


rng = np.random.default_rng(0)
x4 = torch.from_numpy(np.concatenate([rng.standard_normal((96, 2)) * 0.5 + [1, -1],
                                      rng.standard_normal((96, 2)) * 0.3 - [1, -1]])[rng.permutation(192)]
                      .astype(np.float32))
x4 = torch.cat([x4, torch.tanh(x4[:, :1] * x4[:, 1:])], 1)  # 3 features
unit = torch.sigmoid(x4)  # in (0, 1) for the bounded splines
probe = x4[:3]


def train(name, loss_fn, params, steps=3, lr=1e-3, sgd=False):
    # Adam's eps is raised from 1e-8, and the Glow uses SGD: shifts that ActNorm's data initialization and the
    # trainable bases make redundant have gradients of pure rounding noise, which Adam would blow up to full steps.
    opt = torch.optim.SGD(params, lr=lr, momentum=0.9) if sgd else torch.optim.Adam(params, lr=lr, eps=1e-4)
    losses = []
    for _ in range(steps):
        loss = loss_fn()
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(r(loss.item()))
    print(name, "losses", losses)


# ---------------------------------------------------------------- nflows
from nflows import transforms as T  # noqa: E402
from nflows.distributions.mixture import MADEMoG  # noqa: E402
from nflows.distributions.normal import DiagonalNormal, StandardNormal  # noqa: E402
from nflows.distributions.uniform import BoxUniform  # noqa: E402
from nflows.flows.base import Flow  # noqa: E402
from nflows.nn.nets import ConvResidualNet, ResidualNet  # noqa: E402
from nflows.transforms.nonlinearities import CauchyCDF, GatedLinearUnit, LogTanh  # noqa: E402
from nflows.utils import torchutils  # noqa: E402


def net(i, o):
    return ResidualNet(i, o, hidden_features=16, num_blocks=1)


def check(name, transform, inputs):
    with torch.no_grad():
        out, ld = transform(inputs)
        back, ild = transform.inverse(out)
    print(name, rl(out[0]), rl(ld[:3]), "invert", r((back - inputs).abs().max(), 3), r((ld + ild).abs().max(), 3))


mask = torch.tensor([1, 0, 1])
for name, cls, kw in [("linear", T.PiecewiseLinearCouplingTransform, dict(num_bins=4)),
                      ("quadratic", T.PiecewiseQuadraticCouplingTransform, dict(num_bins=4)),
                      ("cubic", T.PiecewiseCubicCouplingTransform, dict(num_bins=4))]:
    torch.manual_seed(0)
    tr = cls(mask=mask, transform_net_create_fn=net, **kw)
    flow = Flow(T.CompositeTransform([tr, T.Logit()]), StandardNormal([3]))
    train("nflows coupling " + name, lambda: -flow.log_prob(unit.clamp(0.01, 0.99)).mean(), flow.parameters())
    check("nflows coupling " + name, tr, unit[:4].clamp(0.01, 0.99))

for name, cls in [("linear", T.MaskedPiecewiseLinearAutoregressiveTransform),
                  ("quadratic", T.MaskedPiecewiseQuadraticAutoregressiveTransform),
                  ("cubic", T.MaskedPiecewiseCubicAutoregressiveTransform)]:
    torch.manual_seed(0)
    tr = cls(num_bins=4, features=3, hidden_features=16)
    with torch.no_grad():
        out, ld = tr(unit[:4].clamp(0.01, 0.99))
    print("nflows autoregressive", name, rl(out[0]), rl(ld[:3]))

torch.manual_seed(0)
tr = T.MaskedPiecewiseQuadraticAutoregressiveTransform(features=3, hidden_features=16, num_bins=4, tails="linear",
                                                       tail_bound=3.0)
check("nflows autoregressive quadratic tails", tr, probe)

for name, make in [("svd", lambda: T.SVDLinear(3, num_householder=2)), ("qr", lambda: T.QRLinear(3, 2)),
                   ("householder", lambda: T.HouseholderSequence(3, 2)), ("naive", lambda: T.NaiveLinear(3)),
                   ("lu", lambda: T.LULinear(3, identity_init=False)), ("actnorm", lambda: T.ActNorm(3)),
                   ("affine", lambda: T.PointwiseAffineTransform(shift=0.5, scale=2.0))]:
    torch.manual_seed(0)
    tr = make()
    flow = Flow(T.CompositeTransform([tr, T.MaskedAffineAutoregressiveTransform(3, 8)]), StandardNormal([3]))
    params = list(flow.parameters())
    train("nflows " + name, lambda: -flow.log_prob(x4).mean(), params)
    tr.eval()
    if name != "naive":
        check("nflows " + name, tr, probe)
        continue
    try:  # NaiveLinear.inverse calls torch.solve, removed from torch: the error is torch's
        check("nflows " + name, tr, probe)
    except RuntimeError as e:
        print("nflows naive inverse", type(e).__name__, str(e).splitlines()[0][:80])

for name, tr, inp in [("tanh", T.Tanh(), probe), ("logtanh", LogTanh(cut_point=1), probe),
                      ("leakyrelu", T.LeakyReLU(0.1), probe), ("sigmoid", T.Sigmoid(), probe),
                      ("logit", T.Logit(), unit[:3]), ("cauchy", CauchyCDF(features=3), probe),
                      ("gated", GatedLinearUnit(), probe[:, :2])]:
    if name == "gated":
        with torch.no_grad():
            out, ld = tr(inp, context=probe[:, 2:])
        print("nflows", name, rl(out[0]), rl(ld))
        continue
    check("nflows " + name, tr, inp)

torch.manual_seed(0)
for name, cdf in [("linear", T.PiecewiseLinearCDF([3], num_bins=4, tails="linear", tail_bound=3.0)),
                  ("quadratic", T.PiecewiseQuadraticCDF([3], num_bins=4, tails="linear", tail_bound=3.0)),
                  ("cubic", T.PiecewiseCubicCDF([3], num_bins=4, tails="linear", tail_bound=3.0)),
                  ("rq", T.PiecewiseRationalQuadraticCDF([3], num_bins=4, tails="linear", tail_bound=3.0))]:
    nn.init.normal_(next(cdf.parameters()), std=0.5)
    check("nflows cdf " + name, cdf, probe)
composite = T.CompositeCDFTransform(T.Sigmoid(), T.PiecewiseRationalQuadraticCDF([3], num_bins=4))
check("nflows composite cdf", composite, probe)
check("nflows inverse", T.InverseTransform(T.Tanh()), torch.tanh(probe))

# images: squeeze, 1x1 convolution, a conv affine coupling, a multiscale composite
torch.manual_seed(0)
img = torch.rand(6, 1, 8, 8)
ms = T.MultiscaleCompositeTransform(2, split_dim=1)
shape = (1, 8, 8)
for level in range(2):
    c = shape[0] * 4
    layer = T.CompositeTransform([
        T.SqueezeTransform(), T.OneByOneConvolution(c),
        T.AffineCouplingTransform(mask=torch.arange(c) % 2, transform_net_create_fn=lambda i, o: ConvResidualNet(
            i, o, hidden_channels=8, num_blocks=1)),
        T.ActNorm(c)])
    nxt = ms.add_transform(layer, (c, shape[1] // 2, shape[2] // 2))
    if nxt is not None:
        shape = nxt
img_flow = Flow(ms, StandardNormal([64]))
train("nflows multiscale", lambda: -img_flow.log_prob(img).mean(), img_flow.parameters())
with torch.no_grad():
    z, ld = ms(img[:2])
    back, _ = ms.inverse(z)
print("nflows multiscale", list(z.shape), rl(ld), "invert", r((back - img[:2]).abs().max(), 3))

torch.manual_seed(0)
mog = MADEMoG(features=3, hidden_features=16, context_features=1, num_mixture_components=3)
ctx = (x4[:, :1] > 0).float()
train("nflows mademog", lambda: -mog.log_prob(x4, context=ctx).mean(), mog.parameters())
torch.manual_seed(1)
with torch.no_grad():
    s = mog.sample(4, context=ctx[:2])
print("nflows mademog sample", list(s.shape), r(s.sum()), rl(mog.log_prob(probe, context=ctx[:3])))
box = BoxUniform(torch.zeros(3), torch.ones(3))
torch.manual_seed(1)
print("nflows boxuniform", rl(box.log_prob(unit[:2])), rl(box.sample((2,))))
dn = DiagonalNormal([3])
print("nflows diagonal", rl(dn.log_prob(probe)))
print("torchutils", rl(torchutils.logabsdet(torch.tensor([[2.0, 1.0], [1.0, 3.0]]))),
      torchutils.tile(torch.tensor([[1, 2]]), 2).tolist(), torchutils.searchsorted(
          torch.tensor([0.0, 0.5, 1.0]), torch.tensor([0.2, 0.7, 1.0])).tolist(),
      torchutils.sum_except_batch(torch.ones(2, 3, 4)).tolist(),
      rl(torchutils.random_orthogonal(3).det().abs()))

# ---------------------------------------------------------------- normflows
import normflows as nf  # noqa: E402

# multiscale Glow on 8x8 one-channel images with class-conditional bases
torch.manual_seed(0)
L, K, hidden = 2, 2, 8
q0, merges, flows = [], [], []
for i in range(L):
    level = [nf.flows.GlowBlock(2 ** (L + 1 - i), hidden, split_mode="channel", scale=True) for _ in range(K)]
    flows.append(level + [nf.flows.Squeeze()])
    if i > 0:
        merges.append(nf.flows.Merge())
        latent = (2 ** (L - i), 8 // 2 ** (L - i), 8 // 2 ** (L - i))
    else:
        latent = (2 ** (L + 1), 8 // 2 ** L, 8 // 2 ** L)
    q0.append(nf.distributions.ClassCondDiagGaussian(latent, 2))
glow = nf.MultiscaleFlow(q0, flows, merges)
labels = torch.tensor([0, 1, 0, 1, 1, 0])
train("normflows glow", lambda: glow.forward_kld(img, labels), glow.parameters(), lr=1e-2, sgd=True)
with torch.no_grad():
    print("normflows glow log_prob", rl(glow.log_prob(img[:3], labels[:3])))
    torch.manual_seed(1)
    s, lq = glow.sample(2, y=torch.tensor([0, 1]))
print("normflows glow sample", list(s.shape), r(s.sum()), rl(lq))
print("normflows bits per dim", rl(nf.utils.bitsPerDim(glow, img[:3], labels[:3]), 3))

# a residual flow with induced-norm (Lipschitz) layers; the log-determinant by a power series estimator
torch.manual_seed(0)
res_flows = []
for _ in range(2):
    res_flows += [nf.flows.Residual(nf.nets.LipschitzMLP([3, 16, 3], init_zeros=False), reduce_memory=True),
                  nf.flows.ActNorm(3)]
res = nf.NormalizingFlow(nf.distributions.DiagGaussian(3), res_flows)
with torch.no_grad():
    res.forward_kld(x4)  # ActNorm's data-dependent initialization
train("normflows residual", lambda: res.forward_kld(x4), res.parameters())
nf.utils.update_lipschitz(res, 5)
res.eval()
with torch.no_grad():
    torch.manual_seed(2)
    print("normflows residual log_prob", rl(res.log_prob(probe), 3))
    z = res.inverse(probe)
    print("normflows residual invert", r((res.forward(z) - probe).abs().max(), 3))

# circular splines: the first coordinate is an angle in [-pi, pi]
torch.manual_seed(0)
ang = torch.cat([torch.remainder(x4[:, :1] * 2, 2 * np.pi) - np.pi, x4[:, 1:]], 1)
circ = nf.NormalizingFlow(nf.distributions.UniformGaussian(3, [0], torch.tensor([np.pi, 1.0, 1.0])), [
    nf.flows.CircularCoupledRationalQuadraticSpline(3, 1, 16, [0], num_bins=4, tail_bound=torch.tensor([np.pi, 3, 3])),
    nf.flows.Permute(3, mode="shuffle"),
    nf.flows.CircularAutoregressiveRationalQuadraticSpline(3, 1, 16, [0], num_bins=4,
                                                           tail_bound=torch.tensor([np.pi, 3, 3])),
    nf.flows.PeriodicWrap([0], bound=np.pi)])
train("normflows circular", lambda: circ.forward_kld(ang), circ.parameters())
with torch.no_grad():
    print("normflows circular log_prob", rl(circ.log_prob(ang[:3])))
    torch.manual_seed(1)
    s, lq = circ.sample(3)
print("normflows circular sample", list(s.shape), r(s.sum()), rl(lq), bool(s[:, 0].abs().max() <= np.pi))

# a Gaussian-mixture base under an autoregressive flow
torch.manual_seed(0)
gmm = nf.NormalizingFlow(nf.distributions.GaussianMixture(3, 3, loc=rng.standard_normal((3, 3)),
                                                                  trainable=True),
                         [nf.flows.MaskedAffineAutoregressive(3, 16, num_blocks=1), nf.flows.InvertibleAffine(3)])
train("normflows gmm", lambda: gmm.forward_kld(x4), gmm.parameters())
with torch.no_grad():
    torch.manual_seed(1)
    s, lq = gmm.q0(4)  # (its samples are float64, which the float32 flow layers would reject)
    print("normflows gmm", rl(gmm.log_prob(probe)), list(s.shape), s.dtype, r(s.sum()), rl(lq))

# MCMC layers (Metropolis-Hastings, Hamiltonian Monte Carlo) on the TwoMoons target, residual log-determinants by
# exact trace and by brute force, a conditional flow, a Lipschitz CNN and the ring/circular targets
torch.manual_seed(0)
target = nf.distributions.TwoMoons()
print("normflows twomoons sample", r(target.sample(64).sum()))
mh = nf.flows.MetropolisHastings(target, nf.distributions.DiagGaussianProposal((2,), 0.5), 3)
hmc = nf.flows.HamiltonianMonteCarlo(target, 3, torch.full((2,), 0.05), torch.ones(2))
z, ld = mh(torch.randn(8, 2))
print("normflows mh", r(z.sum()), rl(ld[:3]))
z, ld = hmc(torch.randn(8, 2))
print("normflows hmc", r(z.sum()), rl(ld[:3]))
for kw in (dict(exact_trace=True), dict(brute_force=True)):
    layer = nf.flows.Residual(nf.nets.LipschitzMLP([2, 8, 2], init_zeros=False), **kw)
    z, ld = layer(torch.randn(4, 2))
    print("normflows residual", sorted(kw)[0], rl(ld), r(z.sum()))
cond = nf.ConditionalNormalizingFlow(nf.distributions.base.ConditionalDiagGaussian(2, nn.Linear(1, 4)),
                                     [nf.flows.MaskedAffineAutoregressive(2, 8, context_features=1)])
c = torch.rand(16, 1)
xc = torch.randn(16, 2) + c
train("normflows conditional", lambda: cond.forward_kld(xc, c), cond.parameters())
with torch.no_grad():
    s, lq = cond.sample(4, c[:4])
    print("normflows conditional", rl(cond.log_prob(xc[:3], c[:3])), r(s.sum()), rl(lq))
lcnn = nf.nets.LipschitzCNN([1, 4, 1], [3, 3], init_zeros=False)
print("normflows lipschitz cnn", r(lcnn(torch.randn(2, 1, 4, 4)).sum()))
print("normflows targets", rl(nf.distributions.RingMixture().log_prob(torch.randn(3, 2))),
      rl(nf.distributions.CircularGaussianMixture().log_prob(torch.randn(3, 2))))
