"""Argument errors name the op the user called, as torch's parser does: an alias (``subtract``, ``greater``,
``true_divide``), whose body is its op's; an op whose body calls others (``allclose`` calls ``isclose``,
``unsafe_chunk`` calls ``chunk``, ``addcdiv`` promotes through shared code, ``new_zeros`` checks its size as
``zeros`` does); an in-place method
(``cumsum_``, ``unsqueeze_``) or namespace in-place function (``torch.clamp_``) whose message came from the
out-of-place op's shared helpers.  The expected text is real torch's, run here.
"""
import re

import pytest

from conftest import raises_like_torch

# torch's whole message
EXACT = [
    # composites and copies (their torch signatures, see torchlike/_ops/signatures.py)
    lambda m: m.ones(2, 3).allclose("x"), lambda m: m.allclose(m.ones(2, 3), None),
    lambda m: m.allclose(m.ones(2, 3), m.ones(2, 3), "x"), lambda m: m.ones(2, 3).unsafe_chunk(1.5),
    lambda m: m.unsafe_chunk(m.ones(2, 3), "x"), lambda m: m.ones(2, 3).unsafe_split(None),
    lambda m: m.unsafe_split_with_sizes(m.ones(2, 3), 0, "x"), lambda m: m.split_copy(m.ones(2, 3), 1.5),
    lambda m: m.split_with_sizes_copy(m.ones(2, 3), None), lambda m: m.select_copy(m.ones(2, 3), 0, "x"),
    lambda m: m.unbind_copy("x"),
    # the in-place random draws
    lambda m: m.ones(2, 3).uniform_("x"), lambda m: m.ones(2, 3).uniform_(0, "x"),
    lambda m: m.ones(2, 3).normal_(None), lambda m: m.ones(2, 3).cauchy_(0, "x"),
    lambda m: m.ones(2, 3).log_normal_([1.5]), lambda m: m.ones(2, 3).exponential_("x"),
    lambda m: m.ones(2, 3).geometric_(None), lambda m: m.ones(2, 3).bernoulli_("x"),
    lambda m: m.ones(2, 3).uniform_(dim="x"),
    # shared size and tensor-list checks: the factory or alias called
    lambda m: m.ones(2, 3).new_zeros("x"), lambda m: m.ones(2, 3).new_ones([1.5]), lambda m: m.ones(2).new_empty(0, "x"),
    lambda m: m.randn("x"), lambda m: m.rand(2, 1.5), lambda m: m.concat(m.ones(2)), lambda m: m.concatenate("x"),
    # chunk's float piece size; torch.unique, Python in torch, names the C function it passes its flags to
    lambda m: m.ones(2, 3).chunk(1.5), lambda m: m.chunk(m.ones(2, 3), 1.5),
    lambda m: m.ones(2, 3).unique(return_inverse="x"), lambda m: m.unique(m.ones(2, 3), True, "x"),
    lambda m: m.unique(m.ones(2, 3), dim="x"), lambda m: m.unique(m.ones(2, 3), "x", dim=0),
    lambda m: m.unique(m.ones(2, 3), return_counts=None), lambda m: m.ones(2, 3).unique(None),
    lambda m: m.unique("x"), lambda m: m.ones(2, 3).unique(1),
    # torch's split is Python calling split_with_sizes(self, sizes, dim) for anything but an int
    lambda m: m.ones(2, 3).split(1.5), lambda m: m.split(m.ones(2, 3), None), lambda m: m.ones(2, 3).split(["a"]),
    lambda m: m.split(m.ones(2, 3), [1.5]), lambda m: m.ones(2, 3).split_with_sizes(1.5),
    lambda m: m.split_with_sizes(m.ones(2, 3), 1.5), lambda m: m.ones(2, 3).split_with_sizes([1.5]),
    lambda m: m.split_with_sizes(m.ones(2, 3), [None]),
    # the legacy sparse products (torch.dsmm and torch.spmm are mm's C function: their errors name mm)
    lambda m: m.dsmm(m.ones(2, 3), 0, "x"), lambda m: m.spmm("x"), lambda m: m.dsmm(m.ones(2, 3), "x"),
    lambda m: m.smm(m.ones(2, 3), None), lambda m: m.sspaddmm(m.ones(2, 3), 0, "x"), lambda m: m.smm(m.ones(2, 3), 0, "x"),
    # a fill value that is not a number (was numpy's "data type 'x' not understood", JAX's "full requires ndarray")
    lambda m: m.full((2,), "x"), lambda m: m.full((2,), None), lambda m: m.full((2,), [1.0], dtype=m.float32),
    lambda m: m.full_like(m.ones(2), "x"), lambda m: m.full_like(m.ones(2), None), lambda m: m.full_like(m.ones(2), [1.5]),
    lambda m: m.scalar_tensor("x"), lambda m: m.scalar_tensor(None), lambda m: m.ones(2).new_full((2,), "x"),
    lambda m: m.ones(3, 3).fill_diagonal_("x"), lambda m: m.ones(3, 3).fill_diagonal_([1.5]),
    # a size that is not a sequence (was Python's "'float' object is not iterable")
    lambda m: m.ones(3).broadcast_to(1.5), lambda m: m.broadcast_to(m.ones(3), None),
]


@pytest.mark.parametrize("k", range(len(EXACT)))
def test_message_is_torchs(k):
    raises_like_torch(EXACT[k])


# the op named as torch names it (the rest of these messages is torchlike's shorter form: see docs/differences.md)
NAMED = [
    (lambda m: m.ones(2, 3).subtract(None), "subtract"), (lambda m: m.subtract(m.ones(2, 3), "x"), "subtract"),
    (lambda m: m.ones(2, 3).subtract_(None), "subtract_"), (lambda m: m.subtract(m.ones(2, 3), 0, "x"), "subtract"),
    (lambda m: m.greater(m.ones(2, 3), dim="x"), "greater"), (lambda m: m.ones(2, 3).not_equal_(None), "not_equal_"),
    (lambda m: m.true_divide(m.ones(2, 3), "x"), "true_divide"), (lambda m: m.ones(2, 3).divide(None), "divide"),
    (lambda m: m.ones(2, 3).multiply_(None), "multiply_"), (lambda m: m.ones(2, 3).float_power_("x"), "float_power_"),
    (lambda m: m.ones(2, 3).floor_divide(None), "floor_divide"), (lambda m: m.xlogy_(m.ones(2, 3), "x"), "xlogy_"),
    (lambda m: m.ones(2, 3).addcdiv(0, "x"), "addcdiv"), (lambda m: m.addcmul(m.ones(2, 3), 0, "x"), "addcmul"),
    (lambda m: m.clamp_(m.ones(2, 3), "x"), "clamp_"), (lambda m: m.clip_(m.ones(2, 3), 0, "x"), "clip_"),
    (lambda m: m.ones(2, 3).cumsum_("x"), "cumsum_"), (lambda m: m.ones(2, 3).unsqueeze_(1.5), "unsqueeze_"),
    (lambda m: m.ones(2, 3).transpose_(0, "x"), "transpose_"), (lambda m: m.ones(2, 3).resize_(None), "resize_"),
    (lambda m: m.ones(2, 3).squeeze_("x"), "squeeze_"), (lambda m: m.nan_to_num_(m.ones(2, 3), "x"), "nan_to_num_"),
    (lambda m: m.ones(2, 3).greater(), "greater"),
]


@pytest.mark.parametrize("k", range(len(NAMED)))
def test_message_names_the_op_called(k):
    fn, name = NAMED[k]
    raises_like_torch(fn, match=rf"^{re.escape(name)}\(\)")
