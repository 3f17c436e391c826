"""torchlike.compile: same results as eager, state lifted and written back, guards, breaks."""
import warnings

import numpy as np
import pytest

import torchlike as torch
import torchlike.nn as nn
import torchlike.nn.functional as F


def _model(seed=0):
    torch.manual_seed(seed)
    return nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Dropout(0.0), nn.Linear(16, 3))


@pytest.mark.parametrize("opt_name,kw", [("SGD", dict(lr=0.1, momentum=0.9)), ("Adam", dict(lr=1e-2)),
                                         ("AdamW", dict(lr=1e-2, weight_decay=0.1)),
                                         ("RMSprop", dict(lr=1e-2, centered=True))])
def test_compiled_train_step_matches_eager(opt_name, kw):
    x = torch.randn(8, 6)
    y = torch.randint(0, 3, (8,))
    runs = []
    for compiled in (False, True):
        m = _model()
        opt = getattr(torch.optim, opt_name)(m.parameters(), **kw)
        sched = torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)

        def step():
            opt.zero_grad()
            loss = F.cross_entropy(m(x), y)
            loss.backward()
            opt.step()
            return loss
        fn = torch.compile(step) if compiled else step
        losses = []
        for _ in range(6):
            losses.append(fn().item())
            sched.step()  # changes lr outside the compiled function
        runs.append((losses, [p.detach().numpy().copy() for p in m.parameters()], fn))
    (l0, p0, _), (l1, p1, cf) = runs
    np.testing.assert_allclose(l1, l0, rtol=1e-6)
    for a, b in zip(p1, p0):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    # optimizer state is created concrete during the first trace, so that program is already the steady
    # step; SGD's momentum buffer starts as a copy of the first gradient, so SGD retraces once to read it
    assert cf.compile_count == (2 if opt_name == "SGD" else 1)


def test_compiled_module_backward_and_new_parameter_values():
    m = _model()
    cm = torch.compile(m)
    x = torch.randn(4, 6, requires_grad=True)
    cm(x).pow(2).sum().backward()
    g = [p.grad.clone() for p in m.parameters()]
    gx = x.grad.clone()
    m.zero_grad()
    x.grad = None
    m(x).pow(2).sum().backward()
    # (one fused program vs per-op programs: float32 rounding differs by a few ulps)
    for a, p in zip(g, m.parameters()):
        np.testing.assert_allclose(a.numpy(), p.grad.numpy(), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(gx.numpy(), x.grad.numpy(), rtol=1e-5, atol=1e-7)
    with torch.no_grad():
        m[0].weight.mul_(2)
    np.testing.assert_allclose(cm(x).detach().numpy(), m(x).detach().numpy(), rtol=1e-6)
    m.load_state_dict(_model(seed=3).state_dict())
    np.testing.assert_allclose(cm(x).detach().numpy(), m(x).detach().numpy(), rtol=1e-6)
    assert cm._compiled.compile_count == 1


def test_buffers_written_back_and_train_eval_guard():
    torch.manual_seed(0)
    bn = nn.BatchNorm1d(3)
    ref = nn.BatchNorm1d(3)
    cbn = torch.compile(bn)
    x = torch.randn(5, 3)
    for _ in range(3):
        cbn(x)
        ref(x)
    np.testing.assert_allclose(bn.running_mean.numpy(), ref.running_mean.numpy(), rtol=1e-6)
    assert int(bn.num_batches_tracked.item()) == 3
    bn.eval()
    ref.eval()
    np.testing.assert_allclose(cbn(x).detach().numpy(), ref(x).detach().numpy(), rtol=1e-5)


def test_rng_is_threaded_through():
    f = torch.compile(lambda t: F.dropout(t, 0.5, training=True))
    torch.manual_seed(1)
    a, b = f(torch.ones(64)), f(torch.ones(64))
    torch.manual_seed(1)
    c = f(torch.ones(64))
    assert (a == c).all().item() and (a != b).any().item()


def test_graph_break_falls_back_and_explain_names_the_line():
    def f(x):
        y = x * 2
        if y.sum().item() > 0:  # needs a concrete value
            return y + 1
        return y - 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cf = torch.compile(f)
        assert cf(torch.ones(2)).tolist() == [3.0, 3.0]
        assert cf(-torch.ones(2)).tolist() == [-3.0, -3.0]
        ex = torch.compile.explain(f, torch.ones(2))
    assert ex.graph_break_count == 1 and "test_compile.py" in ex.break_reasons[0]
    assert "item()" in ex.break_reasons[0]
    with pytest.raises(torch.compile.Unsupported, match="test_compile.py"):
        torch.compile(f, fullgraph=True)(torch.ones(2))


def test_data_dependent_shape_breaks_not_crashes():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        g = torch.compile(lambda x: x[x > 0] * 2)
        assert g(torch.tensor([1.0, -1.0, 2.0])).tolist() == [2.0, 4.0]


def test_recompile_on_shape_change_and_cache_limit():
    h = torch.compile(lambda x: x.sum(), dynamic=False)  # (dynamic=None would go symbolic at the 2nd size)
    h(torch.ones(2))
    h(torch.ones(2))
    assert h.compile_count == 1
    h(torch.ones(3))
    assert h.compile_count == 2
    with pytest.warns(UserWarning, match="cache size limit"):
        for n in range(4, 14):
            assert h(torch.ones(n)).item() == n


def test_decorator_forms_and_unknown_backend():
    @torch.compile(fullgraph=True, mode="max-autotune")
    def f(x):
        return x * 3
    assert f(torch.ones(1)).item() == 3.0
    assert torch.compile(lambda x: x, backend="aot_eager")(torch.ones(1)).item() == 1.0
    # an unknown backend name is torch's InvalidBackend, raised by compile() itself
    with pytest.raises(torch._dynamo.exc.InvalidBackend, match="Invalid backend: 'my_backend'"):
        torch.compile(lambda x: x, backend="my_backend")
    m = _model()
    m.compile()
    assert m(torch.ones(2, 6)).shape == (2, 3)


def test_compiled_function_closing_over_tensors_mutates_them():
    w = torch.ones(3)
    acc = torch.zeros(3)

    @torch.compile
    def f(x):
        acc.add_(x * w)
        w.mul_(2)
        return acc.sum()
    assert f(torch.ones(3)).item() == 3.0
    assert f(torch.ones(3)).item() == 9.0
    assert w.tolist() == [4.0, 4.0, 4.0]


def test_dynamic_true_traces_once_for_all_batch_sizes():
    def make():
        m = _model()
        return m, torch.optim.AdamW(m.parameters(), lr=1e-2)
    (m_c, opt_c), (m_e, opt_e) = make(), make()

    def step(x, y, m, opt):
        opt.zero_grad()
        loss = F.cross_entropy(m(x), y)
        loss.backward()
        opt.step()
        return loss
    compiled = torch.compile(step, dynamic=True)
    for batch in (4, 7, 4, 9, 2):
        x, y = torch.randn(batch, 6), torch.randint(0, 3, (batch,))
        np.testing.assert_allclose(compiled(x, y, m_c, opt_c).item(), step(x, y, m_e, opt_e).item(), rtol=1e-6)
    assert compiled.compile_count == 1  # one symbolic program serves batch 2..9
    for a, b in zip(m_c.parameters(), m_e.parameters()):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-5, atol=1e-6)
    # size 1 is specialised, as in torch (broadcasting differs)
    compiled(torch.randn(1, 6), torch.randint(0, 3, (1,)), m_c, opt_c)
    assert compiled.compile_count == 2


def test_dynamic_true_module_and_backward_through_it():
    lin = nn.Linear(5, 3)
    cm = torch.compile(lin, dynamic=True)
    for batch in (3, 6):
        x = torch.randn(batch, 5, requires_grad=True)
        cm(x).sum().backward()
        np.testing.assert_allclose(x.grad.numpy(), np.broadcast_to(lin.weight.detach().numpy().sum(0), (batch, 5)),
                                   rtol=1e-6)
    assert cm._compiled.compile_count == 1


def test_dynamic_true_falls_back_to_per_shape_programs_when_sizes_are_needed():
    def f(x):
        # a Python branch on the size: JAX cannot decide it symbolically
        return x * 2 if x.shape[0] > 4 else x - 1
    cf = torch.compile(f, dynamic=True)
    for batch in (3, 6, 3):
        x = torch.randn(batch, 2)
        np.testing.assert_allclose(cf(x).numpy(), f(x).numpy())
    assert cf.compile_count == 2  # one program per shape, as without dynamic


def test_fullgraph_break_raises_torchs_dynamo_exception_type():
    # scripts catch torch._dynamo.exc.Unsupported (or its base TorchDynamoException); the class lives there
    real = pytest.importorskip("torch._dynamo.exc", reason="the expected hierarchy comes from torch")

    @torch.compile(fullgraph=True)
    def f(x):
        return x + 1 if x.sum() > 0 else x - 1
    with pytest.raises(torch._dynamo.exc.TorchDynamoException) as e:
        f(torch.ones(2))
    assert type(e.value) is torch._dynamo.exc.Unsupported and type(e.value).__module__ == "torchlike._dynamo.exc"
    assert [c.__name__ for c in type(e.value).__mro__] == [c.__name__ for c in real.Unsupported.__mro__]
