"""torch.arange (and the deprecated torch.range) of a floating dtype equals torch's bit for bit. torch's CPU
arange kernel computes ``start + step * i`` in the accumulation type with a fused multiply-add, in vectors of
ATen's lane count (each vector's first value rounded to the dtype, then ``+ k * step`` per lane) and the tail one
by one, so d2l.ai's ``torch.arange(-8.0, 8.0, 0.1)`` holds -0.10000000894 and 4.4e-16 where float32(-0.1) and 0.0
would be (and a ReLU's gradient there is 1, not 0). The kernel has no AVX512 build: AVX-512 CPUs run its AVX2
one, 32-byte vectors (the last two CASES tell 4 float64 lanes from 8, and bfloat16's unfused lanes). logspace
too, value for value (its exponents in double, C's pow, the conversions to each dtype)."""
import math

import numpy as np
import pytest

CASES = [(-8.0, 8.0, 0.1), (0, 5, 0.1), (0.0, 1.0, 0.001), (-3.3, 7.1, 0.37), (1, 2, 1 / 3), (-5, 5, 0.01),
         (0, 100000, 0.7), (2.5, -3.0, -0.13), (0, 1, 0.5), (-37.19, 81.3, 0.0431), (-3.0, 50.4, 0.2)]


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
@pytest.mark.parametrize("case", CASES, ids=[f"{a}_{b}_{s:.3g}" for a, b, s in CASES])
def test_arange_is_torchs_bit_for_bit(case, dtype, threads):
    """More than 32768 values are split among the intra-op threads, each chunk vectorized from its own start:
    both libraries run with the same thread count."""
    import torch

    import torchlike
    before = torch.get_num_threads(), torchlike.get_num_threads()
    try:
        torch.set_num_threads(threads)
        torchlike.set_num_threads(threads)
        theirs = torch.arange(*case, dtype=getattr(torch, dtype)).float().numpy()
        with np.errstate(over="ignore"):
            ours = torchlike.arange(*case, dtype=getattr(torchlike, dtype)).float().numpy()
    finally:
        torch.set_num_threads(before[0])
        torchlike.set_num_threads(before[1])
    np.testing.assert_array_equal(ours, theirs)


def test_default_dtype_and_relu_gradient_at_the_d2l_grid():
    import torch

    import torchlike
    got = []
    for mod in (torch, torchlike):
        x = mod.arange(-8.0, 8.0, 0.1, requires_grad=True)
        mod.relu(x).backward(mod.ones_like(x))
        got.append((x.dtype, x[78:82].tolist(), x.grad[78:82].tolist()))
    assert str(got[1][0]) == str(got[0][0])
    assert got[1][1:] == got[0][1:]
    from torchlike._cpu_features import aten_fma
    if aten_fma():  # (x86's DEFAULT build of torch, unfused, gives -0.1 and 0.0 there)
        assert got[0][2] == [0.0, 0.0, 1.0, 1.0]


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
@pytest.mark.parametrize("case", [(-8.0, 8.0, 0.1), (0, 1, 0.001), (-3.3, 7.1, 0.37), (-5, 5, 0.01)])
def test_deprecated_range_length_and_values_in_the_accumulation_type(case, dtype):
    """torch.range computes its length and values in float for float16/bfloat16: ``range(0, 1, 0.001)`` has
    1000 values there (1001 in float32/float64)."""
    import warnings

    import torch

    import torchlike
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = torch.range(*case, dtype=getattr(torch, dtype)).float().numpy()
        ours = torchlike.range(*case, dtype=getattr(torchlike, dtype)).float().numpy()
    np.testing.assert_array_equal(ours, theirs)


LOGSPACE = [(-2.4, -0.93, 268), (1.81, 2.26, 30994), (-1.02, 2.81, 139), (5.49, -4.21, 73), (0.5, 3.7, 7),
            (-300, 300, 7), (2, 3, 1), (300, 3, 1), (0, 30, 2), (-3, 3, 4), (0, 3, 0), (float("inf"), 3, 4)]


@pytest.mark.parametrize("base", [10.0, 2.0, math.e, -2.0])
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16", "int64", "int32", "uint8", "int8",
                                   "bool"])
@pytest.mark.parametrize("case", LOGSPACE, ids=[f"{a}_{b}_{n}" for a, b, n in LOGSPACE])
def test_logspace_is_torchs_value_for_value(case, dtype, base):
    """torch's logspace: exponents ``start + step * i`` / ``end - step * (steps - 1 - i)`` in double from the
    bounds in the dtype, C's correctly rounded pow (not NumPy's SIMD power, 1 ulp off in float64 at times),
    truncated through int32 for the narrow integer types; its overflow errors where a bound (or the one
    value) does not fit the dtype."""
    import torch

    import torchlike

    def run(mod):
        try:
            r = mod.logspace(*case, base=base, dtype=getattr(mod, dtype))
        except Exception as e:  # noqa: BLE001 (the error itself is compared)
            return type(e).__name__, str(e)
        return str(r.dtype), r.double().numpy().tobytes()
    with np.errstate(all="ignore"):
        assert run(torchlike) == run(torch)


_DEFAULT_BUILD_CHECK = """
import numpy as np, torch, torchlike
assert torch.backends.cpu.get_cpu_capability() == "DEFAULT"
bad = []
for dt in ("float32", "float64", "float16", "bfloat16", "int64", "int16"):
    for a, b, n in [(-8.0, 8.0, 0.1), (-3.3, 7.1, 0.37), (0, 100000, 0.7), (-37.19, 81.3, 0.0431)]:
        for fn, args in (("arange", (a, b, n)), ("linspace", (a, b, int(abs(b - a) / n)))):
            if (fn == "arange" and dt.startswith("int")) or (fn == "linspace" and b > 60000):
                continue
            x, y = (getattr(m, fn)(*args, dtype=getattr(m, dt)).double().numpy() for m in (torch, torchlike))
            if not np.array_equal(x, y):
                bad.append((fn, args, dt))
print(bad)
"""


def test_default_build_rounds_each_product_and_sum():
    """torch's DEFAULT CPU build (x86 without AVX2/FMA, or ATEN_CPU_CAPABILITY=default) has no fused
    multiply-adds: arange and linspace round each product and sum there, and torchlike follows
    (_cpu_features.aten_fma); run in a child process, as torch reads the variable once."""
    import os
    import platform
    import subprocess
    import sys
    if platform.machine().lower() not in ("x86_64", "amd64"):
        pytest.skip("torch's DEFAULT build fuses on other architectures")
    env = dict(os.environ, ATEN_CPU_CAPABILITY="default")
    r = subprocess.run([sys.executable, "-c", _DEFAULT_BUILD_CHECK], env=env, capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.strip() == "[]"


@pytest.mark.parametrize("dtype", ["complex64", "complex128", "bool"])
@pytest.mark.parametrize("fn,args", [("arange", (0, 3, 0.5)), ("arange", (3,)), ("range", (0, 3, 0.5))])
def test_arange_and_range_refuse_complex_and_bool(fn, args, dtype):
    """torch's arange/range kernels take no complex or Bool dtype: NotImplementedError naming it."""
    import warnings

    import torch

    import torchlike
    got = []
    for mod in (torch, torchlike):
        with warnings.catch_warnings(), pytest.raises(NotImplementedError) as e:
            warnings.simplefilter("ignore")
            getattr(mod, fn)(*args, dtype=getattr(mod, dtype))
        got.append(str(e.value))
    assert got[1] == got[0]


COMPLEX_LOGSPACE = [(1 + 2j, 3, 5), (-2.5, 1.5 - 0.75j, 100), (0.5j, -3j, 37), (2, 2 + 1j, 2), (-4 - 1j, 4 + 1j, 300)]


@pytest.mark.parametrize("base", [10.0, math.e, 0.5, 0.0])
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("case", COMPLEX_LOGSPACE, ids=[f"{a}_{b}_{n}" for a, b, n in COMPLEX_LOGSPACE])
def test_complex_logspace_is_torchs_bit_for_bit(case, dtype, base):
    """torch's complex logspace: exponents in the parts' dtype (the step multiplied by 1 / (steps - 1), as
    c10's complex division does), then exp(z * log(base)) with the C library's float functions for complex64."""
    import torch

    import torchlike
    theirs = torch.logspace(*case, base=base, dtype=getattr(torch, dtype)).numpy()
    ours = torchlike.logspace(*case, base=base, dtype=getattr(torchlike, dtype)).numpy()
    assert ours.dtype == theirs.dtype
    np.testing.assert_array_equal(ours, theirs)


RANGE_EDGES = [(14.0, 35.33333333333333, 1 / 3), (0, -1, 1), (0, 0, 1), (1, 0, -0.5), (0, 5.5, 1.5), (-3.7, 4.2, 2),
               (5, -5, -3), (0, float("inf"), 1), (float("nan"), 3, 1), (0, 3, 0), (0, 3, float("nan")), (10, 3, -2.5),
               (0, 1e39, 1e38)]


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64", "int64", "int32", "uint8"])
@pytest.mark.parametrize("case", RANGE_EDGES, ids=[f"{a}_{b}_{s}" for a, b, s in RANGE_EDGES])
def test_deprecated_range_length_checks_and_integers(case, dtype):
    """torch.range's length is ``int((end - start) / step + 1)`` in the accumulation type (the + 1 rounded
    there: range(14, 35.333, 1/3, dtype=float16) has 65 values), its bounds are converted to that type first
    (int64 for the integer dtypes: truncated, C's integer division; an overflow error for inf/NaN) and checked
    as arange's are."""
    import warnings

    import torch

    import torchlike
    if not case[2] != case[2] and case[2] and dtype.startswith(("int", "uint")) and int(case[2]) == 0:
        pytest.skip("torch divides by an integer step of 0 here (the process dies of SIGFPE)")

    def run(mod):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                return mod.range(*case, dtype=getattr(mod, dtype)).tolist()
            except RuntimeError as e:
                return str(e)
    assert run(torchlike) == run(torch)
