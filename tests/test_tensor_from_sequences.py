"""``torch.tensor`` and its siblings read any Python sequence as torch's ``PySequence_Check`` does (``range``,
``deque``, ``array.array``, a class with ``__getitem__``/``__len__``), nested or not, and still reject strings
and bytes. (torchmetrics' PSNR-B builds ``torch.tensor(range(...))``: under the runner it raised TypeError.)"""
import array
import collections

import pytest
import torch
from conftest import raises_like_torch, same_as_torch

import torchlike


class _Seq:
    def __init__(self, *items):
        self.items = items

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return self.items[i]


SEQUENCES = {
    "range": lambda m: m.tensor(range(1, 10, 3)),
    "range_dtype": lambda m: m.tensor(range(4), dtype=m.float64),
    "nested_ranges": lambda m: m.tensor([range(2), range(3, 5)]),
    "empty_range": lambda m: m.tensor([range(0)]),
    "deque": lambda m: m.tensor(collections.deque([1.5, 2.0])),
    "array": lambda m: m.tensor(array.array("i", [3, 4, 5])),
    "mixed": lambda m: m.tensor([collections.deque([1, 2]), (3, 4), range(5, 7)]),
    "custom": lambda m: m.tensor(_Seq(_Seq(1, 2.5), _Seq(True, 4))),
    "as_tensor": lambda m: m.as_tensor(range(3), dtype=m.int32),
    "legacy": lambda m: m.LongTensor(range(3)),
    "new_tensor": lambda m: m.zeros(2).new_tensor(range(2)),
}


@pytest.mark.parametrize("name", sorted(SEQUENCES))
def test_python_sequences_become_tensors_like_torch(name):
    same_as_torch(SEQUENCES[name], grad=False)


ERRORS = {
    "str": lambda m: m.tensor([1, "a"]),
    "bytes": lambda m: m.tensor(b"ab"),
    "ragged_range": lambda m: m.tensor([range(2), range(3)]),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_unreadable_sequences_raise_like_torch(name):
    raises_like_torch(ERRORS[name])


@pytest.mark.parametrize("data,dtype", [([300], "int8"), ([2 ** 40], "int32"), ([float("nan")], "int64"),
                                        ([1.5e20], "int64"), ([-1], "uint8"), ([-255], "uint8"), ([-256], "uint8"),
                                        ([256], "uint8"), (300, "int8"), ([[1, 2 ** 31]], "int32"),
                                        ([True, 2], "bool"), ([3.7], "int32"), ([float("inf")], "int32"),
                                        ([70000.0], "int16"), ([1e40], "float32"), ([2 ** 63], "int64")])
def test_python_numbers_out_of_an_integer_dtypes_range(data, dtype):
    """torch refuses a Python number its integer dtype cannot hold (an unsigned one takes negatives down to -max,
    wrapping them); a float dtype takes any number (1e40 is inf in float32)."""
    outcomes = []
    for m in (torch, torchlike):
        try:
            outcomes.append(m.tensor(data, dtype=getattr(m, dtype)).tolist())
        except Exception as e:  # (type and message compared)
            outcomes.append((type(e).__name__, str(e)))
    assert outcomes[1] == outcomes[0]


@pytest.mark.parametrize("call", [
    lambda L: L.tensor([L.tensor([1.]), L.tensor([2.])]),
    lambda L: L.Tensor([L.tensor([[1.]]), L.tensor([[2.]])]),
    lambda L: L.FloatTensor([[L.tensor([1.])], [L.tensor([2.])]]),
    lambda L: L.LongTensor([L.tensor([1]), 2]),
    lambda L: L.tensor([L.tensor([1], dtype=L.int32), L.tensor([2], dtype=L.int32)]),
    lambda L: L.tensor([L.tensor([1], dtype=L.int32), 2.5]),
    lambda L: L.as_tensor([L.tensor([1.], dtype=L.float64), 1]),
    lambda L: L.ones(1).new([L.tensor([1.]), L.tensor([2.])]),
], ids=["tensor", "Tensor_1x1", "FloatTensor_nested", "LongTensor_mixed", "int32", "int32_and_float", "as_tensor",
        "new"])
def test_one_element_tensors_in_a_sequence_are_numbers_like_torch(call):
    """A one-element tensor of any number of dimensions inside data is read as its number (a 0-dim one already
    was; torchlike raised "only one element tensors can be converted to Python scalars" for ``[t([1.]), ...]``)."""
    same_as_torch(call, grad=False)


@pytest.mark.parametrize("call", [
    lambda L: L.tensor([L.tensor([1., 2.])]),
    lambda L: L.Tensor([L.tensor([])]),
], ids=["two_elements", "empty"])
def test_other_tensors_in_a_sequence_raise_like_torch(call):
    raises_like_torch(call)



# torch reads a tensor that stands where a sequence belongs as the sequence of its rows, and one in the numbers'
# place as a number (an error if it has more than one element, worded by the dtype's conversion)
ROWS_OF_TENSORS = {
    "a row list then a row tensor": lambda L: L.tensor([[1], L.tensor([2])]),
    "2x2 of a list and a tensor": lambda L: L.tensor([[1, 2], L.tensor([3, 4])]),
    "3-d of a list and a tensor": lambda L: L.tensor([[[1, 2]], L.tensor([[3, 4]])]),
    "float rows and an int32 row tensor": lambda L: L.tensor([[1., 2], L.tensor([3, 4], dtype=L.int32)]),
    "nested numbers and 0-d tensors": lambda L: L.tensor([[L.tensor(1), 2], [3, L.tensor(4.)]]),
}
ROW_ERRORS = {
    "a row tensor of another length": lambda L: L.tensor([[1, 2], L.tensor([3, 4, 5])]),
    "a list after a tensor number": lambda L: L.tensor([L.tensor([1]), [2]]),
    "a float list after a tensor number": lambda L: L.tensor([L.tensor([1]), [2.]]),
    "an int tensor of two in a number's place": lambda L: L.tensor([L.tensor([1, 2]), 3]),
    "an int tensor of two before a list": lambda L: L.tensor([L.tensor([1, 2]), [3, 4]]),
    "a float tensor of two in a number's place": lambda L: L.tensor([L.tensor([1., 2]), 3]),
    "a bool tensor of two in a number's place": lambda L: L.tensor([L.tensor([True, False]), True]),
    "an int tensor of two in a nested number's place": lambda L: L.tensor([[1], [L.tensor([1, 2])]]),
}


@pytest.mark.parametrize("name", sorted(ROWS_OF_TENSORS))
def test_tensors_in_a_rows_place_are_read_as_rows_like_torch(name):
    same_as_torch(ROWS_OF_TENSORS[name], grad=False)


@pytest.mark.parametrize("name", sorted(ROW_ERRORS))
def test_tensors_and_lists_in_the_wrong_place_raise_like_torch(name):
    raises_like_torch(ROW_ERRORS[name])
