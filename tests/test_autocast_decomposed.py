"""CPU autocast for ops torch has no autocast kernel for but decomposes into listed ones: the output dtype
is the one the decomposition ends in (cov/corrcoef, pinv, matrix_power, inner/tensordot as dot or mm,
multi-head attention), compared with torch's CPU bf16 autocast; and the legacy ``torch.cpu.amp`` names."""
import warnings

import numpy as np
import pytest

import torchlike
from conftest import raises_like_torch, to_tl, torch

rng = np.random.default_rng(3)


def _arr(*shape):
    return rng.standard_normal(shape).astype(np.float32)


_SQ = _arr(3, 3) + 3 * np.eye(3, dtype=np.float32)

CASES = {
    "cov": (lambda L, x: L.cov(x), (_arr(4, 6),)),
    "cov_1d": (lambda L, x: L.cov(x[0]), (_arr(2, 6),)),
    "cov_weights": (lambda L, x, w: L.cov(x, aweights=w.abs()), (_arr(3, 6), _arr(6))),
    "corrcoef": (lambda L, x: L.corrcoef(x), (_arr(4, 6),)),
    "pinv": (lambda L, a: L.linalg.pinv(a), (_arr(4, 3),)),
    "pinv_batched": (lambda L, a: L.linalg.pinv(a), (_arr(2, 3, 4),)),
    "pinv_hermitian": (lambda L, a: L.linalg.pinv(a, hermitian=True), (_SQ @ _SQ.T,)),
    "pinverse": (lambda L, a: L.pinverse(a), (_arr(4, 3),)),
    "inner_1d_1d": (lambda L, a: L.inner(a[0], a[1]), (_arr(2, 5),)),
    "inner_2d_1d": (lambda L, a: L.inner(a, a[0]), (_arr(3, 5),)),
    "inner_0d": (lambda L, a: L.inner(a[0, 0], a), (_arr(3, 5),)),
    "inner_3d_2d": (lambda L, a, b: L.inner(a, b), (_arr(2, 3, 5), _arr(4, 5))),
    "tensordot_full": (lambda L, a: L.tensordot(a, a, dims=2), (_arr(3, 5),)),
    "tensordot_dot": (lambda L, a: L.tensordot(a[0], a[1], dims=([0], [0])), (_arr(2, 5),)),
    "tensordot_outer": (lambda L, a: L.tensordot(a[0], a[1], dims=0), (_arr(2, 5),)),
    "tensordot_mm": (lambda L, a, b: L.tensordot(a, b, dims=1), (_arr(3, 5), _arr(5, 2))),
}
for _n in (-3, -2, -1, 0, 1, 2, 3):
    CASES[f"matrix_power_{_n}"] = (lambda L, a, n=_n: L.linalg.matrix_power(a, n), (_SQ,))
CASES["matrix_power_batched"] = (lambda L, a: L.linalg.matrix_power(a, 2), (_arr(2, 3, 3),))
# a low-precision input with a negative power: torch inverts under linalg.inv's policy (float32), then
# multiplies in bf16 (-1 stays float32); outside autocast the same call raises (inv rejects bf16)
for _n in (-3, -2, -1):
    for _dt in ("bfloat16", "float16"):
        CASES[f"matrix_power_{_n}_{_dt}"] = (
            lambda L, a, n=_n, dt=_dt: L.linalg.matrix_power(a.to(getattr(L, dt)), n), (_SQ,))


def _run(lib, fn, arrays, conv):
    with lib.autocast("cpu", dtype=lib.bfloat16):
        return fn(lib, *[conv(a) for a in arrays])


@pytest.mark.parametrize("name", sorted(CASES))
def test_decomposed_op_dtype_and_values_match_torch(name):
    fn, arrays = CASES[name]
    want = _run(torch, fn, arrays, torch.from_numpy)
    got = _run(torchlike, fn, arrays, torchlike.from_numpy)
    assert str(got.dtype) == str(want.dtype)
    assert tuple(got.shape) == tuple(want.shape)
    np.testing.assert_allclose(got.float().numpy(), want.float().numpy(), rtol=1.6e-2, atol=2e-2)


@pytest.mark.parametrize("dt", ["bfloat16", "float16"])
@pytest.mark.parametrize("autocast", [True, False], ids=["autocast", "plain"])
def test_pinv_rejects_low_precision_input_like_torch(dt, autocast):
    def fn(L, a):
        with L.autocast("cpu", dtype=L.bfloat16, enabled=autocast):
            return L.linalg.pinv(a.to(getattr(L, dt)))
    raises_like_torch(fn, _SQ)
    raises_like_torch(lambda L, a: L.linalg.matrix_power(a.to(getattr(L, dt)), -2), _SQ)


def test_gradient_flows_through_the_result_cast():
    a = _arr(4, 6)
    grads = []
    for lib, conv in ((torch, torch.from_numpy), (torchlike, torchlike.from_numpy)):
        x = conv(a.copy()).requires_grad_(True)
        with lib.autocast("cpu", dtype=lib.bfloat16):
            y = lib.cov(x)
        y.float().sum().backward()
        assert str(x.grad.dtype) == "torch.float32"
        grads.append(x.grad.numpy())
    np.testing.assert_allclose(grads[1], grads[0], rtol=2e-2, atol=2e-2)


def test_multi_head_attention_runs_in_bf16_like_torch():
    torch.manual_seed(0)
    tm = torch.nn.MultiheadAttention(8, 2)
    lm = torchlike.nn.MultiheadAttention(8, 2)
    lm.load_state_dict({k: to_tl(v) for k, v in tm.state_dict().items()})
    q = _arr(5, 3, 8)
    for kw in ({}, {"need_weights": False}, {"average_attn_weights": False}):
        with torch.autocast("cpu", dtype=torch.bfloat16):
            to, tw = tm(*(torch.from_numpy(q),) * 3, **kw)
        with torchlike.autocast("cpu", dtype=torchlike.bfloat16):
            lo, lw = lm(*(torchlike.from_numpy(q),) * 3, **kw)
        assert str(lo.dtype) == str(to.dtype) == "torch.bfloat16"
        assert (lw is None) == (tw is None)
        if tw is not None:
            assert str(lw.dtype) == str(tw.dtype)
            np.testing.assert_allclose(lw.float().detach().numpy(), tw.float().detach().numpy(), atol=3e-2)
        np.testing.assert_allclose(lo.float().detach().numpy(), to.float().detach().numpy(), atol=5e-2)


def test_legacy_cpu_amp_names_warn_and_behave_like_torch():
    out = []
    for lib in (torch, torchlike):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            ac = lib.cpu.amp.autocast()
            scaler = lib.cpu.amp.GradScaler(init_scale=8.0)
        msgs = [(x.category.__name__, str(x.message)) for x in w]
        with ac:
            dt = lib.mm(lib.ones(2, 2), lib.ones(2, 2)).dtype
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with lib.cpu.amp.autocast(dtype=lib.float16):
                dt16 = lib.mm(lib.ones(2, 2), lib.ones(2, 2)).dtype
        out.append((msgs, str(dt), str(dt16), scaler.get_scale(), scaler.is_enabled(),
                    type(ac).__module__.replace("torchlike", "torch"), type(ac).__mro__[1].__name__))
    assert out[1] == out[0]


def test_legacy_cuda_amp_names_warn_like_torch_without_a_gpu():
    if torch.cuda.is_available():
        pytest.skip("compares the no-GPU path; this torch sees a GPU")
    out = []
    for lib in (torch, torchlike):
        got = []
        for make in (lambda: lib.cuda.amp.autocast(), lambda: lib.cuda.amp.GradScaler(),
                     lambda: lib.cuda.amp.custom_fwd(lambda ctx, x: x), lambda: lib.cuda.amp.custom_bwd(lambda ctx, g: g)):
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
                obj = make()
            got.append([(x.category.__name__, str(x.message)) for x in w])
        ac = lib.cuda.amp.autocast.__new__(lib.cuda.amp.autocast)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ac.__init__()
            with ac:
                got.append(str(lib.mm(lib.ones(2, 2), lib.ones(2, 2)).dtype))
        out.append((got, str(ac.fast_dtype), type(obj).__name__))
    assert out[1] == out[0]
