"""Floating point to integer casts as torch's x86 kernels make them (out-of-range and NaN values become the
integer "indefinite" value, the narrow types wrap; XLA saturates), and c10's checked conversion of a Python
number written into a tensor (full, fill_, masked_fill, index_fill, clamp, where, setitem, tensor): torch's
values, or torch's exception type and message."""
import math

import numpy as np
import pytest
import torch

import torchlike

VALUES = [-1.5, 255.9, 256.0, -129.0, 3e9, -3e9, 4294967553.0, 5e9 + 7 * 256 + 3, 1e19, -1e19, 2.0 ** 63,
          2.0 ** 64 + 4096 * 3, math.nan, math.inf, -math.inf, 65537.0, -32769.0, 70000.5, -300.7, 0.99, -0.99]
INTS = ["uint8", "int8", "int16", "int32", "int64", "bool"]


@pytest.mark.parametrize("target", INTS)
@pytest.mark.parametrize("source", ["float32", "float64", "float16", "bfloat16", "complex64"])
def test_tensor_cast_to_integer_matches_torch(source, target):
    got = []
    for m in (torch, torchlike):
        t = m.tensor(VALUES, dtype=m.float64).to(getattr(m, source))
        got.append(t.to(getattr(m, target)).tolist())
    assert got[1] == got[0]


@pytest.mark.parametrize("target", INTS)
@pytest.mark.parametrize("source", ["float32", "float64", "float16"])
def test_tensor_constructor_from_numpy_casts_as_torch(source, target):
    with np.errstate(over="ignore"):
        a = np.array(VALUES).astype(source)
    with np.errstate(invalid="ignore"):
        want = torch.tensor(a, dtype=getattr(torch, target)).tolist()
    assert torchlike.tensor(a, dtype=getattr(torchlike, target)).tolist() == want


def test_casts_inside_ops_follow_the_same_rule():
    got = []
    for m in (torch, torchlike):
        x = m.tensor([-1.5, 300.7, math.nan, 1e10])
        u = m.zeros(4, dtype=m.uint8)
        u.copy_(x)
        i = m.zeros(4, dtype=m.int32)
        i[:] = x
        got.append((u.tolist(), i.tolist(), x.byte().tolist(), x.long().tolist(), x.short().tolist()))
    assert got[1] == got[0]


def _outcome(f):
    try:
        r = f()
    except Exception as e:  # noqa: BLE001 - the exception is the outcome compared
        return type(e).__name__, str(e)
    return r.tolist() if hasattr(r, "tolist") else r


def _setitem(m, d, v):
    t = m.zeros(2, dtype=d)
    t[0] = v
    return t


WRITES = {
    "full": lambda m, d, v: m.full((2,), v, dtype=d),
    "full_like": lambda m, d, v: m.full_like(m.zeros(2, dtype=d), v),
    "new_full": lambda m, d, v: m.zeros(2, dtype=d).new_full((1,), v),
    "fill_": lambda m, d, v: m.zeros(2, dtype=d).fill_(v),
    "masked_fill": lambda m, d, v: m.zeros(2, dtype=d).masked_fill(m.tensor([True, False]), v),
    "index_fill": lambda m, d, v: m.zeros(2, dtype=d).index_fill(0, m.tensor([0]), v),
    "clamp_min": lambda m, d, v: m.zeros(2, dtype=d).clamp(min=v),
    "where": lambda m, d, v: m.where(m.tensor([True, False]), m.zeros(2, dtype=d), v),
    "setitem": _setitem,
    "tensor": lambda m, d, v: m.tensor([v], dtype=d),
}
NUMBERS = [-1, -255, -256, 255, 256, 127, 128, -0.5, -1.5, 255.5, 127.9, 2.0 ** 63, 2 ** 63, math.nan, math.inf,
           2 ** 64 - 1, True]


@pytest.mark.parametrize("dtype", ["uint8", "int8", "int32", "int64"])
@pytest.mark.parametrize("write", sorted(WRITES))
def test_python_numbers_written_into_integer_tensors_match_torch(write, dtype):
    for v in NUMBERS:
        want = _outcome(lambda: WRITES[write](torch, getattr(torch, dtype), v))
        got = _outcome(lambda: WRITES[write](torchlike, getattr(torchlike, dtype), v))
        if isinstance(want, tuple) and want[0] != "RuntimeError":  # (an argument-type error: another check)
            continue
        assert repr(got) == repr(want), (v, got, want)  # (repr: NaN equals NaN)


def test_fill_with_a_tensor_value_casts_without_the_check():
    want = torch.zeros(2, dtype=torch.uint8).fill_(torch.tensor(-1.5)).tolist()
    assert torchlike.zeros(2, dtype=torchlike.uint8).fill_(torchlike.tensor(-1.5)).tolist() == want == [255, 255]


@pytest.mark.parametrize("value", [2 + 3j, 2 - 0j, 2.7 + 0j, complex(math.nan, 0), complex(math.inf, 0), 1e30 + 0j,
                                   complex(0, 1)])
@pytest.mark.parametrize("convert", ["float", "int", "%d", "%.1f", "math.floor"])
def test_python_number_of_complex_tensor_matches_torch(value, convert):
    """float(t) / int(t) of a complex tensor: c10's checked conversion (its real part where the imaginary part
    is 0; else torch's RuntimeError, also for a NaN/inf/huge real part to int)."""
    fn = {"float": float, "int": int, "%d": lambda t: "%d" % t, "%.1f": lambda t: "%.1f" % t,
          "math.floor": math.floor}[convert]

    def outcome(lib):
        try:
            return fn(lib.tensor(value))
        except Exception as e:  # noqa: BLE001 (the exception is the outcome compared)
            return type(e).__name__, str(e)
    assert repr(outcome(torchlike)) == repr(outcome(torch))
