"""The distributions added for API parity (StudentT, HalfNormal, Pareto, Geometric, ...): log_prob, cdf,
entropy, mean, variance, mode and sample shapes compared with torch on the same parameters."""

import numpy as np
import pytest

import torchlike
from conftest import torch

# (name, constructor args as a function of a framework T, values at which to evaluate log_prob)
CASES = [
    ("StudentT", lambda T: (T.tensor([3.0, 5.0, 1.5]), T.tensor([0.0, 1.0, -1.0]), T.tensor([1.0, 2.0, 0.5])),
     [0.3, -1.0, 2.0]),
    ("HalfNormal", lambda T: (T.tensor([1.0, 2.0, 0.5]),), [0.3, 1.0, 2.0]),
    ("HalfCauchy", lambda T: (T.tensor([1.0, 2.0, 0.5]),), [0.3, 1.0, 2.0]),
    ("Pareto", lambda T: (T.tensor([1.0, 2.0, 0.5]), T.tensor([3.0, 2.5, 1.5])), [1.3, 2.5, 2.0]),
    ("Weibull", lambda T: (T.tensor([1.0, 2.0, 0.5]), T.tensor([3.0, 2.5, 1.5])), [0.3, 1.0, 2.0]),
    ("Kumaraswamy", lambda T: (T.tensor([1.0, 2.0, 0.5]), T.tensor([3.0, 2.5, 1.5])), [0.3, 0.5, 0.9]),
    ("InverseGamma", lambda T: (T.tensor([3.0, 2.5, 1.5]), T.tensor([1.0, 2.0, 0.5])), [0.3, 1.0, 2.0]),
    ("FisherSnedecor", lambda T: (T.tensor([3.0, 5.0, 6.0]), T.tensor([5.0, 6.0, 9.0])), [0.3, 1.0, 2.0]),
    ("GeneralizedPareto", lambda T: (T.tensor([0.0, 1.0, 0.0]), T.tensor([1.0, 2.0, 0.5]),
                                     T.tensor([0.2, 0.0, -0.3])), [0.3, 1.5, 1.0]),
    ("Geometric", lambda T: (T.tensor([0.2, 0.5, 0.9]),), [0.0, 2.0, 5.0]),
    ("NegativeBinomial", lambda T: (T.tensor([3.0, 5.0, 1.0]), T.tensor([0.2, 0.5, 0.7])), [0.0, 2.0, 5.0]),
]


def _np(x):
    return np.asarray(x.detach().tolist() if hasattr(x, "detach") else x, dtype=np.float64)


def _close(a, b, what):
    np.testing.assert_allclose(_np(a), _np(b), rtol=2e-5, atol=1e-6, equal_nan=True, err_msg=what)


@pytest.mark.parametrize("name,args,vals", CASES, ids=[c[0] for c in CASES])
def test_matches_torch(name, args, vals):
    dt = getattr(torch.distributions, name)(*args(torch))
    dl = getattr(torchlike.distributions, name)(*args(torchlike))
    v_t, v_l = torch.tensor(vals), torchlike.tensor(vals)
    _close(dl.log_prob(v_l), dt.log_prob(v_t), "log_prob")
    for attr in ("mean", "variance", "mode", "stddev"):
        try:
            want = getattr(dt, attr)
        except NotImplementedError:
            continue
        _close(getattr(dl, attr), want, attr)
    for m in ("entropy",):
        try:
            want = getattr(dt, m)()
        except NotImplementedError:
            continue
        _close(getattr(dl, m)(), want, m)
    try:
        want = dt.cdf(v_t)
    except NotImplementedError:
        want = None
    if want is not None:
        _close(dl.cdf(v_l), want, "cdf")
    assert dl.batch_shape == dt.batch_shape and dl.event_shape == dt.event_shape
    s = dl.sample((4,))
    assert tuple(s.shape) == tuple(dt.sample((4,)).shape)
    assert bool(torchlike.isfinite(dl.log_prob(s)).all())
    e = dl.expand((2, 3))
    assert tuple(e.sample().shape) == tuple(dt.expand((2, 3)).sample().shape)
    assert type(dl).__name__ == type(dt).__name__
    assert dl.has_rsample == dt.has_rsample


def test_sample_moments():
    torchlike.manual_seed(0)
    d = torchlike.distributions.StudentT(torchlike.tensor(6.0), 1.0, 2.0)
    s = d.sample((20000,))
    assert abs(float(s.mean()) - 1.0) < 0.1 and abs(float(s.var()) / float(d.variance) - 1) < 0.15
    g = torchlike.distributions.Geometric(torchlike.tensor(0.3)).sample((20000,))
    assert abs(float(g.mean()) - (1 / 0.3 - 1)) < 0.15


def test_rsample_gradient_flows():
    scale = torchlike.tensor([1.5], requires_grad=True)
    torchlike.distributions.HalfNormal(scale).rsample((10,)).sum().backward()
    assert scale.grad is not None and bool(torchlike.isfinite(scale.grad).all())


def test_multinomial_matches_torch():
    p = [0.2, 0.3, 0.5]
    dt = torch.distributions.Multinomial(5, torch.tensor(p))
    dl = torchlike.distributions.Multinomial(5, torchlike.tensor(p))
    v = [1.0, 1.0, 3.0]
    _close(dl.log_prob(torchlike.tensor(v)), dt.log_prob(torch.tensor(v)), "log_prob")
    _close(dl.mean, dt.mean, "mean")
    _close(dl.variance, dt.variance, "variance")
    _close(dl.entropy(), dt.entropy(), "entropy")
    s = dl.sample((7,))
    assert tuple(s.shape) == (7, 3) and bool((s.sum(-1) == 5).all())


# (transform constructor over a framework T, input x)
TRANSFORMS = [
    ("SoftplusTransform()", [[-1.0, 0.5, 2.0]]),
    ("SoftmaxTransform()", [[-1.0, 0.5, 2.0]]),
    ("StickBreakingTransform()", [[-1.0, 0.5, 2.0]]),
    ("LowerCholeskyTransform()", [[[0.5, 2.0], [-1.0, 0.3]]]),
    ("PositiveDefiniteTransform()", [[[0.5, 2.0], [-1.0, 0.3]]]),
    ("CorrCholeskyTransform()", [[0.3, -0.4, 0.8]]),
    ("ReshapeTransform((2, 3), (3, 2))", [[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]]),
    ("IndependentTransform(D.ExpTransform(), 1)", [[0.1, 0.2, -0.3]]),
    ("CatTransform([D.ExpTransform(), D.AffineTransform(1.0, 2.0)], 0, [1, 2])", [[0.1, 0.2, -0.3]]),
    ("StackTransform([D.ExpTransform(), D.SigmoidTransform()], 0)", [[0.1, 0.2], [-0.3, 0.4]]),
    ("CumulativeDistributionTransform(T.distributions.Normal(0.0, 1.0))", [[0.1, 0.2, -0.3]]),
]


@pytest.mark.parametrize("expr,x", TRANSFORMS, ids=[t[0].split("(")[0] for t in TRANSFORMS])
def test_transform_matches_torch(expr, x):
    outs = []
    for T in (torch, torchlike):
        D = T.distributions.transforms
        t = eval("D." + expr, {"D": D, "T": T})  # noqa: S307
        xx = T.tensor(x[0] if len(x) == 1 else x)
        y = t(xx)
        r = {"y": y, "domain": t.domain.event_dim, "codomain": t.codomain.event_dim, "bij": t.bijective,
             "fs": tuple(t.forward_shape(tuple(xx.shape))), "is": tuple(t.inverse_shape(tuple(y.shape)))}
        if t.bijective:
            r["inv"] = t.inv(y)
            r["ladj"] = t.log_abs_det_jacobian(xx, y)
        outs.append(r)
    tt, ll = outs
    for k in tt:
        if k in ("y", "inv", "ladj"):
            _close(ll[k], tt[k], k)
        else:
            assert ll[k] == tt[k], k


def test_biject_to_and_transform_to_match_torch():
    for c in ["real", "positive", "nonnegative", "greater_than(1.0)", "less_than(2.0)", "unit_interval",
              "interval(1.0, 3.0)", "simplex", "corr_cholesky", "real_vector", "independent(constraints.positive, 1)"]:
        for reg in ("biject_to", "transform_to"):
            res = []
            for T in (torch, torchlike):
                cons = eval("constraints." + c, {"constraints": T.distributions.constraints})  # noqa: S307
                t = getattr(T.distributions, reg)(cons)
                x = T.tensor([0.3, -0.2, 0.9])
                y = t(x)
                res.append((repr(t).replace(" ", "").replace("\n", ""), y))
            assert res[0][0] == res[1][0], (c, reg)
            _close(res[1][1], res[0][1], f"{reg}({c})")
    with pytest.raises(NotImplementedError, match="Cannot transform _LowerCholesky constraints"):
        torchlike.distributions.biject_to(torchlike.distributions.constraints.lower_cholesky)


CASES2 = [
    ("ContinuousBernoulli", lambda T: (T.tensor([0.2, 0.5, 0.9]),), [0.3, 0.5, 0.9]),
    ("VonMises", lambda T: (T.tensor([0.0, 1.0, -1.0]), T.tensor([0.5, 2.0, 4.0])), [0.3, 1.0, -2.0]),
    ("LogisticNormal", lambda T: (T.tensor([0.0, 1.0]), T.tensor([0.5, 2.0])), [[0.2, 0.3, 0.5]]),
    ("LowRankMultivariateNormal", lambda T: (T.tensor([0.0, 1.0, 2.0]), T.tensor([[1.0], [0.5], [-1.0]]),
                                             T.tensor([1.0, 2.0, 0.5])), [[0.3, 1.0, -2.0]]),
]


@pytest.mark.parametrize("name,args,vals", CASES2, ids=[c[0] for c in CASES2])
def test_more_matches_torch(name, args, vals):
    test_matches_torch(name, args, vals)


def test_low_rank_mvn_matrices_match_torch():
    a = lambda T: (T.tensor([0.0, 1.0, 2.0]), T.tensor([[1.0, 0.2], [0.5, 0.1], [-1.0, 0.3]]),  # noqa: E731
                   T.tensor([1.0, 2.0, 0.5]))
    dt = torch.distributions.LowRankMultivariateNormal(*a(torch))
    dl = torchlike.distributions.LowRankMultivariateNormal(*a(torchlike))
    for k in ("covariance_matrix", "precision_matrix", "scale_tril"):
        _close(getattr(dl, k), getattr(dt, k), k)


def test_mixture_same_family_matches_torch():
    def make(T):
        mix = T.distributions.Categorical(T.tensor([[0.3, 0.7], [0.5, 0.5]]))
        comp = T.distributions.Normal(T.tensor([[-1.0, 1.0], [0.0, 2.0]]), T.tensor([[1.0, 0.5], [2.0, 1.0]]))
        return T.distributions.MixtureSameFamily(mix, comp)
    dt, dl = make(torch), make(torchlike)
    v = [0.3, -0.5]
    _close(dl.log_prob(torchlike.tensor(v)), dt.log_prob(torch.tensor(v)), "log_prob")
    _close(dl.cdf(torchlike.tensor(v)), dt.cdf(torch.tensor(v)), "cdf")
    _close(dl.mean, dt.mean, "mean")
    _close(dl.variance, dt.variance, "variance")
    assert tuple(dl.sample((5,)).shape) == tuple(dt.sample((5,)).shape) == (5, 2)
