"""torch.linspace in float32 and float64 equals torch's bit for bit (its CPU kernel's fused multiply-adds
from both ends); half precision and integer dtypes keep their own checks elsewhere."""
import numpy as np
import pytest

CASES = [(-3, 3, 64), (0, 1, 100), (0.1, 7.3, 33), (-5, 17.25, 1000), (1e-3, 2.5, 7), (0, 10, 11), (3, -2, 50),
         (-1e5, 3.3, 12345), (2.5, 2.5, 4), (0, 1, 2), (-1, 1, 3)]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", CASES, ids=[f"{a}_{b}_{n}" for a, b, n in CASES])
def test_linspace_is_torchs_bit_for_bit(case, dtype):
    import torch

    import torchlike
    theirs = torch.linspace(*case, dtype=getattr(torch, dtype)).numpy()
    ours = torchlike.linspace(*case, dtype=getattr(torchlike, dtype)).numpy()
    assert ours.dtype == theirs.dtype
    np.testing.assert_array_equal(ours, theirs)


def test_default_dtype_and_logspace_follow():
    import torch

    import torchlike
    np.testing.assert_array_equal(torchlike.linspace(-3, 3, 64).numpy(), torch.linspace(-3, 3, 64).numpy())
    np.testing.assert_allclose(torchlike.logspace(-2, 2, 33).numpy(), torch.logspace(-2, 2, 33).numpy(),
                               rtol=2e-7)
