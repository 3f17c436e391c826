"""Autograd semantics compared with torch: accumulation, retain_graph, create_graph, hooks, Function, modes."""
import os
import threading
import warnings

import numpy as np
import pytest
import torch

import torchlike
from conftest import assert_same, raises_like_torch, run_program, same_as_torch


def _pair(shape=(3,), seed=0):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape).astype(np.float32)
    return torch.tensor(a, requires_grad=True), torchlike.tensor(a, requires_grad=True)


def test_accumulation_over_two_backwards():
    a, b = _pair()
    for x in (a, b):
        (x * 2).sum().backward()
        (x * x).sum().backward()
    assert_same(b.grad, a.grad)


def test_second_backward_without_retain_raises():
    for lib, (x, _) in ((torch, _pair()), (torchlike, _pair()[::-1])):
        y = (x.exp() * 2).sum()
        y.backward()
        with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
            y.backward()


def test_retain_graph_allows_second_backward():
    a, b = _pair()
    for x in (a, b):
        y = (x.sin() * x).sum()
        y.backward(retain_graph=True)
        y.backward()
    assert_same(b.grad, a.grad)


def test_backward_without_grad_fn_and_nonscalar_errors():
    for lib in (torch, torchlike):
        with pytest.raises(RuntimeError, match="does not require grad and does not have a grad_fn"):
            lib.ones(2).sum().backward()
        x = lib.ones(2, requires_grad=True)
        with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar outputs"):
            (x * 2).backward()


def test_gradient_argument_and_shape_mismatch():
    a, b = _pair()
    (a * a).backward(torch.tensor([1.0, 2.0, 3.0]))
    (b * b).backward(torchlike.tensor([1.0, 2.0, 3.0]))
    assert_same(b.grad, a.grad)
    with pytest.raises(RuntimeError, match="Mismatch in shape"):
        (b * 2).backward(torchlike.ones(2))


def test_create_graph_second_and_third_derivatives():
    a, b = _pair()
    outs = []
    for lib, x in ((torch, a), (torchlike, b)):
        y = (x ** 3 * x.sin()).sum()
        (g,) = lib.autograd.grad(y, x, create_graph=True)
        (h,) = lib.autograd.grad(g.sum(), x, create_graph=True)
        (k,) = lib.autograd.grad(h.sum(), x)
        outs.append((g, h, k))
    for ours, theirs in zip(outs[1], outs[0]):
        assert_same(ours, theirs, rtol=1e-4, atol=1e-5)


def _create_graph_edges(lib, x, y):
    """A recorded gradient links only to the tensors its backward formula reads, as torch's."""
    x.requires_grad_()
    y.requires_grad_()
    (g,) = lib.autograd.grad((x * y + x).sum(), x, create_graph=True)  # d/dx = y + 1: reads y, not x
    gx, gy = lib.autograd.grad(g.sum(), (x, y), allow_unused=True)
    (c,) = lib.autograd.grad((x ** 3).sum(), x, create_graph=True)
    (c2,) = lib.autograd.grad(c.sum(), x, create_graph=True)
    (c3,) = lib.autograd.grad(c2.sum(), x)  # frees c2's graph only: c's is still there
    (again,) = lib.autograd.grad(c.sum(), x)
    return gx, gy, c3, again


def test_create_graph_links_only_what_the_backward_reads():
    same_as_torch(_create_graph_edges, np.array([1.0, 2.0, 3.0], np.float32), np.array([0.5, -1.0, 2.0], np.float32),
                  grad=False, quiet=True)


def test_grad_allow_unused_and_inputs_restriction():
    a, b = _pair()
    for lib, x in ((torch, a), (torchlike, b)):
        z = lib.ones(3, requires_grad=True)
        y = (x * 2).sum()
        with pytest.raises(RuntimeError, match="appears to not have been used"):
            lib.autograd.grad(y, [x, z], retain_graph=True)
        gx, gz = lib.autograd.grad(y, [x, z], allow_unused=True)
        assert gz is None
    a2, b2 = _pair(seed=1)
    w1, w2 = _pair(seed=2)
    (a2 * w1).sum().backward(inputs=[a2])
    (b2 * w2).sum().backward(inputs=[b2])
    assert w1.grad is None and w2.grad is None
    assert_same(b2.grad, a2.grad)


def test_hooks_order_and_replacement():
    logs = {}
    for lib, x in ((torch, _pair()[0]), (torchlike, _pair()[1])):
        log = logs[lib.__name__] = []
        y = x * 2
        y.register_hook(lambda g: log.append("y1") or g * 10)
        y.register_hook(lambda g: log.append(("y2", g.sum().item())))
        x.register_hook(lambda g: log.append(("x", round(g.sum().item(), 3))))
        y.retain_grad()
        y.sum().backward()
        log.append(("ygrad", y.grad.sum().item()))
        log.append(("xgrad", round(x.grad.sum().item(), 3)))
    assert logs["torchlike"] == logs["torch"]



@pytest.mark.parametrize("leaf", [True, False])
@pytest.mark.parametrize("create_graph", [False, True])
def test_tensor_hooks_see_one_gradient_object(leaf, create_graph):
    # hooks on one tensor run in order on the same gradient object until one returns a new one, which the next
    # hook then receives itself (captum's LRP sets an attribute on the gradient in one hook and reads it in another)
    logs = {}
    for lib in (torch, torchlike):
        log = logs[lib.__name__] = []
        x = lib.ones(3, requires_grad=True)
        y = x if leaf else x * 2
        seen = {}

        def first(g, seen=seen):
            seen["g"] = g
            g.tag = "set in the first hook"

        def second(g, seen=seen, log=log):
            log.append((g is seen["g"], getattr(g, "tag", None)))
            seen["r"] = g * 3
            return seen["r"]

        def third(g, seen=seen, log=log):
            log.append((g is seen["r"], g.sum().item()))

        for h in (first, second, third):
            y.register_hook(h)
        (y * 2).sum().backward(create_graph=create_graph)
        log.append(x.grad.sum().item())
    assert logs["torchlike"] == logs["torch"]
    assert logs["torch"][0] == (True, "set in the first hook")

def test_function_ctx_features():
    results = []
    for lib in (torch, torchlike):
        class MulConst(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x, k, idx):
                ctx.save_for_backward(x)
                ctx.k = k
                ctx.mark_non_differentiable(idx)
                return x * k, idx

            @staticmethod
            def backward(ctx, g, gidx):
                (x,) = ctx.saved_tensors
                assert ctx.needs_input_grad[0]
                return g * ctx.k + x * 0, None, None

        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y, idx = MulConst.apply(x, 3.0, lib.tensor([0, 1]))
        assert not idx.requires_grad
        (y * y).sum().backward()
        results.append(x.grad)
    assert_same(results[1], results[0])


def _saved_output_exp(lib):
    class MyExp(lib.autograd.Function):
        @staticmethod
        def forward(ctx, i):
            r = i.exp()
            ctx.save_for_backward(r)  # the output: its grad_fn is this node when backward reads it
            return r

        @staticmethod
        def backward(ctx, g):
            (r,) = ctx.saved_tensors
            return g * r
    return MyExp


def test_function_saved_output_double_backward():
    """A Function that saves its output: double backward goes through that node again (exp'' = exp), and
    gradgradcheck passes; the node's repr names torch's module as Python classes' reprs do."""
    seen = {}
    for lib in (torch, torchlike):
        MyExp = _saved_output_exp(lib)
        x = lib.tensor([0.5, -1.0, 2.0], dtype=lib.float64, requires_grad=True)
        y = MyExp.apply(x)
        (g,) = lib.autograd.grad(y.sum(), x, create_graph=True)
        (gg,) = lib.autograd.grad(g.sum(), x)
        seen[lib] = (g.requires_grad, gg, lib.autograd.gradgradcheck(MyExp.apply, (x,)),
                     repr(y.grad_fn).split(" object at ")[0])
    ours, theirs = seen[torchlike], seen[torch]
    assert ours[0] is theirs[0] is True
    assert_same(ours[1], theirs[1])
    assert ours[2] is theirs[2] is True
    assert ours[3] == theirs[3].replace("torch.", "torchlike.", 1)


def test_grad_mode_reprs():
    for mode in (True, False):
        assert repr(torchlike.set_grad_enabled(mode)) == \
            repr(torch.set_grad_enabled(mode)).replace("torch.", "torchlike.", 1)
    torch.set_grad_enabled(True)
    torchlike.set_grad_enabled(True)


def test_function_set_materialize_grads():
    for lib in (torch, torchlike):
        class Two(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.set_materialize_grads(False)
                return x * 1, x * 2

            @staticmethod
            def backward(ctx, g1, g2):
                assert g2 is None
                return g1

        x = lib.ones(2, requires_grad=True)
        a, _ = Two.apply(x)
        a.sum().backward()
        assert x.grad.tolist() == [1.0, 1.0]


def test_no_grad_inside_enable_grad_and_decorators():
    for lib in (torch, torchlike):
        x = lib.ones(2, requires_grad=True)
        with lib.no_grad():
            assert (x * 2).requires_grad is False
            with lib.enable_grad():
                assert (x * 2).requires_grad is True

        @lib.no_grad()
        def f(t):
            return t * 2

        @lib.no_grad
        def g(t):
            return t * 2
        assert not f(x).requires_grad and not g(x).requires_grad
        with lib.set_grad_enabled(False):
            assert not (x * 2).requires_grad
        assert lib.is_grad_enabled()
        with lib.inference_mode():
            assert not (x * 2).requires_grad
            assert lib.is_inference_mode_enabled()


def test_grad_mode_decorated_generator_ends_and_returns_like_torch():
    """A generator decorated with no_grad/enable_grad/inference_mode ends with StopIteration carrying its return
    value (torch's _wrap_generator), also one that returns before its first yield, never a RuntimeError."""
    def fn(m):
        out = []
        for deco in (m.no_grad(), m.enable_grad(), m.inference_mode()):
            @deco
            def gen(n):
                for i in range(n):
                    yield i, m.is_grad_enabled()
                return "done"

            out.append(list(gen(2)))
            out.append(list(gen(0)))
            g = gen(1)
            next(g)
            try:
                next(g)
            except StopIteration as e:
                out.append(e.value)
        return out
    same_as_torch(fn, grad=False)


def test_grad_mode_is_thread_local():
    seen = []
    with torchlike.no_grad():
        t = threading.Thread(target=lambda: seen.append(torchlike.is_grad_enabled()))
        t.start()
        t.join()
    assert seen == [True]


def test_detach_shares_storage_and_requires_grad_errors():
    x = torchlike.ones(3, requires_grad=True)
    y = x * 2
    d = y.detach()
    assert not d.requires_grad and d._base is None
    with pytest.raises(RuntimeError, match="only Tensors of floating point"):
        torchlike.ones(2, dtype=torchlike.int64).requires_grad_()
    with pytest.raises(RuntimeError, match="you can only change requires_grad flags of leaf variables"):
        y.requires_grad_(False)


def test_inplace_on_leaf_and_modified_saved_tensor_errors():
    for lib in (torch, torchlike):
        x = lib.ones(2, requires_grad=True)
        with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place"):
            x.mul_(2)
        with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad"):
            x[0:1].mul_(2) if lib is torch else x.narrow(0, 0, 1).mul_(2)
        y = x.exp()
        z = y.sin()
        y.add_(1)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            z.sum().backward()


def test_inplace_on_nonleaf_through_views_matches_torch():
    a, b = _pair((4, 3))
    grads = []
    for lib, x in ((torch, a), (torchlike, b)):
        y = x * 1.5
        v = y.t().narrow(0, 1, 2)  # a view of a view
        v.mul_(v.exp())
        y.narrow(1, 0, 1).add_(1)
        (y ** 2).sum().backward()
        grads.append(x.grad)
    assert_same(grads[1], grads[0], rtol=1e-5)


def test_setting_view_of_nonleaf_from_tensor_that_requires_grad():
    a, b = _pair((3,))
    w1, w2 = _pair((1,), seed=5)
    for x, w in ((a, w1), (b, w2)):
        y = x * 2
        y.narrow(0, 1, 1).copy_(w * 3)
        y.sum().backward()
    assert_same(b.grad, a.grad)
    assert_same(w2.grad, w1.grad)


def test_gradcheck_and_functional():
    x = torchlike.tensor([0.3, -0.7], dtype=torchlike.float64, requires_grad=True)
    assert torchlike.autograd.gradcheck(lambda t: (t.sin() * t).sum(), (x,))
    f = lambda t: t ** 2 * 3  # noqa: E731
    xt = torch.tensor([1.0, 2.0])
    jt = torch.autograd.functional.jacobian(f, xt)
    jo = torchlike.autograd.functional.jacobian(f, torchlike.tensor([1.0, 2.0]))
    assert_same(jo, jt)
    g = lambda t: (t ** 3).sum()  # noqa: E731
    assert_same(torchlike.autograd.functional.hessian(g, torchlike.tensor([1.0, 2.0])),
                torch.autograd.functional.hessian(g, torch.tensor([1.0, 2.0])))
    vo = torchlike.autograd.functional.vjp(f, torchlike.tensor([1.0, 2.0]), torchlike.tensor([1.0, 1.0]))[1]
    vt = torch.autograd.functional.vjp(f, torch.tensor([1.0, 2.0]), torch.tensor([1.0, 1.0]))[1]
    assert_same(vo, vt)
    jo = torchlike.autograd.functional.jvp(f, torchlike.tensor([1.0, 2.0]), torchlike.tensor([1.0, 0.0]))[1]
    jt = torch.autograd.functional.jvp(f, torch.tensor([1.0, 2.0]), torch.tensor([1.0, 0.0]))[1]
    assert_same(jo, jt)


def test_grad_fn_names_and_next_functions():
    x = torchlike.ones(2, requires_grad=True)
    y = x * 2
    assert y.grad_fn.name() == "MulBackward0"
    (acc, idx), (none, j) = y.grad_fn.next_functions  # torch wraps the 2 into a tensor: a (None, 0) edge
    assert acc.variable is x and idx == 0 and none is None and j == 0
    assert len((torch.ones(2, requires_grad=True) * 2).grad_fn.next_functions) == 2


def test_complex_gradient_convention_matches_torch():
    data = np.array([1 + 2j, -0.5 + 0.25j], dtype=np.complex64)
    xt = torch.tensor(data, requires_grad=True)
    xo = torchlike.tensor(data, requires_grad=True)
    (xt * xt.conj() * xt).real.sum().backward() if False else (xt.abs() ** 2 * xt.real).sum().backward()
    (xo.abs() ** 2 * xo.real).sum().backward()
    assert_same(xo.grad, xt.grad, rtol=1e-5)


# --- small autograd and amp names (gradcheck jacobians, Variable, hvp, profiler, OptState) --------
def test_small_autograd_and_amp_names_match_torch():
    x = torchlike.tensor([1.0, 2.0], dtype=torchlike.float64, requires_grad=True)
    tx = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
    import importlib
    gc, tgc = importlib.import_module("torchlike.autograd.gradcheck"), importlib.import_module("torch.autograd.gradcheck")
    ours = gc.get_analytical_jacobian((x,), x * x)[0][0]
    theirs = tgc.get_analytical_jacobian((tx,), tx * tx)[0][0]
    np.testing.assert_allclose(ours.numpy(), theirs.numpy())
    num = gc.get_numerical_jacobian(lambda t: t[0] ** 2, (x,), eps=1e-6)[0]
    np.testing.assert_allclose(num.numpy(), theirs.numpy(), atol=1e-6)
    assert isinstance(torchlike.ones(1), importlib.import_module("torchlike.autograd.variable").Variable)
    with pytest.raises(RuntimeError, match="deprecated, use torch.tensor"):
        torchlike.autograd.variable(1)
    assert [m.name for m in torchlike.amp.grad_scaler.OptState] == [m.name for m in torch.amp.grad_scaler.OptState]
    assert torchlike.autograd.functional.hvp(lambda t: (t ** 3).sum(), x, torchlike.ones(2, dtype=torchlike.float64)
                                             )[1].tolist() == \
        torch.autograd.functional.hvp(lambda t: (t ** 3).sum(), tx, torch.ones(2, dtype=torch.float64))[1].tolist()
    with torchlike.autograd.profiler.record_function("x"):
        pass
    with torchlike.autograd.profiler.profile() as prof:   # the autograd profiler records (tests/test_profiler.py)
        torchlike.ones(1).exp()
    assert [e.key for e in prof.key_averages()] == ["aten::exp"]
    with pytest.raises(NotImplementedError, match="torch.optim.adam.adam"):
        torchlike.optim.adam.adam([], [], [], [], [], [])


# torch's autograd messages, found by an autograd-idioms probe script run next to torch
def _inplace_cases(m):
    def sigmoid_out():  # tanh/sigmoid/exp save their result: named by the node that saved it
        a = m.randn(3, requires_grad=True)
        b = a.sigmoid()
        b.mul_(2)
        b.sum().backward()

    def saved_input():  # a saved input: named by its grad_fn now (the in-place op)
        a = m.randn(3, requires_grad=True)
        b = a * 2
        c = b * b
        b.add_(1)
        c.sum().backward()

    def plain_input():  # a tensor without history: no "which is output" part
        a = m.randn(3, requires_grad=True)
        x = m.randn(3)
        c = a * x
        x.add_(1)
        c.sum().backward()
    return [sigmoid_out, saved_input, plain_input]


@pytest.mark.parametrize("k", range(3))
def test_modified_by_an_inplace_operation_names_torchs_op(k):
    e = raises_like_torch(lambda m: _inplace_cases(m)[k]())
    theirs = None
    try:
        _inplace_cases(torch)[k]()
    except RuntimeError as err:
        theirs = str(err)
    assert str(e) == theirs


@pytest.mark.parametrize("make", [lambda m: m.ones(2, dtype=m.long, requires_grad=True),
                                  lambda m: m.ones(2, dtype=m.long).requires_grad_(),
                                  lambda m: setattr(m.ones(2, dtype=m.long), "requires_grad", True),
                                  lambda m: m.arange(3, requires_grad=True),
                                  lambda m: m.nn.Parameter(m.ones(2, dtype=m.long)),
                                  lambda m: m.tensor([1, 2], requires_grad=True)],
                         ids=["factory", "method", "attribute", "arange", "parameter", "tensor"])
def test_integer_tensor_requiring_grad_message_is_torchs(make):
    raises_like_torch(make, match=r"^(Only|only) Tensors of floating point (and complex )?dtype can require gradients$")
    texts = []  # (the exact wording differs between the three ways: compare it too)
    for m in (torch, torchlike):
        try:
            make(m)
        except RuntimeError as err:
            texts.append(str(err))
    assert len(texts) == 2 and texts[0] == texts[1]


def test_grad_of_an_unused_input_names_its_index():
    raises_like_torch(lambda m: (lambda x: m.autograd.grad((x * 2).sum(), [x, m.ones(2, requires_grad=True)]))(
        m.ones(3, requires_grad=True)), match="The differentiated Tensor at index 1 appears to not have been used")


def test_reading_grad_of_a_non_leaf_warns_at_the_users_line():
    got = []
    for m in (torch, torchlike):
        x = m.ones(2, requires_grad=True)
        z = x * 2
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            assert z.grad is None
        got.append([(x.category, x.filename, str(x.message).split(" (Triggered internally")[0]) for x in w])
        z.retain_grad()
        with warnings.catch_warnings(record=True) as w:  # retained, or a leaf: no warning
            warnings.simplefilter("always")
            assert z.grad is None and x.grad is None
        assert not w
    assert len(got[0]) == 1 and got[0] == got[1] and got[0][0][1] == __file__


def _sqrt_of_zero_backward(m, **kw):
    p = m.tensor([0.0], requires_grad=True)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        with m.autograd.detect_anomaly(**kw):
            q = m.sqrt(p) * 0  # the forward call the warning must show
            try:
                q.sum().backward()
                err = None
            except RuntimeError as e:
                err = str(e)
    return err, [str(x.message) for x in w], p.grad


def test_detect_anomaly_names_the_node_that_returned_nan_and_its_forward_call():
    # detect_anomaly was a flag nothing read: backward went on and left nan in .grad
    ours, theirs = _sqrt_of_zero_backward(torchlike), _sqrt_of_zero_backward(torch)
    assert ours[0] == theirs[0] == "Function 'SqrtBackward0' returned nan values in its 0th output."
    assert ours[2] is None and theirs[2] is None
    assert ours[1][0] == theirs[1][0]  # "Anomaly Detection has been enabled. ..."
    mine = [w for w in ours[1] if w.startswith("Error detected in SqrtBackward0")]
    assert len(mine) == 1 and "q = m.sqrt(p) * 0" in mine[0] and "torchlike/" not in mine[0]
    assert not torchlike.is_anomaly_enabled() and not torch.is_anomaly_enabled()


def test_detect_anomaly_without_nan_check_lets_nan_through():
    ours, theirs = _sqrt_of_zero_backward(torchlike, check_nan=False), _sqrt_of_zero_backward(torch, check_nan=False)
    assert ours[0] is None and theirs[0] is None
    assert torch.isnan(theirs[2]).all() and torchlike.isnan(ours[2]).all()


def _batched_jacobian(m, x, w, create_graph):
    # zuko's exact CNF trace: the Jacobian's rows from one grad call with stacked one-hot grad_outputs
    x = x.clone().requires_grad_()
    y = (x @ w).tanh() * x
    eye = m.eye(x.shape[-1], dtype=x.dtype).expand(*x.shape, -1).movedim(-1, 0)
    jac, unused = m.autograd.grad([y], [x, m.zeros(2, requires_grad=True)], [eye],
                                  create_graph=create_graph, is_grads_batched=True, allow_unused=True,
                                  materialize_grads=not create_graph)
    trace = m.einsum("i...i", jac)
    return (jac, trace, unused) if create_graph else (jac, trace, unused, jac.requires_grad)


@pytest.mark.parametrize("create_graph", [False, True])
def test_grad_with_batched_grad_outputs(create_graph):
    # each row of the batched grad_output is one vector-Jacobian product; with create_graph the stacked
    # result is differentiable (same_as_torch backpropagates through it)
    rng = np.random.default_rng(0)
    x, w = rng.standard_normal((3, 4)), rng.standard_normal((4, 4))
    same_as_torch(lambda m, x, w: _batched_jacobian(m, x, w, create_graph), x, w, grad=create_graph,
                  grad_inputs={1} if create_graph else None)


def test_batched_grad_output_of_the_wrong_shape_raises_like_torch():
    def fn(m):
        x = m.ones(3, 2, requires_grad=True)
        return m.autograd.grad(x * 2, x, m.ones(2, 2, 3), is_grads_batched=True)
    raises_like_torch(fn)


def test_saved_tensors_hooks_program_prints_what_torch_prints():
    # pack/unpack calls per op (torch's saved sets for unary/binary ops and saved results), a compressing hook
    # pair, no version check under hooks, the unpack type check, custom Functions, the disable block, disk offload
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "programs", "saved_tensors_hooks.py")
    expected = run_program([script], runner=False, timeout=300)
    ours = run_program([script], runner=True, timeout=300)
    assert ours == expected
    assert expected[0] == "[('pack', (3,), False), ('pack', (3,), True)]" and expected[-1] == "True True"


BACKWARD_ERRORS = [
    lambda m: m.randn(2).backward(),  # no grad: the engine's message, before any implicit-grad check
    lambda m: m.autograd.backward([m.randn(2)]),
    lambda m: m.tensor(1).backward(),
    lambda m: m.randn(2, requires_grad=True).backward(),
    lambda m: m.autograd.backward([m.ones(1, requires_grad=True) * 2, m.randn(2)]),
    lambda m: m.autograd.backward([m.randn(2), m.ones(2, requires_grad=True) * 2]),
    lambda m: m.autograd.grad(m.ones(3), m.ones(1, requires_grad=True)),
]


@pytest.mark.parametrize("k", range(len(BACKWARD_ERRORS)))
def test_backward_without_grad_raises_like_torch(k):
    raises_like_torch(BACKWARD_ERRORS[k])


def _gradcheck_answers(lib, x):
    """gradcheck checks only the outputs that require grad (with none, the numerical gradient must be zero);
    gradgradcheck differentiates in random grad_outputs too, drawn from the global generator."""
    x = x.requires_grad_()
    gc = lib.autograd.gradcheck

    class DetachedSave(lib.autograd.Function):  # keeps exp(x) on ctx: its double backward misses d/dx
        @staticmethod
        def forward(ctx, t):
            ctx.e = t.exp()
            return t.exp()

        @staticmethod
        def backward(ctx, g):
            return g * ctx.e

    lib.manual_seed(0)
    return (gc(lambda t: (t.detach() * 2, t * 3), x), gc(lambda t: t.detach() * 2, x, raise_exception=False),
            gc(lambda t: t * 0 + t.detach(), x, raise_exception=False),
            lib.autograd.gradgradcheck(lambda t: t.sin() * t, x),
            lib.autograd.gradgradcheck(DetachedSave.apply, x, raise_exception=False), lib.rand(2))


def test_gradcheck_and_gradgradcheck_answer_as_torch():
    same_as_torch(_gradcheck_answers, np.array([0.3, -0.7, 1.1]), grad=False)


@pytest.mark.parametrize("f", [lambda t: t.detach() * 2, lambda t: t * 0 + t.detach() * 5],
                         ids=["no_differentiable_output", "wrong_gradient"])
def test_gradcheck_failure_messages_as_torch(f):
    raises_like_torch(lambda lib, x: lib.autograd.gradcheck(f, x.requires_grad_()), np.array([0.5, 2.0]))


def test_post_accumulate_grad_hooks_dict_and_handles_like_torch():
    """Tensor._post_accumulate_grad_hooks: None until a hook is registered, then torch's OrderedDict of the hooks
    (torch-optimi's gradient release checks it before registering); handles are RemovableHandles that take
    their hook out of it; hooks run in registration order after each accumulation."""
    def run(lib):
        t = lib.ones(2, requires_grad=True)
        out = [t._post_accumulate_grad_hooks, lib.nn.Parameter(lib.ones(1))._post_accumulate_grad_hooks]
        seen = []
        f = lambda p: seen.append(("f", p.grad.tolist()))  # noqa: E731
        g = lambda p: seen.append(("g", p.grad.sum().item()))  # noqa: E731
        h, h2 = t.register_post_accumulate_grad_hook(f), t.register_post_accumulate_grad_hook(g)
        d = t._post_accumulate_grad_hooks
        out += [type(d).__name__, list(d.values()) == [f, g], type(h).__name__, hasattr(h2, "remove")]
        (t * 3).sum().backward()
        h.remove()
        out.append(len(t._post_accumulate_grad_hooks))
        (t * 2).sum().backward()
        h2.remove()
        out += [seen, len(t._post_accumulate_grad_hooks)]
        return out
    assert run(torchlike) == run(torch)


def test_backward_reads_saved_tensors_written_through_data():
    """A tensor saved for backward and then rewritten through ``.data`` (no version bump, so no error): torch's
    backward reads the saved storage, so every use sees the last write (bayesian-torch's LSTM layers and blitz's
    sample_elbo refill their eps buffer this way at each call); an ordinary in-place write still raises."""
    def run(m):
        rho = m.tensor([0.1, -0.2, 0.3], requires_grad=True)
        eps = m.zeros(3)
        total = 0
        for k in range(3):
            eps.data.copy_(m.tensor([1.0 + k, -2.0 * k, 0.5]))
            total = total + (m.log1p(rho.exp()) * eps).sum() + (rho * eps.data).sum()
        total.backward()
        w = m.ones(2, 2, requires_grad=True)
        buf = m.tensor([[1.0, 2.0], [3.0, 4.0]])
        y = (w @ buf).sum()
        buf.data.mul_(10)
        y.backward(retain_graph=True)
        first = w.grad.clone()
        buf.data.add_(1)
        y.backward()
        try:
            x = m.ones(2, requires_grad=True)
            c = m.tensor([1.0, 2.0])
            z = (x * c).sum()
            c.mul_(2)
            z.backward()
            err = None
        except RuntimeError as e:
            err = str(e).split(":")[0]
        return rho.grad.numpy(), first.numpy(), w.grad.numpy(), err
    t, ours = run(torch), run(torchlike)
    for a, b in zip(t[:3], ours[:3]):
        np.testing.assert_allclose(b, a, rtol=1e-6)
    assert t[3] == ours[3] and t[3] is not None
