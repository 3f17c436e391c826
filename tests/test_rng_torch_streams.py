"""Eager CPU random streams equal torch's bit for bit (same seed -> same values, same generator advance).

Every expected value comes from torch (the oracle) run with the same seed.  After each draw both
frameworks draw ``rand(3)`` too, so the number of words each kernel consumed is checked as well.  Also
every ``normal`` overload per dtype, ``generator=`` on every random function, the nn.init variants and
module constructors, rrelu in float64, torch-level dropout names, torch's dtype errors and Generator extras.
"""
import warnings

import numpy as np
import pytest

import torchlike as tl
from conftest import not_a_test_bug, same_as_torch, same_draws_as_torch, torch_or_tl

torch = pytest.importorskip("torch", reason="torch is the oracle for the random streams")

FLOATS = [("float32", torch.float32), ("float64", torch.float64), ("float16", torch.float16),
          ("bfloat16", torch.bfloat16)]
SEEDS = [0, 7, 2 ** 40 + 3]
DT = ["float32", "float64", "float16", "bfloat16"]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("n", [1, 5, 16, 37, 1000])
@pytest.mark.parametrize("name,tdt", FLOATS)
def test_rand_randn_match_torch(seed, n, name, tdt):
    d = getattr(tl, name)
    same_draws_as_torch(torch_or_tl(lambda: torch.rand(n, dtype=tdt), lambda: tl.rand(n, dtype=d)), seed)
    same_draws_as_torch(torch_or_tl(lambda: torch.randn(n, dtype=tdt), lambda: tl.randn(n, dtype=d)), seed)
    same_draws_as_torch(torch_or_tl(lambda: torch.randn(2, n, dtype=tdt), lambda: tl.randn(2, n, dtype=d)), seed)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("name,tdt", FLOATS)
@pytest.mark.parametrize("lo,hi", [(0.0, 1.0), (-2.5, 3.25), (1e-3, 1.1e-3)])
def test_uniform_match_torch(seed, name, tdt, lo, hi):
    d = getattr(tl, name)
    same_draws_as_torch(torch_or_tl(lambda: torch.empty(333, dtype=tdt).uniform_(lo, hi),
                                    lambda: tl.empty(333, dtype=d).uniform_(lo, hi)), seed)
    x_tl, x_t = tl.zeros(4, 5, dtype=d), torch.zeros(4, 5, dtype=tdt)
    same_draws_as_torch(torch_or_tl(lambda: torch.rand_like(x_t), lambda: tl.rand_like(x_tl)), seed)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("name,tdt", FLOATS)
@pytest.mark.parametrize("n", [3, 16, 100])
def test_normal_variants_match_torch(seed, name, tdt, n):
    d = getattr(tl, name)
    same_draws_as_torch(torch_or_tl(lambda: torch.empty(n, dtype=tdt).normal_(1.5, 0.3),
                                    lambda: tl.empty(n, dtype=d).normal_(1.5, 0.3)), seed)
    same_draws_as_torch(torch_or_tl(lambda: torch.normal(2.0, 3.0, (n,), dtype=tdt),
                                    lambda: tl.normal(2.0, 3.0, (n,), dtype=d)), seed)
    same_draws_as_torch(torch_or_tl(lambda: torch.randn_like(torch.zeros(n, dtype=tdt)),
                                    lambda: tl.randn_like(tl.zeros(n, dtype=d))), seed)


def test_normal_tensor_mean_std_match_torch():
    m, s = np.linspace(-1, 1, 40).astype(np.float32), np.linspace(0.1, 2, 40).astype(np.float32)
    same_draws_as_torch(torch_or_tl(lambda: torch.normal(torch.tensor(m), torch.tensor(s)),
                                    lambda: tl.normal(tl.tensor(m), tl.tensor(s))), 3)
    same_draws_as_torch(torch_or_tl(lambda: torch.normal(torch.tensor(m), 0.5),
                                    lambda: tl.normal(tl.tensor(m), 0.5)), 4)


def test_scalar_normal_cache_carries_between_calls():
    # three normals use two Box-Muller pairs; the cached fourth is returned by the next small draw
    same_draws_as_torch(torch_or_tl(lambda: torch.cat([torch.randn(3), torch.randn(3), torch.randn(1, dtype=torch.float64).float()]),
                                    lambda: tl.cat([tl.randn(3), tl.randn(3), tl.randn(1, dtype=tl.float64).float()])), 11)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("lo,hi", [(0, 10), (-5, 3), (0, 2 ** 28 - 1), (0, 2 ** 28), (0, 2 ** 32), (-2 ** 40, 2 ** 41), (-2 ** 63, 2 ** 63 - 1)])
def test_randint_match_torch(seed, lo, hi):
    same_draws_as_torch(torch_or_tl(lambda: torch.randint(lo, hi, (50,)), lambda: tl.randint(lo, hi, (50,))), seed)


@pytest.mark.parametrize("name", ["int64", "int32", "int16", "int8", "uint8", "bool", "float32", "float64",
                                  "float16", "bfloat16"])
def test_random__match_torch(name):
    d, tdt = getattr(tl, name), getattr(torch, name)
    same_draws_as_torch(torch_or_tl(lambda: torch.empty(40, dtype=tdt).random_(),
                                    lambda: tl.empty(40, dtype=d).random_()), 5)
    same_draws_as_torch(torch_or_tl(lambda: torch.empty(40, dtype=tdt).random_(2),
                                    lambda: tl.empty(40, dtype=d).random_(2)), 6)
    if name != "bool":
        same_draws_as_torch(torch_or_tl(lambda: torch.empty(40, dtype=tdt).random_(3, 100),
                                        lambda: tl.empty(40, dtype=d).random_(3, 100)), 6)
        same_draws_as_torch(torch_or_tl(lambda: torch.empty(40, dtype=tdt).random_(3, None),
                                        lambda: tl.empty(40, dtype=d).random_(3, None)), 8)
    same_draws_as_torch(torch_or_tl(lambda: torch.randint_like(torch.zeros(7, dtype=tdt), 2),
                                    lambda: tl.randint_like(tl.zeros(7, dtype=d), 2)), 9)


def test_random_full_int64_range_matches_torch():
    same_draws_as_torch(torch_or_tl(lambda: torch.empty(9, dtype=torch.int64).random_(-2 ** 63, None),
                                    lambda: tl.empty(9, dtype=tl.int64).random_(-2 ** 63, None)), 1)


@pytest.mark.parametrize("n", [0, 1, 2, 10, 1000, 4096, 4097, 5000, 70000, 2 ** 20 + 3])
def test_randperm_matches_torch(n):
    same_draws_as_torch(torch_or_tl(lambda: torch.randperm(n), lambda: tl.randperm(n)), n)
    g1, g2 = tl.Generator().manual_seed(3), torch.Generator().manual_seed(3)
    np.testing.assert_array_equal(tl.randperm(n, generator=g1, dtype=tl.int32).numpy(),
                                  torch.randperm(n, generator=g2, dtype=torch.int32).numpy())


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("name,tdt", FLOATS)
def test_bernoulli_match_torch(seed, name, tdt):
    d = getattr(tl, name)
    same_draws_as_torch(torch_or_tl(lambda: torch.empty(300, dtype=tdt).bernoulli_(0.3),
                                    lambda: tl.empty(300, dtype=d).bernoulli_(0.3)), seed)
    p = np.random.RandomState(seed % 2 ** 32).rand(300)
    same_draws_as_torch(torch_or_tl(lambda: torch.bernoulli(torch.tensor(p, dtype=tdt)),
                                    lambda: tl.bernoulli(tl.tensor(p, dtype=d))), seed)
    same_draws_as_torch(torch_or_tl(lambda: torch.zeros(3, 100, dtype=tdt).bernoulli_(torch.tensor(p[:100], dtype=tdt)),
                                    lambda: tl.zeros(3, 100, dtype=d).bernoulli_(tl.tensor(p[:100], dtype=d))), seed)


@pytest.mark.parametrize("n", [799, 800, 801, 5000, 100003])
@pytest.mark.parametrize("p", [0.0, 0.3, 0.999, 1.0])
def test_bernoulli_scalar_p_large_and_integer_outputs_match_torch(n, p):
    # torch 2.13's bernoulli_(float) is the MT19937 kernel on every x86 CPU (its binary has no MKL VSL path)
    for name in ("float32", "float64", "int32", "uint8", "bool", "float16"):
        d, tdt = getattr(tl, name), getattr(torch, name)
        same_draws_as_torch(torch_or_tl(lambda: torch.empty(n, dtype=tdt).bernoulli_(p).double(),
                                        lambda: tl.empty(n, dtype=d).bernoulli_(p).double()), n)


def test_dropout_large_tensors_match_torch():
    x = np.random.RandomState(1).randn(64, 300).astype(np.float32)
    for p in (0.1, 0.5):
        same_draws_as_torch(torch_or_tl(lambda: torch.nn.functional.dropout(torch.tensor(x), p),
                                        lambda: tl.nn.functional.dropout(tl.tensor(x), p)), 2)
        same_draws_as_torch(torch_or_tl(lambda: torch.nn.Dropout(p)(torch.tensor(x)),
                                        lambda: tl.nn.Dropout(p)(tl.tensor(x))), 3)
        same_draws_as_torch(torch_or_tl(lambda: torch.nn.functional.dropout2d(torch.tensor(x.reshape(8, 8, 300)), p),
                                        lambda: tl.nn.functional.dropout2d(tl.tensor(x.reshape(8, 8, 300)), p)), 4)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("name,tdt", FLOATS)
def test_continuous_inplace_samplers_match_torch(seed, name, tdt):
    d = getattr(tl, name)
    for method, args in (("exponential_", (1.7,)), ("cauchy_", (0.5, 2.0)), ("log_normal_", (0.5, 0.7)),
                         ("geometric_", (0.3,))):
        for n in (5, 40):
            same_draws_as_torch(torch_or_tl(lambda: getattr(torch.empty(n, dtype=tdt), method)(*args),
                                            lambda: getattr(tl.empty(n, dtype=d), method)(*args)), seed)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("replacement", [True, False])
@pytest.mark.parametrize("name,tdt", [("float32", torch.float32), ("float64", torch.float64)])
def test_multinomial_matches_torch(seed, replacement, name, tdt):
    p = np.random.RandomState(1).rand(3, 50)
    p[:, 3] = 0
    for k in (1, 7):
        same_draws_as_torch(torch_or_tl(lambda: torch.multinomial(torch.tensor(p, dtype=tdt), k, replacement),
                                        lambda: tl.multinomial(tl.tensor(p, dtype=getattr(tl, name)), k, replacement)), seed)
    same_draws_as_torch(torch_or_tl(lambda: torch.multinomial(torch.tensor(p[0], dtype=tdt), 5, replacement),
                                    lambda: tl.multinomial(tl.tensor(p[0], dtype=getattr(tl, name)), 5, replacement)), seed)


def test_poisson_matches_torch():
    rates = [0.0, 0.5, 3.0, 9.9, 10.0, 25.0, 1000.0] * 3
    same_draws_as_torch(torch_or_tl(lambda: torch.poisson(torch.tensor(rates)),
                                    lambda: tl.poisson(tl.tensor(rates))), 2)


@pytest.mark.parametrize("name,tdt", [("complex64", torch.complex64), ("complex128", torch.complex128)])
def test_complex_rand_randn_match_torch(name, tdt):
    d = getattr(tl, name)
    for n in (3, 20):
        same_draws_as_torch(torch_or_tl(lambda: torch.view_as_real(torch.rand(n, dtype=tdt)),
                                        lambda: tl.view_as_real(tl.rand(n, dtype=d))), n)
        same_draws_as_torch(torch_or_tl(lambda: torch.view_as_real(torch.randn(n, dtype=tdt)),
                                        lambda: tl.view_as_real(tl.randn(n, dtype=d))), n)


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
        same_draws_as_torch(torch_or_tl(lambda: getattr(torch.nn.functional, fn)(torch.tensor(xx), p, training=True),
                                        lambda: getattr(tl.nn.functional, fn)(tl.tensor(xx), p, training=True)), 5)
    same_draws_as_torch(torch_or_tl(lambda: torch.nn.Dropout(p)(torch.tensor(x)),
                                    lambda: tl.nn.Dropout(p)(tl.tensor(x))), 6)


def test_rrelu_training_matches_torch():
    x = np.random.RandomState(0).randn(50).astype(np.float32)
    x[3] = 0
    same_draws_as_torch(torch_or_tl(lambda: torch.nn.functional.rrelu(torch.tensor(x), training=True),
                                    lambda: tl.nn.functional.rrelu(tl.tensor(x), training=True)), 1)


@pytest.mark.parametrize("name,tdt", FLOATS)
def test_nn_init_matches_torch(name, tdt):
    d = getattr(tl, name)
    for fn, args in (("uniform_", (-0.5, 0.5)), ("normal_", (0.1, 2.0)), ("xavier_uniform_", ()),
                     ("xavier_normal_", ()), ("kaiming_uniform_", ()), ("kaiming_normal_", ())):
        same_draws_as_torch(torch_or_tl(lambda: getattr(torch.nn.init, fn)(torch.empty(30, 20, dtype=tdt), *args),
                                        lambda: getattr(tl.nn.init, fn)(tl.empty(30, 20, dtype=d), *args)), 3)


def test_nn_init_sparse_matches_torch():
    same_draws_as_torch(torch_or_tl(lambda: torch.nn.init.sparse_(torch.empty(10, 6), 0.3),
                                    lambda: tl.nn.init.sparse_(tl.empty(10, 6), 0.3)), 2)


@pytest.mark.parametrize("args", [(0.0, 1.0, -2.0, 2.0), (0.5, 2.0, -0.3, 0.9), (0.0, 1.0, 1.0, 1.4)])
def test_nn_init_trunc_normal_matches_torch(args):
    # both of torch 2.13's rejection samplers: whole-tensor normal redraws, and uniform candidates
    same_draws_as_torch(torch_or_tl(lambda: torch.nn.init.trunc_normal_(torch.empty(40, 30), *args),
                                    lambda: tl.nn.init.trunc_normal_(tl.empty(40, 30), *args)), 4)


def test_nn_init_orthogonal_close_to_torch():
    # the Gaussian draw is torch's; the QR factorisation (XLA vs LAPACK) rounds differently
    for shape in ((20, 12), (6, 10)):
        tl.manual_seed(4)
        a = tl.nn.init.orthogonal_(tl.empty(*shape)).numpy()
        torch.manual_seed(4)
        b = torch.nn.init.orthogonal_(torch.empty(*shape)).numpy()
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)
        np.testing.assert_array_equal(tl.rand(3).numpy(), torch.rand(3).numpy())


# --- every normal overload, generator= everywhere, nn.init, module constructors, dropout names, errors ---
torch = pytest.importorskip("torch", reason="torch is the oracle for the random streams")


# --- normal: every overload, small (scalar Box-Muller) and >= 16 (vectorized), every dtype ---------------
NORMALS = {
    "size": lambda m, d: m.normal(1.0, 2.0, size=(5, 6), dtype=d),
    "size_small": lambda m, d: m.normal(1.0, 2.0, size=(3,), dtype=d),
    "tensor_mean": lambda m, d: m.normal(m.arange(20, dtype=d), 2.0),
    "tensor_mean_small": lambda m, d: m.normal(m.arange(5, dtype=d), 2.0),
    "tensor_std": lambda m, d: m.normal(1.0, m.arange(1, 21, dtype=d)),
    "tensor_both": lambda m, d: m.normal(m.arange(20, dtype=d), m.arange(1, 21, dtype=d)),
    "broadcast": lambda m, d: m.normal(m.zeros(4, 1, dtype=d), m.ones(1, 5, dtype=d)),
    "randn_like": lambda m, d: m.randn_like(m.zeros(4, 9, dtype=d)),
    "normal_2d": lambda m, d: m.zeros(6, 6, dtype=d).normal_(),
}


@pytest.mark.parametrize("seed", [0, 2 ** 33 + 5])
@pytest.mark.parametrize("dt", DT)
@pytest.mark.parametrize("case", list(NORMALS))
def test_normal_overloads_match_torch(case, dt, seed):
    same_draws_as_torch(lambda m: NORMALS[case](m, getattr(m, dt)), seed)


def test_interleaved_draws_consume_the_stream_like_torch():
    same_draws_as_torch(lambda m: [m.rand(5), m.randn(3), m.randperm(10), m.randn(20), m.randint(0, 7, (4,)), m.randn(1),
                     m.randn(1, dtype=m.float64), m.rand(2), m.randn(17), m.randn(1), m.randn(1, dtype=m.float64)])


# --- generator= everywhere torch takes it ---------------------------------------------------------------
WITH_GEN = {
    "rand": lambda m, g: m.rand(20, generator=g), "randn": lambda m, g: m.randn(20, generator=g),
    "randn_small": lambda m, g: m.randn(3, generator=g), "randint": lambda m, g: m.randint(0, 9, (20,), generator=g),
    "randperm": lambda m, g: m.randperm(20, generator=g), "normal": lambda m, g: m.normal(0., 1., (20,), generator=g),
    "normal_tensor": lambda m, g: m.normal(m.zeros(20), m.ones(20), generator=g),
    "bernoulli": lambda m, g: m.bernoulli(m.full((20,), .5), generator=g),
    "bernoulli_p": lambda m, g: m.bernoulli(m.zeros(20), 0.3, generator=g),
    "multinomial": lambda m, g: m.multinomial(m.ones(20), 5, generator=g),
    "multinomial_rep": lambda m, g: m.multinomial(m.ones(20), 5, True, generator=g),
    "poisson": lambda m, g: m.poisson(m.full((20,), 3.), generator=g),
    "uniform_": lambda m, g: m.empty(20).uniform_(generator=g), "normal_": lambda m, g: m.empty(20).normal_(generator=g),
    "random_": lambda m, g: m.empty(20).random_(generator=g), "random_to": lambda m, g: m.empty(20).random_(5, generator=g),
    "bernoulli_": lambda m, g: m.empty(20).bernoulli_(0.3, generator=g),
    "bernoulli_tensor_": lambda m, g: m.empty(20).bernoulli_(m.full((20,), .3), generator=g),
    "exponential_": lambda m, g: m.empty(20).exponential_(generator=g), "cauchy_": lambda m, g: m.empty(20).cauchy_(generator=g),
    "log_normal_": lambda m, g: m.empty(20).log_normal_(generator=g),
    "geometric_": lambda m, g: m.empty(20).geometric_(0.2, generator=g),
    "rand_like": lambda m, g: m.rand_like(m.empty(20), generator=g),
    "randn_like": lambda m, g: m.randn_like(m.empty(20), generator=g),
    "randint_like": lambda m, g: m.randint_like(m.empty(20), 2, 5, generator=g),
    "method_multinomial": lambda m, g: m.ones(20).multinomial(5, generator=g),
    "init_uniform_": lambda m, g: m.nn.init.uniform_(m.empty(30), generator=g),
    "init_normal_": lambda m, g: m.nn.init.normal_(m.empty(30), generator=g),
    "init_trunc_normal_": lambda m, g: m.nn.init.trunc_normal_(m.empty(30), generator=g),
    "init_xavier_uniform_": lambda m, g: m.nn.init.xavier_uniform_(m.empty(30, 2), generator=g),
    "init_kaiming_normal_": lambda m, g: m.nn.init.kaiming_normal_(m.empty(30, 2), generator=g),
    "init_sparse_": lambda m, g: m.nn.init.sparse_(m.empty(10, 4), 0.5, generator=g),
}


@pytest.mark.parametrize("case", list(WITH_GEN))
def test_explicit_cpu_generator_matches_torch_and_leaves_default_alone(case):
    same_draws_as_torch(lambda m: [WITH_GEN[case](m, m.Generator(device="cpu").manual_seed(77))])


# --- nn.init and module construction --------------------------------------------------------------------
@pytest.mark.parametrize("dt", DT)
def test_nn_init_modes_and_nonlinearities_match_torch(dt):
    def run(m):
        d, init, out = getattr(m, dt), m.nn.init, []
        for mode in ("fan_in", "fan_out"):
            for nl in ("leaky_relu", "relu", "tanh", "selu", "linear"):
                out.append(init.kaiming_uniform_(m.empty(20, 30, dtype=d), a=0.1, mode=mode, nonlinearity=nl))
                out.append(init.kaiming_normal_(m.empty(6, 4, 3, 3, dtype=d), mode=mode, nonlinearity=nl))
        out += [init.xavier_normal_(m.empty(4, 3, 3, 3, dtype=d)), init.xavier_uniform_(m.empty(20, 30, dtype=d), 2.0),
                init.trunc_normal_(m.empty(20, 30, dtype=d), std=0.02), init.eye_(m.empty(4, 6, dtype=d)),
                init.dirac_(m.empty(6, 3, 3, 3, dtype=d), groups=2), init.sparse_(m.empty(20, 12, dtype=d), 0.3, 0.05)]
        return out
    same_draws_as_torch(run, 11)


def test_more_module_constructors_match_torch():
    def run(m):
        nn, out = m.nn, {}
        for name, make in [("gru", lambda: nn.GRU(4, 3)), ("rnn", lambda: nn.RNN(4, 3, bias=False)),
                           ("lstm2bi", lambda: nn.LSTM(4, 3, num_layers=2, bidirectional=True)),
                           ("lstmproj", lambda: nn.LSTM(4, 5, proj_size=2)), ("lstmcell", lambda: nn.LSTMCell(4, 3)),
                           ("grucell", lambda: nn.GRUCell(4, 3)), ("conv1d", lambda: nn.Conv1d(3, 4, 5)),
                           ("conv3d", lambda: nn.Conv3d(2, 4, 2)), ("convg", lambda: nn.Conv2d(4, 8, 3, groups=2)),
                           ("embbag", lambda: nn.EmbeddingBag(10, 4)), ("emb_pad", lambda: nn.Embedding(10, 4, padding_idx=2)),
                           ("mhakv", lambda: nn.MultiheadAttention(8, 2, kdim=3, vdim=5, add_bias_kv=True)),
                           ("tel", lambda: nn.TransformerEncoderLayer(8, 2, 16)),
                           ("tdl", lambda: nn.TransformerDecoderLayer(8, 2, 16)),
                           ("transformer", lambda: nn.Transformer(8, 2, 1, 1, 16)), ("prelu", lambda: nn.PReLU(3)),
                           ("lin64", lambda: nn.Linear(30, 20, dtype=m.float64)),
                           ("linbf16", lambda: nn.Linear(30, 20, dtype=m.bfloat16))]:
            out[name] = dict(make().state_dict())
        lazy = nn.LazyLinear(4)
        lazy(m.ones(2, 6))
        out["lazy"] = dict(lazy.state_dict())
        return out
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (enable_nested_tensor notes from the transformer layers)
        same_draws_as_torch(run, 5)


# --- rrelu, torch-level dropout names -------------------------------------------------------------------
@pytest.mark.parametrize("dt", ["float32", "float64", "bfloat16"])
def test_rrelu_bounds_in_the_opmath_type_match_torch(dt):
    x = np.linspace(-3, 3, 64).reshape(4, 16)
    X = lambda m: m.tensor(x).to(getattr(m, dt))  # noqa: E731
    same_draws_as_torch(lambda m: [m.nn.functional.rrelu(X(m), training=True), m.nn.functional.rrelu_(X(m), 0.1, 0.3, True),
                     m.nn.RReLU(0.1, 0.4)(X(m)), m.rrelu(X(m), training=True)])


@pytest.mark.parametrize("dt", DT)
@pytest.mark.parametrize("p", [0.0, 0.3, 1.0])
def test_torch_level_dropout_functions_match_torch(dt, p):
    x = np.linspace(-2, 2, 60).reshape(3, 4, 5) + 0.37
    X = lambda m: m.tensor(x).to(getattr(m, dt))  # noqa: E731
    same_draws_as_torch(lambda m: [list(m.native_dropout(X(m), p, True)), list(m.native_dropout(X(m), p, None)),
                     m.feature_dropout(X(m), p, True), m.feature_dropout_(X(m), p, True), m.dropout_(X(m), p, True),
                     m.alpha_dropout_(X(m), p, True), m.feature_alpha_dropout_(X(m), p, True)])


def test_native_dropout_eval_and_gradient_match_torch():
    def run(m):
        x = m.ones(3, 20, requires_grad=True)
        out, mask = m.native_dropout(x, 0.4, True)
        out.sum().backward()
        return [out, mask, x.grad, type(out.grad_fn).__name__, list(m.native_dropout(m.ones(3), 0.5, False))]
    same_draws_as_torch(run)


# --- errors and API surface -----------------------------------------------------------------------------
ERR_CASES = ["geometric_(0.3)", "geometric_(2.0)", "exponential_()", "exponential_(-1.)", "cauchy_()",
             "cauchy_(0, -1.)", "log_normal_()", "log_normal_(0, -1.)", "bernoulli_(0.3)",
             "bernoulli_(m.rand(3))", "random_()", "random_(5)", "random_(0, 3)", "random_(-1, 1)",
             "uniform_()", "normal_()"]


@pytest.mark.parametrize("dt", ["complex64", "bool", "int64", "int32", "uint8"])
def test_sampler_dtype_errors_match_torch(dt):
    def outcome(m, case):
        try:
            eval("m.zeros(3, dtype=getattr(m, dt))." + case, {"m": m, "dt": dt})
            return "ok"
        except Exception as e:  # noqa: BLE001 - the exception type and text are what is compared
            return f"{type(not_a_test_bug(e)).__name__}: {e}"
    for case in ERR_CASES:
        assert outcome(tl, case) == outcome(torch, case), case


def test_generator_extras_and_random_names_match_torch():
    for m in (tl, torch):
        g = m.Generator(device="cpu")
        with pytest.raises(RuntimeError, match="^CPU Generator does not use offset$"):
            g.get_offset()
        with pytest.raises(RuntimeError, match="^CPU Generator does not use offset$"):
            g.set_offset(1)
        with pytest.raises(NotImplementedError, match="^graphsafe_get_state is not supported in this Generator$"):
            g.graphsafe_get_state()
        assert m.random.thread_safe_generator() is None
    public = {n for n in dir(torch.random) if not n.startswith("_")} - {"TYPE_CHECKING", "contextlib", "torch",
                                                                        "warnings"}
    assert public <= set(dir(tl.random))
    assert {n for n in dir(torch.Generator()) if not n.startswith("_")} <= set(dir(tl.Generator()))


# --- multinomial without replacement: tied p / q values come out in torch's topk order --------------------
@pytest.mark.parametrize("seed", [0, 99, 2 ** 35 + 1])
@pytest.mark.parametrize("dt", DT)
def test_multinomial_without_replacement_ties_match_torch(dt, seed):
    d = lambda m: getattr(m, dt)  # noqa: E731
    same_draws_as_torch(lambda m: [m.multinomial(m.rand(3, 50, dtype=d(m)), 20, False),  # nth_element + sort
                     m.multinomial(m.rand(2, 700, dtype=d(m)), 10, False),  # partial_sort (k * 64 <= n)
                     m.multinomial(m.tensor([0., 1, 0, 2, 0, 0, 3, 0], dtype=d(m)), 8, False),  # tied zeros
                     m.multinomial(m.rand(2, 5000, dtype=d(m)), 3000, False)], seed)


# --- attention dropout: torch's masks (the attention arithmetic itself rounds differently) ---------------
def test_attention_dropout_masks_are_torchs():
    rs = np.random.RandomState(0)
    q, k, v = (rs.randn(2, 3, 5, 4).astype(np.float32) for _ in range(3))

    def run(m):
        F = m.nn.functional
        out = [F.scaled_dot_product_attention(m.tensor(q), m.tensor(k), m.tensor(v), dropout_p=0.3),
               F.scaled_dot_product_attention(m.tensor(q), m.tensor(k), m.tensor(v), dropout_p=0.3, is_causal=True)]
        m.manual_seed(1)
        mha = m.nn.MultiheadAttention(4, 2, dropout=0.4, batch_first=True)
        out += list(mha(m.tensor(q[0]), m.tensor(q[0]), m.tensor(q[0])))
        m.manual_seed(1)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            layer = m.nn.TransformerEncoderLayer(4, 2, 8, dropout=0.3, batch_first=True)
        out.append(layer(m.tensor(q[0])))
        return [t.detach().numpy() for t in out]
    torch.manual_seed(0)
    b = run(torch)
    tl.manual_seed(0)
    a = run(tl)
    for x, y in zip(a, b):  # a different mask would differ by O(1); float32 rounding stays ~1e-7
        np.testing.assert_allclose(x, y, rtol=1e-5, atol=2e-6)


def test_generator_copy_pickle_and_argument_errors_match_torch():
    import copy
    import pickle

    def run(m):
        g = m.Generator().manual_seed(5)
        m.rand(3, generator=g)
        out = [m.rand(3, generator=copy.deepcopy(g)), m.rand(3, generator=pickle.loads(pickle.dumps(g))),
               m.rand(3, generator=g.clone_state()), str(m.Generator(device="cpu").device)]
        for bad in (lambda: m.Generator(device="meta"), lambda: m.manual_seed(2 ** 64),
                    lambda: m.manual_seed(-2 ** 63 - 1), lambda: m.set_rng_state(m.zeros(10, dtype=m.uint8)),
                    lambda: m.Generator().set_state(m.zeros(5056))):
            try:
                bad()
                out.append("no error")
            except Exception as e:  # noqa: BLE001 - the exception type and text are what is compared
                out.append(f"{type(e).__name__}: {e}")
        return out
    same_draws_as_torch(run)


@pytest.mark.parametrize("mode", ["LSTM", "GRU"])
def test_rnn_dropout_between_layers_of_a_packed_sequence_matches_torch(mode):
    """torch draws each layer's dropout over the packed rows only (not the padded (T, B) grid)."""
    def run(m):
        m.manual_seed(0)
        rnn = getattr(m.nn, mode)(4, 5, num_layers=3, dropout=0.3, bidirectional=True)
        x = m.randn(6, 3, 4)
        p = m.nn.utils.rnn.pack_padded_sequence(x, m.tensor([6, 2, 4]), enforce_sorted=False)
        out = rnn(p)[0]
        return [out.data.detach(), m.rand(3)]
    same_as_torch(run, grad=False, rtol=1e-5, atol=1e-6)
