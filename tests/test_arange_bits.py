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
