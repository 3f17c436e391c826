"""kl_divergence vs torch.distributions for every (type_p, type_q) pair torch registers: values (inf where
torch's is), gradients, float64, the registry's key set, dispatch of subclasses and the ambiguity warning,
and the errors (cross exponential families, Binomial counts, event shapes)."""
import warnings

import numpy as np
import pytest
import torch
import torch.distributions as PD
import torch.distributions.kl as PKL

import torchlike
import torchlike.distributions as TD
import torchlike.distributions.kl as TKL

_rng = np.random.default_rng(0)


def _u(lo, hi, shape=(3,)):
    return _rng.uniform(lo, hi, shape)


def _tril(shape):
    m = np.tril(_rng.normal(size=shape)) * 0.3
    idx = np.arange(shape[-1])
    m[..., idx, idx] = _u(0.5, 1.5, shape[:-1])
    return m


# class name -> (kwargs for the p role, kwargs for the q role); the first float kwarg gets the gradient.
# Supports are chosen so the support checks give a mix of finite and infinite entries.
PARAMS = {
    "Bernoulli": [{"probs": _u(0.1, 0.9)} for _ in range(2)],
    "Beta": [{"concentration1": _u(0.5, 2), "concentration0": _u(0.5, 2)} for _ in range(2)],
    "Binomial": [{"total_count": np.full(3, 5.0), "probs": _u(0.1, 0.9)} for _ in range(2)],
    "Categorical": [{"probs": _rng.dirichlet(np.ones(4), 3)} for _ in range(2)],
    "Cauchy": [{"loc": _rng.normal(size=3), "scale": _u(0.5, 2)} for _ in range(2)],
    "ContinuousBernoulli": [{"probs": np.array([0.2, 0.7, 0.9])}, {"probs": np.array([0.35, 0.1, 0.8])}],
    "Dirichlet": [{"concentration": _u(0.5, 2, (3, 4))} for _ in range(2)],
    "Exponential": [{"rate": _u(0.5, 2)} for _ in range(2)],
    "Gamma": [{"concentration": _u(0.5, 2), "rate": _u(0.5, 2)} for _ in range(2)],
    "Geometric": [{"probs": _u(0.1, 0.9)} for _ in range(2)],
    "Gumbel": [{"loc": _rng.normal(size=3), "scale": _u(0.5, 2)} for _ in range(2)],
    "HalfNormal": [{"scale": _u(0.5, 2)} for _ in range(2)],
    "Laplace": [{"loc": _rng.normal(size=3), "scale": _u(0.5, 2)} for _ in range(2)],
    "LowRankMultivariateNormal": [{"loc": _rng.normal(size=(3, 4)), "cov_factor": _rng.normal(size=(3, 4, 2)) * 0.5,
                                   "cov_diag": _u(0.5, 2, (3, 4))} for _ in range(2)],
    "MultivariateNormal": [{"loc": _rng.normal(size=(3, 4)), "scale_tril": _tril((3, 4, 4))} for _ in range(2)],
    "Normal": [{"loc": _rng.normal(size=3), "scale": _u(0.5, 2)} for _ in range(2)],
    "OneHotCategorical": [{"probs": _rng.dirichlet(np.ones(4), 3)} for _ in range(2)],
    # alpha <= 1 (no mean), 1 < alpha <= 2 (no variance), alpha > 2
    "Pareto": [{"scale": np.array([0.05, 0.5, 0.4]), "alpha": np.array([0.8, 1.7, 3.5])},
               {"scale": np.array([0.04, 0.7, 0.3]), "alpha": np.array([2.5, 1.2, 0.9])}],
    "Poisson": [{"rate": _u(0.5, 4)} for _ in range(2)],
    "Uniform": [{"low": np.array([0.1, -0.2, 0.6]), "high": np.array([0.8, 0.9, 1.3])},
                {"low": np.array([-0.5, 0.1, -1.0]), "high": np.array([1.5, 2.0, 0.8])}],
}
# registry keys that are base classes: the concrete class the test builds for them
CONCRETE = {"TransformedDistribution": "LogNormal", "Independent": "Independent"}
PARAMS["LogNormal"] = [{"loc": _rng.normal(size=3), "scale": _u(0.5, 2)} for _ in range(2)]
PARAMS["Independent"] = [{"loc": _rng.normal(size=(3, 2)), "scale": _u(0.5, 2, (3, 2))} for _ in range(2)]

TORCH_PAIRS = sorted((p.__name__, q.__name__) for p, q in PKL._KL_REGISTRY)


def _build(lib, name, kwargs, dtype, grad):
    """(distribution, the leaf tensor that requires grad or None) in torch (lib=torch) or torchlike."""
    dist_mod = PD if lib is torch else TD
    tensors, leaf = {}, None
    for k, v in kwargs.items():
        t = lib.tensor(v, dtype=dtype)
        if grad and leaf is None and k != "total_count":
            t.requires_grad_(True)
            leaf = t
        tensors[k] = t
    if name == "Independent":
        return dist_mod.Independent(dist_mod.Normal(tensors["loc"], tensors["scale"]), 1), leaf
    return getattr(dist_mod, name)(**tensors), leaf


def _kl_both(pname, qname, dtype="float32", grad=True, p_kw=None, q_kw=None):
    p_kw = PARAMS[pname][0] if p_kw is None else p_kw
    q_kw = PARAMS[qname][1] if q_kw is None else q_kw
    out = []
    for lib in (torchlike, torch):
        dt = getattr(lib, dtype)
        p, p_leaf = _build(lib, pname, p_kw, dt, grad)
        q, q_leaf = _build(lib, qname, q_kw, dt, grad)
        kl = lib.distributions.kl_divergence(p, q)
        grads = []
        if grad and kl.requires_grad:
            finite = lib.where(lib.isfinite(kl), kl, lib.zeros_like(kl))
            grads = lib.autograd.grad(finite.sum(), [p_leaf, q_leaf], allow_unused=True)
        out.append((kl, grads))
    return out


def _np(t):
    return None if t is None else t.detach().cpu().numpy() if hasattr(t, "cpu") else np.asarray(t.detach())


def _check(pname, qname, **kw):
    (k_ours, g_ours), (k_torch, g_torch) = _kl_both(pname, qname, **kw)
    assert tuple(k_ours.shape) == tuple(k_torch.shape)
    assert str(k_ours.dtype) == str(k_torch.dtype)
    np.testing.assert_allclose(_np(k_ours), _np(k_torch), rtol=1e-5, atol=1e-6)
    assert len(g_ours) == len(g_torch)
    for go, gt in zip(g_ours, g_torch):
        assert (go is None) == (gt is None)
        if gt is not None:
            np.testing.assert_allclose(_np(go), _np(gt), rtol=1e-4, atol=1e-5, equal_nan=True)
    return k_torch


def test_registry_keys_match_torch():
    def own(c):  # (a doctest or a user may register pairs of classes of their own: those are not torch's)
        return getattr(TD, c.__name__, None) is c or c.__name__ == "ExponentialFamily"
    ours = sorted((p.__name__, q.__name__) for p, q in TKL._KL_REGISTRY if own(p) and own(q))
    assert ours == TORCH_PAIRS
    assert len(ours) == 87
    # torch appends the pair list to kl_divergence's docstring
    assert all(f"{p} and {q}" in TD.kl_divergence.__doc__ for p, q in TORCH_PAIRS)


@pytest.mark.parametrize("pair", [pq for pq in TORCH_PAIRS if pq != ("ExponentialFamily", "ExponentialFamily")],
                         ids="-".join)
def test_kl_pair_matches_torch(pair):
    pname, qname = (CONCRETE.get(n, n) for n in pair)
    _check(pname, qname)


def test_infinite_and_mixed_entries_are_tested():
    # the support checks really produce both kinds of entries with these parameters
    for pq in [("Uniform", "Beta"), ("Uniform", "Pareto"), ("Pareto", "Normal"), ("Uniform", "Uniform")]:
        kl = _check(*pq)
        assert torch.isinf(kl).any() and torch.isfinite(kl).any(), pq


@pytest.mark.parametrize("pair", [("Normal", "Laplace"), ("Uniform", "Gamma"), ("Pareto", "Gamma"),
                                  ("LowRankMultivariateNormal", "MultivariateNormal"), ("Gamma", "Gumbel"),
                                  ("ContinuousBernoulli", "ContinuousBernoulli"), ("Binomial", "Binomial")],
                         ids="-".join)
def test_kl_float64(pair):
    _check(*pair, dtype="float64")


@pytest.mark.parametrize("name", ["Bernoulli", "Beta", "ContinuousBernoulli", "Dirichlet", "Exponential", "Gamma",
                                  "Normal", "Poisson"])
def test_bregman_kl_through_natural_params(name):
    # torch's generic exponential-family KL (autograd of the log-normalizer) on each family's natural params
    res = []
    for lib, fn in ((torchlike, TKL._KL_REGISTRY[TD.ExponentialFamily, TD.ExponentialFamily]),
                    (torch, PKL._kl_expfamily_expfamily)):
        p, _ = _build(lib, name, PARAMS[name][0], lib.float64, False)
        q, leaf = _build(lib, name, PARAMS[name][1], lib.float64, True)
        kl = fn(p, q)
        res.append((kl, lib.autograd.grad(kl.sum(), leaf)[0]))
    (ko, go), (kt, gt) = res
    np.testing.assert_allclose(_np(ko), _np(kt), rtol=1e-5, atol=1e-8)
    np.testing.assert_allclose(_np(go), _np(gt), rtol=1e-5, atol=1e-8)


def test_expfamily_pair_dispatch_wishart():
    # Wishart has no closed form registered: kl_divergence goes through the Bregman divergence
    rng = np.random.default_rng(1)
    a, b = rng.normal(size=(2, 3, 3))
    cov_p, cov_q = a @ a.T + 3 * np.eye(3), b @ b.T + 3 * np.eye(3)
    vals = []
    for lib, D in ((torchlike, TD), (torch, PD)):
        p = D.Wishart(df=lib.tensor(5.0, dtype=lib.float64), covariance_matrix=lib.tensor(cov_p))
        q = D.Wishart(df=lib.tensor(6.0, dtype=lib.float64), covariance_matrix=lib.tensor(cov_q))
        vals.append(_np(D.kl_divergence(p, q)))
    np.testing.assert_allclose(vals[0], vals[1], rtol=1e-6)


def _raises_like_torch(make):
    with pytest.raises(Exception) as theirs:
        make(torch, PD)
    with pytest.raises(type(theirs.value)) as ours:
        make(torchlike, TD)
    assert str(ours.value) == str(theirs.value)


def test_cross_exponential_family_raises_like_torch():
    _raises_like_torch(lambda lib, D: D.kl_divergence(D.Normal(0.0, 1.0), D.Poisson(lib.tensor(1.0))))
    _raises_like_torch(lambda lib, D: D.kl_divergence(D.Exponential(lib.tensor(1.0)),
                                                      D.Dirichlet(lib.tensor([1.0, 2.0]))))


def test_binomial_counts():
    _raises_like_torch(lambda lib, D: D.kl_divergence(D.Binomial(2, lib.tensor([0.3])),
                                                      D.Binomial(3, lib.tensor([0.3]))))
    kls = [_np(D.kl_divergence(D.Binomial(lib.tensor([4.0, 3.0]), lib.tensor([0.3, 0.6])),
                               D.Binomial(lib.tensor([3.0, 3.0]), lib.tensor([0.5, 0.2]))))
           for lib, D in ((torchlike, TD), (torch, PD))]
    np.testing.assert_allclose(kls[0], kls[1], rtol=1e-5)
    assert np.isinf(kls[0][0]) and np.isfinite(kls[0][1])


def test_event_shape_mismatch_raises_like_torch():
    def lowrank(lib, D, n):
        return D.LowRankMultivariateNormal(lib.zeros(n), lib.ones(n, 1), lib.ones(n))

    def mvn(lib, D, n):
        return D.MultivariateNormal(lib.zeros(n), lib.eye(n))

    for mk_p, mk_q in [(lowrank, lowrank), (lowrank, mvn), (mvn, lowrank)]:
        _raises_like_torch(lambda lib, D: D.kl_divergence(mk_p(lib, D, 2), mk_q(lib, D, 3)))


def test_transformed_needs_same_transforms():
    def make(lib, D):
        p = D.TransformedDistribution(D.Normal(lib.tensor(0.0), lib.tensor(1.0)), [D.ExpTransform()])
        q = D.TransformedDistribution(D.Normal(lib.tensor(0.0), lib.tensor(1.0)), [D.SigmoidTransform()])
        return D.kl_divergence(p, q)
    _raises_like_torch(make)


def test_broadcasting_scalar_p_batched_q():
    # p scalar, q batch of 3: closed forms broadcast, infinite pairs keep p's shape (torch's full_like(p.param))
    for pq in [("Normal", "Laplace"), ("Normal", "Beta"), ("Exponential", "Gumbel"), ("Uniform", "Normal")]:
        p_kw = {k: v[0] for k, v in PARAMS[pq[0]][0].items()}
        _check(*pq, p_kw=p_kw)


def test_subclass_dispatch_and_ambiguity_warning():
    class MyNormal(TD.Normal):
        pass

    # a subclass uses its base's closed form
    ko = TD.kl_divergence(MyNormal(torchlike.tensor(0.0), torchlike.tensor(1.0)),
                          TD.Laplace(torchlike.tensor(1.0), torchlike.tensor(2.0)))
    kt = PD.kl_divergence(PD.Normal(torch.tensor(0.0), torch.tensor(1.0)),
                          PD.Laplace(torch.tensor(1.0), torch.tensor(2.0)))
    assert float(ko) == pytest.approx(float(kt), rel=1e-6)

    class A(TD.Normal):
        pass

    class B(TD.Normal):
        pass

    TD.register_kl(A, TD.Normal)(lambda p, q: torchlike.tensor(1.0))
    TD.register_kl(TD.Normal, B)(lambda p, q: torchlike.tensor(2.0))
    try:
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            TD.kl_divergence(A(0.0, 1.0), B(0.0, 1.0))
        assert any("Ambiguous kl_divergence(A, B). Please register_kl(A, B)" in str(x.message) for x in w)
    finally:
        del TKL._KL_REGISTRY[A, TD.Normal], TKL._KL_REGISTRY[TD.Normal, B]
        TKL._KL_MEMOIZE.clear()


def test_gumbel_is_a_transformed_distribution_like_torch():
    """torch's Gumbel is a TransformedDistribution of a Uniform: pairs that reach it through
    (TransformedDistribution, TransformedDistribution) raise its message-less NotImplementedError, and its
    reparameterised samples go through the same transforms (the same numbers)."""
    for lib, D in ((torchlike, TD), (torch, PD)):
        assert isinstance(D.Gumbel(0.0, 1.0), D.TransformedDistribution)
    _raises_like_torch(lambda lib, D: D.kl_divergence(D.Gumbel(0.0, 1.0), D.LogNormal(0.0, 1.0)))
    _raises_like_torch(lambda lib, D: D.kl_divergence(D.LogNormal(0.0, 1.0), D.Gumbel(0.0, 1.0)))
    draws = []
    for lib, D in ((torchlike, TD), (torch, PD)):
        lib.manual_seed(3)
        g = D.Gumbel(lib.tensor([0.0, 1.0]), lib.tensor([1.0, 2.0])).expand((4, 2))
        draws.append((_np(g.rsample((3,))), _np(g.cdf(lib.tensor([0.3, -0.2]))), _np(g.icdf(lib.tensor([0.3, 0.9])))))
    for ours, theirs in zip(*draws):
        np.testing.assert_allclose(ours, theirs, rtol=1e-6, atol=1e-7)
