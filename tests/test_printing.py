"""repr(tensor) equals torch's for common shapes, dtypes and flags."""
import pytest
import torch

import torchlike

CASES = [
    lambda L: L.tensor([1.0, 2.0]),
    lambda L: L.tensor([1.5, -2.25, 3.0]),
    lambda L: L.tensor([[1, 2], [3, 4]]),
    lambda L: L.tensor([True, False]),
    lambda L: L.tensor([1e-5, 1.0]),
    lambda L: L.tensor([1e10, 1.0]),
    lambda L: L.tensor(3.5),
    lambda L: L.tensor(7),
    lambda L: L.tensor([1.0, 2.0], dtype=L.float64),
    lambda L: L.tensor([1, 2], dtype=L.int32),
    lambda L: L.tensor([1.0, 2.0], dtype=L.float16),
    lambda L: L.zeros(0),
    lambda L: L.zeros(2, 0),
    lambda L: L.tensor([float("nan"), float("inf"), -1.0]),
    lambda L: L.tensor([1 + 2j, 3.5 - 1j]),
    lambda L: L.tensor([1 + 10j, 1 + 1j]),
    lambda L: L.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True),
    lambda L: L.tensor([1.0, 2.0], requires_grad=True) * 2,
    lambda L: L.arange(12.0).reshape(3, 4) / 7,
]


@pytest.mark.parametrize("i", range(len(CASES)))
def test_repr_matches_torch(i):
    assert repr(CASES[i](torchlike)) == repr(CASES[i](torch))
