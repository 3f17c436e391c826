"""Eager CPU random streams equal torch's bit for bit (same seed -> same values, same generator advance).

Every expected value comes from torch (the oracle) run with the same seed.  After each draw both
frameworks draw ``rand(3)`` too, so the number of words each kernel consumed is checked as well.
"""
import numpy as np
import pytest

import torchlike as tl

torch = pytest.importorskip("torch", reason="torch is the oracle for the random streams")

FLOATS = [("float32", torch.float32), ("float64", torch.float64), ("float16", torch.float16),
          ("bfloat16", torch.bfloat16)]
SEEDS = [0, 7, 2 ** 40 + 3]


def _np(t):
    if isinstance(t, tl.Tensor):
        t = t.float() if t.dtype in (tl.float16, tl.bfloat16) else t
        return t.numpy()
    t = t.float() if t.dtype in (torch.float16, torch.bfloat16) else t
    return t.numpy()


def _same(run_tl, run_torch, seed):
    """Run both after seeding; values (and the following rand(3)) must be identical."""
    tl.manual_seed(seed)
    a = run_tl()
    a_next = tl.rand(3).numpy()
    torch.manual_seed(seed)
    b = run_torch()
    b_next = torch.rand(3).numpy()
    a, b = _np(a), _np(b)
    assert a.shape == b.shape and a.dtype == b.dtype
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(a_next, b_next)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("n", [1, 5, 16, 37, 1000])
@pytest.mark.parametrize("name,tdt", FLOATS)
def test_rand_randn_match_torch(seed, n, name, tdt):
    d = getattr(tl, name)
    _same(lambda: tl.rand(n, dtype=d), lambda: torch.rand(n, dtype=tdt), seed)
    _same(lambda: tl.randn(n, dtype=d), lambda: torch.randn(n, dtype=tdt), seed)
    _same(lambda: tl.randn(2, n, dtype=d), lambda: torch.randn(2, n, dtype=tdt), seed)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("name,tdt", FLOATS)
@pytest.mark.parametrize("lo,hi", [(0.0, 1.0), (-2.5, 3.25), (1e-3, 1.1e-3)])
def test_uniform_match_torch(seed, name, tdt, lo, hi):
    d = getattr(tl, name)
    _same(lambda: tl.empty(333, dtype=d).uniform_(lo, hi), lambda: torch.empty(333, dtype=tdt).uniform_(lo, hi), seed)
    x_tl, x_t = tl.zeros(4, 5, dtype=d), torch.zeros(4, 5, dtype=tdt)
    _same(lambda: tl.rand_like(x_tl), lambda: torch.rand_like(x_t), seed)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("name,tdt", FLOATS)
@pytest.mark.parametrize("n", [3, 16, 100])
def test_normal_variants_match_torch(seed, name, tdt, n):
    d = getattr(tl, name)
    _same(lambda: tl.empty(n, dtype=d).normal_(1.5, 0.3), lambda: torch.empty(n, dtype=tdt).normal_(1.5, 0.3), seed)
    _same(lambda: tl.normal(2.0, 3.0, (n,), dtype=d), lambda: torch.normal(2.0, 3.0, (n,), dtype=tdt), seed)
    _same(lambda: tl.randn_like(tl.zeros(n, dtype=d)), lambda: torch.randn_like(torch.zeros(n, dtype=tdt)), seed)


def test_normal_tensor_mean_std_match_torch():
    m, s = np.linspace(-1, 1, 40).astype(np.float32), np.linspace(0.1, 2, 40).astype(np.float32)
    _same(lambda: tl.normal(tl.tensor(m), tl.tensor(s)), lambda: torch.normal(torch.tensor(m), torch.tensor(s)), 3)
    _same(lambda: tl.normal(tl.tensor(m), 0.5), lambda: torch.normal(torch.tensor(m), 0.5), 4)


def test_scalar_normal_cache_carries_between_calls():
    # three normals use two Box-Muller pairs; the cached fourth is returned by the next small draw
    _same(lambda: tl.cat([tl.randn(3), tl.randn(3), tl.randn(1, dtype=tl.float64).float()]),
          lambda: torch.cat([torch.randn(3), torch.randn(3), torch.randn(1, dtype=torch.float64).float()]), 11)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("lo,hi", [(0, 10), (-5, 3), (0, 2 ** 28 - 1), (0, 2 ** 28), (0, 2 ** 32), (-2 ** 40, 2 ** 41), (-2 ** 63, 2 ** 63 - 1)])
def test_randint_match_torch(seed, lo, hi):
    _same(lambda: tl.randint(lo, hi, (50,)), lambda: torch.randint(lo, hi, (50,)), seed)


@pytest.mark.parametrize("name", ["int64", "int32", "int16", "int8", "uint8", "bool", "float32", "float64",
                                  "float16", "bfloat16"])
def test_random__match_torch(name):
    d, tdt = getattr(tl, name), getattr(torch, name)
    _same(lambda: tl.empty(40, dtype=d).random_(), lambda: torch.empty(40, dtype=tdt).random_(), 5)
    _same(lambda: tl.empty(40, dtype=d).random_(2), lambda: torch.empty(40, dtype=tdt).random_(2), 6)
    if name != "bool":
        _same(lambda: tl.empty(40, dtype=d).random_(3, 100), lambda: torch.empty(40, dtype=tdt).random_(3, 100), 6)
        _same(lambda: tl.empty(40, dtype=d).random_(3, None), lambda: torch.empty(40, dtype=tdt).random_(3, None), 8)
    _same(lambda: tl.randint_like(tl.zeros(7, dtype=d), 2), lambda: torch.randint_like(torch.zeros(7, dtype=tdt), 2),
          9)


def test_random_full_int64_range_matches_torch():
    _same(lambda: tl.empty(9, dtype=tl.int64).random_(-2 ** 63, None),
          lambda: torch.empty(9, dtype=torch.int64).random_(-2 ** 63, None), 1)


@pytest.mark.parametrize("n", [0, 1, 2, 10, 1000, 4096, 4097, 5000, 70000, 2 ** 20 + 3])
def test_randperm_matches_torch(n):
    _same(lambda: tl.randperm(n), lambda: torch.randperm(n), n)
    g1, g2 = tl.Generator().manual_seed(3), torch.Generator().manual_seed(3)
    np.testing.assert_array_equal(tl.randperm(n, generator=g1, dtype=tl.int32).numpy(),
                                  torch.randperm(n, generator=g2, dtype=torch.int32).numpy())


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("name,tdt", FLOATS)
def test_bernoulli_match_torch(seed, name, tdt):
    d = getattr(tl, name)
    _same(lambda: tl.empty(300, dtype=d).bernoulli_(0.3), lambda: torch.empty(300, dtype=tdt).bernoulli_(0.3), seed)
    p = np.random.RandomState(seed % 2 ** 32).rand(300)
    _same(lambda: tl.bernoulli(tl.tensor(p, dtype=d)), lambda: torch.bernoulli(torch.tensor(p, dtype=tdt)), seed)
    _same(lambda: tl.zeros(3, 100, dtype=d).bernoulli_(tl.tensor(p[:100], dtype=d)),
          lambda: torch.zeros(3, 100, dtype=tdt).bernoulli_(torch.tensor(p[:100], dtype=tdt)), seed)


@pytest.mark.parametrize("n", [799, 800, 801, 5000, 100003])
@pytest.mark.parametrize("p", [0.0, 0.3, 0.999, 1.0])
def test_bernoulli_scalar_p_large_and_integer_outputs_match_torch(n, p):
    # torch 2.13's bernoulli_(float) is the MT19937 kernel on every x86 CPU (its binary has no MKL VSL path)
    for name in ("float32", "float64", "int32", "uint8", "bool", "float16"):
        d, tdt = getattr(tl, name), getattr(torch, name)
        _same(lambda: tl.empty(n, dtype=d).bernoulli_(p).double(), lambda: torch.empty(n, dtype=tdt).bernoulli_(p).double(),
              n)


def test_dropout_large_tensors_match_torch():
    x = np.random.RandomState(1).randn(64, 300).astype(np.float32)
    for p in (0.1, 0.5):
        _same(lambda: tl.nn.functional.dropout(tl.tensor(x), p), lambda: torch.nn.functional.dropout(torch.tensor(x), p), 2)
        _same(lambda: tl.nn.Dropout(p)(tl.tensor(x)), lambda: torch.nn.Dropout(p)(torch.tensor(x)), 3)
        _same(lambda: tl.nn.functional.dropout2d(tl.tensor(x.reshape(8, 8, 300)), p),
              lambda: torch.nn.functional.dropout2d(torch.tensor(x.reshape(8, 8, 300)), p), 4)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("name,tdt", FLOATS)
def test_continuous_inplace_samplers_match_torch(seed, name, tdt):
    d = getattr(tl, name)
    for method, args in (("exponential_", (1.7,)), ("cauchy_", (0.5, 2.0)), ("log_normal_", (0.5, 0.7)),
                         ("geometric_", (0.3,))):
        for n in (5, 40):
            _same(lambda: getattr(tl.empty(n, dtype=d), method)(*args),
                  lambda: getattr(torch.empty(n, dtype=tdt), method)(*args), seed)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("replacement", [True, False])
@pytest.mark.parametrize("name,tdt", [("float32", torch.float32), ("float64", torch.float64)])
def test_multinomial_matches_torch(seed, replacement, name, tdt):
    p = np.random.RandomState(1).rand(3, 50)
    p[:, 3] = 0
    for k in (1, 7):
        _same(lambda: tl.multinomial(tl.tensor(p, dtype=getattr(tl, name)), k, replacement),
              lambda: torch.multinomial(torch.tensor(p, dtype=tdt), k, replacement), seed)
    _same(lambda: tl.multinomial(tl.tensor(p[0], dtype=getattr(tl, name)), 5, replacement),
          lambda: torch.multinomial(torch.tensor(p[0], dtype=tdt), 5, replacement), seed)


def test_poisson_matches_torch():
    rates = [0.0, 0.5, 3.0, 9.9, 10.0, 25.0, 1000.0] * 3
    _same(lambda: tl.poisson(tl.tensor(rates)), lambda: torch.poisson(torch.tensor(rates)), 2)


@pytest.mark.parametrize("name,tdt", [("complex64", torch.complex64), ("complex128", torch.complex128)])
def test_complex_rand_randn_match_torch(name, tdt):
    d = getattr(tl, name)
    for n in (3, 20):
        _same(lambda: tl.view_as_real(tl.rand(n, dtype=d)), lambda: torch.view_as_real(torch.rand(n, dtype=tdt)), n)
        _same(lambda: tl.view_as_real(tl.randn(n, dtype=d)), lambda: torch.view_as_real(torch.randn(n, dtype=tdt)),
              n)


def test_explicit_generators_match_torch():
    g1, g2 = tl.Generator().manual_seed(42), torch.Generator().manual_seed(42)
    for _ in range(3):
        np.testing.assert_array_equal(tl.randn(20, generator=g1).numpy(), torch.randn(20, generator=g2).numpy())
        np.testing.assert_array_equal(tl.rand(5, generator=g1).numpy(), torch.rand(5, generator=g2).numpy())
    assert tl.Generator().initial_seed() == torch.Generator().initial_seed()
    # an unseeded Generator starts from torch's default seed: same stream
    np.testing.assert_array_equal(tl.rand(4, generator=tl.Generator()).numpy(),
                                  torch.rand(4, generator=torch.Generator()).numpy())


# --- nn ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("p", [0.1, 0.5, 1.0])
def test_dropout_family_matches_torch(p):
    x = np.random.RandomState(0).randn(4, 6, 5, 5).astype(np.float32)
    for fn in ("dropout", "dropout2d", "alpha_dropout", "feature_alpha_dropout", "dropout1d", "dropout3d"):
        xx = x.reshape(4, 6, 25) if fn == "dropout1d" else x
        _same(lambda: getattr(tl.nn.functional, fn)(tl.tensor(xx), p, training=True),
              lambda: getattr(torch.nn.functional, fn)(torch.tensor(xx), p, training=True), 5)
    _same(lambda: tl.nn.Dropout(p)(tl.tensor(x)), lambda: torch.nn.Dropout(p)(torch.tensor(x)), 6)


def test_rrelu_training_matches_torch():
    x = np.random.RandomState(0).randn(50).astype(np.float32)
    x[3] = 0
    _same(lambda: tl.nn.functional.rrelu(tl.tensor(x), training=True),
          lambda: torch.nn.functional.rrelu(torch.tensor(x), training=True), 1)


@pytest.mark.parametrize("name,tdt", FLOATS)
def test_nn_init_matches_torch(name, tdt):
    d = getattr(tl, name)
    for fn, args in (("uniform_", (-0.5, 0.5)), ("normal_", (0.1, 2.0)), ("xavier_uniform_", ()),
                     ("xavier_normal_", ()), ("kaiming_uniform_", ()), ("kaiming_normal_", ())):
        _same(lambda: getattr(tl.nn.init, fn)(tl.empty(30, 20, dtype=d), *args),
              lambda: getattr(torch.nn.init, fn)(torch.empty(30, 20, dtype=tdt), *args), 3)


def test_nn_init_sparse_matches_torch():
    _same(lambda: tl.nn.init.sparse_(tl.empty(10, 6), 0.3), lambda: torch.nn.init.sparse_(torch.empty(10, 6), 0.3), 2)


@pytest.mark.parametrize("args", [(0.0, 1.0, -2.0, 2.0), (0.5, 2.0, -0.3, 0.9), (0.0, 1.0, 1.0, 1.4)])
def test_nn_init_trunc_normal_matches_torch(args):
    # both of torch 2.13's rejection samplers: whole-tensor normal redraws, and uniform candidates
    _same(lambda: tl.nn.init.trunc_normal_(tl.empty(40, 30), *args),
          lambda: torch.nn.init.trunc_normal_(torch.empty(40, 30), *args), 4)


def test_nn_init_orthogonal_close_to_torch():
    # the Gaussian draw is torch's; the QR factorisation (XLA vs LAPACK) rounds differently
    for shape in ((20, 12), (6, 10)):
        tl.manual_seed(4)
        a = tl.nn.init.orthogonal_(tl.empty(*shape)).numpy()
        torch.manual_seed(4)
        b = torch.nn.init.orthogonal_(torch.empty(*shape)).numpy()
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)
        np.testing.assert_array_equal(tl.rand(3).numpy(), torch.rand(3).numpy())
