"""Mistakes users make every day with indexing, scatter/gather, in-place dtype rules, out= and views, fed to torch
and to torchlike: the same exception type and message, or the same result (found by sweeping ~480 such calls
next to torch; the cases here had another message, another error, no error, or another result)."""
import subprocess
import sys
import warnings

import numpy as np
import pytest

from conftest import raises_like_torch, same_as_torch


def _A(m):
    return m.arange(24.).reshape(2, 3, 4)


def _X(m):
    return m.arange(12.).reshape(3, 4)


# --- indexing ------------------------------------------------------------------------------------------
INDEX_RESULTS = {
    # torch reads a sequence's floats as int64 indices (truncating toward zero)
    "list of floats": lambda m: _A(m)[[0., 1.]],
    "list of one float": lambda m: _A(m)[[1.7]],
    "list of a negative float": lambda m: _A(m)[[-1.5]],
    "list mixing ints and floats": lambda m: _A(m)[[0, 1.5]],
    "numpy float array": lambda m: _A(m)[np.array([0.9])],
    "float list after an int": lambda m: _A(m)[0, [1.5, 2.2]],
    "numpy float array after a slice": lambda m: _A(m)[:, np.array([2.9])],
}


@pytest.mark.parametrize("case", list(INDEX_RESULTS))
def test_float_sequences_index_like_torch(case):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same_as_torch(INDEX_RESULTS[case], grad=False)


INDEX_ERRORS = {
    "list of a float out of range": lambda m: _A(m)[[2.5]],
    "list of a complex": lambda m: _A(m)[[1j]],
    "str index": lambda m: _A(m)["a"],
    "str key index (a sequence of 9 strs)": lambda m: _A(m)["input_ids"],
    "empty str index": lambda m: _A(m)[""],
    "list of a str": lambda m: _A(m)[["a"]],
    "numpy float32 scalar index": lambda m: _A(m)[np.float32(1.0)],
    "second index out of range at the first element": lambda m: _A(m)[0, m.tensor([[0, 3]]), m.tensor([4])],
    "first index out of range at a later element": lambda m: _A(m)[m.tensor([0, 5]), m.tensor([0, 1])],
    "index_put_ with too many indices": lambda m: _A(m).index_put_((m.tensor([0]),) * 4, m.tensor(1.)),
}


@pytest.mark.parametrize("case", list(INDEX_ERRORS))
def test_index_mistakes_raise_like_torch(case):
    raises_like_torch(INDEX_ERRORS[case], quiet=True)


def _warnings_of(mod, fn):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            fn(mod)
        except Exception:  # noqa: BLE001 - only the warnings are compared here
            pass
    return [(x.category.__name__, str(x.message)) for x in w]


@pytest.mark.parametrize("fn", [lambda m: _A(m)[[[0, 1], [0]]], lambda m: _A(m)["a"], lambda m: _A(m)[[0, "a"]]])
def test_non_tuple_sequence_warning_like_torch(fn):
    """torch's warning names the C++ line that gave it; a str is a sequence too."""
    import torch
    import torchlike
    theirs = _warnings_of(torch, fn)
    assert theirs, "torch gave no warning"
    assert _warnings_of(torchlike, fn) == theirs


_ONCE = """
import warnings, sys
import {mod} as m
warnings.simplefilter("always")
c = m.ones(3, dtype=m.complex64)
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    {call}
    {call}
    c.bool()
print(repr([str(x.message) for x in w]))
"""


@pytest.mark.parametrize("call", ["c.float()", "c.to(m.float64)", "m.ones(3).copy_(c)", "x = m.ones(3); x[0:1] = c[:1]",
                                  "c.type(m.FloatTensor)"])
def test_complex_to_real_cast_warns_once_per_process_like_torch(call):
    """torch's copy kernel warns (once per process) that a cast drops the imaginary part; not for bool."""
    outs = [subprocess.run([sys.executable, "-c", _ONCE.format(mod=mod, call=call)], capture_output=True, text=True,
                           timeout=300) for mod in ("torch", "torchlike")]
    for o in outs:
        assert o.returncode == 0, o.stderr
    assert "imaginary part" in outs[0].stdout
    assert outs[1].stdout == outs[0].stdout


# --- scatter / gather / index_* / take / nonzero / select / split ------------------------------------------
SCATTER = {
    "scatter 1-d src, 2-d index": lambda m: _X(m).scatter(1, m.tensor([[0]]), m.tensor([2.])),
    "scatter_add 1-d src, 2-d index dim 0": lambda m: _X(m).scatter_add(0, m.tensor([[0]]), m.ones(2)),
    "scatter 0-d src, 2-d index": lambda m: _X(m).scatter(1, m.tensor([[0]]), m.tensor(2.)),
    "scatter 3-d src, 2-d index": lambda m: _X(m).scatter(1, m.tensor([[0]]), m.ones(1, 1, 1)),
    "scatter_add of a float src": lambda m: _X(m).scatter_add(1, m.tensor([[0]]), 1.),
    "scatter_add_ of a float src": lambda m: _X(m).scatter_add_(1, m.tensor([[0]]), 1.),
    "torch.scatter_add of a float src": lambda m: m.scatter_add(_X(m), 1, m.tensor([[0]]), 1.),
    "scatter_add src keyword float": lambda m: _X(m).scatter_add(1, m.tensor([[0]]), src=1.),
    "index_select of a list": lambda m: _X(m).index_select(0, [0]),
    "index_add of a list": lambda m: _X(m).index_add(0, [0], _X(m)),
    "gather of a list": lambda m: _X(m).gather(0, [[0]]),
    "select with a float index": lambda m: _X(m).select(0, 1.0),
    "torch.select with a float index": lambda m: m.select(_X(m), 0, 1.0),
    "select of a 0-dim tensor": lambda m: m.tensor(1.).select(0, 0),
    "index_copy_ slice shapes": lambda m: _X(m).index_copy_(0, m.tensor([0]), m.ones(1, 5)),
    "index_copy_ slice shapes, negative dim": lambda m: m.zeros(2, 3, 4).index_copy_(-1, m.tensor([0]),
                                                                                    m.ones(2, 5, 1)),
    "index_copy_ number of indices": lambda m: _X(m).index_copy_(0, m.tensor([0, 1]), m.ones(3, 4)),
    "index_copy_ scalar source, two indices": lambda m: _X(m).index_copy_(0, m.tensor([0, 1]), m.tensor(1.)),
    "index_copy_ dimensionality": lambda m: m.zeros(2, 3, 4).index_copy_(0, m.tensor([0]), m.ones(3, 4)),
    "index_copy_ dimensionality before the index dtype": lambda m: m.zeros(2, 3, 4).index_copy_(
        0, m.tensor([0], dtype=m.int32), m.ones(3, 4)),
    "index_copy_ dimensionality before the dtype": lambda m: m.zeros(3).index_copy_(
        0, m.tensor([0]), m.ones(2, 2, dtype=m.long)),
    "index_fill_ complex value into float": lambda m: _X(m).index_fill_(0, m.tensor([0]), 1j),
    "index_fill_ complex tensor value into long": lambda m: m.zeros(3, dtype=m.long).index_fill_(
        0, m.tensor([0]), m.tensor(1j)),
    "index_fill_ complex value, 2-d index": lambda m: m.zeros(3).index_fill_(0, m.tensor([[0]]), 1j),
    "take from an empty tensor": lambda m: m.empty(0).take(m.tensor([0])),
    "nonzero into a float out": lambda m: m.nonzero(m.ones(3), out=m.empty(0)),
    "nonzero into an int32 out": lambda m: m.nonzero(m.ones(3), out=m.empty(2, dtype=m.int32)),
    "nonzero as_tuple with out": lambda m: m.nonzero(m.ones(3), as_tuple=True, out=m.empty(0, dtype=m.long)),
    "split of a negative size": lambda m: _X(m).split(-1),
    "split of a negative size, empty tensor": lambda m: m.ones(0).split(-1),
    "split of a negative section": lambda m: _X(m).split([4, -1]),
    "split of a negative section, wrong sum": lambda m: _X(m).split([5, -1]),
    "split sections not summing, dim 1": lambda m: _X(m).split([1, 1], 1),
    "tensor_split of a float tensor": lambda m: _X(m).tensor_split(m.tensor([1.])),
    "tensor_split of a 2-d int32 tensor": lambda m: _X(m).tensor_split(m.tensor([[1]], dtype=m.int32)),
    "tensor_split of a 2-d long tensor": lambda m: _X(m).tensor_split(m.tensor([[1]])),
    "where with one value": lambda m: m.where(m.ones(3, dtype=m.bool), m.ones(3)),
    "searchsorted of a str": lambda m: m.searchsorted(m.ones(3), "x"),
}


@pytest.mark.parametrize("case", list(SCATTER))
def test_scatter_select_split_mistakes_raise_like_torch(case):
    raises_like_torch(SCATTER[case])


def test_nonzero_into_a_long_out_of_another_size_like_torch():
    same_as_torch(lambda m: (lambda o: (m.nonzero(m.ones(3), out=o), o)[1])(m.empty(2, dtype=m.long)), grad=False,
                  quiet=True)


# --- out= of the BLAS products, cat; in-place products of another size -----------------------------------
def _f64(m, *s):
    return m.empty(*s, dtype=m.float64)


OUT = {
    "mm into double": lambda m: m.mm(m.ones(2, 3), m.ones(3, 4), out=_f64(m, 2, 4)),
    "mm into long": lambda m: m.mm(m.ones(2, 3), m.ones(3, 4), out=m.empty(2, 4, dtype=m.long)),
    "mm of longs into double": lambda m: m.mm(m.ones(2, 3, dtype=m.long), m.ones(3, 4, dtype=m.long),
                                              out=_f64(m, 2, 4)),
    "bmm into double": lambda m: m.bmm(m.ones(1, 2, 3), m.ones(1, 3, 4), out=_f64(m, 1, 2, 4)),
    "matmul 2-d into double": lambda m: m.matmul(m.ones(2, 3), m.ones(3, 4), out=_f64(m, 2, 4)),
    "matmul 1-d into double": lambda m: m.matmul(m.ones(3), m.ones(3), out=_f64(m, ())),
    "matmul matrix-vector into double": lambda m: m.matmul(m.ones(2, 3), m.ones(3), out=_f64(m, 2)),
    "matmul batched into double": lambda m: m.matmul(m.ones(2, 2, 3), m.ones(2, 3, 4), out=_f64(m, 2, 2, 4)),
    "addmm into double": lambda m: m.addmm(m.ones(2, 4), m.ones(2, 3), m.ones(3, 4), out=_f64(m, 2, 4)),
    "baddbmm into double": lambda m: m.baddbmm(m.ones(1, 2, 4), m.ones(1, 2, 3), m.ones(1, 3, 4),
                                               out=_f64(m, 1, 2, 4)),
    "addbmm into double": lambda m: m.addbmm(m.ones(2, 4), m.ones(1, 2, 3), m.ones(1, 3, 4), out=_f64(m, 2, 4)),
    "mv into double": lambda m: m.mv(m.ones(2, 3), m.ones(3), out=_f64(m, 2)),
    "mv into long": lambda m: m.mv(m.ones(2, 3), m.ones(3), out=m.empty(2, dtype=m.long)),
    "addmv into double": lambda m: m.addmv(m.ones(2), m.ones(2, 3), m.ones(3), out=_f64(m, 2)),
    "dot into double": lambda m: m.dot(m.ones(3), m.ones(3), out=_f64(m, ())),
    "vdot into long": lambda m: m.vdot(m.ones(3), m.ones(3), out=m.empty((), dtype=m.long)),
    "cat into long": lambda m: m.cat([m.ones(2), m.ones(2)], out=m.empty(4, dtype=m.long)),
    "cat into long, sizes that do not fit": lambda m: m.cat([m.ones(2), m.ones(3, 1)], out=m.empty(4, dtype=m.long)),
    "cat of long and float into int": lambda m: m.cat([m.ones(2, dtype=m.long), m.ones(2)],
                                                      out=m.empty(4, dtype=m.int32)),
    "addmm_ of a column": lambda m: m.ones(2, 1).addmm_(m.ones(2, 3), m.ones(3, 4)),
    "addmm_ of a vector": lambda m: m.ones(4).addmm_(m.ones(2, 3), m.ones(3, 4)),
    "baddbmm_ of a column": lambda m: m.ones(1, 2, 1).baddbmm_(m.ones(1, 2, 3), m.ones(1, 3, 4)),
    "addmv_ of one element": lambda m: m.ones(1).addmv_(m.ones(2, 3), m.ones(3)),
}


@pytest.mark.parametrize("case", list(OUT))
def test_out_dtype_and_inplace_size_mistakes_raise_like_torch(case):
    raises_like_torch(OUT[case])


def test_matching_out_and_inplace_products_still_work():
    same_as_torch(lambda m: m.mm(m.ones(2, 3), m.ones(3, 4), out=m.empty(2, 4)), grad=False)
    same_as_torch(lambda m: m.ones(2, 4).addmm_(m.ones(2, 3), m.ones(3, 4)), grad=False)
    same_as_torch(lambda m: m.cat([m.ones(2, dtype=m.int32), m.ones(2, dtype=m.int32)], out=m.empty(4)), grad=False)


# --- view / reshape / expand sizes that are not ints ------------------------------------------------------
SIZES = {
    "view of a float": lambda m: _A(m).view(2.),
    "view of a tuple of a float": lambda m: _A(m).view((2.,)),
    "view of a float and an int": lambda m: _A(m).view(2.0, 12),
    "view of a tuple and an int": lambda m: _A(m).view((2, 12), 1),
    "reshape of a float": lambda m: _A(m).reshape(2.5),
    "reshape of None": lambda m: _A(m).reshape(None),
    "reshape of a str": lambda m: _A(m).reshape("a"),
    "reshape of a float, then an int": lambda m: _A(m).reshape(2.5, 3),
    "reshape of a tuple with a float first": lambda m: _A(m).reshape((2.5,)),
    "expand of a tuple of a float": lambda m: _A(m).expand((2.,)),
    "expand of a float and an int": lambda m: _A(m).expand(2., 3),
    "repeat of a float and an int": lambda m: _A(m).repeat(2., 1),
    "tile of a float": lambda m: _A(m).tile(2.),
    "new_zeros of a float": lambda m: _A(m).new_zeros(2.),
    "H of a 3-d tensor": lambda m: _A(m).H,
}


@pytest.mark.parametrize("case", list(SIZES))
def test_size_argument_mistakes_raise_like_torch(case):
    raises_like_torch(SIZES[case])


# --- in-place writes: a mask of more dims, expand's words, softmax's saved result ------------------------------
INPLACE = {
    "masked_scatter_ of a mask of more dims": lambda m: _X(m).masked_scatter_(m.ones(2, 3, 4, dtype=m.bool),
                                                                            m.ones(24)),
    "masked_scatter_ of a mask of another size": lambda m: _X(m).masked_scatter_(m.ones(2, 4, dtype=m.bool),
                                                                               m.ones(24)),
    "masked_scatter_ into an expanded tensor": lambda m: m.zeros(1, 4).expand(3, 4).masked_scatter_(
        m.ones(4, dtype=m.bool), m.ones(24)),
    "expand of a long tensor to fewer dims": lambda m: m.ones(2, 3, dtype=m.long).expand(3),
}


@pytest.mark.parametrize("case", list(INPLACE))
def test_inplace_write_mistakes_raise_like_torch(case):
    raises_like_torch(INPLACE[case])


def _write_after_softmax(op, written):
    def fn(m):
        a = m.ones(3, requires_grad=True)
        b = a * 2
        c = op(m, b)
        (b if written == "input" else c).add_(1)
        c.sum().backward()
        return a.grad
    return fn


SOFTMAXES = {"softmax": lambda m, b: m.softmax(b, 0), "log_softmax": lambda m, b: m.log_softmax(b, 0),
             "softmin": lambda m, b: m.nn.functional.softmin(b, 0),
             "softmax to double": lambda m, b: m.softmax(b, 0, dtype=m.float64)}


@pytest.mark.parametrize("case", list(SOFTMAXES))
def test_softmax_saves_its_result_not_its_input_like_torch(case):
    """torch's softmax formulas read the result: a write to the input after it is no error, one to the result is
    the version-counter error."""
    same_as_torch(_write_after_softmax(SOFTMAXES[case], "input"), grad=False, atol=1e-6)
    raises_like_torch(_write_after_softmax(SOFTMAXES[case], "result"))


CLAMP = {
    "clamp_ of a long by a float": lambda m: m.ones(3, dtype=m.long).clamp_(0.5, 2.5),
    "clamp_ of a long by a float max": lambda m: m.ones(3, dtype=m.long).clamp_(max=0.5),
    "clamp_min_ of an int by a float": lambda m: m.ones(3, dtype=m.int32).clamp_min_(0.5),
    "clamp_max_ of a uint8 by a float": lambda m: m.ones(3, dtype=m.uint8).clamp_max_(0.5),
    "clip_ of a bool by a float": lambda m: m.ones(3, dtype=m.bool).clip_(0.5),
    "clamp_ of a long by a float tensor": lambda m: m.ones(3, dtype=m.long).clamp_(m.tensor(0.5)),
    "clamp_ of a float by a complex": lambda m: m.ones(3).clamp_(1j),
    "clamp_ of an expanded tensor": lambda m: m.ones(1, 3).expand(2, 3).clamp_(0, 1),
}


@pytest.mark.parametrize("case", list(CLAMP))
def test_clamp_in_place_casts_like_torch(case):
    """torch's Number-bound clamp kernels name self's C++ type ("long int") when the result cannot be cast."""
    raises_like_torch(CLAMP[case])


EXPAND = {
    "expand a size-1 dim to -2": lambda m: m.ones(1).expand(-2),
    "expand a size-1 dim to -3 beside another": lambda m: m.ones(2, 1).expand(2, -3),
    "expand to a leading -2": lambda m: m.ones(1).expand(-2, 1),
    "expand to a leading -1": lambda m: m.ones(1).expand(-1, 1),
    "expand a size-2 dim to -2": lambda m: m.ones(2).expand(-2),
    "expand, a mismatch after a negative leading size": lambda m: m.ones(2).expand(-3, -3),
}


@pytest.mark.parametrize("case", list(EXPAND))
def test_expand_to_negative_sizes_like_torch(case):
    """torch checks every size first, then computes the view's numel from a negative one (an overflow error); a
    negative size was taken (a tensor of shape (-2,))."""
    raises_like_torch(EXPAND[case])
