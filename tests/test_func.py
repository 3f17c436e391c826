"""torchlike.func against torch.func: per-sample gradients, ensembling, Jacobians/Hessians, randomness
modes, composition with torchlike.compile, and torch's error messages."""
import numpy as np
import pytest

import torchlike
from torchlike import func as tf
from conftest import assert_same, raises_like_torch, to_tl, torch

F_T, F_L = torch.nn.functional, torchlike.nn.functional


def _twin(tm, lm):
    """Copy torch module ``tm``'s state into torchlike module ``lm``."""
    lm.load_state_dict({k: to_tl(v) for k, v in tm.state_dict().items()})
    return lm


def _cnn(lib):
    nn = lib.nn
    return nn.Sequential(nn.Conv2d(1, 4, 3), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(), nn.Linear(4 * 3 * 3, 5))


def _loss(F, lib):
    def per_sample_loss(model, params, buffers, x, y):
        out = (lib.func if lib is torchlike else torch.func).functional_call(
            model, (params, buffers), (x.unsqueeze(0),))
        return F.cross_entropy(out, y.unsqueeze(0))
    return per_sample_loss


def test_per_sample_gradients_cnn():
    torch.manual_seed(0)
    tm = _cnn(torch)
    lm = _twin(tm, _cnn(torchlike))
    x, y = torch.randn(6, 1, 8, 8), torch.randint(0, 5, (6,))
    res = {}
    for lib, m, F, xx, yy in ((torch, tm, F_T, x, y), (torchlike, lm, F_L, to_tl(x), to_tl(y))):
        params = {k: v.detach() for k, v in m.named_parameters()}
        buffers = {k: v.detach() for k, v in m.named_buffers()}
        loss = _loss(F, lib)
        fn = (tf if lib is torchlike else torch.func)
        res[lib.__name__] = fn.vmap(fn.grad(lambda p, b, a, t: loss(m, p, b, a, t)), in_dims=(None, None, 0, 0))(
            params, buffers, xx, yy)
    assert set(res["torch"]) == set(res["torchlike"])
    for k in res["torch"]:
        assert_same(res["torchlike"][k], res["torch"][k], rtol=1e-4, atol=1e-5)
    # the mean of per-sample gradients is the batch gradient
    lm.zero_grad()
    F_L.cross_entropy(lm(to_tl(x)), to_tl(y)).backward()
    for k, p in lm.named_parameters():
        np.testing.assert_allclose(np.asarray(res["torchlike"][k].mean(0)), np.asarray(p.grad), rtol=1e-4, atol=1e-6)


def test_ensembling_stack_module_state():
    torch.manual_seed(1)
    tms = [torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 2)) for _ in range(3)]
    lms = [_twin(t, torchlike.nn.Sequential(torchlike.nn.Linear(3, 4), torchlike.nn.Tanh(),
                                            torchlike.nn.Linear(4, 2))) for t in tms]
    x = torch.randn(5, 3)
    tp, tb = torch.func.stack_module_state(tms)
    lp, lb = tf.stack_module_state(lms)
    assert set(tp) == set(lp) and tb == {} and lb == {}
    for k in tp:
        assert_same(lp[k], tp[k])
        assert lp[k].requires_grad and lp[k].is_leaf
    base_t = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 2)).to("meta")
    base_l = lms[0]
    out_t = torch.func.vmap(lambda p, b, a: torch.func.functional_call(base_t, (p, b), (a,)), in_dims=(0, 0, None))(
        tp, tb, x)
    out_l = tf.vmap(lambda p, b, a: tf.functional_call(base_l, (p, b), (a,)), in_dims=(0, 0, None))(lp, lb, to_tl(x))
    assert_same(out_l, out_t.detach(), rtol=1e-5, atol=1e-6)
    # different minibatches per model
    xs = torch.randn(3, 5, 3)
    out_t = torch.func.vmap(lambda p, b, a: torch.func.functional_call(base_t, (p, b), (a,)))(tp, tb, xs)
    out_l = tf.vmap(lambda p, b, a: tf.functional_call(base_l, (p, b), (a,)))(lp, lb, to_tl(xs))
    assert_same(out_l, out_t.detach(), rtol=1e-5, atol=1e-6)


def _f(lib):
    return lambda x, y: (x.sin() * y.unsqueeze(-1)).exp().sum(0) + x.pow(3).mean()


@pytest.mark.parametrize("name", ["jacrev", "jacfwd"])
def test_jacobians(name):
    x, y = torch.randn(3, 2, dtype=torch.float64), torch.randn(3, dtype=torch.float64)
    for argnums in (0, 1, (0, 1)):
        jt = getattr(torch.func, name)(_f(torch), argnums=argnums)(x, y)
        jl = getattr(tf, name)(_f(torchlike), argnums=argnums)(to_tl(x), to_tl(y))
        if isinstance(argnums, tuple):
            assert isinstance(jl, tuple) and len(jl) == 2
            for a, b in zip(jl, jt):
                assert_same(a, b)
        else:
            assert_same(jl, jt)


def test_jacobian_of_jacobian_and_hessian():
    x = torch.randn(4, dtype=torch.float64)

    def g(lib):
        return lambda v: (v.sin() * v.cos().sum()).tanh()
    assert_same(tf.jacrev(tf.jacrev(g(torchlike)))(to_tl(x)), torch.func.jacrev(torch.func.jacrev(g(torch)))(x))
    assert_same(tf.jacfwd(tf.jacrev(g(torchlike)))(to_tl(x)), torch.func.jacfwd(torch.func.jacrev(g(torch)))(x))

    def s(lib):
        return lambda v: (v.exp() * v.sin()).sum() + v.norm() ** 3
    assert_same(tf.hessian(s(torchlike))(to_tl(x)), torch.func.hessian(s(torch))(x))


def test_hessian_vector_product():
    x, v = torch.randn(5, dtype=torch.float64), torch.randn(5, dtype=torch.float64)

    def s(v_):
        return (v_.sin() ** 2).sum() * v_.sum()

    def hvp(func_mod, f, p, t):
        return func_mod.jvp(func_mod.grad(f), (p,), (t,))[1]
    sl = lambda v_: (v_.sin() ** 2).sum() * v_.sum()  # noqa: E731
    assert_same(hvp(tf, sl, to_tl(x), to_tl(v)), hvp(torch.func, s, x, v))
    # reverse-over-reverse
    _, vjp_fn = tf.vjp(tf.grad(sl), to_tl(x))
    _, vjp_t = torch.func.vjp(torch.func.grad(s), x)
    assert_same(vjp_fn(to_tl(v))[0], vjp_t(v)[0])


def test_vjp_jvp_linearize_and_aux():
    x = torch.randn(3, 2)

    def f(lib):
        return lambda a: (a.exp(), a.sum(1))
    out_t, fn_t = torch.func.vjp(f(torch), x)
    out_l, fn_l = tf.vjp(f(torchlike), to_tl(x))
    ct = (torch.ones(3, 2), torch.arange(3.))
    (gt,), (gl,) = fn_t(ct), fn_l(tuple(to_tl(c) for c in ct))
    assert_same(gl, gt)
    assert_same(out_l[0], out_t[0])
    pt, tt = torch.func.jvp(lambda a: a.sin() * 2, (x,), (torch.ones(3, 2),))
    pl, tl_ = tf.jvp(lambda a: a.sin() * 2, (to_tl(x),), (torchlike.ones(3, 2),))
    assert_same(pl, pt)
    assert_same(tl_, tt)
    ot, jt = torch.func.linearize(lambda a: a.tanh(), x)
    ol, jl = tf.linearize(lambda a: a.tanh(), to_tl(x))
    assert_same(jl(torchlike.ones(3, 2)), jt(torch.ones(3, 2)))
    # has_aux
    g_t, aux_t = torch.func.grad(lambda a: (a.sum() ** 2, {"m": a.mean(), "n": [a]}), has_aux=True)(x)
    g_l, aux_l = tf.grad(lambda a: (a.sum() ** 2, {"m": a.mean(), "n": [a]}), has_aux=True)(to_tl(x))
    assert_same(g_l, g_t)
    assert_same(aux_l["m"], aux_t["m"])
    assert_same(aux_l["n"][0], aux_t["n"][0])
    (g_l, (v_l, a_l)) = tf.grad_and_value(lambda a, b: ((a * b).sum(), b), argnums=(0, 1), has_aux=True)(
        to_tl(x), to_tl(x))
    (g_t, (v_t, a_t)) = torch.func.grad_and_value(lambda a, b: ((a * b).sum(), b), argnums=(0, 1), has_aux=True)(
        x, x)
    assert_same(g_l[0], g_t[0])
    assert_same(g_l[1], g_t[1])
    assert_same(v_l, v_t)


def test_vmap_in_out_dims_chunks_and_structures():
    x, y = torch.randn(2, 3, 4), torch.randn(4)
    cases = [
        (lambda a: a.T, dict(in_dims=1, out_dims=1), (x,)),
        (lambda a, b: a + b, dict(in_dims=(0, None)), (x, y)),
        (lambda a, b: (a * b, a.sum()), dict(in_dims=(2, 0), out_dims=(1, 0)), (x, y)),
        (lambda d: d["a"] @ d["b"], dict(in_dims=({"a": 0, "b": None},)), ({"a": x, "b": y},)),
        (lambda a: a.sum(0), dict(in_dims=-1, chunk_size=3), (x,)),
        (lambda a: a.cumsum(0), dict(chunk_size=1), (x,)),
    ]
    for f, kw, args in cases:
        rt = torch.func.vmap(f, **kw)(*args)
        conv = [({k: to_tl(v) for k, v in a.items()} if isinstance(a, dict) else to_tl(a)) for a in args]
        rl = tf.vmap(f, **kw)(*conv)
        for a, b in zip(rl if isinstance(rl, tuple) else (rl,), rt if isinstance(rt, tuple) else (rt,)):
            assert_same(a, b)
    # nested vmap: outer product rows
    ot = torch.vmap(torch.vmap(torch.mul, in_dims=(None, 0)), in_dims=(0, None))(x[0, 0], y)
    ol = torchlike.vmap(torchlike.vmap(torchlike.mul, in_dims=(None, 0)), in_dims=(0, None))(to_tl(x[0, 0]), to_tl(y))
    assert_same(ol, ot)
    # an unbatched output with out_dims=None, kwargs passed through unbatched
    assert_same(tf.vmap(lambda a: torchlike.ones(2), out_dims=None)(to_tl(x)), torch.ones(2))
    assert_same(tf.vmap(lambda a, k=1: a * k)(to_tl(x), k=torchlike.ones(4)),
                torch.vmap(lambda a, k=1: a * k)(x, k=torch.ones(4)))


def test_vmap_randomness_modes():
    x = torchlike.zeros(4, 3)
    with pytest.raises(RuntimeError, match="vmap: called random operation while in randomness error mode"):
        tf.vmap(lambda a: a + torchlike.rand(3))(x)
    with pytest.raises(RuntimeError, match="randomness error mode"):
        tf.vmap(lambda a: torchlike.nn.functional.dropout(a + 1, 0.5))(x)
    same = tf.vmap(lambda a: a + torchlike.rand(3), randomness="same")(x)
    assert (same == same[0]).all() and not (same[0] == same[0][0]).all()
    diff = tf.vmap(lambda a: a + torchlike.rand(3), randomness="different")(x)
    assert len({tuple(r) for r in diff.tolist()}) == 4
    assert ((diff >= 0) & (diff < 1)).all()
    drop = tf.vmap(lambda a: torchlike.nn.functional.dropout(a + 1, 0.5), randomness="different")(torchlike.zeros(8, 50))
    assert len({tuple(r) for r in drop.tolist()}) == 8
    # the generator advanced and is usable again afterwards, and seeding reproduces
    torchlike.manual_seed(3)
    a = tf.vmap(lambda a: a + torchlike.randn(3), randomness="different")(x)
    torchlike.manual_seed(3)
    b = tf.vmap(lambda a: a + torchlike.randn(3), randomness="different")(x)
    assert (a == b).all()
    assert torchlike.rand(2).shape == (2,)
    with pytest.raises(RuntimeError, match="Only allowed values for randomness are 'error', 'different', or 'same'. "
                                           "Got foo"):
        tf.vmap(lambda a: a, randomness="foo")


def test_error_messages_match_torch():
    x_t, x_l = torch.randn(3, 4), torchlike.randn(3, 4)

    cases = [
        lambda lib, x: lib.vmap(lambda a: a * 2, in_dims=(0, 0))(x),
        lambda lib, x: lib.vmap(lambda a: a * 2, in_dims=2)(x),
        lambda lib, x: lib.vmap(lambda a: a * 2, in_dims=-3)(x),
        lambda lib, x: lib.vmap(lambda a: a * 2, in_dims="a")(x),
        lambda lib, x: lib.vmap(lambda a: a, in_dims=None)(x),
        lambda lib, x: lib.vmap(lambda a: a, in_dims=[0])(x),
        lambda lib, x: lib.vmap(lambda a, b: a, in_dims=(0, [0]))(x, (x,)),
        lambda lib, x: lib.vmap(lambda a, b: a * b)(x, lib.randn(4, 4)),
        lambda lib, x: lib.vmap(lambda a: 3)(x),
        lambda lib, x: lib.vmap(lambda a: a)(3),
        lambda lib, x: lib.vmap(lambda a: a)(),
        lambda lib, x: lib.vmap(lambda a: a, in_dims=(1.5,))(x),
        lambda lib, x: lib.vmap(lambda a: a, out_dims=(0, 0))(x),
        lambda lib, x: lib.vmap(lambda a: a, out_dims=None)(x),
        lambda lib, x: lib.vmap(lambda a: a, out_dims="x")(x),
        lambda lib, x: lib.vmap(lambda a: a.sum() if a.sum() > 0 else a)(x),
        lambda lib, x: lib.vmap(lambda a: a.item())(x),
        lambda lib, x: lib.vmap(lambda a: a, chunk_size=0)(x),
        lambda lib, x: lib.func.grad(lambda a: a * 2)(x),
        lambda lib, x: lib.func.grad(lambda a: a.sum(), argnums=1)(x),
        lambda lib, x: lib.func.grad(lambda a: a.sum(), argnums=(0, 0))(x),
        lambda lib, x: lib.func.grad(lambda a: (a.sum(), 1))(x),
        lambda lib, x: lib.func.grad(lambda a: a.sum(), has_aux=True)(x),
        lambda lib, x: lib.func.grad(lambda a: a.sum())(lib.ones(3, dtype=lib.long)),
        lambda lib, x: lib.func.grad(lambda a: 3)(x),
        lambda lib, x: lib.func.grad(lambda a: (a.sum(), 3), has_aux=True)(x),
        lambda lib, x: lib.func.grad(lambda a: a.sum())(3.0),
        lambda lib, x: lib.func.stack_module_state([]),
        lambda lib, x: lib.func.stack_module_state([lib.nn.Linear(2, 2), lib.nn.Linear(2, 2).eval()]),
        lambda lib, x: lib.func.functional_call(lib.nn.Linear(2, 2), {"weight": lib.ones(2, 2), "foo": lib.ones(1)},
                                                (lib.ones(1, 2),), strict=True),
        lambda lib, x: lib.func.functional_call(lib.nn.Linear(2, 2), ({"weight": lib.ones(2, 2)},
                                                                      {"weight": lib.ones(2, 2)}), (lib.ones(1, 2),)),
        # several missing / unexpected keys are listed sorted, as torch's check_keys does (a Sequential's were
        # in module order: '0.bias', '2.weight', '2.bias' where torch says '0.bias', '2.bias', '2.weight')
        lambda lib, x: lib.func.functional_call(_seq(lib), {"0.weight": lib.ones(3, 2), "zb": lib.ones(1),
                                                            "za": lib.ones(1)}, (lib.ones(1, 2),), strict=True),
        lambda lib, x: lib.nn.utils.stateless.functional_call(_seq(lib), {"0.weight": lib.ones(3, 2), "zb": lib.ones(1),
                                                                          "za": lib.ones(1)}, (lib.ones(1, 2),),
                                                              strict=True),
    ]
    for make in cases:  # same exception type and message as torch
        raises_like_torch(lambda lib: make(lib, x_t if lib is torch else x_l))


def _seq(lib):
    return lib.nn.Sequential(lib.nn.Linear(2, 3), lib.nn.ReLU(), lib.nn.Linear(3, 1))


def test_functional_call_ties_strict_and_restores():
    class T(torchlike.nn.Module):
        def __init__(self):
            super().__init__()
            self.a = torchlike.nn.Linear(2, 2, bias=False)
            self.b = torchlike.nn.Linear(2, 2, bias=False)
            self.b.weight = self.a.weight

        def forward(self, x):
            return self.b(self.a(x))
    m = T()
    w = m.a.weight
    out = tf.functional_call(m, {"a.weight": torchlike.eye(2) * 2}, (torchlike.ones(1, 2),))
    assert out.tolist() == [[4.0, 4.0]]  # torch: tensor([[4., 4.]]) (the tied b.weight follows)
    assert m.a.weight is w and m.b.weight is w
    untied = tf.functional_call(m, {"a.weight": torchlike.eye(2) * 2}, (torchlike.ones(1, 2),), tie_weights=False)
    np.testing.assert_allclose(np.asarray(untied.detach()), np.asarray((torchlike.ones(1, 2) * 2) @ w.detach().T),
                               rtol=1e-6)
    with pytest.raises(ValueError, match=r"functional_call got multiple values for keys \['a.weight', 'b.weight'\], "
                                         "which are tied. Consider using tie_weights=False"):
        tf.functional_call(m, {"a.weight": torchlike.eye(2), "b.weight": torchlike.eye(2)}, (torchlike.ones(1, 2),))
    lin = torchlike.nn.Linear(2, 2)
    assert tf.functional_call(lin, {"weight": torchlike.eye(2), "bias": torchlike.zeros(2)},
                              torchlike.ones(1, 2)).tolist() == [[1.0, 1.0]]  # a bare args tensor is one argument


def test_batch_norm_under_vmap_after_replace():
    torch.manual_seed(0)
    tm = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.BatchNorm1d(4))
    lm = _twin(tm, torchlike.nn.Sequential(torchlike.nn.Linear(3, 4), torchlike.nn.BatchNorm1d(4)))
    torch.func.replace_all_batch_norm_modules_(tm)
    tf.replace_all_batch_norm_modules_(lm)
    assert lm[1].running_mean is None and lm[1].track_running_stats is False
    x = torch.randn(2, 5, 3)
    assert_same(tf.vmap(lm)(to_tl(x)).detach(), torch.vmap(tm)(x).detach(), rtol=1e-5, atol=1e-5)


def test_composes_with_compile():
    torch.manual_seed(0)
    w_t = torch.randn(4, 3)
    x_t = torch.randn(6, 4)
    w, x = to_tl(w_t), to_tl(x_t)

    def loss_l(w_, a):
        return (a @ w_).tanh().sum()

    def loss_t(w_, a):
        return (a @ w_).tanh().sum()

    @torchlike.compile
    def step(w_, x_):
        return tf.vmap(tf.grad(loss_l), in_dims=(None, 0))(w_, x_)
    expect = torch.func.vmap(torch.func.grad(loss_t), in_dims=(None, 0))(w_t, x_t)
    assert_same(step(w, x), expect, rtol=1e-5, atol=1e-6)
    assert_same(step(w, x), expect, rtol=1e-5, atol=1e-6)
    # and compile inside a transform
    inner = torchlike.compile(lambda a: (a.sin() ** 2).sum())
    assert_same(tf.grad(inner)(x), torch.func.grad(lambda a: (a.sin() ** 2).sum())(x_t))


def test_eager_autograd_inside_is_harmless():
    lin = torchlike.nn.Linear(3, 2)  # parameters require grad: ops record a tape inside the transform
    out = tf.vmap(lin)(torchlike.ones(4, 3))
    assert out.shape == (4, 2)
    g = tf.grad(lambda a: lin(a).sum())(torchlike.ones(3))
    np.testing.assert_allclose(np.asarray(g.detach()), np.asarray(lin.weight.detach().sum(0)), rtol=1e-6)  # (g requires grad, as torch's)
    lin(torchlike.ones(1, 3)).sum().backward()  # plain autograd still works afterwards
    assert lin.weight.grad is not None


def _mutating(x):
    x.view(-1)[1:].add_(1)
    return x * 2, x.sum()


@pytest.mark.parametrize("remove", ["mutations", "mutations_and_views"])
def test_functionalize_keeps_outputs_and_input_mutations(remove):
    xt = torch.arange(6.).view(2, 3)
    xl = to_tl(xt)
    ot = torch.func.functionalize(_mutating, remove=remove)(xt)
    ol = tf.functionalize(_mutating, remove=remove)(xl)
    for a, b in zip(ol, ot):
        assert_same(a, b)
    assert_same(xl, xt)
    assert_same(tf.debug_unwrap(xl), torch.func.debug_unwrap(xt))


def test_functionalize_rejects_an_unknown_remove_like_torch():
    raises_like_torch(lambda lib: lib.func.functionalize(_mutating, remove="views"))
