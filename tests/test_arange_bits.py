"""torch.arange (and the deprecated torch.range) of a floating dtype equals torch's bit for bit. torch's CPU
arange kernel computes ``start + step * i`` in the accumulation type with a fused multiply-add, in vectors of
ATen's lane count (each vector's first value rounded to the dtype, then ``+ k * step`` per lane) and the tail one
by one, so d2l.ai's ``torch.arange(-8.0, 8.0, 0.1)`` holds -0.10000000894 and 4.4e-16 where float32(-0.1) and 0.0
would be (and a ReLU's gradient there is 1, not 0)."""
import numpy as np
import pytest

CASES = [(-8.0, 8.0, 0.1), (0, 5, 0.1), (0.0, 1.0, 0.001), (-3.3, 7.1, 0.37), (1, 2, 1 / 3), (-5, 5, 0.01),
         (0, 100000, 0.7), (2.5, -3.0, -0.13), (0, 1, 0.5)]


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
