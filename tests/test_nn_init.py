"""torchlike.nn.init vs torch: deterministic initialisers exactly, random ones by bounds/moments."""
import math

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import torchlike  # noqa: E402
from torchlike.nn import init  # noqa: E402
from conftest import assert_same  # noqa: E402

TI = torch.nn.init


def arr(t):
    return np.asarray(t.detach()._value)


@pytest.mark.parametrize("nl,param", [("linear", None), ("conv2d", None), ("sigmoid", None), ("tanh", None),
                                      ("relu", None), ("leaky_relu", None), ("leaky_relu", 0.2), ("selu", None)])
def test_calculate_gain(nl, param):
    assert init.calculate_gain(nl, param) == TI.calculate_gain(nl, param)


def test_calculate_gain_errors():
    for args in [("foo",), ("leaky_relu", "x")]:
        with pytest.raises(ValueError) as e1:
            init.calculate_gain(*args)
        with pytest.raises(ValueError) as e2:
            TI.calculate_gain(*args)
        assert str(e1.value) == str(e2.value)


@pytest.mark.parametrize("shape", [(3, 4), (5, 3, 2, 2), (2, 3, 7)])
def test_fan_in_fan_out(shape):
    assert init._calculate_fan_in_and_fan_out(torchlike.empty(shape)) == \
        TI._calculate_fan_in_and_fan_out(torch.empty(shape))
    with pytest.raises(ValueError, match="Fan in and fan out can not be computed"):
        init._calculate_fan_in_and_fan_out(torchlike.empty(3))


def test_deterministic_inits():
    for f, args in [(init.constant_, (0.3,)), (init.ones_, ()), (init.zeros_, ()), (init.eye_, ())]:
        o, t = torchlike.empty(3, 5), torch.empty(3, 5)
        f(o, *args)
        getattr(TI, f.__name__)(t, *args)
        assert_same(o, t)
    for groups, shape in [(1, (4, 3, 3)), (2, (4, 2, 3, 3)), (1, (2, 2, 1, 3, 3))]:
        o, t = torchlike.empty(shape), torch.empty(shape)
        init.dirac_(o, groups)
        TI.dirac_(t, groups)
        assert_same(o, t)
    with pytest.raises(ValueError, match="Only tensors with 2 dimensions are supported"):
        init.eye_(torchlike.empty(2, 2, 2))


def test_random_inits_bounds_and_moments():
    w = torchlike.empty(400, 300)
    init.uniform_(w, -0.5, 2.0)
    a = arr(w)
    assert a.min() >= -0.5 and a.max() <= 2.0 and abs(a.mean() - 0.75) < 0.02
    init.normal_(w, 1.0, 2.0)
    a = arr(w)
    assert abs(a.mean() - 1.0) < 0.03 and abs(a.std() - 2.0) < 0.03
    init.xavier_uniform_(w, gain=2.0)
    bound = 2.0 * math.sqrt(6.0 / 700)
    assert np.abs(arr(w)).max() <= bound and np.abs(arr(w)).max() > 0.95 * bound
    init.xavier_normal_(w)
    assert abs(arr(w).std() - math.sqrt(2.0 / 700)) < 0.003
    init.kaiming_uniform_(w, a=math.sqrt(5))
    bound = math.sqrt(6.0 / ((1 + 5) * 300))
    assert np.abs(arr(w)).max() <= bound and np.abs(arr(w)).max() > 0.95 * bound
    init.kaiming_normal_(w, mode="fan_out", nonlinearity="relu")
    assert abs(arr(w).std() - math.sqrt(2.0 / 400)) < 0.003
    init.trunc_normal_(w, mean=0.5, std=1.0, a=-1.0, b=1.5)
    assert arr(w).min() >= -1.0 and arr(w).max() <= 1.5
    with pytest.raises(ValueError, match="Mode fan_avg not supported"):
        init.kaiming_uniform_(w, mode="fan_avg")


def test_orthogonal_and_sparse():
    for shape in [(6, 4), (2, 3, 2)]:
        w = torchlike.empty(shape)
        init.orthogonal_(w, gain=2.0)
        m = arr(w).reshape(shape[0], -1)
        g = m @ m.T if shape[0] <= m.shape[1] else m.T @ m
        np.testing.assert_allclose(g, 4 * np.eye(g.shape[0]), atol=1e-4)
    s = torchlike.empty(10, 6)
    init.sparse_(s, 0.3)
    assert np.all((arr(s) == 0).sum(0) == math.ceil(0.3 * 10))


def test_inits_are_in_place_without_autograd_and_use_generator():
    p = torchlike.nn.Parameter(torchlike.empty(3, 3))
    out = init.normal_(p)
    assert out is p and p.is_leaf and p.requires_grad
    g1, g2 = torchlike.Generator().manual_seed(3), torchlike.Generator().manual_seed(3)
    a, b = torchlike.empty(4), torchlike.empty(4)
    init.uniform_(a, generator=g1)
    init.uniform_(b, generator=g2)
    assert arr(a).tolist() == arr(b).tolist()
    v = torchlike.zeros(4, 4)
    init.ones_(v[1])  # through a view
    assert arr(v)[1].tolist() == [1.0] * 4 and arr(v).sum() == 4


def test_private_no_grad_helpers_like_torch():
    """torch.nn.init's _no_grad_* helpers (mup imports them by name): same seeded values, in place on a leaf that
    requires grad without recording autograd, and a TorchFunctionMode sees the Tensor method each one calls."""
    calls = {}
    for lib, mod in [(torch, TI), (torchlike, init)]:
        class Record(lib.overrides.TorchFunctionMode):
            def __torch_function__(self, func, types, args=(), kwargs=None):
                seen.append(getattr(func, "__name__", str(func)))
                return func(*args, **(kwargs or {}))

        out, seen = [], []
        lib.manual_seed(0)
        gen = lib.Generator().manual_seed(5)
        for name, args, kwargs in [("_no_grad_uniform_", (-0.3, 0.7), {}), ("_no_grad_normal_", (1.0, 0.5), {}),
                                   ("_no_grad_uniform_", (0.0, 2.0), {"generator": gen}),
                                   ("_no_grad_trunc_normal_", (0.0, 1.0, -0.5, 0.5), {}),
                                   ("_no_grad_trunc_normal_", (0.2, 1.0, -2.0, 2.0), {"generator": gen}),
                                   ("_no_grad_fill_", (0.25,), {}), ("_no_grad_zero_", (), {})]:
            p = lib.nn.Parameter(lib.empty(4, 6))
            with Record():
                res = getattr(mod, name)(p, *args, **kwargs)
            assert res is p and p.requires_grad and p.grad_fn is None, name
            out.append(p.detach().numpy().copy())
        calls[lib.__name__] = (out, [s for s in seen if s in ("uniform_", "normal_", "fill_", "zero_")])
    (want, want_seen), (got, got_seen) = calls["torch"], calls["torchlike"]
    for w, g in zip(want, got):
        np.testing.assert_array_equal(g, w)
    assert got_seen == want_seen and len(want_seen) >= 7, (got_seen, want_seen)
