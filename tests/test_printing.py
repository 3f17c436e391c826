"""repr(tensor) equals torch's for common shapes, dtypes and flags."""
import warnings

import numpy as np
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


# Found by running scripts that print: summarized rows ("2.0000e+00,  ..., "), a negative zero or -inf past the
# width of the nonzero finite values, complex parts with a negative zero, wrapped complex rows.
EDGE_CASES = [
    lambda L: L.arange(2000.0).reshape(40, 50),
    lambda L: L.tensor([0.0, -0.0]),
    lambda L: L.tensor([1.0, -float("inf")]),
    lambda L: L.tensor([float("nan"), 2.0]),
    lambda L: L.tensor([0.0, float("nan")]),
    lambda L: L.tensor([1.0 + 2j, -0.5j]),
    lambda L: L.tensor([-0.0 - 0.0j, 3.0 + 0.25j]),
    lambda L: L.arange(1500).reshape(3, 500),
    lambda L: L.arange(3000.0).reshape(3, 10, 100) / 3,
    lambda L: (L.arange(40.0) - 20).reshape(4, 10) * (1.0 + 1.0j),
    lambda L: L.tensor([-float("inf"), float("inf")]),
    lambda L: L.tensor([1e-9, -0.0, 1e9]),
    lambda L: L.tensor([[True, False] * 600]),
    lambda L: L.tensor(-0.0),
    lambda L: L.tensor(float("nan")),
]


def test_repr_of_extreme_float64_range_is_silent():
    """1e300 / 1e-300 overflows to inf when choosing scientific mode: torch prints it without a warning."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert repr(torchlike.tensor([1e-300, 1e300], dtype=torchlike.float64)) == repr(
            torch.tensor([1e-300, 1e300], dtype=torch.float64))


@pytest.mark.parametrize("i", range(len(EDGE_CASES)))
def test_repr_edge_cases_match_torch(i):
    assert repr(EDGE_CASES[i](torchlike)) == repr(EDGE_CASES[i](torch))


@pytest.mark.parametrize("opts", [dict(precision=2), dict(sci_mode=True), dict(sci_mode=False), dict(edgeitems=1, threshold=5),
                                  dict(edgeitems=0, threshold=5), dict(linewidth=40), dict(profile="short")])
def test_repr_random_values_under_printoptions_match_torch(opts):
    """Random magnitudes (1e-6 .. 1e9), signs, zeros, nan/inf and shapes, each printed by both."""
    rng = np.random.default_rng(0)
    compared = 0
    try:
        torch.set_printoptions(**opts)
        torchlike.set_printoptions(**opts)
        for _ in range(60):
            shape = tuple(int(n) for n in rng.integers(1, 9, size=rng.integers(0, 4)))
            v = rng.standard_normal(shape) * 10.0 ** rng.integers(-6, 10)
            if v.ndim and rng.random() < 0.5:
                flat = v.reshape(-1)
                flat[rng.integers(0, flat.size, size=2)] = rng.choice([0.0, -0.0, np.nan, np.inf, -np.inf, 3.0], size=2)
            if rng.random() < 0.3:
                v = np.round(v)
            for dt in ("float32", "float64"):
                a = v.astype(dt)
                assert repr(torchlike.tensor(a)) == repr(torch.tensor(a)), (a, opts)
                compared += 1
    finally:
        torch.set_printoptions(profile="default", sci_mode=None)
        torchlike.set_printoptions(profile="default", sci_mode=None)
    assert compared == 120


@pytest.mark.parametrize("dt", ["float16", "bfloat16", "complex64", "int64", "int16"])
def test_repr_random_values_other_dtypes_match_torch(dt):
    rng = np.random.default_rng(1)
    compared = 0
    for _ in range(40):
        shape = tuple(int(n) for n in rng.integers(1, 7, size=rng.integers(0, 4)))
        v = rng.standard_normal(shape) * 10.0 ** rng.integers(-3, 4)
        if dt.startswith("int"):
            make = lambda L: L.tensor(np.round(v).astype(dt))  # noqa: E731
        elif dt == "complex64":
            w = (v + 1j * rng.standard_normal(shape) * 10.0 ** rng.integers(-3, 4)).astype(dt)
            make = lambda L: L.tensor(w)  # noqa: E731
        else:
            make = lambda L: L.tensor(v.astype(np.float32)).to(getattr(L, dt))  # noqa: E731
        assert repr(make(torchlike)) == repr(make(torch))
        compared += 1
    assert compared == 40
