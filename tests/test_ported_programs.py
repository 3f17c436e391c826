"""Regressions found by running real PyTorch programs through the drop-in runner, checked against torch."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")

import torchlike  # noqa: E402

RNG = np.random.default_rng(5)


@pytest.mark.parametrize("variant", ["hook", "parametrization"])
def test_spectral_norm_module_called_twice_before_backward(variant):
    """A WGAN critic runs on real and fake batches, then backward: the second forward's power
    iteration must not invalidate what the first saved."""
    def build(lib):
        lib.manual_seed(0)
        conv = lib.nn.Conv2d(1, 3, 3)
        if variant == "hook":
            return lib.nn.utils.spectral_norm(conv)
        return lib.nn.utils.parametrizations.spectral_norm(conv)
    mt, ml = build(torch), build(torchlike)
    ml.load_state_dict({k: torchlike.from_numpy(v.detach().numpy().copy()) for k, v in mt.state_dict().items()})
    xs = [RNG.standard_normal((2, 1, 5, 5)).astype(np.float32) for _ in range(2)]
    lt = mt(torch.from_numpy(xs[0])).mean() - mt(torch.from_numpy(xs[1])).mean()
    ll = ml(torchlike.from_numpy(xs[0])).mean() - ml(torchlike.from_numpy(xs[1])).mean()
    np.testing.assert_allclose(ll.item(), lt.item(), rtol=1e-4, atol=1e-6)
    lt.backward()
    ll.backward()
    for (name, p), (_, q) in zip(mt.named_parameters(), ml.named_parameters()):
        np.testing.assert_allclose(q.grad.numpy(), p.grad.numpy(), rtol=1e-4, atol=1e-6, err_msg=name)


def test_memory_formats_are_accepted_like_torch():
    import pickle
    L = torchlike
    for name in ("contiguous_format", "channels_last", "channels_last_3d", "preserve_format"):
        assert repr(getattr(L, name)) == repr(getattr(torch, name))
        assert pickle.loads(pickle.dumps(getattr(L, name))) is getattr(L, name)
        assert isinstance(getattr(L, name), L.memory_format)
    x = L.randn(2, 3, 4, 4)
    for y in (x.contiguous(memory_format=L.channels_last), x.to(memory_format=L.channels_last),
              x.clone(memory_format=L.preserve_format), L.empty_like(x, memory_format=L.channels_last),
              x.float(memory_format=L.contiguous_format)):
        assert y.shape == x.shape
    m = L.nn.Conv2d(3, 2, 1).to(memory_format=L.channels_last)
    assert m(x).shape == (2, 2, 4, 4)


@pytest.mark.parametrize("op", ["div", "mul"])
def test_bool_times_nonfinite_keeps_ieee_nan(op):
    """XLA rewrites convert(bool) * y into a select, losing False * inf = nan (and False / False)."""
    a = np.array([True, True, False])
    b = np.array([False]) if op == "div" else np.array([np.inf], np.float32)
    expected = getattr(torch, op)(torch.from_numpy(a), torch.from_numpy(b))
    ours = getattr(torchlike, op)(torchlike.from_numpy(a), torchlike.from_numpy(b))
    np.testing.assert_array_equal(ours.numpy(), expected.numpy())


_F_ERRORS = [
    ("embedding", lambda m: (m.tensor([1]), m.ones(3)), {}),
    ("huber_loss", lambda m: (m.ones(2), m.ones(2)), {"delta": 0.0}),
    ("rrelu", lambda m: (m.ones(2), 0.5, 0.1), {"training": True}),
    ("prelu", lambda m: (m.ones(2, 3), m.ones(3, 1)), {}),
    ("rms_norm", lambda m: (m.ones(2, 3), (3,), m.ones(2)), {}),
    ("soft_margin_loss", lambda m: (m.ones(2, 4), m.ones(2, 5)), {}),
    ("poisson_nll_loss", lambda m: (m.ones(2, 5), m.ones(2, 4)), {}),
    ("gaussian_nll_loss", lambda m: (m.ones(2, 3, 3), m.ones(2, 3, 2), m.ones(2, 3, 3)), {}),
    ("triplet_margin_loss", lambda m: (m.ones(2, 4), m.ones(2, 5), m.ones(2, 4)), {}),
    ("triplet_margin_with_distance_loss", lambda m: (m.ones(2, 4), m.ones(2, 4), m.ones(2, 5)), {}),
    ("pairwise_distance", lambda m: (m.ones(3, 4), m.ones(2, 4)), {}),
]


@pytest.mark.parametrize("name,args,kw", _F_ERRORS, ids=[c[0] for c in _F_ERRORS])
def test_functional_errors_match_torch(name, args, kw):
    with pytest.raises(Exception) as et:
        getattr(torch.nn.functional, name)(*args(torch), **kw)
    with pytest.raises(Exception) as eo:
        getattr(torchlike.nn.functional, name)(*args(torchlike), **kw)
    assert type(eo.value) is type(et.value)
    assert str(eo.value) == str(et.value)


def test_pairwise_distance_of_integers_is_default_float():
    a, b = [[1, 2], [3, 4]], [[0, 2], [3, 1]]
    expected = torch.nn.functional.pairwise_distance(torch.tensor(a), torch.tensor(b))
    ours = torchlike.nn.functional.pairwise_distance(torchlike.tensor(a), torchlike.tensor(b))
    assert str(ours.dtype) == str(expected.dtype)
    np.testing.assert_allclose(ours.numpy(), expected.numpy(), rtol=1e-6)


@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8"])
def test_integer_pow_wraps_and_negative_exponents_like_torch(dtype):
    a = [-8, 6, 9, 0, 0, 1, -1, -1, 2, 3, -3, 7]
    b = [6, -2, -1, -3, 2, -5, -3, -2, 100, 40, 41, 0]
    if dtype == "uint8":
        a, b = [abs(v) % 256 for v in a], [abs(v) for v in b]
    expected = torch.pow(torch.tensor(a, dtype=getattr(torch, dtype)), torch.tensor(b, dtype=getattr(torch, dtype)))
    ours = torchlike.pow(torchlike.tensor(a, dtype=getattr(torchlike, dtype)),
                         torchlike.tensor(b, dtype=getattr(torchlike, dtype)))
    assert ours.tolist() == expected.tolist()


_SCALAR_CONVERSIONS = """
import warnings, torch
warnings.simplefilter("always")
warnings.showwarning = lambda m, c, f, n, *a: print("warn", c.__name__, n, str(m).replace(chr(10), " "))
x = torch.ones((), requires_grad=True)
int(x); bool(x); x.item(); "%d" % x
with torch.no_grad():
    float(x)
with torch.inference_mode():
    complex(x)
print("first", float(x))
print("again", float(x), complex(x))
for f in (float, int, complex, bool, torch.Tensor.item):
    for t in (torch.ones(2), torch.ones(0)):
        try:
            f(t)
        except Exception as e:
            print(f.__name__, type(e).__name__, e)
"""


def test_python_scalar_conversions_warn_and_raise_like_torch():
    """Stable-Baselines3 sums float() of parameters that require grad: float()/complex() of such a tensor in
    grad mode warn once per process (int(), bool(), item() and no_grad/inference_mode do not), and float(),
    int(), complex() of a tensor that is not one element raise ValueError (item() and bool() RuntimeError)."""
    from conftest import run_program
    expected = run_program(["-c", _SCALAR_CONVERSIONS], runner=False, timeout=300)
    assert run_program(["-c", _SCALAR_CONVERSIONS], runner=True, timeout=300) == expected
    assert expected[0].startswith("warn UserWarning 11 Converting a tensor with requires_grad=True"), expected
