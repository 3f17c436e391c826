"""Ops over the dtypes, samples and layouts the default OpInfo run does not look at (found by
``python -m conformance --strict``): half-precision arithmetic, small integer dtypes, floor division edge
values, non-contiguous inputs.  Expected values come from torch."""
import jax
import jax.numpy as jnp
import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="torch is the oracle for these tests")
import torchlike  # noqa: E402
from conftest import assert_same, raises_like_torch, to_tl, to_torch, torch_or_tl  # noqa: E402
from torchlike._ops._util import round_to  # noqa: E402


def _randn(*shape, dtype, seed=0, scale=3.0):
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(*shape, generator=g, dtype=torch.float32) * scale).to(dtype)


HALF = [torch.float16, torch.bfloat16]


# --- floor division: torch divides from fmod, not floor(a / b) ------------------------------------
def test_floor_divide_float64_from_fmod():
    a = torch.tensor([1.0, -1.0, 0.25, -0.25, 7.5, -7.5, 0.0, -0.0, 5.0, 1.0, -1.0, 0.0], dtype=torch.float64)
    b = torch.tensor([0.001, -0.001, 0.001, 0.001, 2.5, 2.5, 3.0, 3.0, -0.0, 0.0, 0.0, 0.0], dtype=torch.float64)
    expected = torch.floor_divide(a, b)
    assert_same(torchlike.floor_divide(to_tl(a), to_tl(b)), expected, rtol=0, atol=0)
    assert_same(torchlike.div(to_tl(a), to_tl(b), rounding_mode="floor"), expected, rtol=0, atol=0)
    assert torch.equal(torch.signbit(to_torch(torchlike.floor_divide(to_tl(a), to_tl(b)))), torch.signbit(expected))


@pytest.mark.parametrize("dtype", HALF)
def test_floor_divide_half_computed_in_float32(dtype):
    # the quotients whose floor(a / b) in half precision is off by one (torch: from fmod in float32)
    a = torch.tensor([-7.640625, -3.890625, 1.0], dtype=dtype)
    b = torch.tensor([-0.424560546875, -0.216796875, 0.1], dtype=dtype)
    assert_same(torchlike.floor_divide(to_tl(a), to_tl(b)), torch.floor_divide(a, b), rtol=0, atol=0)


def test_div_floor_gradient_is_zero():
    a = torch.tensor([1.0, 2.0, -3.0], requires_grad=True)
    b = torch.tensor([0.0, 0.5, 2.0], requires_grad=True)
    torch.div(a, b, rounding_mode="floor").sum().backward()
    la, lb = to_tl(a.detach()).requires_grad_(), to_tl(b.detach()).requires_grad_()
    torchlike.div(la, lb, rounding_mode="floor").sum().backward()
    assert_same(la.grad, a.grad, rtol=None, atol=None)
    assert_same(lb.grad, b.grad, rtol=None, atol=None)


# --- half precision: float32 arithmetic, one rounding --------------------------------------------
@pytest.mark.parametrize("dtype", HALF)
@pytest.mark.parametrize("name", ["acosh", "asinh", "sin", "exp", "log1p", "erf", "sigmoid", "rsqrt"])
def test_unary_half_matches_torch(name, dtype):
    x = _randn(3000, dtype=dtype, seed=3).abs() + 1
    assert_same(getattr(torchlike, name)(to_tl(x)), getattr(torch, name)(x), rtol=None, atol=None)


@pytest.mark.parametrize("dtype", HALF)
def test_addcmul_addcdiv_lerp_half(dtype):
    x, a, b = (_randn(40, 30, dtype=dtype, seed=s) for s in (4, 5, 6))
    assert_same(torchlike.addcmul(to_tl(x), to_tl(a), to_tl(b), value=0.7), torch.addcmul(x, a, b, value=0.7),
                rtol=None, atol=None)
    assert_same(torchlike.addcdiv(to_tl(x), to_tl(a), to_tl(b), value=0.7), torch.addcdiv(x, a, b, value=0.7),
                rtol=None, atol=None)
    w = torch.rand(40, 30, generator=torch.Generator().manual_seed(7)).to(dtype)
    assert_same(torchlike.lerp(to_tl(x), to_tl(a), to_tl(w)), torch.lerp(x, a, w), rtol=None, atol=None)


@pytest.mark.parametrize("dtype", HALF)
def test_addmm_family_half(dtype):
    m, a, b = _randn(6, 7, dtype=dtype, seed=8), _randn(6, 9, dtype=dtype, seed=9), _randn(9, 7, dtype=dtype, seed=10)
    assert_same(torchlike.addmm(to_tl(m), to_tl(a), to_tl(b), beta=0.5, alpha=1.5),
                torch.addmm(m, a, b, beta=0.5, alpha=1.5), rtol=None, atol=None)
    v = _randn(9, dtype=dtype, seed=11)
    assert_same(torchlike.addmv(to_tl(m[:, 0]), to_tl(a), to_tl(v), alpha=2), torch.addmv(m[:, 0], a, v, alpha=2),
                rtol=None, atol=None)
    b1, b2 = _randn(5, 6, 9, dtype=dtype, seed=12), _randn(5, 9, 7, dtype=dtype, seed=13)
    assert_same(torchlike.baddbmm(to_tl(m), to_tl(b1), to_tl(b2)), torch.baddbmm(m, b1, b2), rtol=None, atol=None)
    # addbmm adds the batches one at a time, rounding after each: summing in float32 would differ
    assert_same(torchlike.addbmm(to_tl(m), to_tl(b1), to_tl(b2), beta=0.3), torch.addbmm(m, b1, b2, beta=0.3),
                rtol=None, atol=None)
    assert_same(torchlike.addbmm(to_tl(m), to_tl(b1), to_tl(b2), beta=0), torch.addbmm(m, b1, b2, beta=0),
                rtol=None, atol=None)


@pytest.mark.parametrize("dtype", HALF + [torch.float32])
def test_addr_rounds_like_torch(dtype):
    m, x, y = _randn(5, 10, dtype=dtype, seed=14), _randn(5, dtype=dtype, seed=15), _randn(10, dtype=dtype, seed=16)
    for beta, alpha in ((1, 1), (0.2, 0.6), (0, 2)):
        assert_same(torchlike.addr(to_tl(m), to_tl(x), to_tl(y), beta=beta, alpha=alpha),
                    torch.addr(m, x, y, beta=beta, alpha=alpha), rtol=None, atol=None)


# --- small integer dtypes ------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", [torch.int32, torch.int16, torch.int8, torch.uint8])
def test_addbmm_keeps_integer_dtype(dtype):
    g = torch.Generator().manual_seed(0)
    m = torch.randint(0, 5, (3, 4), generator=g).to(dtype)
    b1, b2 = (torch.randint(0, 5, s, generator=g).to(dtype) for s in ((2, 3, 5), (2, 5, 4)))
    assert_same(torchlike.addbmm(to_tl(m), to_tl(b1), to_tl(b2)), torch.addbmm(m, b1, b2), rtol=None, atol=None)


@pytest.mark.parametrize("dtype", [torch.uint8, torch.int8, torch.int32, torch.bool, torch.float16])
def test_sum_to_size_dtype(dtype):
    x = torch.ones(3, 2, 4).to(dtype)
    assert_same(to_tl(x).sum_to_size(1, 2, 1), x.sum_to_size(1, 2, 1), rtol=None, atol=None)
    assert_same(to_tl(x).sum_to_size(2, 4), x.sum_to_size(2, 4), rtol=None, atol=None)


# --- non-contiguous inputs -----------------------------------------------------------------------
def test_view_as_complex_stride_checks():
    t = torch.arange(24.0).reshape(4, 6)
    lt = torchlike.arange(24.0).reshape(4, 6)
    assert_same(torchlike.view_as_complex(lt.reshape(4, 3, 2)), torch.view_as_complex(t.reshape(4, 3, 2)),
                rtol=None, atol=None)
    raises_like_torch(torch_or_tl(lambda: torch.view_as_complex(t[:, 1:3]),
                                  lambda: torchlike.view_as_complex(lt[:, 1:3])))
    assert_same(torchlike.view_as_complex(lt.t()[:2, :2].t()), torch.view_as_complex(t.t()[:2, :2].t()),
                rtol=None, atol=None)
    raises_like_torch(torch_or_tl(lambda: torch.view_as_complex(t.t()[:2, :2]),
                                  lambda: torchlike.view_as_complex(lt.t()[:2, :2])))
    raises_like_torch(torch_or_tl(lambda: torch.view_as_complex(t[:, ::3]),
                                  lambda: torchlike.view_as_complex(lt[:, ::3])))
    raises_like_torch(torch_or_tl(lambda: torch.view_as_complex(t.reshape(-1)[1:7].reshape(3, 2)),
                                  lambda: torchlike.view_as_complex(lt.reshape(-1)[1:7].reshape(3, 2))))


# --- dtypes a kernel does not implement: torch's exception type and message ------------------------
_C64 = torch.ones(3, dtype=torch.complex64)
_B = torch.ones(3, dtype=torch.bool)
_UNSUPPORTED = {
    "remainder complex": lambda m, c, b: m.remainder(c, c),
    "fmod complex": lambda m, c, b: m.fmod(c, 2),
    "floor_divide complex": lambda m, c, b: m.floor_divide(c, c),
    "div trunc complex": lambda m, c, b: m.div(c, c, rounding_mode="trunc"),
    "div floor complex": lambda m, c, b: m.div(c, c, rounding_mode="floor"),
    "hypot complex": lambda m, c, b: m.hypot(c, c),
    "logaddexp2 complex": lambda m, c, b: m.logaddexp2(c, c),
    "xlogy complex": lambda m, c, b: m.xlogy(c, c),
    "cummax complex": lambda m, c, b: m.cummax(c, 0),
    "cummin complex": lambda m, c, b: m.cummin(c, 0),
    "mode complex": lambda m, c, b: m.mode(c),
    "trace bool": lambda m, c, b: m.trace(b.reshape(1, 3)),
    "dot bool": lambda m, c, b: m.dot(b, b),
    "vdot bool": lambda m, c, b: m.vdot(b, b),
    "matmul 1-d bool": lambda m, c, b: m.matmul(b, b),
    "inner bool": lambda m, c, b: m.inner(b, b),
    "addcmul bool": lambda m, c, b: m.addcmul(b, b, b),
}


@pytest.mark.parametrize("case", sorted(_UNSUPPORTED))
def test_unsupported_dtype_error_matches_torch(case):
    f = _UNSUPPORTED[case]
    raises_like_torch(torch_or_tl(lambda: f(torch, _C64, _B), lambda: f(torchlike, to_tl(_C64), to_tl(_B))))


def test_logaddexp_complex_keeps_torch_branch():
    g = torch.Generator().manual_seed(3)
    a = torch.complex(torch.randn(50, generator=g), torch.randn(50, generator=g) * 3)
    b = torch.complex(torch.randn(50, generator=g), torch.randn(50, generator=g) * 3)
    assert_same(torchlike.logaddexp(to_tl(a), to_tl(b)), torch.logaddexp(a, b), rtol=None, atol=None)


@pytest.mark.parametrize("dtype", HALF)
def test_trace_half_accumulates_in_float32(dtype):
    x = _randn(40, 40, dtype=dtype, seed=17)
    assert_same(torchlike.trace(to_tl(x)), torch.trace(x), rtol=None, atol=None)


@pytest.mark.parametrize("dtype", HALF)
def test_binary_half_ops_match_torch(dtype):
    a, b = _randn(500, dtype=dtype, seed=18), _randn(500, dtype=dtype, seed=19)
    for name in ("logaddexp", "logaddexp2", "hypot", "atan2", "xlogy"):
        assert_same(getattr(torchlike, name)(to_tl(a), to_tl(b.abs())), getattr(torch, name)(a, b.abs()),
                    rtol=None, atol=None)
    assert_same(torchlike.frexp(to_tl(a)).mantissa, torch.frexp(a).mantissa, rtol=0, atol=0)


def test_out_variants_of_isin_and_lu_unpack():
    e, t = torch.tensor([1, 2, 3, 4]), torch.tensor([2, 4])
    lo = to_tl(torch.zeros(4, dtype=torch.bool))
    assert torchlike.isin(to_tl(e), to_tl(t), out=lo) is lo
    assert_same(lo, torch.isin(e, t), rtol=None, atol=None)
    a = torch.randn(3, 3, generator=torch.Generator().manual_seed(20), dtype=torch.float64)
    lu, piv = torch.linalg.lu_factor(a)
    outs = tuple(to_tl(torch.zeros(3, 3, dtype=torch.float64)) for _ in range(3))
    r = torchlike.lu_unpack(to_tl(lu), to_tl(piv), out=outs)
    assert all(x is y for x, y in zip(r, outs))
    for x, y in zip(outs, torch.lu_unpack(lu, piv)):
        assert_same(x, y, rtol=None, atol=None)


# --- half precision: composites round where torch's kernels store a half-type intermediate ----------------
@pytest.mark.parametrize("dtype", HALF)
def test_norm_quotients_round_their_half_norm_like_torch(dtype):
    # torch stores the norm (and the quotients, products) in the half type before the next op; computing
    # all of it in float32 left 1-2 ulp differences. A float16 eps of 1e-12 underflows: a zero row is NaN
    F, G = torch.nn.functional, torchlike.nn.functional
    x, y = _randn(64, 33, dtype=dtype, seed=7), _randn(64, 33, dtype=dtype, seed=8)
    x[3] = 0
    for fn in (lambda f, a, b: f.normalize(a), lambda f, a, b: f.normalize(a, p=3.0, dim=0),
               lambda f, a, b: f.cosine_similarity(a, b), lambda f, a, b: f.cosine_similarity(a, b, dim=0)):
        assert_same(fn(G, to_tl(x), to_tl(y)), fn(F, x, y), rtol=0, atol=0)
    mask = torch.rand(64, 33, generator=torch.Generator().manual_seed(1)) > 0.3
    assert_same(torchlike.masked.normalize(to_tl(x), 2.0, 1, mask=to_tl(mask)),
                torch.masked.normalize(x, 2.0, 1, mask=mask), rtol=0, atol=0)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_round_to_survives_a_compiled_program(dtype):
    # astype(half).astype(float32) between a multiply and an add vanished inside one jitted program (XLA's
    # CPU backend fused them); round_to keeps torch's rounding there, float16 subnormals included
    rng = np.random.default_rng(0)
    a, b, c = (jnp.asarray(rng.standard_normal(20000) * 10.0 ** rng.integers(-7, 4, 20000), jnp.float32)
               for _ in range(3))
    hd = getattr(torch, dtype)
    want = ((torch.from_numpy(np.array(a)).to(hd) * torch.from_numpy(np.array(b)).to(hd))
            + torch.from_numpy(np.array(c)).to(hd)).float().numpy()
    dt = jnp.float16 if dtype == "float16" else jnp.bfloat16
    r = lambda v: round_to(v, dt)  # noqa: E731
    got = np.asarray(jax.jit(lambda a, b, c: r(r(r(a) * r(b)) + r(c)))(a, b, c))
    assert np.array_equal(got, want, equal_nan=True)


@pytest.mark.parametrize("dtype", HALF)
@pytest.mark.parametrize("shape,out", [((2, 3, 7, 9, 5), (3, 4, 2)), ((3, 8, 8, 6), (5, None, 2)),
                                       ((1, 8, 4, 3, 7), (1, 1, 1)), ((0, 2, 4, 4, 4), (2, 2, 2))])
def test_adaptive_avg_pool3d_half_sums_in_the_half_type_like_torch(shape, out, dtype):
    # torch's 3-D kernel adds each window into a half-type sum and divides by kT, kH, kW in turn (each step
    # rounded); an output of 1x1x1 is its mean (float32 sum, one division)
    x = _randn(*shape, dtype=dtype, seed=9)
    assert_same(torchlike.nn.functional.adaptive_avg_pool3d(to_tl(x), out),
                torch.nn.functional.adaptive_avg_pool3d(x, out), rtol=0, atol=0)


@pytest.mark.parametrize("n", [3, 24, 32, 263])
@pytest.mark.parametrize("alpha", [0.02, -0.37, 3, 1e-3, 0.9])
def test_bfloat16_add_sub_with_alpha_round_like_torch(n, alpha):
    """``x + alpha * y`` in bfloat16 (alpha rounded to the type): torch's vectorized loop rounds once, its
    scalar loop over the last ``numel % vector`` elements rounds ``alpha * y`` first (bfloat16 optimizer steps,
    ``p.add_(g, alpha=-lr)``, moved by an ulp); every surface, bit for bit."""
    from conftest import same_as_torch
    rng = np.random.default_rng(5)
    x, y = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)

    def fn(m, a, b):
        a, b = a.to(m.bfloat16), b.to(m.bfloat16)
        return (a.add(b, alpha=alpha), m.sub(a, b, alpha=alpha), a.clone().add_(b, alpha=m.tensor(alpha)),
                m._foreach_add([a], [b], alpha=alpha)[0], a.clone().sub_(b, alpha=alpha))
    same_as_torch(fn, x, y, grad=False, rtol=0, atol=0)
