"""torchlike.distributions vs torch.distributions: densities, moments, KL, gradients, shapes, errors; the
families added for API parity (StudentT, HalfNormal, Pareto, Geometric, ...), transforms, biject_to."""
import numpy as np
import pytest
import torch

import torchlike
import torchlike.distributions as TD
import torch.distributions as PD
from conftest import assert_same

rng = np.random.default_rng(0)
A = rng.uniform(0.5, 2.0, (3, 4)).astype(np.float32)
B = rng.uniform(0.5, 2.0, (3, 4)).astype(np.float32)
U = rng.uniform(0.1, 0.9, (3, 4)).astype(np.float32)
N = rng.normal(size=(3, 4)).astype(np.float32)
P = rng.dirichlet(np.ones(4), 3).astype(np.float32)


def _both(a, grad=False):
    return (torchlike.tensor(a, requires_grad=grad), torch.tensor(a, requires_grad=grad))


# name -> (constructor args as numpy arrays (first one gets grad), value for log_prob)
CASES = {
    "Normal": ((N, A), N * 0.5),
    "Laplace": ((N, A), N * 0.5),
    "Cauchy": ((N, A), N * 0.5),
    "Gumbel": ((N, A), N * 0.5),
    "Uniform": ((N - 1.0, N + A), N),
    "Exponential": ((A,), B),
    "Gamma": ((A, B), U),
    "Beta": ((A, B), U),
    "LogNormal": ((N, A), B),
    "Poisson": ((A * 3,), np.floor(B * 2)),
    "Chi2": ((A * 2,), B),
}
PROPS = ("mean", "mode", "variance", "stddev")


@pytest.mark.parametrize("name", sorted(CASES))
def test_univariate_matches_torch(name):
    args, value = CASES[name]
    ours = [_both(a, grad=(i == 0 and name != "Uniform")) for i, a in enumerate(args)]
    t = getattr(TD, name)(*[o[0] for o in ours])
    p = getattr(PD, name)(*[o[1] for o in ours])
    assert t.batch_shape == p.batch_shape and t.event_shape == p.event_shape
    v = _both(value)
    lt, lp = t.log_prob(v[0]), p.log_prob(v[1])
    assert_same(lt, lp, rtol=1e-5, atol=1e-5)
    for prop in PROPS:
        try:
            expected = getattr(p, prop)
        except NotImplementedError:
            continue
        assert_same(getattr(t, prop), expected, rtol=1e-5, atol=1e-5)
    for meth in ("entropy", "cdf"):
        try:
            expected = getattr(p, meth)() if meth == "entropy" else p.cdf(v[1])
        except NotImplementedError:
            continue
        assert_same(getattr(t, meth)() if meth == "entropy" else t.cdf(v[0]), expected, rtol=1e-4, atol=1e-4)
    if name in ("Normal", "Laplace", "Cauchy", "Gumbel", "Uniform", "Exponential"):
        q = torch.tensor(U)
        assert_same(t.icdf(torchlike.tensor(U)), p.icdf(q), rtol=1e-4, atol=1e-4)
    if ours[0][0].requires_grad:
        g1, = torchlike.autograd.grad(lt.sum(), ours[0][0])
        g2, = torch.autograd.grad(lp.sum(), ours[0][1])
        assert_same(g1, g2, rtol=1e-4, atol=1e-4)
    s = t.sample((5,))
    assert tuple(s.shape) == (5, 3, 4) and str(s.dtype) == str(p.sample((5,)).dtype)
    e = t.expand((2, 3, 4))
    assert e.batch_shape == p.expand((2, 3, 4)).batch_shape
    assert_same(e.log_prob(v[0]), p.expand((2, 3, 4)).log_prob(v[1]), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("name,args,atol", [("Normal", (1.5, 2.0), 0.05), ("Gamma", (2.0, 3.0), 0.02),
                                            ("Exponential", (2.0,), 0.02),
                                            ("Laplace", (1.0, 0.5), 0.03), ("Uniform", (-1.0, 3.0), 0.05),
                                            ("LogNormal", (0.0, 0.5), 0.05)])
def test_sample_statistics(name, args, atol):
    torchlike.manual_seed(0)
    t = getattr(TD, name)(*args)
    p = getattr(PD, name)(*args)
    s = t.sample((20000,))
    assert s.shape == (20000,) and str(s.dtype) == str(p.sample().dtype)
    assert abs(float(s.mean()) - float(p.mean)) < atol * 3
    assert abs(float(s.var()) - float(p.variance)) < float(p.variance) * 0.1


def test_rsample_gradients():
    loc = torchlike.tensor([1.0, 2.0], requires_grad=True)
    scale = torchlike.tensor([0.5, 1.5], requires_grad=True)
    d = TD.Normal(loc, scale)
    x = d.rsample((7,))
    assert x.requires_grad and x.shape == (7, 2)
    x.sum().backward()
    np.testing.assert_allclose(loc.grad.numpy(), [7.0, 7.0])
    eps = (x.detach() - loc.detach()) / scale.detach()
    np.testing.assert_allclose(scale.grad.numpy(), eps.sum(0).numpy(), rtol=1e-5)
    # gamma / dirichlet (and so beta) rsample are reparameterized through the concentration
    c = torchlike.tensor([2.0, 3.0], requires_grad=True)
    for dist in (TD.Gamma(c, 1.0), TD.Dirichlet(c)):  # one shape: one gamma compile
        g, = torchlike.autograd.grad(dist.rsample((4,)).sum(), c)
        assert np.all(np.isfinite(g.numpy()))
    assert not TD.Normal(loc, scale).sample().requires_grad


def test_discrete_matches_torch():
    for kw in ({"probs": U}, {"logits": N}):
        t = TD.Bernoulli(**{k: torchlike.tensor(v) for k, v in kw.items()})
        p = PD.Bernoulli(**{k: torch.tensor(v) for k, v in kw.items()})
        val = (U > 0.5).astype(np.float32)
        assert_same(t.log_prob(torchlike.tensor(val)), p.log_prob(torch.tensor(val)), rtol=1e-5, atol=1e-5)
        for prop in ("mean", "variance", "probs", "logits"):
            assert_same(getattr(t, prop), getattr(p, prop), rtol=1e-5, atol=1e-5)
        assert_same(t.entropy(), p.entropy(), rtol=1e-5, atol=1e-5)
        assert_same(t.enumerate_support(), p.enumerate_support(), rtol=1e-5, atol=1e-5)
        tc = TD.Categorical(**{k: torchlike.tensor(v if k == "logits" else P) for k, v in kw.items()})
        pc = PD.Categorical(**{k: torch.tensor(v if k == "logits" else P) for k, v in kw.items()})
        idx = np.array([0, 3, 1])
        assert_same(tc.log_prob(torchlike.tensor(idx)), pc.log_prob(torch.tensor(idx)), rtol=1e-5, atol=1e-5)
        assert_same(tc.entropy(), pc.entropy(), rtol=1e-5, atol=1e-5)
        assert_same(tc.probs, pc.probs, rtol=1e-5, atol=1e-5)
        assert_same(tc.logits, pc.logits, rtol=1e-5, atol=1e-5)
        assert tc.batch_shape == pc.batch_shape
        assert tc.sample((2, 5)).shape == pc.sample((2, 5)).shape
        assert str(tc.sample().dtype) == str(pc.sample().dtype)
        assert_same(tc.enumerate_support(), pc.enumerate_support(), rtol=1e-5, atol=1e-5)
        assert_same(tc.mode, pc.mode, rtol=1e-5, atol=1e-5)
        to = TD.OneHotCategorical(**{k: torchlike.tensor(v if k == "logits" else P) for k, v in kw.items()})
        po = PD.OneHotCategorical(**{k: torch.tensor(v if k == "logits" else P) for k, v in kw.items()})
        oh = np.eye(4, dtype=np.float32)[idx]
        assert_same(to.log_prob(torchlike.tensor(oh)), po.log_prob(torch.tensor(oh)), rtol=1e-5, atol=1e-5)
        assert_same(to.entropy(), po.entropy(), rtol=1e-5, atol=1e-5)
        assert_same(to.mode, po.mode, rtol=1e-5, atol=1e-5)
        assert to.sample((6,)).shape == po.sample((6,)).shape
    n = np.full((3, 4), 10.0, np.float32)
    t, p = TD.Binomial(torchlike.tensor(n), torchlike.tensor(U)), PD.Binomial(torch.tensor(n), torch.tensor(U))
    val = np.floor(U * 10)
    assert_same(t.log_prob(torchlike.tensor(val)), p.log_prob(torch.tensor(val)), rtol=1e-5, atol=1e-5)
    assert_same(t.entropy(), p.entropy(), rtol=1e-4, atol=1e-4)
    assert_same(t.mean, p.mean, rtol=1e-5, atol=1e-5)
    assert_same(t.mode, p.mode, rtol=1e-5, atol=1e-5)
    s = t.sample((3,))
    assert s.shape == (3, 3, 4) and float(s.max()) <= 10 and float(s.min()) >= 0


def test_logits_gradients():
    lt, lp = _both(N, grad=True)
    idx = np.array([0, 3, 1])
    a = TD.Categorical(logits=lt).log_prob(torchlike.tensor(idx)).sum() + TD.Bernoulli(logits=lt).entropy().sum()
    b = PD.Categorical(logits=lp).log_prob(torch.tensor(idx)).sum() + PD.Bernoulli(logits=lp).entropy().sum()
    assert_same(torchlike.autograd.grad(a, lt)[0], torch.autograd.grad(b, lp)[0], rtol=1e-4, atol=1e-4)


def _mvn_params():
    m = rng.normal(size=(2, 3, 3))
    cov = (m @ m.transpose(0, 2, 1) + 3 * np.eye(3)).astype(np.float64)
    return rng.normal(size=(2, 3)), cov


def test_multivariate_normal():
    loc, cov = _mvn_params()
    val = rng.normal(size=(5, 2, 3))
    for kw in ("covariance_matrix", "scale_tril", "precision_matrix"):
        m = {"covariance_matrix": cov, "scale_tril": np.linalg.cholesky(cov),
             "precision_matrix": np.linalg.inv(cov)}[kw]
        tl, pl = _both(loc, grad=True)
        t = TD.MultivariateNormal(tl, **{kw: torchlike.tensor(m)})
        p = PD.MultivariateNormal(pl, **{kw: torch.tensor(m)})
        assert t.batch_shape == p.batch_shape and t.event_shape == p.event_shape
        lt, lp = t.log_prob(torchlike.tensor(val)), p.log_prob(torch.tensor(val))
        assert_same(lt, lp, rtol=1e-8, atol=1e-8)
        assert_same(torchlike.autograd.grad(lt.sum(), tl)[0],
                    torch.autograd.grad(lp.sum(), pl)[0], rtol=1e-8, atol=1e-8)
        for prop in ("mean", "variance", "covariance_matrix", "scale_tril", "precision_matrix"):
            assert_same(getattr(t, prop), getattr(p, prop), rtol=1e-8, atol=1e-8)
        assert_same(t.entropy(), p.entropy(), rtol=1e-8, atol=1e-8)
        assert t.rsample((4,)).shape == p.rsample((4,)).shape
    # one loc, a batch of scales broadcast together
    t = TD.MultivariateNormal(torchlike.tensor(loc[0]), torchlike.tensor(cov))
    p = PD.MultivariateNormal(torch.tensor(loc[0]), torch.tensor(cov))
    assert_same(t.log_prob(torchlike.tensor(val)), p.log_prob(torch.tensor(val)), rtol=1e-8, atol=1e-8)
    assert t.expand((4, 2)).batch_shape == p.expand((4, 2)).batch_shape


def test_dirichlet_independent_relaxed():
    ct, cp = _both(A, grad=True)
    t, p = TD.Dirichlet(ct), PD.Dirichlet(cp)
    lt, lp = t.log_prob(torchlike.tensor(P)), p.log_prob(torch.tensor(P))
    assert_same(lt, lp, rtol=1e-4, atol=1e-4)
    assert_same(torchlike.autograd.grad(lt.sum(), ct)[0], torch.autograd.grad(lp.sum(), cp)[0], rtol=1e-4, atol=1e-4)
    for prop in ("mean", "variance", "mode"):
        assert_same(getattr(t, prop), getattr(p, prop), rtol=1e-5, atol=1e-5)
    assert_same(TD.Dirichlet(torchlike.tensor(A * 0.3)).mode,
                PD.Dirichlet(torch.tensor(A * 0.3)).mode, rtol=1e-5, atol=1e-5)
    assert_same(t.entropy(), p.entropy(), rtol=1e-4, atol=1e-4)
    s = t.sample((2,))
    assert s.shape == (2, 3, 4) and np.allclose(s.sum(-1).numpy(), 1, atol=1e-5)
    ti = TD.Independent(TD.Normal(torchlike.tensor(N), torchlike.tensor(A)), 1)
    pi = PD.Independent(PD.Normal(torch.tensor(N), torch.tensor(A)), 1)
    assert ti.batch_shape == pi.batch_shape and ti.event_shape == pi.event_shape
    assert_same(ti.log_prob(torchlike.tensor(B)), pi.log_prob(torch.tensor(B)), rtol=1e-5, atol=1e-5)
    assert_same(ti.entropy(), pi.entropy(), rtol=1e-5, atol=1e-5)
    assert ti.expand((2, 3)).batch_shape == pi.expand((2, 3)).batch_shape
    temp = 0.7
    tr = TD.RelaxedOneHotCategorical(torchlike.tensor(temp), probs=torchlike.tensor(P))
    pr = PD.RelaxedOneHotCategorical(torch.tensor(temp), probs=torch.tensor(P))
    assert_same(tr.log_prob(torchlike.tensor(P)), pr.log_prob(torch.tensor(P)), rtol=1e-4, atol=1e-4)
    assert tr.rsample((2,)).shape == pr.rsample((2,)).shape
    tb = TD.RelaxedBernoulli(torchlike.tensor(temp), probs=torchlike.tensor(U))
    pb = PD.RelaxedBernoulli(torch.tensor(temp), probs=torch.tensor(U))
    assert_same(tb.log_prob(torchlike.tensor(B / 3)), pb.log_prob(torch.tensor(B / 3)), rtol=1e-4, atol=1e-4)


def _pairs():
    c1, c2 = (np.float32(1.3), A), (B, np.float32(0.7))
    return {
        "Normal": ((N, A), (N * 0.3, B)), "Laplace": ((N, A), (N * 0.3, B)), "Gumbel": ((N, A), (N * 0.3, B)),
        "Exponential": ((A,), (B,)), "Gamma": ((A, B), (B, A)), "Beta": ((A, B), (B, A)),
        "Poisson": ((A,), (B,)), "Uniform": ((N - 1, N + 1), (N - 2, N + 2)), "Dirichlet": ((A,), (B,)),
        "Bernoulli": ((U,), (U[::-1].copy(),)), "Categorical": ((P,), (P[::-1].copy(),)),
        "OneHotCategorical": ((P,), (P[::-1].copy(),)),
    }, c1, c2


@pytest.mark.parametrize("name", sorted(_pairs()[0]))
def test_kl_matches_torch(name):
    pa, qa = _pairs()[0][name]
    tpa = [_both(a, grad=(i == 0 and name != "Uniform")) for i, a in enumerate(pa)]
    kt = TD.kl_divergence(getattr(TD, name)(*[x[0] for x in tpa]), getattr(TD, name)(*[torchlike.tensor(a) for a in qa]))
    kp = PD.kl_divergence(getattr(PD, name)(*[x[1] for x in tpa]), getattr(PD, name)(*[torch.tensor(a) for a in qa]))
    assert_same(kt, kp, rtol=1e-4, atol=1e-4)
    if tpa[0][0].requires_grad:
        assert_same(torchlike.autograd.grad(kt.sum(), tpa[0][0])[0],
                    torch.autograd.grad(kp.sum(), tpa[0][1])[0], rtol=1e-4, atol=1e-4)


def test_kl_mvn_independent_and_registry():
    loc, cov = _mvn_params()
    loc2, cov2 = _mvn_params()
    kt = TD.kl_divergence(TD.MultivariateNormal(torchlike.tensor(loc), torchlike.tensor(cov)),
                          TD.MultivariateNormal(torchlike.tensor(loc2), torchlike.tensor(cov2)))
    kp = PD.kl_divergence(PD.MultivariateNormal(torch.tensor(loc), torch.tensor(cov)),
                          PD.MultivariateNormal(torch.tensor(loc2), torch.tensor(cov2)))
    assert_same(kt, kp, rtol=1e-8, atol=1e-8)
    kt = TD.kl_divergence(TD.Independent(TD.Normal(torchlike.tensor(N), torchlike.tensor(A)), 2),
                          TD.Independent(TD.Normal(torchlike.tensor(B), torchlike.tensor(B)), 2))
    kp = PD.kl_divergence(PD.Independent(PD.Normal(torch.tensor(N), torch.tensor(A)), 2),
                          PD.Independent(PD.Normal(torch.tensor(B), torch.tensor(B)), 2))
    assert_same(kt, kp, rtol=1e-5, atol=1e-5)
    # torch registers no Normal-Cauchy pair (Normal-Poisson meets the exponential-family pair's own error)
    with pytest.raises(NotImplementedError, match="No KL"):
        TD.kl_divergence(TD.Normal(0.0, 1.0), TD.Cauchy(0.0, 1.0))

    class MyNormal(TD.Normal):
        pass
    assert float(TD.kl_divergence(MyNormal(0.0, 1.0), TD.Normal(1.0, 1.0))) == pytest.approx(0.5)


def _err(fn_t, fn_p, exc=ValueError):
    with pytest.raises(exc) as et:
        fn_t()
    with pytest.raises(exc) as ep:
        fn_p()
    return str(et.value), str(ep.value)


def test_validation_errors_match_torch():
    # torch.compile switches torch's default validation off for the whole process (a test that called it may
    # have run earlier in this worker): turn it on for the comparison, as a fresh process has it
    before = PD.Distribution._validate_args
    PD.Distribution.set_default_validate_args(True)
    try:
        _validation_errors_match_torch()
    finally:
        PD.Distribution.set_default_validate_args(before)


def _validation_errors_match_torch():
    a, b = _err(lambda: TD.Normal(torchlike.tensor([0.0]), torchlike.tensor([-1.0])),
                lambda: PD.Normal(torch.tensor([0.0]), torch.tensor([-1.0])))
    assert a.split("\n")[0] == b.split("\n")[0]
    a, b = _err(lambda: TD.Bernoulli(), lambda: PD.Bernoulli())
    assert a == b
    a, b = _err(lambda: TD.Uniform(1.0, 0.0), lambda: PD.Uniform(1.0, 0.0))
    assert a == b
    a, b = _err(lambda: TD.Categorical(torchlike.tensor(1.0)), lambda: PD.Categorical(torch.tensor(1.0)))
    assert a == b
    a, b = _err(lambda: TD.Exponential(torchlike.tensor([1.0])).log_prob(torchlike.tensor([-1.0])),
                lambda: PD.Exponential(torch.tensor([1.0])).log_prob(torch.tensor([-1.0])))
    assert a.split("\n")[0] == b.split("\n")[0]
    a, b = _err(lambda: TD.Normal(torchlike.zeros(3), 1.0).log_prob(torchlike.zeros(2)),
                lambda: PD.Normal(torch.zeros(3), 1.0).log_prob(torch.zeros(2)))
    assert a == b
    a, b = _err(lambda: TD.MultivariateNormal(torchlike.zeros(2)), lambda: PD.MultivariateNormal(torch.zeros(2)))
    assert a == b
    a, b = _err(lambda: TD.Independent(TD.Normal(0.0, 1.0), 1), lambda: PD.Independent(PD.Normal(0.0, 1.0), 1))
    assert a == b
    # validation off: no error, nan log_prob like torch
    TD.Normal(torchlike.tensor([0.0]), torchlike.tensor([-1.0]), validate_args=False)
    try:
        TD.Distribution.set_default_validate_args(False)
        TD.Normal(torchlike.tensor([0.0]), torchlike.tensor([-1.0]))
    finally:
        TD.Distribution.set_default_validate_args(True)


def test_first_compile_call_turns_validation_off_like_torch():
    """torch's first torch.compile(...) call (module.compile() too; not a disabled compile, nor torch.export) turns
    distributions' default argument validation off for the process; replayed in both from a fresh state."""
    from torch._dynamo.eval_frame import TorchPatcher
    from torchlike import _trace_hooks

    def states(mod, dist_mod, note_reset):
        out = []
        for how in ("disabled", "decorator factory", "compile(fn)", "again"):
            if how == "disabled":
                dist_mod.Distribution.set_default_validate_args(True)
                note_reset()
                mod.compile(lambda x: x + 1, disable=True)
            elif how == "decorator factory":
                mod.compile(fullgraph=True)
            else:
                mod.compile(lambda x: x + 1)
            try:
                dist_mod.Normal(mod.tensor([0.0]), mod.tensor([-1.0]))
                raised = False
            except ValueError:
                raised = True
            out.append((how, dist_mod.Distribution._validate_args, raised))
        dist_mod.Distribution.set_default_validate_args(True)
        note_reset()
        mod.nn.Linear(2, 2).compile()
        out.append(("module.compile()", dist_mod.Distribution._validate_args))
        return out

    def reset_ours():
        _trace_hooks.compile_called = False

    theirs = states(torch, PD, TorchPatcher.patch.cache_clear)
    ours = states(torchlike, TD, reset_ours)
    assert ours == theirs
    assert theirs[2] == ("compile(fn)", False, False)


def test_repr_and_constraints():
    for args in ((0.0, 1.0), (torch.zeros(3), torch.ones(3))):
        targs = [torchlike.tensor(a.numpy()) if isinstance(a, torch.Tensor) else a for a in args]
        assert repr(TD.Normal(*targs)) == repr(PD.Normal(*args))
    assert repr(TD.Independent(TD.Normal(torchlike.zeros(3), 1.0), 1)) == \
        repr(PD.Independent(PD.Normal(torch.zeros(3), 1.0), 1))
    assert repr(TD.Bernoulli(logits=torchlike.tensor(0.3))) == repr(PD.Bernoulli(logits=torch.tensor(0.3)))
    C, PC = TD.constraints, PD.constraints
    x = np.array([[-1.0, 0.0, 0.5, 2.0], [0.25, 0.25, 0.25, 0.25]], np.float32)
    for name in ("real", "positive", "nonnegative", "unit_interval", "boolean", "nonnegative_integer",
                 "simplex", "real_vector", "positive_integer"):
        assert getattr(C, name).check(torchlike.tensor(x)).tolist() == getattr(PC, name).check(torch.tensor(x)).tolist()
        assert repr(getattr(C, name)) == repr(getattr(PC, name))
        assert getattr(C, name).event_dim == getattr(PC, name).event_dim
    for make in (lambda c: c.interval(0.0, 1.0), lambda c: c.greater_than(0.5), lambda c: c.less_than(0.5),
                 lambda c: c.integer_interval(0, 2), lambda c: c.half_open_interval(0.0, 0.5)):
        assert make(C).check(torchlike.tensor(x)).tolist() == make(PC).check(torch.tensor(x)).tolist()
        assert repr(make(C)) == repr(make(PC))
    assert TD.Normal(0.0, 1.0).support is C.real
    assert repr(TD.Uniform(0.0, 2.0).support) == repr(PD.Uniform(0.0, 2.0).support)


def test_transforms():
    T, PT = TD.transforms, PD.transforms
    x = np.linspace(-2, 2, 7).astype(np.float32)
    for mk in (lambda m: m.ExpTransform(), lambda m: m.SigmoidTransform(), lambda m: m.TanhTransform(),
               lambda m: m.AffineTransform(1.0, -2.0), lambda m: m.ComposeTransform([m.ExpTransform(),
                                                                                      m.AffineTransform(0.5, 3.0)])):
        t, p = mk(T), mk(PT)
        yt, yp = t(torchlike.tensor(x)), p(torch.tensor(x))
        assert_same(yt, yp, rtol=1e-5, atol=1e-5)
        assert_same(t.inv(yt), p.inv(yp), rtol=1e-4, atol=1e-4)
        assert_same(t.log_abs_det_jacobian(torchlike.tensor(x), yt),
                    p.log_abs_det_jacobian(torch.tensor(x), yp), rtol=1e-4, atol=1e-4)
    base_t, base_p = TD.Normal(torchlike.tensor(N), 1.0), PD.Normal(torch.tensor(N), 1.0)
    dt = TD.TransformedDistribution(base_t, [T.AffineTransform(0.0, -2.0), T.ExpTransform()])
    dp = PD.TransformedDistribution(base_p, [PT.AffineTransform(0.0, -2.0), PT.ExpTransform()])
    assert_same(dt.log_prob(torchlike.tensor(A)), dp.log_prob(torch.tensor(A)), rtol=1e-5, atol=1e-5)
    assert_same(dt.cdf(torchlike.tensor(A)), dp.cdf(torch.tensor(A)), rtol=1e-5, atol=1e-5)


def test_drop_in_import():
    import torchlike._runner as R
    assert torchlike.distributions.Normal is TD.Normal
    assert hasattr(R, "TorchFinder")


def _raises_same(fn_l, fn_t):
    with pytest.raises(Exception) as e_t:
        fn_t()
    with pytest.raises(Exception) as e_l:
        fn_l()
    assert type(e_l.value) is type(e_t.value) and str(e_l.value) == str(e_t.value)


def test_constraints_full_surface():
    C, PC = TD.constraints, PD.constraints
    assert set(PC.__all__) <= set(C.__all__)
    vec = np.array([[-1.0, 0.0, 0.5, 2.0], [0.25, 0.25, 0.25, 0.25], [0.0, 1.0, 0.0, 0.0],
                    [np.nan, 1.0, 3.0, 0.0]], np.float32)
    mats = np.stack([np.eye(3), [[2.0, 0, 0], [1, 1, 0], [0, 1, 3]], [[1.0, 2, 0], [2, 1, 0], [0, 0, 1]],
                     [[1.0, 0, 0], [0.6, 0.8, 0], [0, 0.6, 0.8]],
                     [[1.0, 0, 0], [0, -1, 0], [0, 0, 1]]]).astype(np.float32)
    singles = ("real", "positive", "nonnegative", "unit_interval", "boolean", "nonnegative_integer", "one_hot",
               "simplex", "real_vector", "positive_integer", "lower_triangular", "lower_cholesky",
               "corr_cholesky", "square", "symmetric", "positive_semidefinite", "positive_definite")
    for name in singles:
        c, pc = getattr(C, name), getattr(PC, name)
        data = mats if c.event_dim == 2 else vec
        assert c.check(torchlike.tensor(data)).tolist() == pc.check(torch.tensor(data)).tolist(), name
        assert (repr(c), c.event_dim, c.is_discrete) == (repr(pc), pc.event_dim, pc.is_discrete), name
    # square on a non-square batch short-circuits the later tests
    rect = np.ones((2, 2, 3), np.float32)
    for name in ("square", "symmetric", "positive_definite"):
        assert getattr(C, name).check(torchlike.tensor(rect)).tolist() == \
            getattr(PC, name).check(torch.tensor(rect)).tolist()
    makers = (lambda c: c.greater_than_eq(0.0), lambda c: c.greater_than(lower_bound=0.5),
              lambda c: c.interval(lower_bound=-1.0, upper_bound=0.5), lambda c: c.multinomial(3),
              lambda c: c.independent(c.positive, 1), lambda c: c.independent(c.unit_interval, 2),
              lambda c: c.cat([c.positive, c.real, c.unit_interval], dim=1, lengths=[1, 2, 1]),
              lambda c: c.stack([c.positive, c.real, c.boolean, c.nonnegative], dim=-1),
              lambda c: c.MixtureSameFamilyConstraint(c.real))
    for make in makers:
        c, pc = make(C), make(PC)
        assert c.check(torchlike.tensor(vec)).tolist() == pc.check(torch.tensor(vec)).tolist()
        assert (repr(c), c.event_dim, c.is_discrete) == (repr(pc), pc.event_dim, pc.is_discrete)
    # torch's bound classes are unrelated (nonnegative is not a kind of positive)
    assert isinstance(C.nonnegative, type(C.positive)) == isinstance(PC.nonnegative, type(PC.positive))
    assert isinstance(C.positive_definite, type(C.symmetric)) == isinstance(PC.positive_definite, type(PC.symmetric))
    # dependent placeholders
    assert C.is_dependent(C.dependent) and not C.is_dependent(C.real)
    assert C.is_dependent(TD.Uniform.support) and TD.Uniform.support.event_dim == PD.Uniform.support.event_dim
    d, pd_ = C.dependent(is_discrete=True, event_dim=1), PC.dependent(is_discrete=True, event_dim=1)
    assert (d.is_discrete, d.event_dim) == (pd_.is_discrete, pd_.event_dim)
    _raises_same(lambda: C.dependent.event_dim, lambda: PC.dependent.event_dim)
    _raises_same(lambda: C.dependent.is_discrete, lambda: PC.dependent.is_discrete)
    _raises_same(lambda: C.dependent.check(torchlike.zeros(1)), lambda: PC.dependent.check(torch.zeros(1)))
    _raises_same(lambda: C.independent(C.real, 2).check(torchlike.zeros(3)),
                 lambda: PC.independent(PC.real, 2).check(torch.zeros(3)))
    _raises_same(lambda: C.independent(C.real, -1), lambda: PC.independent(PC.real, -1))
    _raises_same(lambda: C.independent(1.0, 1), lambda: PC.independent(1.0, 1))


def test_transforms_full_surface():
    T, PT = TD.transforms, PD.transforms
    x = np.linspace(0.2, 2, 6).astype(np.float32).reshape(2, 3)
    sc = np.array([1.5, -2.0, 0.5], np.float32)
    mk = (lambda m, t: m.ExpTransform(), lambda m, t: m.SigmoidTransform(), lambda m, t: m.TanhTransform(),
          lambda m, t: m.AbsTransform(), lambda m, t: m.PowerTransform(t(2.5)),
          lambda m, t: m.AffineTransform(t(1.0), t(sc), event_dim=1),
          lambda m, t: m.ComposeTransform([m.AffineTransform(0.0, t(sc), event_dim=1), m.ExpTransform()]),
          lambda m, t: m.ComposeTransform([m.ExpTransform(), m.AffineTransform(1.0, -3.0)]).inv,
          lambda m, t: m.identity_transform)
    for make in mk:
        t, p = make(T, torchlike.tensor), make(PT, torch.tensor)
        assert repr(t) == repr(p) or isinstance(p, PT.PowerTransform)
        assert (repr(t.domain), repr(t.codomain), t.bijective) == (repr(p.domain), repr(p.codomain), p.bijective)
        assert t.domain.event_dim == p.domain.event_dim and t.codomain.event_dim == p.codomain.event_dim
        assert t.forward_shape((4, 2, 3)) == p.forward_shape((4, 2, 3))
        assert t.inverse_shape((2, 3)) == p.inverse_shape((2, 3))
        yt, yp = t(torchlike.tensor(x)), p(torch.tensor(x))
        assert_same(yt, yp, rtol=1e-5, atol=1e-5)
        assert_same(t.inv(yt), p.inv(yp), rtol=1e-4, atol=1e-4)
        if p.bijective:
            assert_same(t.log_abs_det_jacobian(torchlike.tensor(x), yt),
                        p.log_abs_det_jacobian(torch.tensor(x), yp), rtol=1e-4, atol=1e-4)
            st, sp = t.sign, p.sign
            assert (st.tolist() if hasattr(st, "tolist") else st) == (sp.tolist() if hasattr(sp, "tolist") else sp)
        assert t.inv.inv is t and (t == t.inv) == (p == p.inv) and (t != t) == (p != p)
        with pytest.raises(TypeError):
            hash(p)
        with pytest.raises(TypeError):
            hash(t)
    # equality
    assert T.ExpTransform() == T.ExpTransform() and T.ExpTransform().inv == T.ExpTransform().inv
    assert T.AffineTransform(1.0, 2.0) == T.AffineTransform(1.0, 2.0) != T.AffineTransform(1.0, 3.0)
    assert T.AffineTransform(torchlike.ones(2), 2.0) == T.AffineTransform(torchlike.ones(2), 2.0)
    assert T.PowerTransform(torchlike.tensor(2.0)) != T.PowerTransform(torchlike.tensor(3.0))
    assert T.ComposeTransform([T.ExpTransform()]) == T.ComposeTransform([T.ExpTransform()])
    assert T.Transform() != T.Transform()
    # caching: identity-based hits in both directions, through the inverse too
    for cache in (0, 1):
        t, p = T.SigmoidTransform(cache_size=cache), PT.SigmoidTransform(cache_size=cache)
        xt, xp = torchlike.tensor(x), torch.tensor(x)
        assert (t.inv(t(xt)) is xt) == (p.inv(p(xp)) is xp)
        yt, yp = torchlike.tensor(x * 0.3), torch.tensor(x * 0.3)
        assert (t(t.inv(yt)) is yt) == (p(p.inv(yp)) is yp)
        c, pc = t.with_cache(1 - cache), p.with_cache(1 - cache)
        assert type(c) is T.SigmoidTransform and c._cache_size == pc._cache_size
        assert t.with_cache(cache) is t
    ct = T.ComposeTransform([T.ExpTransform(), T.AffineTransform(0.0, 2.0)], cache_size=1)
    assert all(p._cache_size == 1 for p in ct.parts) and ct.inv.with_cache(0)._cache_size == 0
    _raises_same(lambda: T.ExpTransform(cache_size=2), lambda: PT.ExpTransform(cache_size=2))
    assert T.ComposeTransform([T.AffineTransform(0.0, 1.0, event_dim=1), T.ExpTransform()]).event_dim == \
        PT.ComposeTransform([PT.AffineTransform(0.0, 1.0, event_dim=1), PT.ExpTransform()]).event_dim
    mixed = [type("Mixed", (m.Transform,), {"domain": c.real, "codomain": c.real_vector})
             for m, c in ((T, TD.constraints), (PT, PD.constraints))]
    _raises_same(lambda: mixed[0]().event_dim, lambda: mixed[1]().event_dim)
    _raises_same(lambda: mixed[0]().with_cache(1).sign, lambda: mixed[1]().with_cache(1).sign)
    assert T.AffineTransform(0.0, -0.0).sign == PT.AffineTransform(0.0, -0.0).sign


# --- the distributions added for API parity (StudentT, HalfNormal, Pareto, Geometric, ...) --------
# (name, constructor args as a function of a framework T, values at which to evaluate log_prob)
PARITY_CASES = [
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


@pytest.mark.parametrize("name,args,vals", PARITY_CASES, ids=[c[0] for c in PARITY_CASES])
def test_matches_torch(name, args, vals):
    dt = getattr(torch.distributions, name)(*args(torch))
    dl = getattr(torchlike.distributions, name)(*args(torchlike))
    v_t, v_l = torch.tensor(vals), torchlike.tensor(vals)
    assert_same(dl.log_prob(v_l), dt.log_prob(v_t), rtol=2e-5, atol=1e-6)
    for attr in ("mean", "variance", "mode", "stddev"):
        try:
            want = getattr(dt, attr)
        except NotImplementedError:
            continue
        assert_same(getattr(dl, attr), want, rtol=2e-5, atol=1e-6)
    for m in ("entropy",):
        try:
            want = getattr(dt, m)()
        except NotImplementedError:
            continue
        assert_same(getattr(dl, m)(), want, rtol=2e-5, atol=1e-6)
    try:
        want = dt.cdf(v_t)
    except NotImplementedError:
        want = None
    if want is not None:
        assert_same(dl.cdf(v_l), want, rtol=2e-5, atol=1e-6)
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
    assert_same(dl.log_prob(torchlike.tensor(v)), dt.log_prob(torch.tensor(v)), rtol=2e-5, atol=1e-6)
    assert_same(dl.mean, dt.mean, rtol=2e-5, atol=1e-6)
    assert_same(dl.variance, dt.variance, rtol=2e-5, atol=1e-6)
    assert_same(dl.entropy(), dt.entropy(), rtol=2e-5, atol=1e-6)
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
            assert_same(ll[k], tt[k], rtol=2e-5, atol=1e-6)
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
            assert_same(res[1][1], res[0][1], rtol=2e-5, atol=1e-6)
    with pytest.raises(NotImplementedError, match="Cannot transform _LowerCholesky constraints"):
        torchlike.distributions.biject_to(torchlike.distributions.constraints.lower_cholesky)


PARITY_CASES2 = [
    ("ContinuousBernoulli", lambda T: (T.tensor([0.2, 0.5, 0.9]),), [0.3, 0.5, 0.9]),
    ("VonMises", lambda T: (T.tensor([0.0, 1.0, -1.0]), T.tensor([0.5, 2.0, 4.0])), [0.3, 1.0, -2.0]),
    ("LogisticNormal", lambda T: (T.tensor([0.0, 1.0]), T.tensor([0.5, 2.0])), [[0.2, 0.3, 0.5]]),
    ("LowRankMultivariateNormal", lambda T: (T.tensor([0.0, 1.0, 2.0]), T.tensor([[1.0], [0.5], [-1.0]]),
                                             T.tensor([1.0, 2.0, 0.5])), [[0.3, 1.0, -2.0]]),
]


@pytest.mark.parametrize("name,args,vals", PARITY_CASES2, ids=[c[0] for c in PARITY_CASES2])
def test_more_matches_torch(name, args, vals):
    test_matches_torch(name, args, vals)


def test_low_rank_mvn_matrices_match_torch():
    a = lambda T: (T.tensor([0.0, 1.0, 2.0]), T.tensor([[1.0, 0.2], [0.5, 0.1], [-1.0, 0.3]]),  # noqa: E731
                   T.tensor([1.0, 2.0, 0.5]))
    dt = torch.distributions.LowRankMultivariateNormal(*a(torch))
    dl = torchlike.distributions.LowRankMultivariateNormal(*a(torchlike))
    for k in ("covariance_matrix", "precision_matrix", "scale_tril"):
        assert_same(getattr(dl, k), getattr(dt, k), rtol=2e-5, atol=1e-6)


def test_mixture_same_family_matches_torch():
    def make(T):
        mix = T.distributions.Categorical(T.tensor([[0.3, 0.7], [0.5, 0.5]]))
        comp = T.distributions.Normal(T.tensor([[-1.0, 1.0], [0.0, 2.0]]), T.tensor([[1.0, 0.5], [2.0, 1.0]]))
        return T.distributions.MixtureSameFamily(mix, comp)
    dt, dl = make(torch), make(torchlike)
    v = [0.3, -0.5]
    assert_same(dl.log_prob(torchlike.tensor(v)), dt.log_prob(torch.tensor(v)), rtol=2e-5, atol=1e-6)
    assert_same(dl.cdf(torchlike.tensor(v)), dt.cdf(torch.tensor(v)), rtol=2e-5, atol=1e-6)
    assert_same(dl.mean, dt.mean, rtol=2e-5, atol=1e-6)
    assert_same(dl.variance, dt.variance, rtol=2e-5, atol=1e-6)
    assert tuple(dl.sample((5,)).shape) == tuple(dt.sample((5,)).shape) == (5, 2)


def test_parameters_stay_the_users_leaves_like_torch():
    """broadcast_tensors returns a tensor already of the broadcast shape itself (torch's expand_outplace), so a
    distribution's ``loc`` is the leaf passed in and gets its gradient (variational-inference tutorials read
    ``q.loc.grad``); VonMises samples in double and returns the parameters' dtype."""
    seen = {}
    for lib in (torch, torchlike):
        a, b = lib.ones(2, requires_grad=True), lib.ones(1)
        r = lib.broadcast_tensors(a, b)
        lib.manual_seed(0)
        mu = lib.tensor([0.5], requires_grad=True)
        n = lib.distributions.Normal(mu, 1.0)
        n.rsample((4,)).sum().backward()
        vm = lib.distributions.VonMises(lib.tensor(0.0), lib.tensor(1.0)).sample((3,))
        seen[lib] = (r[0] is a, r[1] is b, n.loc is mu, n.loc.grad.tolist(), str(vm.dtype), vm.tolist())
    assert seen[torchlike] == seen[torch]


def test_lkj_cholesky_samples_and_log_prob_like_torch():
    def run(lib):
        lib.manual_seed(3)
        d = lib.distributions.LKJCholesky(4, lib.tensor([0.5, 1.0, 3.0]))
        s = d.sample((2,))
        e = d.expand((2, 3))
        return s, d.log_prob(s), tuple(e.batch_shape), tuple(e.event_shape), e.sample().shape, d.support is \
            lib.distributions.constraints.corr_cholesky
    ours, theirs = run(torchlike), run(torch)
    # torch's draws in torch's order; their last bits follow torch's vectorized kernels, which differ by CPU (torch
    # itself moves 0.0144683 -> 0.0144704 between ATEN_CPU_CAPABILITY=default and avx2 on an AVX2 EPYC)
    assert_same(ours[0], theirs[0], rtol=1e-5, atol=1e-5)
    assert_same(ours[1], theirs[1], rtol=1e-5, atol=1e-3)  # (of those draws: near-singular ones amplify)
    same = torchlike.distributions.LKJCholesky(4, torchlike.tensor([0.5, 1.0, 3.0])).log_prob(
        torchlike.tensor(theirs[0].numpy()))
    assert_same(same, theirs[1], rtol=1e-5, atol=1e-5)  # (of torch's own draws)
    assert ours[2:] == tuple(theirs[2:4]) + (torchlike.Size(theirs[4]), theirs[5])
    with pytest.raises(ValueError, match="Expected dim to be an integer greater than or equal to 2"):
        torchlike.distributions.LKJCholesky(1)


@pytest.mark.parametrize("param", ["covariance_matrix", "precision_matrix", "scale_tril"])
def test_wishart_samples_and_densities_like_torch(param):
    import warnings

    def run(lib):
        lib.manual_seed(5)
        cov = lib.tensor([[2.0, 0.5], [0.5, 1.0]], dtype=lib.float64)
        arg = {"covariance_matrix": cov, "precision_matrix": lib.linalg.inv(cov),
               "scale_tril": lib.linalg.cholesky(cov)}[param]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # (torch may warn of a singular sample: the retries are compared)
            w = lib.distributions.Wishart(lib.tensor([3.0, 6.5], dtype=lib.float64), **{param: arg})
            s = w.rsample((3,))
        e = w.expand((4, 2))
        return [s, w.log_prob(s), w.entropy(), w.mean, w.variance, w.mode, e.sample().shape, e.batch_shape]
    ours, theirs = run(torchlike), run(torch)
    for a, b in zip(ours[:6], theirs[:6]):
        assert_same(a, b, rtol=1e-9, atol=1e-9)
    assert tuple(ours[6]) == tuple(theirs[6]) and tuple(ours[7]) == tuple(theirs[7])
    with pytest.raises(ValueError, match="expected to be greater than ndim - 1 = 1"):
        torchlike.distributions.Wishart(torchlike.tensor(0.5), covariance_matrix=torchlike.eye(2))


def _cache_protocol(lib):
    """A transform written as pyro's autoregressive ones are: its log-det reads the cached pair
    ``_cached_x_y`` (torch's attribute) to reuse what ``_call`` computed."""
    D = lib.distributions

    class Scale(D.Transform):
        domain = codomain = D.constraints.real
        bijective = True

        def __init__(self):
            super().__init__(cache_size=1)
            self.calls = 0

        def _call(self, x):
            self.calls += 1
            self.log_scale = x.tanh()
            return x * self.log_scale.exp()

        def log_abs_det_jacobian(self, x, y):
            x_old, y_old = self._cached_x_y
            if x is not x_old or y is not y_old:
                self(x)
            return self.log_scale

    t = Scale()
    x = lib.linspace(-1.0, 1.0, 5)
    before = t._cached_x_y
    y = t(x)
    lad = t.log_abs_det_jacobian(x, y)
    same = t(x) is y and t._cached_x_y[0] is x and t._cached_x_y[1] is y
    t._cached_x_y = None, None  # pyro resets the cache this way
    t(x)
    return before, same, t.calls, lad, hasattr(D.ExpTransform(), "_cached_x_y")


def test_transform_cache_is_torchs_cached_x_y_attribute():
    ours, theirs = _cache_protocol(torchlike), _cache_protocol(torch)
    assert ours[:3] == theirs[:3] == ((None, None), True, 2) and ours[4] == theirs[4] is False
    assert_same(ours[3], theirs[3])


def test_per_distribution_modules_carry_torchs_module_level_imports():
    """torch's torch/distributions/<name>.py files import Distribution, constraints, broadcast_all, ...;
    libraries import those names from there (BoTorch: ``from torch.distributions.multivariate_normal import
    Distribution, MultivariateNormal``), so each mirrored module has every such name torch's has."""
    import importlib
    from torchlike.distributions._module_imports import IMPORTS
    for sub, names in IMPORTS.items():
        pm = importlib.import_module("torch.distributions." + sub)
        lm = importlib.import_module("torchlike.distributions." + sub)
        for name in names.split():
            p, q = getattr(pm, name), getattr(lm, name)
            if isinstance(p, type) or callable(p):
                assert getattr(q, "__name__", None) == getattr(p, "__name__", None), (sub, name)
            elif isinstance(p, float):
                assert q == p or (q != q and p != p), (sub, name)
    from torchlike.distributions.multivariate_normal import Distribution, MultivariateNormal
    assert issubclass(MultivariateNormal, Distribution)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_clipped_sigmoid_is_importable_as_in_torch(dtype):
    # pytorch-forecasting's encoders import this private helper from torch.distributions.transforms
    from torch.distributions.transforms import _clipped_sigmoid as theirs

    from torchlike.distributions.transforms import _clipped_sigmoid as ours
    x = np.array([-800.0, -40.0, -1.5, 0.0, 2.0, 40.0, 800.0], dtype=dtype)
    assert_same(ours(torchlike.tensor(x)), theirs(torch.tensor(x)))
