"""Shared helpers for test_reduction*.py / test_sorting.py: run the same code on torch and torchlike."""
import numpy as np
from conftest import same_as_torch

NAN = float("nan")


def arr(shape, dtype="float32", seed=0, lo=-3, hi=4, ties=False):
    rng = np.random.default_rng(seed)
    if dtype == "bool":
        return rng.integers(0, 2, shape).astype(bool)
    if np.dtype(dtype).kind in "iu" or ties:
        return rng.integers(lo if np.dtype(dtype).kind != "u" else 0, hi, shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def both(f, *arrays, grad=False, rtol=1e-5, atol=1e-6, seed=1):
    """``same_as_torch`` with this file's defaults (no gradients unless asked). Error paths use
    ``raises_like_torch``."""
    return same_as_torch(f, *arrays, grad=grad, rtol=rtol, atol=atol, seed=seed)
