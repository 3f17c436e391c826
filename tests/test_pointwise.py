"""Pointwise ops (clamp, lerp, addcmul/addcdiv, nan_to_num, logit, polygamma, mvlgamma, frexp, conj, and a
dtype sweep over the existing unary/binary ops) against torch."""
import warnings

import numpy as np
import pytest
import torch

import torchlike
from conftest import assert_same, raises_like_torch, same_as_torch, to_tl

R = np.random.default_rng(1)
F = R.standard_normal((3, 4)).astype(np.float32)
F64 = R.standard_normal((3, 4))
P = R.uniform(0.05, 0.95, (3, 4)).astype(np.float32)
POS = R.uniform(0.5, 4.0, (3, 4)).astype(np.float32)
I = R.integers(-5, 6, (3, 4))
I32 = I.astype(np.int32)
U8 = R.integers(0, 20, (3, 4)).astype(np.uint8)
B = R.integers(0, 2, (3, 4)).astype(bool)
C = (R.standard_normal((3, 4)) + 1j * R.standard_normal((3, 4))).astype(np.complex64)
SPECIAL = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 0.5], np.float32)
_R0 = np.random.default_rng(0)
A = _R0.standard_normal((3, 5)).astype(np.float32)


def _torch_raises(fn, inputs):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fn(torch, *[torch.tensor(a) if isinstance(a, np.ndarray) else a for a in inputs])
    except Exception:  # noqa: BLE001
        return True
    return False


def compare(fn, *inputs, rtol=1e-5, atol=1e-6):
    """``same_as_torch`` without gradients."""
    return same_as_torch(fn, *inputs, grad=False, rtol=rtol, atol=atol, quiet=True)


def compare_sweep(fn, *inputs, rtol=1e-5, atol=1e-6):
    """For the dtype sweeps, where which dtypes an op accepts is torch's to say: where torch raises, torchlike
    must raise the same exception type and message; elsewhere the results must match."""
    if _torch_raises(fn, inputs):
        raises_like_torch(fn, *inputs, quiet=True)
    else:
        compare(fn, *inputs, rtol=rtol, atol=atol)


CASES = [
    (lambda m, x: m.clamp(x, -0.5, 0.5), F),
    (lambda m, x: m.clamp(x, min=0.1), F),
    (lambda m, x: m.clamp(x, max=-0.1), F),
    (lambda m, x: m.clamp(x, 1, -1), F),
    (lambda m, x: m.clamp(x, -2, 3), I),
    (lambda m, x: m.clamp(x, -2.5, 3), I),
    (lambda m, x: m.clamp(x, 2), U8),
    (lambda m, x: m.clamp(x, 0, 1), SPECIAL),
    (lambda m, x, lo: m.clamp(x, lo, lo + 1), F, P),
    (lambda m, x, lo: m.clamp(x, max=lo), I, F),
    (lambda m, x, lo: m.clamp(x, min=lo), F, F64),
    (lambda m, x: m.clip(x, -1, 1), F),
    (lambda m, x: x.clamp_min(0.2), F),
    (lambda m, x: x.clamp_max(0), I32),
    (lambda m, x: m.clamp_min(x, 0.5), I),
    (lambda m, x, y: m.lerp(x, y, 0.3), F, P),
    (lambda m, x, y: m.lerp(x, y, 0.7), F, P),
    (lambda m, x, y, w: m.lerp(x, y, w), F, P, POS - 2),
    (lambda m, x, y: x.lerp(y, 2.0), F64, F64),
    (lambda m, x, y, z: m.addcmul(x, y, z), F, P, POS),
    (lambda m, x, y, z: m.addcmul(x, y, z, value=-0.5), F, P, F64),
    (lambda m, x, y, z: m.addcmul(x, y, z, value=3), I, I, I32),
    (lambda m, x, y, z: m.addcmul(x, y, z, value=0.5), I, I, I),
    (lambda m, x, y, z: m.addcdiv(x, y, z, value=2), F, P, POS),
    (lambda m, x, y, z: x.addcdiv(y, z), F, I, POS),
    (lambda m, x: m.nan_to_num(x), SPECIAL),
    (lambda m, x: m.nan_to_num(x, 1.0, 2.0, -3.0), SPECIAL),
    (lambda m, x: m.nan_to_num(x.double(), posinf=7.0), SPECIAL),
    (lambda m, x: m.nan_to_num(x.half()), SPECIAL),
    (lambda m, x: m.nan_to_num(x, None, None, None), SPECIAL),  # float? nan=None: 0, as the default
    (lambda m, x: x.nan_to_num(nan=None, posinf=5.0), SPECIAL),
    (lambda m, x: m.nan_to_num(x), I),
    (lambda m, x: m.nan_to_num(x), C),
    (lambda m, x: m.logit(x), P),
    (lambda m, x: m.logit(x, 0.2), P),
    (lambda m, x: m.logit(x), np.array([0.0, 1.0, 2.0], np.float32)),
    (lambda m, x: x.logit(1e-6), F64),
    (lambda m, x: m.logit(x), np.arange(3)),
    (lambda m, x: m.polygamma(0, x), POS),
    (lambda m, x: m.polygamma(1, x), POS),
    (lambda m, x: m.polygamma(3, x), F64 + 3),
    (lambda m, x: x.polygamma(2), POS),
    (lambda m, x: m.polygamma(1, x), np.arange(1, 5)),
    (lambda m, x: m.mvlgamma(x, 1), POS),
    (lambda m, x: m.mvlgamma(x, 3), POS + 1),
    (lambda m, x: x.mvlgamma(2), F64 + 5),
    (lambda m, x: m.mvlgamma(x, 3), POS),
    (lambda m, x: m.frexp(x), F),
    (lambda m, x: m.frexp(x), SPECIAL[3:]),
    (lambda m, x: x.frexp(), F64),
    (lambda m, x: m.conj(x), C),
    (lambda m, x: m.conj(x), F),
    (lambda m, x: x.conj().is_conj(), F),
    (lambda m, x: m.is_conj(x), F),
    (lambda m, x: m.resolve_conj(x), C),
    (lambda m, x: m.resolve_neg(x), F),
    (lambda m, x: m.conj_physical(x), C),
    (lambda m, x: m.is_nonzero(x), np.array([2.0])),
]
VALUE_ERRORS = [  # torch rejects these: the same exception type and message is expected
    (lambda m, x: m.clamp(x), F),
    (lambda m, x: m.clamp(x, None, None), F),
    (lambda m, x, lo: m.clamp(x, lo, 2.5), F, P),
    (lambda m, x, y: m.lerp(x, y, 0.5), F, F64),
    (lambda m, x, y: m.lerp(x, y, 0.5), I, I),
    (lambda m, x, y, z: m.addcdiv(x, y, z), F, I, I),
    (lambda m, x: m.frexp(x), I),
    (lambda m, x: m.is_nonzero(x), np.array([1, 2])),
]


@pytest.mark.parametrize("case", range(len(CASES)))
def test_values(case):
    fn, *inputs = CASES[case]
    compare(fn, *inputs, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("case", range(len(VALUE_ERRORS)))
def test_value_errors(case):
    fn, *inputs = VALUE_ERRORS[case]
    raises_like_torch(fn, *inputs, quiet=True)


def test_inplace_and_out():
    for name, args in [("clamp_", (-0.5, 0.5)), ("clip_", (None, 0.0)), ("clamp_min_", (0.0,)),
                       ("clamp_max_", (0.1,)), ("logit_", ()), ("nan_to_num_", ()), ("mvlgamma_", (2,)),
                       ("polygamma_", (1,))]:
        a, b = torch.tensor(POS), torchlike.tensor(POS)
        getattr(a, name)(*args)
        assert getattr(b, name)(*args) is b
        assert_same(b, a, rtol=1e-4, atol=1e-5)
    a, b = torch.tensor(I), torchlike.tensor(I)
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type long int"):
        b.clamp_(0.5)
    a, b = torch.tensor(F), torchlike.tensor(F)
    a.lerp_(torch.ones(3, 4), 0.25), b.lerp_(torchlike.ones(3, 4), 0.25)
    assert_same(b, a)
    a.addcmul_(a, a, value=2), b.addcmul_(b, b, value=2)
    assert_same(b, a)
    o1, o2 = torch.empty(0), torchlike.empty(0)
    torch.clamp(torch.tensor(F), 0, 1, out=o1), torchlike.clamp(torchlike.tensor(F), 0, 1, out=o2)
    assert_same(o2, o1)


def _grad(m, fn, arrays):
    xs = [m.tensor(a, requires_grad=True) for a in arrays]
    out = fn(m, *xs)
    (out * m.arange(out.numel(), dtype=out.dtype).reshape(out.shape)).sum().backward()
    return [x.grad for x in xs]


GRADS = [
    (lambda m, x: m.clamp(x, -0.5, 0.5), np.array([-1.0, -0.5, 0.0, 0.5, 1.0])),
    (lambda m, x, lo, hi: m.clamp(x, lo, hi), F64, F64 * 0.5 - 0.3, F64 * 0.5 + 0.3),
    (lambda m, x: m.clamp_min(x, 0.0), F64),
    (lambda m, x, y, w: m.lerp(x, y, w), F64, F64 + 1, F64 * 0.5),
    (lambda m, x, y, z: m.addcdiv(x, y, z, value=0.3), F64, F64, F64 + 4),
    (lambda m, x, y, z: m.addcmul(x, y, z, value=2), F64, F64, F64),
    (lambda m, x: m.logit(x, 0.1), np.array([0.05, 0.3, 0.95])),
    (lambda m, x: m.polygamma(1, x), F64 + 4),
    (lambda m, x: m.mvlgamma(x, 3), F64 + 4),
    (lambda m, x: m.nan_to_num(x), F64),
]


@pytest.mark.parametrize("case", range(len(GRADS)))
def test_grads(case):
    fn, *arrays = GRADS[case]
    for o, t in zip(_grad(torchlike, fn, arrays), _grad(torch, fn, arrays)):
        assert_same(o, t, rtol=1e-6, atol=1e-8)


# --- a dtype sweep over existing pointwise ops -----------------------------------------------------------
DT_INPUTS = {"f32": F, "f64": F64, "i64": I, "i32": I32, "u8": U8, "bool": B, "c64": C, "pos": POS}
UNARY = ["abs", "neg", "sign", "sgn", "square", "sqrt", "rsqrt", "exp", "exp2", "expm1", "log", "log2", "log10",
         "log1p", "sin", "cos", "tan", "tanh", "sigmoid", "asin", "atan", "sinh", "erf", "erfc", "erfinv", "lgamma",
         "digamma", "reciprocal", "sinc", "deg2rad", "rad2deg", "i0", "floor", "ceil", "trunc", "round", "frac",
         "bitwise_not", "logical_not", "isnan", "isinf", "isfinite", "isposinf", "isneginf", "isreal", "signbit",
         "angle", "positive", "conj_physical", "relu"]


@pytest.mark.parametrize("name", UNARY)
@pytest.mark.parametrize("dt", ["i64", "bool", "c64"])  # float32 paths are covered by the op tests
def test_unary_dtype_sweep(name, dt):
    a = DT_INPUTS[dt]
    if name in ("log", "log2", "log10", "sqrt", "rsqrt", "lgamma", "digamma") and dt == "f32":
        a = POS
    if name == "erfinv" and dt == "f32":
        a = P
    compare_sweep(lambda m, x: getattr(m, name)(x), a, rtol=1e-4, atol=1e-5)


BINARY = ["add", "sub", "mul", "div", "floor_divide", "remainder", "fmod", "pow", "atan2", "hypot", "maximum",
          "minimum", "fmax", "fmin", "eq", "lt", "ge", "logical_and", "logical_xor", "bitwise_and", "bitwise_or",
          "bitwise_xor", "bitwise_left_shift", "gcd", "copysign", "xlogy", "logaddexp", "float_power", "heaviside"]


@pytest.mark.parametrize("name", BINARY)
@pytest.mark.parametrize("pair", [("i64", "i32"), ("u8", "bool"), ("bool", "bool"), ("i64", "f32")])
def test_binary_dtype_sweep(name, pair):
    a, b = DT_INPUTS[pair[0]], DT_INPUTS[pair[1]]
    if name in ("div", "floor_divide", "remainder", "fmod") and pair[1] in ("i32", "bool"):
        b = np.where(b == 0, 3, b).astype(b.dtype) if b.dtype != bool else np.ones_like(b)
    if name == "pow" and pair == ("i64", "i32"):
        b = np.abs(b)
    if name == "bitwise_left_shift":
        b = np.abs(b) % 4 if b.dtype != bool else b
    compare_sweep(lambda m, x, y: getattr(m, name)(x, y), a, b, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name", ["add", "sub", "div", "pow", "remainder", "bitwise_and"])
@pytest.mark.parametrize("scalar", [2, 2.5, True])
@pytest.mark.parametrize("dt", ["f32", "i64", "u8", "bool"])
def test_scalar_promotion(name, scalar, dt):
    a = DT_INPUTS[dt]
    compare_sweep(lambda m, x: getattr(m, name)(x, scalar), a, rtol=1e-4, atol=1e-5)


# --- gradients of i0, frexp's mantissa, combinations ----------------------------------------------
def test_fixed_gradients():
    grads = []
    for m in (torch, torchlike):
        x = m.tensor([0.0, -1.7, 3.0], requires_grad=True)
        m.i0(x).sum().backward()
        y = m.tensor([8., 0.3, -5., 0.], requires_grad=True)
        (m.frexp(y).mantissa * m.tensor([1., 2., 3., 4.])).sum().backward()
        z = m.tensor([1., 2., 3.], requires_grad=True)
        (m.combinations(z, 2) * m.arange(6.).reshape(3, 2)).sum().backward()
        grads.append((x.grad, y.grad, z.grad))
    assert_same(grads[1], grads[0], 1e-6, 1e-6)


# --- isclose/allclose/equal/isin, complex/polar ---------------------------------------------------
def test_closeness_and_membership():
    a, b = torch.tensor([1.0, 2.0, float("nan")]), torch.tensor([1.0 + 1e-9, 2.1, float("nan")])
    for kw in ({}, {"equal_nan": True}, {"rtol": 0.1}):
        assert_same(torchlike.isclose(to_tl(a), to_tl(b), **kw), torch.isclose(a, b, **kw))
        assert torchlike.allclose(to_tl(a), to_tl(b), **kw) == torch.allclose(a, b, **kw)
    assert torchlike.equal(to_tl(a[:2]), to_tl(a[:2])) == torch.equal(a[:2], a[:2])
    e, t = torch.tensor([1, 2, 3, 4]), torch.tensor([2, 4])
    assert_same(torchlike.isin(to_tl(e), to_tl(t)), torch.isin(e, t))
    assert_same(torchlike.isin(to_tl(e), to_tl(t), invert=True), torch.isin(e, t, invert=True))


def test_complex_and_polar():
    re, im = torch.tensor(A[0]), torch.tensor(A[1])
    assert_same(torchlike.complex(to_tl(re), to_tl(im)), torch.complex(re, im))
    assert_same(torchlike.polar(to_tl(re.abs()), to_tl(im)), torch.polar(re.abs(), im))


# --- nextafter's gradient: to input, broadcast; other gets zero -----------------------------------
@pytest.mark.parametrize("xs,os", [((4,), (4,)), ((3, 1), (1, 4)), ((2, 3), ())])
def test_nextafter_gradient_matches_torch(xs, os):
    rng = np.random.default_rng(1)
    x, o = rng.standard_normal(xs), rng.standard_normal(os)

    def run(lib):
        a, b = lib.tensor(x, requires_grad=True), lib.tensor(o, requires_grad=True)
        y = lib.nextafter(a, b)
        y.backward(lib.ones_like(y) * 3)
        return y, a.grad, b.grad
    assert_same(run(torchlike), run(torch), rtol=0, atol=0)


@pytest.mark.parametrize("name", ["expm1", "sinh"])
def test_float32_expm1_sinh_are_correctly_rounded_like_torch(name):
    """XLA's float32 expm1/sinh are up to ~5 ulp off near 0 (torch's within 1 ulp): computed in float64 and
    rounded once they agree with torch's kernels on all but a few inputs of 20000 near 0."""
    x = np.random.default_rng(2).uniform(-0.3, 0.3, 20000).astype(np.float32)
    ours = getattr(torchlike, name)(torchlike.from_numpy(x)).numpy()
    theirs = getattr(torch, name)(torch.from_numpy(x)).numpy()
    assert ours.dtype == np.float32
    assert np.mean(ours != theirs) < 0.01
    assert np.max(np.abs(ours - theirs) / np.spacing(np.abs(theirs))) <= 1


@pytest.mark.parametrize("name", ["log2", "log10", "log1p"])
def test_float32_log2_log10_log1p_are_correctly_rounded_like_torch(name):
    """XLA's float32 log2/log10 (log times a constant, rounded twice) are up to 2.5 ulp off and equal to torch's
    on only ~65% of inputs, log1p up to 2.3 ulp (julius' mel scale printed 999.9856 where torch gives 999.9855):
    computed in float64 and rounded once they agree with torch's on all but a few inputs, within 1 ulp."""
    rng = np.random.default_rng(3)
    x = np.concatenate([rng.uniform(1e-3, 50, 10000), np.exp(rng.uniform(-60, 60, 10000)),
                        rng.uniform(-0.5, 0.5, 10000) if name == "log1p" else rng.uniform(0.5, 2, 10000)])
    x = x.astype(np.float32)
    ours = getattr(torchlike, name)(torchlike.from_numpy(x)).numpy()
    theirs = getattr(torch, name)(torch.from_numpy(x)).numpy()
    assert ours.dtype == np.float32
    assert np.mean(ours != theirs) < 0.01
    assert np.max(np.abs(ours - theirs) / np.spacing(np.abs(theirs))) <= 1


@pytest.mark.parametrize("name", ["log2", "log10", "log1p", "expm1", "sinh"])
def test_float32_backward_of_float64_rounded_ops_is_torchs_formula(name):
    """Their backward is torch's float32 formula (grad / (x * ln2), grad / (x * ln10), grad / (x + 1),
    grad * (result + 1), grad * cosh(x)), not the float64 derivative rounded once (1 ulp off on 12-29%)."""
    rng = np.random.default_rng(4)
    x = rng.uniform(0.01, 10 if name not in ("expm1", "sinh") else 3, 20000).astype(np.float32)
    g = rng.uniform(-2, 2, 20000).astype(np.float32)
    grads = []
    for lib in (torchlike, torch):
        t = lib.from_numpy(x.copy()).requires_grad_()
        getattr(lib, name)(t).backward(lib.from_numpy(g.copy()))
        grads.append(t.grad.numpy())
    ours, theirs = grads
    assert np.mean(ours != theirs) < 0.005, np.mean(ours != theirs)
    assert np.max(np.abs(ours - theirs) / np.spacing(np.abs(theirs))) <= 2


def _every_half_value(dt):
    bits = torch.arange(-32768, 32768, dtype=torch.int32).to(torch.int16).view(getattr(torch, dt))
    return bits[torch.isfinite(bits)]


@pytest.mark.parametrize("dt", ["float16", "bfloat16"])
@pytest.mark.parametrize("name", ["erf", "special.ndtr"])
def test_half_erf_is_torchs_half_kernel_on_every_value(name, dt):
    # torch's float16/bfloat16 erf runs its vectorized Abramowitz-Stegun kernel in float32 (tiny inputs give 0,
    # values near a half-type tie land where its 1 - t r exp(-x^2) puts them), not its float32 erf: XLA's erf
    # rounded once differed on 6,584 float16 and (subnormals aside) several bfloat16 values, and ndtr, whose
    # formula calls that erf, on 21 of the strict sweep's 943,593 float16 elements
    x = _every_half_value(dt)
    mod = lambda L: L.special if name.startswith("special.") else L  # noqa: E731
    fn = name.split(".")[-1]
    want = getattr(mod(torch), fn)(x)
    got = getattr(mod(torchlike), fn)(torchlike.tensor(x.float().numpy()).to(getattr(torchlike, dt)))
    assert str(got.dtype) == str(want.dtype)
    np.testing.assert_array_equal(np.asarray(got.float().numpy()), want.float().numpy())


# values of the half-type grid where torch's float32 kernel and float64-rounded-to-float32 still round apart
_HALF_F64_LEFT = {("lgamma", "float16"): 1, ("special.i0e", "bfloat16"): 9}


@pytest.mark.parametrize("dt", ["float16", "bfloat16"])
@pytest.mark.parametrize("name", ["lgamma", "cosh", "acos", "erfinv", "special.i0e"])
def test_half_unary_rounds_torchs_float32_value(name, dt):
    # torch computes these half-type ops in float32 and rounds; XLA's float32 kernels are a few ulp off, so
    # at half-type ties the once-rounded result went the other way (float16: lgamma 58 of 40,000 values, i0e
    # 6, erfinv 6, cosh 2, acos 1); computed in float64 and rounded to float32 first they agree
    x = _every_half_value(dt)
    x = x[(x.abs() <= 20) & ((x.abs() > 1e-30) | (x == 0))]  # (bfloat16 subnormals: XLA flushes them)
    mod = lambda L: L.special if name.startswith("special.") else L  # noqa: E731
    fn = name.split(".")[-1]
    want = getattr(mod(torch), fn)(x).float().numpy()
    got = np.asarray(getattr(mod(torchlike), fn)(torchlike.tensor(x.float().numpy()).to(getattr(torchlike, dt)))
                     .float().numpy())
    differ = (got != want) & ~(np.isnan(got) & np.isnan(want))
    assert differ.sum() <= _HALF_F64_LEFT.get((name, dt), 0), x.float().numpy()[differ][:5]


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_complex_angle_gradient_is_zero_at_zero(dtype):
    # torch's angle_backward is 0 where the input is 0 (atan2's derivative there, 0/0, made it NaN: a RotatE /
    # phase model with a zero entry got NaN gradients); elsewhere grad * z / |z|^2 * i
    z = np.array([0, 1 + 1j, -2, 3j, complex(0, -0.0), -1 - 0.5j], dtype=dtype)
    same_as_torch(lambda lib, t: t.angle(), z)
    same_as_torch(lambda lib, t: (t * t.angle()).abs(), z)
