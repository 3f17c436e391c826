"""Tensor.set_ against torch: aliasing (writes through either tensor show in the other), the size, stride and
offset it takes from a tensor or a storage, set_() emptying, the dtype and in-place-leaf errors, the parser's error,
a Parameter re-pointed under no_grad still training; and the NotImplementedError of the cases torchlike does not
do (another dtype's storage, past the storage's end, a source that requires grad)."""
import gc

import pytest

import torchlike
from conftest import torch


def _case_alias(L):
    x, y = L.zeros(3), L.arange(6.)
    r = x.set_(y)
    x[0] = 100.
    y.add_(1)
    return r is x, tuple(x.shape), x.tolist(), y.tolist(), x.data_ptr() == y.data_ptr(), x.is_set_to(y)


def _case_storage(L):
    x, y = L.zeros(3), L.arange(6.)
    x.set_(y.untyped_storage(), 1, (2, 2), (1, 2))
    x[0, 0] = -1.
    return x.tolist(), y.tolist(), x.stride(), x.storage_offset(), x.is_contiguous()


def _case_storage_default_stride(L):
    x, y = L.zeros(1), L.arange(6.)
    x.set_(y.untyped_storage(), 0, (2, 3))
    return x.tolist(), x.stride(), x.is_contiguous()


def _case_whole_storage(L):
    x, y = L.zeros(1), L.arange(6.).reshape(2, 3)
    x.set_(y.untyped_storage())
    return x.tolist(), tuple(x.shape)


def _case_tensor_offset(L):
    x, y = L.zeros(1), L.arange(6.)
    x.set_(y, 1, (2, 2), (2, 1))
    x.add_(10)
    return y.tolist(), x.tolist()


def _case_empty(L):
    x = L.arange(3.)
    x.set_()
    shape, n = tuple(x.shape), x.untyped_storage().nbytes()
    x.resize_(2)
    return shape, n, tuple(x.shape)


def _case_view_source(L):
    x, y = L.zeros(3), L.arange(6.).view(2, 3)
    x.set_(y[1])
    x.mul_(2)
    return y.tolist(), x.storage_offset(), tuple(x.shape)


def _case_transposed(L):
    y = L.arange(6.).reshape(2, 3)
    x = L.zeros(1)
    x.set_(y.t())
    x[0, 1] = -5
    return y.tolist(), x.stride(), tuple(x.shape)


def _case_self_is_view(L):
    b = L.zeros(4)
    xv = b[:2]
    y = L.arange(5.)
    xv.set_(y)
    xv.fill_(9)
    return b.tolist(), y.tolist()


def _case_host_source(L):
    y = L.tensor([1., 2., 3.])
    x = L.zeros(2)
    x.set_(y)
    y[1] = 7.
    x.mul_(2)
    return x.tolist(), y.tolist(), repr(x), (x + 1).tolist()


def _case_source_dropped(L):
    y = L.arange(4.)
    x = L.zeros(2)
    x.set_(y)
    del y
    gc.collect()
    x[0] = 5
    return x.tolist()


def _case_parameter(L):
    p = L.nn.Parameter(L.zeros(2))
    with L.no_grad():
        p.set_(L.ones(3))
    (p * 2).sum().backward()
    return p.grad.tolist(), p.is_leaf, p.requires_grad, tuple(p.shape)


def _case_keyword(L):
    return L.zeros(2).set_(source=L.ones(3)).tolist()


def _case_resized_source(L):
    x, y = L.zeros(3), L.arange(6.)
    x.set_(y)
    y.resize_(10)
    y.fill_(2.)
    return x.tolist()


def _case_no_view_of_a_parameter_storage(L):
    # (torch's result shares the storage but is no view in autograd's sense: no _base, writable)
    p = L.nn.Parameter(L.ones(2, 3))
    x = L.empty(0).set_(p.untyped_storage(), 1, (2,), (3,))
    x[0] = 5.
    y = L.arange(4.)
    z = L.zeros(1).set_(y[1:])
    return p.tolist(), x._base is None, x.requires_grad, x.is_leaf, z._base is None, z.stride(), z.storage_offset()


CASES = [v for k, v in sorted(globals().items()) if k.startswith("_case_")]


@pytest.mark.parametrize("case", CASES, ids=[c.__name__[6:] for c in CASES])
def test_set_matches_torch(case):
    assert case(torchlike) == case(torch)


ERRORS = {
    "dtype": lambda L: L.zeros(3).set_(L.zeros(3, dtype=L.int64)),
    "dtype_half": lambda L: L.zeros(3, dtype=L.int32).set_(L.zeros(3, dtype=L.bfloat16)),
    "leaf": lambda L: L.zeros(2, requires_grad=True).set_(L.ones(2)),
    "bad_arg": lambda L: L.zeros(3).set_(5),
    "bad_offset": lambda L: L.zeros(2).set_(L.ones(3), "a", (1,)),
    "stride_length": lambda L: L.zeros(2).set_(L.zeros(6).untyped_storage(), 0, (2, 3), (1,)),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_set_errors_match_torch(name):
    with pytest.raises(Exception) as et:
        ERRORS[name](torch)
    with pytest.raises(Exception) as el:
        ERRORS[name](torchlike)
    assert type(el.value).__name__ == type(et.value).__name__ and str(el.value) == str(et.value)


NOT_DONE = {
    # torch reinterprets the float64 bytes as float32
    "other_dtype_storage": lambda L: L.zeros(3).set_(L.zeros(3, dtype=L.float64).untyped_storage(), 0, (3,), (1,)),
    # torch grows the storage with uninitialized memory
    "past_the_end": lambda L: L.zeros(3).set_(L.zeros(3).untyped_storage(), 0, (5,), (1,)),
    # torch's result requires grad with a NotImplemented grad_fn
    "source_requires_grad": lambda L: L.zeros(2).set_(L.ones(2, requires_grad=True)),
}


@pytest.mark.parametrize("name", list(NOT_DONE))
def test_set_not_implemented_where_torch_does_more(name):
    NOT_DONE[name](torch)  # torch accepts these
    with pytest.raises(NotImplementedError, match="Tensor.set_"):
        NOT_DONE[name](torchlike)
