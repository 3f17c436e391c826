"""Audit of issue 13 against torch (the oracle): what the earlier stream tests did not cover.

Strided views (in-place fills, ``*_like``, dropout fill in torch's stride order), every ``normal``
overload per dtype, ``generator=`` on every random function, the nn.init variants and more module
constructors, rrelu in float64, torch-level dropout names, torch's dtype errors, Generator extras, and
DataLoader worker seeding.  Every expected value comes from torch run with the same seed; after each
draw both frameworks draw ``rand(3)`` too, so the number of words consumed is checked as well.
"""
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest

import torchlike as tl

torch = pytest.importorskip("torch", reason="torch is the oracle for the random streams")

DT = ["float32", "float64", "float16", "bfloat16"]


def _np(x):
    if isinstance(x, (list, tuple)):
        return [_np(v) for v in x]
    if isinstance(x, dict):
        return {k: _np(v) for k, v in x.items()}
    if hasattr(x, "numpy") and hasattr(x, "dtype"):
        name = str(x.dtype).split(".")[-1]
        x = x.detach()
        return name, (x.float() if name in ("float16", "bfloat16") else x).numpy()
    return x


def _equal(a, b, path="out"):
    if isinstance(a, list):
        assert isinstance(b, list) and len(a) == len(b), path
        for i, (x, y) in enumerate(zip(a, b)):
            _equal(x, y, f"{path}[{i}]")
    elif isinstance(a, dict):
        assert list(a) == list(b), path
        for k in a:
            _equal(a[k], b[k], f"{path}.{k}")
    elif isinstance(a, tuple):
        assert a[0] == b[0], f"{path}: dtype {a[0]} vs {b[0]}"
        assert a[1].shape == b[1].shape, f"{path}: shape {a[1].shape} vs {b[1].shape}"
        np.testing.assert_array_equal(a[1], b[1], err_msg=path)
    else:
        assert a == b, f"{path}: {a!r} vs {b!r}"


def _same(fn, seed=0):
    """``fn(module)`` after ``manual_seed(seed)`` in both frameworks: equal values, equal stream advance."""
    torch.manual_seed(seed)
    b = [fn(torch), torch.rand(3)]
    tl.manual_seed(seed)
    a = [fn(tl), tl.rand(3)]
    _equal(_np(a), _np(b))


# --- strided views: torch fills in stride order (and a non-contiguous normal_ element by element) ---------
VIEWS = {
    "t": lambda m, d: m.zeros(8, 6, dtype=d).t(),
    "permute": lambda m, d: m.zeros(3, 4, 5, dtype=d).permute(2, 0, 1),
    "column": lambda m, d: m.zeros(20, 3, dtype=d)[:, 1],
    "step": lambda m, d: m.zeros(8, 6, dtype=d)[:, ::2],
    "big_t": lambda m, d: m.zeros(40, 30, dtype=d).t(),
    "slice_permute": lambda m, d: m.zeros(6, 8, 4, dtype=d)[:, 1:7].permute(1, 2, 0),
}
FILLS = {
    "uniform_": lambda z: z.uniform_(-1, 2), "normal_": lambda z: z.normal_(1, 2),
    "exponential_": lambda z: z.exponential_(), "cauchy_": lambda z: z.cauchy_(),
    "log_normal_": lambda z: z.log_normal_(), "geometric_": lambda z: z.geometric_(0.3),
    "bernoulli_": lambda z: z.bernoulli_(0.4), "random_": lambda z: z.random_(),
    "random_from_to": lambda z: z.random_(3, 9),
    "bernoulli_tensor": lambda z: z.bernoulli_(z.new_tensor(np.linspace(0, 1, z.numel()).reshape(tuple(z.shape)))),
}


@pytest.mark.parametrize("view", list(VIEWS))
@pytest.mark.parametrize("fill", list(FILLS))
@pytest.mark.parametrize("dt", ["float32", "float64", "bfloat16"])
def test_inplace_fill_of_a_strided_view_matches_torch(view, fill, dt):
    def run(m):
        z = VIEWS[view](m, getattr(m, dt))
        FILLS[fill](z)
        return [z, z._base]
    _same(run)


@pytest.mark.parametrize("view", list(VIEWS))
@pytest.mark.parametrize("dt", DT)
def test_like_factories_of_a_strided_input_match_torch(view, dt):
    _same(lambda m: [m.rand_like(VIEWS[view](m, getattr(m, dt))), m.randn_like(VIEWS[view](m, getattr(m, dt))),
                     m.randint_like(VIEWS[view](m, getattr(m, dt)), 0, 100),
                     m.randn_like(VIEWS[view](m, getattr(m, dt)), memory_format=m.contiguous_format)])


def test_like_factories_with_channels_last_match_torch():
    _same(lambda m: [m.randn_like(m.zeros(2, 3, 4, 5), memory_format=m.channels_last),
                     m.rand_like(m.zeros(2, 3, 4, 5, 2), memory_format=m.channels_last_3d)])


@pytest.mark.parametrize("make", [lambda m: m.ones(8, 6).t(), lambda m: m.arange(6000.).reshape(30, 40, 5).permute(2, 0, 1),
                                  lambda m: m.ones(8, 6)[:, ::2]], ids=["t", "permute", "step"])
def test_dropout_of_a_strided_input_matches_torch(make):
    F = lambda m: m.nn.functional  # noqa: E731
    _same(lambda m: [F(m).dropout(make(m), 0.3), F(m).alpha_dropout(make(m), 0.3, True),
                     F(m).dropout2d(m.ones(2, 3, 4, 5).transpose(0, 1), 0.5)])


def test_inplace_dropout_of_a_transposed_view_matches_torch():
    def run(m):
        base = m.ones(8, 6)
        m.nn.functional.dropout(base.t(), 0.5, inplace=True)
        return base
    _same(run)


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
    _same(lambda m: NORMALS[case](m, getattr(m, dt)), seed)


def test_interleaved_draws_consume_the_stream_like_torch():
    _same(lambda m: [m.rand(5), m.randn(3), m.randperm(10), m.randn(20), m.randint(0, 7, (4,)), m.randn(1),
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
    _same(lambda m: [WITH_GEN[case](m, m.Generator(device="cpu").manual_seed(77))])


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
    _same(run, 11)


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
        _same(run, 5)


# --- rrelu, torch-level dropout names -------------------------------------------------------------------
@pytest.mark.parametrize("dt", ["float32", "float64", "bfloat16"])
def test_rrelu_bounds_in_the_opmath_type_match_torch(dt):
    x = np.linspace(-3, 3, 64).reshape(4, 16)
    X = lambda m: m.tensor(x).to(getattr(m, dt))  # noqa: E731
    _same(lambda m: [m.nn.functional.rrelu(X(m), training=True), m.nn.functional.rrelu_(X(m), 0.1, 0.3, True),
                     m.nn.RReLU(0.1, 0.4)(X(m)), m.rrelu(X(m), training=True)])


@pytest.mark.parametrize("dt", DT)
@pytest.mark.parametrize("p", [0.0, 0.3, 1.0])
def test_torch_level_dropout_functions_match_torch(dt, p):
    x = np.linspace(-2, 2, 60).reshape(3, 4, 5) + 0.37
    X = lambda m: m.tensor(x).to(getattr(m, dt))  # noqa: E731
    _same(lambda m: [list(m.native_dropout(X(m), p, True)), list(m.native_dropout(X(m), p, None)),
                     m.feature_dropout(X(m), p, True), m.feature_dropout_(X(m), p, True), m.dropout_(X(m), p, True),
                     m.alpha_dropout_(X(m), p, True), m.feature_alpha_dropout_(X(m), p, True)])


def test_native_dropout_eval_and_gradient_match_torch():
    def run(m):
        x = m.ones(3, 20, requires_grad=True)
        out, mask = m.native_dropout(x, 0.4, True)
        out.sum().backward()
        return [out, mask, x.grad, type(out.grad_fn).__name__, list(m.native_dropout(m.ones(3), 0.5, False))]
    _same(run)


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
            return f"{type(e).__name__}: {e}"
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


# --- DataLoader workers: base seed, per-worker seeds, worker RNGs ---------------------------------------
def test_dataloader_worker_seeds_match_torch():
    script = os.path.join(os.path.dirname(__file__), "programs", "rng_worker_seeds.py")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([os.path.dirname(os.path.dirname(tl.__file__)),
                                                       os.environ.get("PYTHONPATH", "")]))
    outs = [subprocess.run([sys.executable, script, mod, "4"], capture_output=True, text=True, timeout=600, env=env)
            for mod in ("torch", "torchlike")]
    for r in outs:
        assert r.returncode == 0, r.stderr[-2000:]
    # workers run concurrently: the order of the lines may differ, their set may not
    torch_lines, tl_lines = (sorted(r.stdout.splitlines()) for r in outs)
    assert len(torch_lines) == 47
    assert tl_lines == torch_lines


# --- multinomial without replacement: tied p / q values come out in torch's topk order --------------------
@pytest.mark.parametrize("seed", [0, 99, 2 ** 35 + 1])
@pytest.mark.parametrize("dt", DT)
def test_multinomial_without_replacement_ties_match_torch(dt, seed):
    d = lambda m: getattr(m, dt)  # noqa: E731
    _same(lambda m: [m.multinomial(m.rand(3, 50, dtype=d(m)), 20, False),  # nth_element + sort
                     m.multinomial(m.rand(2, 700, dtype=d(m)), 10, False),  # partial_sort (k * 64 <= n)
                     m.multinomial(m.tensor([0., 1, 0, 2, 0, 0, 3, 0], dtype=d(m)), 8, False),  # tied zeros
                     m.multinomial(m.rand(2, 5000, dtype=d(m)), 3000, False)], seed)


def test_topk_order_is_torchs_for_ties_and_nans():
    from torchlike._mt_rejection import topk_order
    rs = np.random.RandomState(0)
    for t in range(150):
        n = int(rs.choice([5, 17, 50, 300, 2000]))
        k = int(rs.randint(1, n + 1)) if t % 2 else max(1, n // 70)
        v = rs.randint(0, int(rs.choice([3, 10, 1000])), n).astype(np.float32)
        if t % 7 == 0:
            v[rs.randint(0, n, 3)] = np.nan
        assert topk_order(v.tolist(), k) == torch.topk(torch.tensor(v), k).indices.tolist(), (n, k)


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


@pytest.mark.parametrize("dt", ["complex64", "complex128"])
@pytest.mark.parametrize("shape", [(3, 2), (8, 6)])
def test_complex_fills_of_a_transposed_view_match_torch(dt, shape):
    def run(m):
        z = m.zeros(*shape, dtype=getattr(m, dt)).t()
        z.normal_()
        u = m.zeros(*shape, dtype=getattr(m, dt)).t()
        u.uniform_()
        like = m.zeros(*shape, dtype=getattr(m, dt)).t()
        return [z._base, u._base, m.randn_like(like), m.rand_like(like)]
    _same(run)


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
    _same(run)
