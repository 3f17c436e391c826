"""torchlike.optim against torch.optim on identical params/gradients."""
import copy
import math
import warnings

import numpy as np
import pytest
import torch

import torchlike as tl

CASES = [
    ("SGD", dict(lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.1)),
    ("SGD", dict(lr=0.1, momentum=0.5, dampening=0.3, maximize=True)),
    ("Adam", dict(lr=0.01, amsgrad=True, weight_decay=0.1)),
    ("Adam", dict(lr=0.01, decoupled_weight_decay=True, weight_decay=0.1, maximize=True)),
    ("AdamW", dict(lr=0.01)),
    ("Adagrad", dict(lr=0.1, lr_decay=0.01, initial_accumulator_value=0.1)),
    ("Adadelta", dict(rho=0.95, weight_decay=0.1)),
    ("Adamax", dict(lr=0.05, weight_decay=0.1)),
    ("NAdam", dict(lr=0.01, decoupled_weight_decay=True, weight_decay=0.1)),
    ("RAdam", dict(lr=0.01, weight_decay=0.1)),
    ("RMSprop", dict(lr=0.01, centered=True, momentum=0.5, weight_decay=0.1)),
    ("Rprop", dict(lr=0.01, etas=(0.4, 1.3))),
    ("ASGD", dict(lr=0.01, t0=2)),
    ("Adafactor", dict(lr=0.01, weight_decay=0.1)),
    ("Muon", dict(lr=0.01)),
]


def _pair(name, kw, shapes, dtype=np.float32, steps=5, seed=0):
    rng = np.random.default_rng(seed)
    init = [rng.standard_normal(s).astype(dtype) for s in shapes]
    tps = [torch.tensor(a, requires_grad=True) for a in init]
    lps = [tl.tensor(a, requires_grad=True) for a in init]
    to, lo = getattr(torch.optim, name)(tps, **kw), getattr(tl.optim, name)(lps, **kw)
    for _ in range(steps):
        for tp, lp in zip(tps, lps):
            g = rng.standard_normal(tp.shape).astype(dtype)
            tp.grad, lp.grad = torch.tensor(g), tl.tensor(g)
        to.step()
        lo.step()
    return tps, lps, to, lo


@pytest.mark.parametrize("name,kw", CASES, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CASES)])
def test_matches_torch_float32(name, kw):
    shapes = [(4, 3), (5, 4)] if name == "Muon" else [(4, 3), (5,)]
    tps, lps, to, lo = _pair(name, kw, shapes)
    for a, b in zip(tps, lps):
        np.testing.assert_allclose(b.detach().numpy(), a.detach().numpy(), rtol=2e-5, atol=2e-6)
    ts, ls = to.state_dict(), lo.state_dict()
    assert ls["param_groups"] == ts["param_groups"]
    for pid, st in ts["state"].items():
        assert list(ls["state"][pid]) == list(st)
        for k, v in st.items():
            lv = ls["state"][pid][k]
            assert str(lv.dtype) == str(v.dtype)
            np.testing.assert_allclose(lv.numpy(), v.numpy(), rtol=2e-5, atol=2e-6)


def _to_tl(sd):
    conv = {k: {kk: (tl.tensor(vv.numpy()) if isinstance(vv, torch.Tensor) else vv) for kk, vv in st.items()}
            for k, st in sd["state"].items()}
    return {"state": conv, "param_groups": sd["param_groups"]}


def _to_torch(sd):
    conv = {k: {kk: (torch.tensor(vv.numpy()) if isinstance(vv, tl.Tensor) else vv) for kk, vv in st.items()}
            for k, st in sd["state"].items()}
    return {"state": conv, "param_groups": sd["param_groups"]}


@pytest.mark.parametrize("name,kw", [("Adam", dict(lr=0.01, amsgrad=True)), ("SGD", dict(lr=0.1, momentum=0.9)),
                                     ("NAdam", dict(lr=0.01)), ("RMSprop", dict(centered=True))])
def test_state_dict_round_trip(name, kw):
    rng = np.random.default_rng(1)
    init = [rng.standard_normal((3, 2)), rng.standard_normal(4)]
    grads = [[rng.standard_normal(a.shape) for a in init] for _ in range(6)]
    tps = [torch.tensor(a, requires_grad=True) for a in init]
    to = getattr(torch.optim, name)(tps, **kw)

    def feed(ps, lib, k):
        for p, g in zip(ps, grads[k]):
            p.grad = lib.tensor(g)

    for k in range(3):
        feed(tps, torch, k)
        to.step()
    # torch -> torchlike
    lps = [tl.tensor(p.detach().numpy(), requires_grad=True) for p in tps]
    lo = getattr(tl.optim, name)(lps, **kw)
    lo.load_state_dict(_to_tl(to.state_dict()))
    # the reference is a torch optimizer that loaded the same dict (loading casts e.g. NAdam's mu_product)
    tps = [torch.tensor(p.detach().numpy(), requires_grad=True) for p in tps]
    sd = copy.deepcopy(to.state_dict())
    to = getattr(torch.optim, name)(tps, **kw)
    to.load_state_dict(sd)
    for k in range(3, 5):
        feed(tps, torch, k)
        to.step()
        feed(lps, tl, k)
        lo.step()
    for a, b in zip(tps, lps):
        np.testing.assert_allclose(b.detach().numpy(), a.detach().numpy(), rtol=1e-12)
    # torchlike -> torch
    tps2 = [torch.tensor(p.detach().numpy(), requires_grad=True) for p in lps]
    to2 = getattr(torch.optim, name)(tps2, **kw)
    to2.load_state_dict(_to_torch(lo.state_dict()))
    feed(tps2, torch, 5)
    to2.step()
    feed(lps, tl, 5)
    lo.step()
    for a, b in zip(tps2, lps):
        np.testing.assert_allclose(b.detach().numpy(), a.detach().numpy(), rtol=1e-12)


def test_param_groups_defaults_repr_and_errors():
    p1, p2 = tl.zeros(2, requires_grad=True), tl.zeros(3, requires_grad=True)
    q1, q2 = torch.zeros(2, requires_grad=True), torch.zeros(3, requires_grad=True)
    lo = tl.optim.Adam([{"params": [p1]}, {"params": p2, "lr": 0.1}], lr=0.01)
    to = torch.optim.Adam([{"params": [q1]}, {"params": q2, "lr": 0.1}], lr=0.01)
    assert repr(lo) == repr(to)
    assert lo.defaults == to.defaults
    assert [{k: v for k, v in g.items() if k != "params"} for g in lo.param_groups] == \
        [{k: v for k, v in g.items() if k != "params"} for g in to.param_groups]
    with pytest.raises(ValueError, match="some parameters appear in more than one parameter group"):
        lo.add_param_group({"params": [p1]})
    with pytest.raises(ValueError, match="optimizer got an empty parameter list"):
        tl.optim.SGD([], lr=0.1)
    with pytest.raises(ValueError, match="can't optimize a non-leaf Tensor"):
        tl.optim.SGD([p1 * 2], lr=0.1)
    with pytest.raises(ValueError, match="Invalid learning rate: -1"):
        tl.optim.Adam([p1], lr=-1)
    with pytest.raises(ValueError, match="Nesterov momentum requires a momentum and zero dampening"):
        tl.optim.SGD([p1], lr=0.1, nesterov=True)
    with pytest.raises(TypeError, match="params argument given to the optimizer should be an iterable"):
        tl.optim.SGD(p1, lr=0.1)
    named = tl.optim.SGD([("w", p1)], lr=0.1)
    assert named.state_dict()["param_groups"][0]["param_names"] == ["w"]


def test_zero_grad_hooks_and_closure():
    p = tl.tensor([1.0, 2.0], requires_grad=True)
    opt = tl.optim.SGD([p], lr=0.1)
    calls = []
    h1 = opt.register_step_pre_hook(lambda o, a, k: calls.append("pre"))
    opt.register_step_post_hook(lambda o, a, k: calls.append("post"))

    def closure():
        opt.zero_grad()
        loss = (p * p).sum()
        loss.backward()
        return loss

    loss = opt.step(closure)
    assert calls == ["pre", "post"] and float(loss) == 5.0
    np.testing.assert_allclose(p.detach().numpy(), [0.8, 1.6], rtol=1e-6)
    h1.remove()
    opt.step(closure)
    assert calls == ["pre", "post", "post"]
    opt.zero_grad(set_to_none=False)
    assert p.grad is not None and float(p.grad.abs().sum()) == 0.0
    opt.zero_grad()
    assert p.grad is None
    loaded = []
    opt.register_load_state_dict_post_hook(lambda o: loaded.append(1))
    opt.load_state_dict(opt.state_dict())
    assert loaded == [1]


def test_sparse_adam_dense_grad_and_lbfgs():
    p = tl.zeros(3, requires_grad=True)
    opt = tl.optim.SparseAdam([p])
    p.grad = tl.ones(3)
    with pytest.raises(RuntimeError, match="SparseAdam does not support dense gradients, please consider Adam"):
        opt.step()
    for kw in (dict(), dict(line_search_fn="strong_wolfe", history_size=3)):
        x0 = np.array([3.0, -2.0, 0.5])
        res = []
        for lib in (torch, tl):
            x = lib.tensor(x0, requires_grad=True)
            o = lib.optim.LBFGS([x], max_iter=5, **kw)

            def closure():
                o.zero_grad()
                loss = ((x - 1) ** 2 * lib.tensor([1.0, 10.0, 100.0])).sum() + (x ** 4).sum()
                loss.backward()
                return loss

            for _ in range(3):
                o.step(closure)
            res.append(x.detach().numpy())
        np.testing.assert_allclose(res[1], res[0], rtol=1e-10)


def test_changing_lr_does_not_recompile():
    from torchlike.optim import optimizer as om
    p = tl.ones(4, requires_grad=True)
    opt = tl.optim.Adam([p], lr=0.1)
    p.grad = tl.ones(4)
    opt.step()
    fn = om._group_fn(tl.optim.Adam._kernel, opt._statics(opt.param_groups[0]), True).fn  # the jax.jit object
    n = fn._cache_size()
    for lr in (0.2, 0.3, 0.05):
        opt.param_groups[0]["lr"] = lr
        opt.param_groups[0]["betas"] = (0.8, 0.99)
        opt.step()
    assert fn._cache_size() == n


def test_complex_params_adam():
    rng = np.random.default_rng(3)
    a = rng.standard_normal(4) + 1j * rng.standard_normal(4)
    tp, lp = torch.tensor(a, requires_grad=True), tl.tensor(a, requires_grad=True)
    to, lo = torch.optim.Adam([tp], lr=0.1), tl.optim.Adam([lp], lr=0.1)
    for _ in range(3):
        g = rng.standard_normal(4) + 1j * rng.standard_normal(4)
        tp.grad, lp.grad = torch.tensor(g), tl.tensor(g)
        to.step()
        lo.step()
    np.testing.assert_allclose(lp.detach().numpy(), tp.detach().numpy(), rtol=1e-12)
    assert lo.state[lp]["exp_avg"].dtype == tl.complex128


def test_tensor_lr_and_warnings_free():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tps, lps, _, _ = _pair("SGD", dict(lr=0.01), [(3,)], dtype=np.float64)
    rng = np.random.default_rng(0)
    a = rng.standard_normal(3)
    tp, lp = torch.tensor(a, requires_grad=True), tl.tensor(a, requires_grad=True)
    to = torch.optim.Adam([tp], lr=torch.tensor(0.01))
    lo = tl.optim.Adam([lp], lr=tl.tensor(0.01))
    for _ in range(3):
        g = rng.standard_normal(3)
        tp.grad, lp.grad = torch.tensor(g), tl.tensor(g)
        to.step()
        lo.step()
    np.testing.assert_allclose(lp.detach().numpy(), tp.detach().numpy(), rtol=1e-6)


def _lbfgs_state_view(st):
    """LBFGS state as (key, kind, value) rows: kinds must agree with torch (Tensor vs Python number vs list)."""
    def one(v):
        if isinstance(v, (torch.Tensor, tl.Tensor)):
            return ("T", str(v.dtype).split(".")[-1], np.asarray(v.detach().numpy() if isinstance(v, torch.Tensor)
                                                                 else v.numpy(), dtype=np.float64))
        if isinstance(v, list):
            return ("L", [one(a) for a in v])
        return (type(v).__name__ if v is not None else "None", v)
    return [(k, one(v)) for k, v in st.items()]


def _assert_same_state(a, b):
    assert [k for k, _ in a] == [k for k, _ in b]
    def eq(x, y):
        assert x[0] == y[0], (x, y)
        if x[0] == "T":
            assert x[1] == y[1]
            np.testing.assert_allclose(y[2], x[2], rtol=1e-7, atol=1e-9 * max(1.0, float(np.abs(x[2]).max(initial=0))))
        elif x[0] == "L":
            assert len(x[1]) == len(y[1])
            for u, v in zip(x[1], y[1]):
                eq(u, v)
        elif x[0] == "float":
            assert math.isclose(x[1], y[1], rel_tol=1e-7, abs_tol=1e-12)
        else:
            assert x[1] == y[1]
    for (_, x), (_, y) in zip(a, b):
        eq(x, y)


@pytest.mark.parametrize("kw", [dict(line_search_fn="strong_wolfe", history_size=2, max_iter=7),
                                dict(line_search_fn="strong_wolfe", max_iter=3, max_eval=4),   # line search runs dry
                                dict(line_search_fn="strong_wolfe", lr=2.0, max_iter=12, tolerance_change=1e-14),
                                dict(lr=0.5, history_size=3)])
def test_lbfgs_rosenbrock_state_and_resume(kw):
    """Rosenbrock exercises the zoom phase; state (key order, kinds, values) and a state_dict resume match torch."""
    x0 = np.array([-1.2, 1.0, 0.3, -0.5])
    st = []
    for lib in (torch, tl):
        x = lib.tensor(x0, requires_grad=True)
        o = lib.optim.LBFGS([x], **kw)

        def closure():
            o.zero_grad()
            loss = (100 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2).sum()
            loss.backward()
            return loss
        for _ in range(2):
            o.step(closure)
        # resume from a checkpoint in a fresh optimizer
        x2 = lib.tensor(x.detach().numpy(), requires_grad=True)
        o2 = lib.optim.LBFGS([x2], **kw)
        o2.load_state_dict(o.state_dict())
        x, o = x2, o2
        o.step(closure)
        st.append((x.detach().numpy(), _lbfgs_state_view(o.state[x])))
    np.testing.assert_allclose(st[1][0], st[0][0], rtol=1e-9, atol=1e-12)
    _assert_same_state(st[0][1], st[1][1])


@pytest.mark.parametrize("name,kw", CASES, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CASES)])
def test_state_is_laid_out_like_a_transposed_parameter(name, kw):
    """torch makes each state tensor ``zeros_like(p, memory_format=torch.preserve_format)``: the moments of a
    transposed weight (LLMs-from-scratch's ``load_weights_into_gpt`` assigns ``Parameter(torch.tensor(w.T))``)
    are transposed too, and so are they in a saved ``state_dict``; Rprop's ``step_size`` is row-major."""
    def run(m):
        p = m.nn.Parameter(m.arange(12.).reshape(4, 3).t().mul(0.1))
        opt = getattr(m.optim, name)([p], **kw)
        (p * p).sum().backward()
        opt.step()
        st = opt.state_dict()["state"][0]
        return p.grad.stride(), {k: v.stride() for k, v in st.items() if isinstance(v, m.Tensor) and v.ndim}
    assert run(tl) == run(torch)


@pytest.mark.parametrize("name", ["Adam", "AdamW", "NAdam", "RAdam", "Adamax"])
def test_betas_given_as_a_list_read_back_as_torch_keeps_them(name):
    """Adam (and AdamW through it) store ``tuple(map(_to_scalar, betas))``: d2l's DCGAN passes
    ``betas=[0.5, 0.999]`` and reads back a tuple; NAdam/RAdam/Adamax keep the list; a 1-element tensor beta
    becomes 0-d."""
    def run(m):
        opt = getattr(m.optim, name)([m.nn.Parameter(m.ones(2))], betas=[0.5, 0.999])
        out = [repr(opt.param_groups[0]["betas"]), repr(opt.defaults["betas"])]
        if name == "Adam":
            t = m.optim.Adam([m.nn.Parameter(m.ones(2))], betas=(m.tensor([0.5]), m.tensor([0.9])), capturable=True)
            out.append([tuple(b.shape) for b in t.param_groups[0]["betas"]])
        return out
    assert run(tl) == run(torch)
