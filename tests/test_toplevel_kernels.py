"""The top-level names torch exposes beside its documented API (ATen kernels such as ``torch.lstm``,
``torch.convolution``, ``torch.batch_norm_stats``; view copies; runtime flags and helpers; the shell dtypes),
each compared with torch on the same inputs."""
import os
import pickle

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="the oracle")
import torchlike  # noqa: E402

RNG = np.random.default_rng(7)


def T(a, lib=torchlike, **kw):
    return lib.tensor(np.asarray(a), **kw)


def _np(t):
    t = t.to_dense() if getattr(t, "is_sparse", False) else t
    return t.detach().cpu().numpy()


def close(ours, theirs, rtol=1e-5, atol=1e-6):
    np.testing.assert_allclose(_np(ours), _np(theirs), rtol=rtol, atol=atol)


def same_error(fn):
    with pytest.raises(Exception) as et:
        fn(torch)
    with pytest.raises(type(et.value)) as eo:
        fn(torchlike)
    assert str(eo.value).split("\n")[0][:120] == str(et.value).split("\n")[0][:120]
    return eo.value


# --- dtypes --------------------------------------------------------------------------------------------
SHELL = ("bits1x8 bits2x4 bits4x2 bits8 bits16 bit int1 int2 int3 int4 int5 int6 int7 uint1 uint2 uint3 uint4 "
         "uint5 uint6 uint7 float4_e2m1fn_x2").split()


@pytest.mark.parametrize("name", SHELL)
def test_shell_dtypes_have_torchs_attributes_and_refuse_tensors(name):
    ours, theirs = getattr(torchlike, name), getattr(torch, name)
    assert repr(ours) == repr(theirs)
    assert (ours.itemsize, ours.is_floating_point, ours.is_complex) == \
        (theirs.itemsize, theirs.is_floating_point, theirs.is_complex)
    assert pickle.loads(pickle.dumps(ours)) is ours
    with pytest.raises(NotImplementedError, match="docs/differences.md"):
        torchlike.zeros(3, dtype=ours)
    with pytest.raises(NotImplementedError, match=repr(ours)):
        torchlike.ones(3).to(ours)


def test_bits_dtype_promotion_error_is_torchs():
    same_error(lambda m: m.promote_types(m.bits8, m.float32))


def test_float8_e8m0fnu_matches_torch():
    vals = [0.5, 1.0, 2.0, 3.0, 1e30, 2.0 ** -100]
    ours = torchlike.tensor(vals).to(torchlike.float8_e8m0fnu)
    theirs = torch.tensor(vals).to(torch.float8_e8m0fnu)
    assert repr(ours.dtype) == repr(theirs.dtype)
    np.testing.assert_array_equal(ours.float().numpy(), theirs.float().numpy())
    fo, ft = torchlike.finfo(torchlike.float8_e8m0fnu), torch.finfo(torch.float8_e8m0fnu)
    for attr in ("bits", "eps", "max", "min", "tiny", "resolution"):
        assert getattr(fo, attr) == getattr(ft, attr), attr
    assert torchlike.float8_e8m0fnu.is_signed == torch.float8_e8m0fnu.is_signed
    same_error(lambda m: m.ones(2) + m.ones(2).to(m.float8_e8m0fnu))


# --- view copies ----------------------------------------------------------------------------------------
VIEW_COPIES = [
    ("select_copy", lambda m: (m.arange(12.).reshape(3, 4), 1, -1)),
    ("slice_copy", lambda m: (m.arange(12.).reshape(3, 4), 1, 1, None, 2)),
    ("slice_copy", lambda m: (m.arange(12.).reshape(3, 4),)),
    ("view_as_real_copy", lambda m: (m.tensor([1 + 2j, 3 - 1j]),)),
    ("view_as_complex_copy", lambda m: (m.arange(6.).reshape(3, 2),)),
]


@pytest.mark.parametrize("name,args", VIEW_COPIES, ids=[c[0] for c in VIEW_COPIES])
def test_view_copies_match_torch(name, args):
    a_t, a_o = args(torch), args(torchlike)
    if name == "view_as_complex_copy":  # torch: no derivative for this copy's complex output
        same_error(lambda m: getattr(m, name)(args(m)[0].requires_grad_()))
    elif a_t[0].is_floating_point():
        a_t[0].requires_grad_()
        a_o[0].requires_grad_()
    rt, ro = getattr(torch, name)(*a_t), getattr(torchlike, name)(*a_o)
    close(ro, rt)
    assert ro._base is None
    if rt.grad_fn is not None:
        assert type(ro.grad_fn).__name__ == type(rt.grad_fn).__name__
        g = np.ones(tuple(rt.shape), np.float32)
        rt.backward(torch.from_numpy(g))
        ro.backward(torchlike.from_numpy(g))
        close(a_o[0].grad, a_t[0].grad)


@pytest.mark.parametrize("name", ["indices_copy", "values_copy", "crow_indices_copy", "col_indices_copy",
                                  "ccol_indices_copy", "row_indices_copy"])
@pytest.mark.parametrize("layout", ["strided", "coo", "csr", "csc"])
def test_sparse_accessor_copies_match_torch(name, layout):
    def make(m):
        x = m.tensor([[0., 2., 0.], [3., 0., 4.]])
        return {"strided": x, "coo": x.to_sparse(), "csr": x.to_sparse_csr(), "csc": x.to_sparse_csc()}[layout]
    try:
        expected = getattr(torch, name)(make(torch))
    except Exception:
        same_error(lambda m: getattr(m, name)(make(m)))
        return
    np.testing.assert_array_equal(getattr(torchlike, name)(make(torchlike)).numpy(), expected.numpy())


def test_slice_inverse_matches_torch():
    def run(m):
        base = m.arange(10.)
        return m.slice_inverse(base[2:5], m.zeros(10), 0, 2, 5)
    close(run(torchlike), run(torch))
    same_error(lambda m: m.slice_inverse(m.arange(3.), m.ones(10), 0, 2, 5))


def test_as_strided_out_of_bounds_message_is_torchs():
    same_error(lambda m: m.arange(3.).as_strided((10,), (1,), 0))
    same_error(lambda m: m.arange(3).as_strided((2, 2), (2, 1), 1))


# --- recurrent kernels ------------------------------------------------------------------------------------
@pytest.mark.parametrize("mode", ["LSTM", "GRU", "RNN_TANH", "RNN_RELU"])
@pytest.mark.parametrize("bidirectional,batch_first", [(False, False), (True, True)])
def test_fused_rnn_kernels_match_torch(mode, bidirectional, batch_first):
    kw = {"nonlinearity": mode[4:].lower()} if mode.startswith("RNN") else {}
    cls = "RNN" if mode.startswith("RNN") else mode
    torch.manual_seed(0)
    mt = getattr(torch.nn, cls)(3, 4, num_layers=2, bidirectional=bidirectional, batch_first=batch_first, **kw)
    D = 2 if bidirectional else 1
    x = RNG.standard_normal((2, 5, 3) if batch_first else (5, 2, 3)).astype(np.float32)
    h = RNG.standard_normal((2 * D, 2, 4)).astype(np.float32)

    def run(m, params):
        hx = [T(h, m), T(h, m) * 0.5] if mode == "LSTM" else T(h, m)
        fn = getattr(m, mode.lower())
        return fn(T(x, m), hx, params, True, 2, 0.0, False, bidirectional, batch_first)
    pt = [p.detach() for p in mt._flat_weights]
    po = [torchlike.from_numpy(p.numpy().copy()).requires_grad_() for p in pt]
    pt = [p.clone().requires_grad_() for p in pt]
    rt, ro = run(torch, pt), run(torchlike, po)
    assert len(ro) == len(rt)
    for a, b in zip(ro, rt):
        close(a, b, rtol=1e-4, atol=1e-5)
    sum(r.sum() for r in rt).backward()
    sum(r.sum() for r in ro).backward()
    for a, b in zip(po, pt):
        close(a.grad, b.grad, rtol=1e-4, atol=1e-4)


def test_fused_lstm_packed_overload_matches_torch():
    torch.manual_seed(1)
    mt = torch.nn.LSTM(3, 4)
    seqs = [RNG.standard_normal((n, 3)).astype(np.float32) for n in (4, 2, 1)]

    def run(m, params):
        packed = m.nn.utils.rnn.pack_sequence([T(s, m) for s in seqs])
        z = m.zeros(1, 3, 4)
        return m.lstm(packed.data, packed.batch_sizes, [z, z], params, True, 1, 0.0, False, False)
    pt = [p.detach() for p in mt._flat_weights]
    po = [torchlike.from_numpy(p.numpy().copy()) for p in pt]
    for a, b in zip(run(torchlike, po), run(torch, pt)):
        close(a, b, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name,gates", [("lstm_cell", 4), ("gru_cell", 3), ("rnn_tanh_cell", 1),
                                        ("rnn_relu_cell", 1)])
@pytest.mark.parametrize("bias", [True, False])
def test_rnn_cells_match_torch(name, gates, bias):
    arrs = [RNG.standard_normal(s).astype(np.float32) for s in
            [(2, 3), (2, 4), (2, 4), (gates * 4, 3), (gates * 4, 4), (gates * 4,), (gates * 4,)]]

    def run(m):
        ts = [T(a, m).requires_grad_() for a in arrs]
        hx = [ts[1], ts[2]] if name == "lstm_cell" else ts[1]
        b = (ts[5], ts[6]) if bias else (None, None)
        r = getattr(m, name)(ts[0], hx, ts[3], ts[4], *b)
        out = r if isinstance(r, tuple) else (r,)
        sum((o * o).sum() for o in out).backward()
        return out, [t.grad for t in ts]
    (ro, go), (rt, gt) = run(torchlike), run(torch)
    for a, b in zip(ro, rt):
        close(a, b, rtol=1e-5, atol=1e-6)
    for a, b in zip(go, gt):
        if b is None:
            assert a is None
        else:
            close(a, b, rtol=1e-4, atol=1e-5)


# --- convolution, pooling, embedding ------------------------------------------------------------------------
def test_convolution_and_conv_tbc_match_torch():
    x, w, b = (RNG.standard_normal(s).astype(np.float32) for s in [(2, 4, 6, 6), (6, 2, 3, 3), (6,)])
    for transposed in (False, True):
        ww = w if not transposed else RNG.standard_normal((4, 3, 3, 3)).astype(np.float32)
        args = ([2, 1], [1, 0], [1, 2], transposed, [1, 0] if transposed else [0, 0], 2)
        close(torchlike.convolution(T(x), T(ww), T(b[:6 if not transposed else 6]), *args),
              torch.convolution(T(x, torch), T(ww, torch), T(b, torch), *args), rtol=1e-4, atol=1e-4)
    xt, wt, bt = (RNG.standard_normal(s).astype(np.float32) for s in [(7, 2, 3), (3, 3, 5), (5,)])
    close(torchlike.conv_tbc(T(xt), T(wt), T(bt), 1), torch.conv_tbc(T(xt, torch), T(wt, torch), T(bt, torch), 1),
          rtol=1e-4, atol=1e-5)


def test_private_convolution_entry_points_match_torch():
    """torch._convolution (both overloads: with and without allow_tf32) and torch._convolution_mode, which
    torch.ops.aten exposes and flop counters (ptflops) key on."""
    x, w, b = (RNG.standard_normal(s).astype(np.float32) for s in [(2, 4, 7), (6, 2, 3), (6,)])
    flags = [(False, False, True, True), (False, False, True)]
    for lib_args in flags:
        args = ([2], [1], [1], False, [0], 2, *lib_args)
        close(torchlike._convolution(T(x), T(w), T(b), *args), torch._convolution(T(x, torch), T(w, torch),
                                                                                   T(b, torch), *args), rtol=1e-4)
    for padding in ("same", "valid"):
        close(torchlike._convolution_mode(T(x), T(w), None, [1], padding, [2], 2),
              torch._convolution_mode(T(x, torch), T(w, torch), None, [1], padding, [2], 2), rtol=1e-4, atol=1e-5)
    assert str(torchlike.ops.aten._convolution) == str(torch.ops.aten._convolution) == "aten._convolution"


def test_pooling_shuffle_affine_grid_match_torch():
    x = RNG.standard_normal((2, 4, 9)).astype(np.float32)
    for ro, rt in zip(torchlike.max_pool1d_with_indices(T(x), 3, 2, 1),
                      torch.max_pool1d_with_indices(T(x, torch), 3, 2, 1)):
        close(ro, rt)
    close(torchlike.native_channel_shuffle(T(x), 2), torch.native_channel_shuffle(T(x, torch), 2))
    theta = RNG.standard_normal((2, 2, 3)).astype(np.float32)
    close(torchlike.affine_grid_generator(T(theta), [2, 1, 3, 4], False),
          torch.affine_grid_generator(T(theta, torch), [2, 1, 3, 4], False), rtol=1e-5, atol=1e-6)


def test_embedding_renorm_matches_torch():
    w = RNG.standard_normal((6, 3)).astype(np.float32) * 2
    wo, wt = T(w), T(w, torch)
    ro = torchlike.embedding_renorm_(wo, T([0, 0, 2, 5]), 1.0, 2.0)
    rt = torch.embedding_renorm_(wt, T([0, 0, 2, 5], torch), 1.0, 2.0)
    assert ro is wo and rt is wt
    close(wo, wt)


# --- norms ------------------------------------------------------------------------------------------------
def test_legacy_norms_match_torch():
    x = RNG.standard_normal((2, 3, 4)).astype(np.float32)
    for f in (lambda m, t: m.frobenius_norm(t, [0, 2]), lambda m, t: m.frobenius_norm(t, [1], True),
              lambda m, t: m.nuclear_norm(t[0]), lambda m, t: m.nuclear_norm(t[0], True),
              lambda m, t: m.nuclear_norm(t, [1, 2], True), lambda m, t: m.norm_except_dim(t, 2, 0),
              lambda m, t: m.norm_except_dim(t, 3, 1), lambda m, t: m.norm_except_dim(t, 2, -1),
              lambda m, t: m.native_norm(t.to_sparse()), lambda m, t: m.native_norm(t.to_sparse(), 3, [0, 1, 2],
                                                                                    False, None)):
        close(f(torchlike, T(x)), f(torch, T(x, torch)), rtol=1e-5, atol=1e-5)
    same_error(lambda m: m.native_norm(m.ones(3)))
    same_error(lambda m: m.native_norm(m.ones(2, 3).to_sparse(), 2, [0], False, None))


# --- the SyncBatchNorm kernels --------------------------------------------------------------------------------
def test_batch_norm_update_stats_matches_torch():
    x = RNG.standard_normal((4, 3, 5)).astype(np.float32)
    rmo, rvo, rmt, rvt = T(np.zeros(3, np.float32)), T(np.ones(3, np.float32)), torch.zeros(3), torch.ones(3)
    for a, b in zip(torchlike.batch_norm_update_stats(T(x), rmo, rvo, 0.1),
                    torch.batch_norm_update_stats(T(x, torch), rmt, rvt, 0.1)):
        close(a, b)
    close(rmo, rmt)
    close(rvo, rvt)
    same_error(lambda m: m.batch_norm_update_stats(m.ones(2, 3, dtype=m.float64), m.zeros(3), m.ones(3), 0.1))


def test_sync_batch_norm_kernels_reproduce_torchs_batch_norm():
    """torch registers these for CUDA only: composed as SyncBatchNorm composes them (one replica), they must
    give torch's batch_norm output, running statistics and gradients."""
    x, w, b, g = (RNG.standard_normal(s).astype(np.float32) for s in [(4, 3, 5), (3,), (3,), (4, 3, 5)])
    xt, wt, bt = (T(a, torch).requires_grad_() for a in (x, w, b))
    rmt, rvt = torch.zeros(3), torch.ones(3)
    yt = torch.nn.functional.batch_norm(xt, rmt, rvt, wt, bt, training=True, momentum=0.1, eps=1e-5)
    yt.backward(T(g, torch))
    L = torchlike
    xo, wo, bo, go = T(x), T(w), T(b), T(g)
    rmo, rvo = L.zeros(3), L.ones(3)
    mean, invstd = L.batch_norm_stats(xo, 1e-5)
    mean, invstd = L.batch_norm_gather_stats_with_counts(xo, mean[None], invstd[None], rmo, rvo, 0.1, 1e-5,
                                                         L.tensor([20.]))
    close(L.batch_norm_elemt(xo, wo, bo, mean, invstd, 1e-5), yt, rtol=1e-5, atol=1e-5)
    close(rmo, rmt)
    close(rvo, rvt)
    rm2, rv2 = L.zeros(3), L.ones(3)
    m2, i2 = L.batch_norm_gather_stats(xo, *[t[None] for t in L.batch_norm_stats(xo, 1e-5)], rm2, rv2, 0.1, 1e-5, 20)
    close(m2, mean)
    close(i2, invstd)
    sum_dy, sum_dy_xmu, gw, gb = L.batch_norm_backward_reduce(go, xo, mean, invstd, wo, True, True, True)
    close(gw, wt.grad, rtol=1e-4, atol=1e-4)
    close(gb, bt.grad, rtol=1e-4, atol=1e-4)
    gx = L.batch_norm_backward_elemt(go, xo, mean, invstd, wo, sum_dy, sum_dy_xmu, L.tensor([20], dtype=L.int32))
    close(gx, xt.grad, rtol=1e-4, atol=1e-4)
    assert L.batch_norm_backward_reduce(go, xo, mean, invstd, None, False, False, False) == (None,) * 4


# --- sampling ---------------------------------------------------------------------------------------------------
def test_binomial_matches_torch():
    count, prob = [5.0, 10.0, 0.0, 30.0] * 8, [0.5, 0.2, 0.7, 0.9] * 8
    torch.manual_seed(3)
    torchlike.manual_seed(3)
    rt = torch.binomial(torch.tensor(count), torch.tensor(prob))
    ro = torchlike.binomial(torchlike.tensor(count), torchlike.tensor(prob))
    assert ro.dtype == torchlike.float32 and ro.shape == rt.shape
    assert ((ro >= 0) & (ro <= torchlike.tensor(count))).all()
    np.testing.assert_array_equal(ro.numpy(), rt.numpy())
    same_error(lambda m: m.binomial(m.tensor([5, 10]), m.tensor([0.5, 0.2])))


# --- runtime names ------------------------------------------------------------------------------------------------
def test_flags_and_runtime_helpers_match_torch():
    for name in ("PRIVATE_OPS", "TYPE_CHECKING", "USE_GLOBAL_DEPS", "USE_RTLD_GLOBAL_WITH_LIBTORCH"):
        assert getattr(torchlike, name) == getattr(torch, name), name
    assert torchlike.compiled_with_cxx11_abi() == torch.compiled_with_cxx11_abi()
    assert torchlike.profiler_allow_cudagraph_cupti_lazy_reinit_cuda12() is True
    assert torchlike.init_num_threads() is None and torchlike.prepare_multiprocessing_environment("x") is None
    assert isinstance(torchlike.set_flush_denormal(False), bool)
    assert torchlike.get_file_path("a", "b") == os.path.join(
        os.path.dirname(os.path.dirname(torchlike.__file__)), "a", "b")
    for name in ("FatalError", "JITException"):
        ours, theirs = getattr(torchlike, name), getattr(torch, name)
        assert issubclass(ours, Exception) and ours.__qualname__ == theirs.__qualname__
        assert ours.__module__ == theirs.__module__.replace("torch", "torchlike", 1)
    assert torchlike.JITException is torchlike.jit.Error
    assert isinstance(torchlike.arange(3).untyped_storage(), torchlike.StorageBase)
    assert torchlike.StorageBase is torchlike._C.StorageBase
    with torchlike.DisableTorchFunctionSubclass():
        pass
    assert torchlike.thread_safe_generator() is torch.thread_safe_generator() is None
    assert torchlike.sym_fresh_size(3) == torch.sym_fresh_size(3)

    class A:
        @torchlike.classproperty
        def n(cls):
            return cls.__name__
    assert A.n == "A"


def test_fork_returns_a_future_like_torch():
    for m in (torch, torchlike):
        fut = m.fork(lambda x: x + 1, 2)
        assert isinstance(fut, m.Future) and fut.wait() == 3 and m.wait(fut) == 3
        fut = m.jit.fork(lambda x: x * 2, 2)
        assert fut.wait() == 4 and m.jit.wait(fut) == 4


def test_sym_constrain_range_matches_torch():
    for m in (torch, torchlike):
        assert m.sym_constrain_range(3, min=0, max=5) is None
        assert m.sym_constrain_range_for_size(3) is None
    same_error(lambda m: m.sym_constrain_range(3, min=4, max=5))
    same_error(lambda m: m.sym_constrain_range_for_size(-1))


@pytest.mark.parametrize("name,args", [("eig", 1), ("lstsq", 2), ("solve", 2), ("symeig", 1), ("matrix_rank", 1)])
def test_removed_functions_raise_torchs_error(name, args):
    with pytest.raises(RuntimeError) as et:
        getattr(torch, name)(*[torch.eye(3)] * args)
    with pytest.raises(RuntimeError) as eo:
        getattr(torchlike, name)(*[torchlike.eye(3)] * args)
    assert str(eo.value) == str(et.value)


def test_from_file_matches_torch(tmp_path):
    path = str(tmp_path / "data.bin")
    np.arange(10, dtype=np.float32).tofile(path)
    close(torchlike.from_file(path, size=6), torch.from_file(path, size=6))
    close(torchlike.from_file(path, False, 3, dtype=torchlike.int32), torch.from_file(path, False, 3, dtype=torch.int32))
    with pytest.raises(RuntimeError):
        torch.from_file(path, size=100)
    with pytest.raises(RuntimeError):
        torchlike.from_file(path, size=100)
    with pytest.raises(NotImplementedError, match="docs/differences.md"):
        torchlike.from_file(path, True, 3)


def test_legacy_sparse_products_match_torch():
    a = np.array([[1., 0., 2.], [0., 0., 3.], [4., 0., 0.]], np.float32)
    d = RNG.standard_normal((3, 2)).astype(np.float32)
    sq = RNG.standard_normal((3, 3)).astype(np.float32)
    for f in (lambda m: m.dsmm(T(a, m).to_sparse(), T(d, m)), lambda m: m.dsmm(T(a, m), T(d, m)),
              lambda m: m.hsmm(T(a, m).to_sparse(), T(d, m)),
              lambda m: m.saddmm(T(a, m).to_sparse(), T(a, m).to_sparse(), T(sq, m))):
        close(f(torchlike), f(torch), rtol=1e-5, atol=1e-5)
    assert torchlike.hsmm(T(a).to_sparse(), T(d)).is_sparse

    def resize(m):
        s = T(a, m).to_sparse()
        r = m.resize_as_sparse_(s, m.zeros(4, 5).to_sparse())
        assert r is s
        return s
    rt, ro = resize(torch), resize(torchlike)
    assert tuple(ro.shape) == tuple(rt.shape)
    close(ro, rt)


@pytest.mark.parametrize("generalized", [False, True])
def test_lobpcg_matches_torchs_converged_eigenpairs(generalized):
    n, k = 12, 2
    q = RNG.standard_normal((n, n))
    A = (q @ q.T + n * np.eye(n))
    B = np.diag(RNG.uniform(1, 2, n)) if generalized else None
    for largest in (True, False):
        torch.manual_seed(0)
        Et, Vt = torch.lobpcg(T(A, torch), k=k, B=None if B is None else T(B, torch), largest=largest, tol=1e-10,
                              niter=200)
        Eo, Vo = torchlike.lobpcg(T(A), k=k, B=None if B is None else T(B), largest=largest)
        close(Eo, Et, rtol=1e-6, atol=1e-8)
        # eigenvectors are unique up to sign
        np.testing.assert_allclose(np.abs(_np(Vo)), np.abs(_np(Vt)), rtol=1e-4, atol=1e-6)
    same_error(lambda m: m.lobpcg(m.eye(4), k=2))


@pytest.mark.parametrize("name", ["import_ir_module", "import_ir_module_from_buffer", "parse_ir", "parse_schema",
                                  "parse_type_comment", "merge_type_from_type_comment", "unify_type_list"])
def test_torchscript_ir_entry_points_raise_a_clear_error(name):
    assert callable(getattr(torch, name))
    with pytest.raises(NotImplementedError, match=f"torch.{name} .*docs/differences.md"):
        getattr(torchlike, name)("graph(%x : Tensor):\n  return (%x)")
