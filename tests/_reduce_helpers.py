"""Shared helpers for test_reduction*.py / test_sorting.py: run the same code on torch and torchlike."""
import numpy as np
import torch

import torchlike
from conftest import assert_same

NAN = float("nan")


def arr(shape, dtype="float32", seed=0, lo=-3, hi=4, ties=False):
    rng = np.random.default_rng(seed)
    if dtype == "bool":
        return rng.integers(0, 2, shape).astype(bool)
    if np.dtype(dtype).kind in "iu" or ties:
        return rng.integers(lo if np.dtype(dtype).kind != "u" else 0, hi, shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def _lib_tensor(lib, a, rg):
    if isinstance(a, np.ndarray):
        t = lib.tensor(a)
        return t.requires_grad_(True) if rg and a.dtype.kind in "fc" else t
    return a


def compare(ours, theirs, rtol=1e-5, atol=1e-6, check_type=True):
    if isinstance(theirs, torch.Tensor):
        assert isinstance(ours, torchlike.Tensor), type(ours)
        assert_same(ours, theirs, rtol=rtol, atol=atol)
    elif isinstance(theirs, (tuple, list)):
        assert isinstance(ours, (tuple, list)), type(ours)
        if check_type:
            assert type(ours).__name__ == type(theirs).__name__, (type(ours), type(theirs))
            for name in getattr(ours, "_fields", ()):  # torch's structseqs have the same attributes
                compare(getattr(ours, name), getattr(theirs, name), rtol, atol, check_type)
        assert len(ours) == len(theirs)
        for o, t in zip(ours, theirs):
            compare(o, t, rtol, atol, check_type)
    else:
        assert ours == theirs or (ours != ours and theirs != theirs), (ours, theirs)


def both(f, *arrays, grad=False, rtol=1e-5, atol=1e-6, match=True, seed=1):
    """Run ``f(lib, *tensors)`` on torch and torchlike; compare results (or the raised error type and
    message); with ``grad`` also compare input gradients for a random upstream gradient on every
    floating output."""
    tt = [_lib_tensor(torch, a, grad) for a in arrays]
    lt = [_lib_tensor(torchlike, a, grad) for a in arrays]
    err_t = err_l = None
    try:
        rt = f(torch, *tt)
    except Exception as e:  # noqa: BLE001
        err_t = e
    try:
        rl = f(torchlike, *lt)
    except Exception as e:  # noqa: BLE001
        err_l = e
    if err_t is not None or err_l is not None:
        assert err_t is not None and err_l is not None, (err_t, err_l)
        assert type(err_l) is type(err_t), (err_l, err_t)
        if match:
            assert str(err_t).strip().split("\n")[0] == str(err_l).strip().split("\n")[0], (str(err_l), str(err_t))
        return None
    compare(rl, rt, rtol, atol)
    if grad:
        outs_t = [r for r in (rt if isinstance(rt, tuple) else (rt,)) if r.dtype.is_floating_point and r.requires_grad]
        outs_l = [r for r in (rl if isinstance(rl, tuple) else (rl,)) if r.dtype.is_floating_point and r.requires_grad]
        assert len(outs_t) == len(outs_l)
        if outs_t:
            rng = np.random.default_rng(seed)
            gs = [rng.standard_normal(tuple(o.shape)).astype(np.float64) for o in outs_t]
            torch.autograd.backward(outs_t, [torch.tensor(g, dtype=o.dtype) for o, g in zip(outs_t, gs)])
            torchlike.autograd.backward(outs_l, [torchlike.tensor(g, dtype=o.dtype) for o, g in zip(outs_l, gs)])
            for a, b in zip(tt, lt):
                if isinstance(a, torch.Tensor) and a.requires_grad:
                    if a.grad is None:
                        assert b.grad is None or not np.any(np.asarray(b.grad._value))
                    else:
                        assert b.grad is not None
                        assert_same(b.grad, a.grad, rtol=max(rtol, 1e-4), atol=max(atol, 1e-5))
    return rl
