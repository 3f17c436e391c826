"""torch.Size as a script touches it: construction from ints, bools, numpy ints and integer tensors (torch's
TypeError for anything else), repr, and the arithmetic that keeps it a torch.Size (``shape * 2``, ``(1,) + shape``)."""
import numpy as np
import pytest

import torchlike

torch = pytest.importorskip("torch", reason="torch is the oracle")


def _outcome(fn):
    try:
        r = fn()
    except Exception as e:  # noqa: BLE001 (the exception is the outcome compared)
        return type(e).__name__, str(e)
    return type(r).__name__, repr(r).replace("torchlike", "torch")


_ITEMS = {
    "ints": lambda m: [2, 3], "bool": lambda m: [True], "numpy_int": lambda m: [np.int64(3)],
    "tensor_0d": lambda m: [m.tensor(2)], "tensor_1elem": lambda m: [m.tensor([2])], "float_tensor": lambda m: [m.tensor(2.)],
    "float": lambda m: [2, 2.5], "str": lambda m: ["a"], "none": lambda m: [None], "int": lambda m: 5,
    "generator": lambda m: (i for i in [1, 2]), "empty": lambda m: [], "int_tensor": lambda m: m.tensor([2, 3]),
}


@pytest.mark.parametrize("name", sorted(_ITEMS))
def test_size_construction_matches_torch(name):
    assert _outcome(lambda: torchlike.Size(_ITEMS[name](torchlike))) == _outcome(lambda: torch.Size(_ITEMS[name](torch)))


_OPS = {
    "mul": lambda s: s * 2, "rmul": lambda s: 2 * s, "mul0": lambda s: s * 0, "mul_bool": lambda s: s * True,
    "mul_float": lambda s: s * 1.5, "radd_tuple": lambda s: (1,) + s, "add_size": lambda s: s + type(s)([1]),
    "reverse": lambda s: s[::-1], "index": lambda s: s[1], "count": lambda s: s.count(2), "eq": lambda s: s == (2, 3),
    "numel": lambda s: s.numel(),
}


@pytest.mark.parametrize("name", sorted(_OPS))
def test_size_arithmetic_matches_torch(name):
    assert _outcome(lambda: _OPS[name](torchlike.Size([2, 3]))) == _outcome(lambda: _OPS[name](torch.Size([2, 3])))


def test_shape_of_a_tensor_times_two_is_a_size():
    assert torchlike.zeros((1,) + torchlike.ones(2, 3).shape * 2).shape == torch.zeros((1,) + torch.ones(2, 3).shape * 2).shape
