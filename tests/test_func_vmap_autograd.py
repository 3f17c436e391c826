"""Eager autograd through torchlike.func.vmap, against torch: ``vmap(model)(x).sum().backward()`` reaches
the inputs and the parameters the function closes over, as in torch (issue 11)."""
import copy

import torchlike
from torchlike import func as tf
from conftest import assert_same, to_tl, torch


def _mlp(lib):
    nn = lib.nn
    return nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2))


def _pair():
    torch.manual_seed(0)
    tm = _mlp(torch)
    lm = _mlp(torchlike)
    lm.load_state_dict({k: to_tl(v) for k, v in tm.state_dict().items()})
    return tm, lm


def _grads(m):
    return {k: p.grad for k, p in m.named_parameters()}


def test_backward_reaches_module_parameters_and_inputs():
    tm, lm = _pair()
    x = torch.randn(5, 3)
    xt, xl = x.clone().requires_grad_(), to_tl(x, requires_grad=True)
    yt, yl = torch.func.vmap(tm)(xt), tf.vmap(lm)(xl)
    assert yl.requires_grad and yl.grad_fn is not None
    (yt ** 2).sum().backward()
    (yl ** 2).sum().backward()
    assert_same(yl, yt)
    assert_same(xl.grad, xt.grad)
    for k, g in _grads(tm).items():
        assert_same(_grads(lm)[k], g)


def test_backward_through_a_closure_each_step():
    tm, lm = _pair()
    x = torch.randn(4, 3)
    for _ in range(3):  # the same closure made afresh each step, as inline user code does
        tm.zero_grad()
        lm.zero_grad()
        torch.func.vmap(lambda r: tm(r) * 2)(x).sum().backward()
        tf.vmap(lambda r: lm(r) * 2)(to_tl(x)).sum().backward()
        for k, g in _grads(tm).items():
            assert_same(_grads(lm)[k], g)


def test_ensemble_of_stacked_parameters_trains():
    torch.manual_seed(1)
    tms = [torch.nn.Linear(3, 2) for _ in range(4)]
    lms = [torchlike.nn.Linear(3, 2) for _ in range(4)]
    for t, m in zip(tms, lms):
        m.load_state_dict({k: to_tl(v) for k, v in t.state_dict().items()})
    x = torch.randn(6, 3)
    res = []
    for lib, ms, xx in ((torch, tms, x), (torchlike, lms, to_tl(x))):
        params, buffers = lib.func.stack_module_state(ms)
        base = copy.deepcopy(ms[0]).to("meta")

        def fm(p, b, inp):
            return lib.func.functional_call(base, (p, b), (inp,))
        out = lib.func.vmap(fm, in_dims=(0, 0, None))(params, buffers, xx)
        out.pow(2).mean().backward()
        res.append((out, params["weight"].grad, params["bias"].grad))
    for ours, theirs in zip(res[1], res[0]):
        assert_same(ours, theirs)


def test_unbatched_input_that_requires_grad():
    x, w = torch.randn(5, 3), torch.randn(3)
    wt, wl = w.clone().requires_grad_(), to_tl(w, requires_grad=True)
    torch.func.vmap(torch.dot, in_dims=(0, None))(x, wt).sum().backward()
    tf.vmap(torchlike.dot, in_dims=(0, None))(to_tl(x), wl).sum().backward()
    assert_same(wl.grad, wt.grad)


def test_no_grad_and_no_grad_inputs_stay_plain():
    _, lm = _pair()
    x = torchlike.randn(5, 3)
    with torchlike.no_grad():
        assert not tf.vmap(lm)(x).requires_grad
    y = tf.vmap(torchlike.sin)(x)
    assert not y.requires_grad and y.grad_fn is None
    assert_same(y, torch.sin(torch.tensor(x.tolist())))


def test_per_sample_grad_inside_vmap_is_unchanged():
    """vmap(grad(...)) stays a pure transform: nothing is routed through eager autograd."""
    tm, lm = _pair()
    x, t = torch.randn(5, 3), torch.randn(5, 2)
    res = []
    for lib, m, xx, tt in ((torch, tm, x, t), (torchlike, lm, to_tl(x), to_tl(t))):
        params = {k: v.detach() for k, v in m.named_parameters()}

        def loss(p, a, b):
            return ((lib.func.functional_call(m, p, (a.unsqueeze(0),)) - b) ** 2).sum()
        res.append(lib.func.vmap(lib.func.grad(loss), in_dims=(None, 0, 0))(params, xx, tt))
    for k in res[0]:
        assert_same(res[1][k], res[0][k])


def test_maml_outer_backward_through_grad():
    """grad(inner_loss) of fast weights, then an outer loss's backward reaches the meta-parameters."""
    x, y = torch.randn(8, 3), torch.randn(8, 1)
    w0 = torch.randn(3, 1)
    res = []
    for lib, xx, yy, w in ((torch, x, y, w0.clone()), (torchlike, to_tl(x), to_tl(y), to_tl(w0))):
        w.requires_grad_()

        def inner_loss(p, a, b):
            return ((a @ p - b) ** 2).mean()
        g = lib.func.grad(inner_loss)(w, xx, yy)
        fast = w - 0.1 * g
        outer = ((xx @ fast - yy) ** 2).mean()
        outer.backward()
        res.append((g, outer, w.grad))
    for ours, theirs in zip(res[1], res[0]):
        assert_same(ours, theirs)


def test_jacrev_and_jvp_results_join_eager_autograd():
    x0 = torch.randn(3)
    res = []
    for lib, x in ((torch, x0.clone()), (torchlike, to_tl(x0))):
        x.requires_grad_()
        j = lib.func.jacrev(lambda a: a.sin() * a)(x)
        _, t = lib.func.jvp(lambda a: a.exp(), (x,), (lib.ones(3),))
        (j.sum() + t.sum()).backward()
        res.append((j, t, x.grad))
    for ours, theirs in zip(res[1], res[0]):
        assert_same(ours, theirs)
