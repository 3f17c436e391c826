"""``as_strided`` family over views, against torch: ``as_strided`` / ``as_strided_copy`` of a view count in its
root's storage and are differentiable in the view itself (torch's AsStridedBackward0: the gradient reaches the
places of the view's elements and no other, a leaf view requiring grad included); ``as_strided_scatter`` of a view
keeps its storage geometry (offsets count in the root's storage), with torch's backward and its errors."""
import pytest
import torch

import torchlike
from conftest import raises_like_torch, same_as_torch


def _gapped(m, rows, cols=None, requires_grad=False):
    """torch's ``noncontiguous_like`` layout: the values in ``base[..., 1]``, NaN in between."""
    shape = (rows,) if cols is None else (rows, cols)
    base = m.full(shape + (2,), float("nan"), dtype=m.float64)
    base[..., 1] = m.arange(1., 1. + base[..., 1].numel(), dtype=m.float64).view(shape)
    v = base[..., 1]
    return v.requires_grad_() if requires_grad else v


def _value_and_grad(make, op):
    """``op`` of the leaf (or view) ``make(m)`` gives, its value and the gradient reaching ``leaf``."""
    def run(m):
        leaf, x = make(m)
        y = op(m, x)
        y.backward(m.arange(1., 1. + y.numel(), dtype=m.float64).view(y.shape))
        return y.detach(), leaf.grad
    return run


def _leaf_view(m):
    x = _gapped(m, 6, requires_grad=True)
    return x, x


def _view_of_leaf(m):
    leaf = m.arange(12., dtype=m.float64).requires_grad_()
    return leaf, leaf.view(6, 2)[:, 1]


def _view_of_result(m):
    leaf = m.arange(12., dtype=m.float64).requires_grad_()
    return leaf, (leaf * 1).view(6, 2)[:, 1]


OPS = {
    "as_strided": lambda m, x: m.as_strided(x, (2, 2), (1, 2)),
    "as_strided offset": lambda m, x: m.as_strided(x, (3,), (3,), 0),
    "as_strided repeats": lambda m, x: m.as_strided(x, (3, 2), (2, 2), 1),
    "as_strided then a slice": lambda m, x: m.as_strided(x, (2,), (2,), 2)[1:],
    "as_strided_copy": lambda m, x: m.as_strided_copy(x, (2, 2), (1, 2)),
    "method": lambda m, x: x.as_strided((2,), (2,), 3),
    "getitem": lambda m, x: x[1:3],
}


@pytest.mark.parametrize("make", [_leaf_view, _view_of_leaf, _view_of_result], ids=lambda f: f.__name__)
@pytest.mark.parametrize("op", list(OPS), ids=list(OPS))
def test_as_strided_of_a_view_is_differentiable_like_torch(make, op):
    same_as_torch(_value_and_grad(make, OPS[op]), grad=False)


def test_as_strided_of_a_view_strides_and_node_like_torch():
    for name, op in OPS.items():
        got = {}
        for m in (torch, torchlike):
            y = op(m, _gapped(m, 6, requires_grad=True))
            got[m.__name__] = (y.stride(), y.storage_offset(), y.requires_grad, type(y.grad_fn).__name__)
        assert got["torchlike"] == got["torch"], name


SCATTERS = {
    "view, default offset": lambda m: m.as_strided_scatter(m.arange(9.)[3:], m.tensor([10., 20]), (2,), (1,)),
    "view, offset before it": lambda m: m.as_strided_scatter(m.arange(9.)[3:], m.tensor([10., 20]), (2,), (1,), 0),
    "view, offset inside": lambda m: m.as_strided_scatter(m.arange(9.)[3:], m.tensor([10., 20]), (2,), (1,), 4),
    "transposed view": lambda m: m.as_strided_scatter(m.arange(9.).view(3, 3).t(), m.tensor([[10., 20], [30, 40]]),
                                                      (2, 2), (1, 2)),
    "gapped view": lambda m: m.as_strided_scatter(_gapped(m, 3, 3), m.tensor([[10., 20], [30, 40]], dtype=m.float64),
                                                  (2, 2), (1, 2)),
    "gapped view, offset": lambda m: m.as_strided_scatter(_gapped(m, 3, 3), m.tensor([[10., 20], [30, 40]],
                                                          dtype=m.float64), (2, 2), (3, 1), 1),
    "transposed root": lambda m: m.as_strided_scatter(m.arange(9.).view(3, 3).t().contiguous().t(),
                                                      m.tensor([[10., 20], [30, 40]]), (2, 2), (1, 2)),
}


@pytest.mark.parametrize("case", list(SCATTERS), ids=list(SCATTERS))
def test_as_strided_scatter_of_a_view_like_torch(case):
    out = same_as_torch(SCATTERS[case], grad=False)
    if "gapped" not in case:  # (torch's result of a gapped view keeps the gaps: torchlike's is a dense copy)
        assert out.stride() == SCATTERS[case](torch).stride()


def _scatter_grads(view, offset):
    def run(m):
        x = m.arange(9., requires_grad=True)
        s = m.tensor([10., 20], requires_grad=True)
        o = m.as_strided_scatter(x[3:] if view else x, s, (2,), (3,) if not view else (1,), offset)
        o.backward(m.arange(1., 1. + o.numel()))
        return o.detach(), x.grad, s.grad
    return run


@pytest.mark.parametrize("view,offset", [(False, None), (False, 1), (True, None), (True, 4)])
def test_as_strided_scatter_gradients_like_torch(view, offset):
    """torch's backward takes the input as contiguous from 0 and the offset as given (0 where none is)."""
    same_as_torch(_scatter_grads(view, offset), grad=False)


def test_as_strided_scatter_errors_like_torch():
    raises_like_torch(lambda m: m.as_strided_scatter(m.arange(9.)[3:], m.ones(2), (2,), (1,), 8))
    raises_like_torch(lambda m: m.as_strided_scatter(_gapped(m, 3, requires_grad=True), m.ones(2, dtype=m.float64),
                                                     (2,), (1,)))
