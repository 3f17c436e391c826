"""torch's argument parser rejects a wrong-typed argument before anything else runs: before a device move finds no
device (``x.xpu(0, "x")``), before a sparse conversion finds no kernel, before an op's default None ("not given")
takes an explicit None (``torch.trapezoid(y, None)``), before an int argument is truncated (``randint_like(x,
1.5)``).  Messages against torch 2.13's (an invalid combination's first line, which names the op and what it got)."""
import re

import pytest

from conftest import raises_like_torch, torch

EXACT = [
    # device moves: the parser's error, then a device string's, then the missing device's
    lambda m: m.ones(2).cuda(0, "x"), lambda m: m.ones(2).xpu(1.5), lambda m: m.ones(2).ipu([1.5]),
    lambda m: m.ones(2).mtia(0, "x"), lambda m: m.ones(2).xpu("x"), lambda m: m.ones(2).mtia(),
    lambda m: m.ones(2).xpu(non_blocking=1), lambda m: m.ones(2).cuda(memory_format=1),
    lambda m: m.ones(2).cuda(foo=1), lambda m: m.ones(2).pin_memory(1.5), lambda m: m.ones(2).pin_memory(0, 1),
    lambda m: m.ones(2).pin_memory(device=[1]),
    # sparse conversions: dense_dim's type before the missing kernel
    lambda m: m.ones(2, 3).to_sparse_csr("x"), lambda m: m.ones(2, 3).to_sparse_csc(1.5),
    # a value an op's body would have made a number of, or checked first
    lambda m: m.ones(2, 3).pinverse("x"), lambda m: m.pinverse(m.ones(2, 3), "x"),
    lambda m: m.segment_reduce(m.ones(2, 3), 1.5), lambda m: m.segment_reduce(m.ones(2, 3), None),
    # torch's own Python functions: their errors as they come (an attribute of a non-Tensor, a dims check, too few
    # arguments), autograd's Resize (the same number of elements only), _make_grads (no number for a gradient)
    lambda m: m.tensordot(m.ones(2, 3), "x"), lambda m: m.tensordot(m.ones(2, 3), m.ones(3), "x"),
    lambda m: m.einsum("ij"), lambda m: m.einsum("ij", []), lambda m: m.svd_lowrank("x"),
    lambda m: m.pca_lowrank(None), lambda m: m.ones(2, 3).resize(9), lambda m: m.ones(2, 3).resize(0, "x"),
    lambda m: m.ones(2, 3).resize((3, 2)), lambda m: m.ones(2, 3).resize_as(m.ones(4)),
    lambda m: m.ones(2, 3).resize(dim=1), lambda m: m.ones(2, 3, requires_grad=True).sum().backward([1.5]),
    # a bare hot method's argument type, where no wrapper is
    lambda m: m.ones(2, 3).copy_([1.5, 2.5]), lambda m: m.ones(2, 3).module_load(None),
    lambda m: m.sparse_coo_tensor(m.ones(2, 3), None),
]
FIRST_LINE = [
    # an explicit None where the op's default None means "not given"
    lambda m: m.ones(2, 3).bernoulli(None), lambda m: m.bernoulli(m.ones(2, 3), None),
    lambda m: m.ones(2, 3).random_(None), lambda m: m.ones(2, 3).to_sparse(None),
    lambda m: m.where(m.ones(2, 3) > 0, None), lambda m: m.where(m.ones(2, 3) > 0, m.ones(2, 3), None),
    lambda m: m.trapezoid(m.ones(2, 3), None), lambda m: m.trapz(m.ones(2, 3), None),
    lambda m: m.cumulative_trapezoid(m.ones(2, 3), None), lambda m: m.nuclear_norm(m.ones(2, 3), None),
    lambda m: m.normal(0.0, 1.0, None),
    # a float for an int, a size where a Tensor mean takes none, a str for a float
    lambda m: m.randint_like(m.ones(2, 3), 1.5), lambda m: m.randint_like(m.ones(2, 3), 1, 2.5),
    lambda m: m.normal(m.ones(2, 3), 0, "x"), lambda m: m.normal(m.ones(2), m.ones(2), (2,)),
    lambda m: m.ones(2, 3).bernoulli("x"), lambda m: m.ones(2, 3).random_(1.5),
    lambda m: m.ones(2, 3).fill_([1.5, 2.5]), lambda m: m.ones(2, 3).fill_(None),
    lambda m: m.sparse_coo_tensor(m.ones(2, 3), 0, "x"), lambda m: m.sparse_coo_tensor([[0, 1]], [1.0, 2.0], None),
]


@pytest.mark.parametrize("k", range(len(EXACT)))
def test_parser_error_first(k):
    raises_like_torch(EXACT[k])


@pytest.mark.parametrize("k", range(len(FIRST_LINE)))
def test_invalid_combination_first(k):
    try:
        FIRST_LINE[k](torch)
    except TypeError as e:
        first = str(e).splitlines()[0]
    raises_like_torch(FIRST_LINE[k], match="(?m)^" + re.escape(first) + "$")


def test_accepted_calls_still_work():
    """The None checks leave the calls torch takes alone (values compared elsewhere; here: no error, same shape)."""
    for m in (torch, __import__("torchlike")):
        x = m.ones(2, 3)
        shapes = [m.where(x > 0, x, x).shape, m.trapezoid(x).shape, m.trapezoid(x, x).shape,
                  m.nuclear_norm(x).shape, m.nuclear_norm(x, True).shape, m.normal(x, 1.0).shape,
                  m.normal(0.0, 1.0, (2,)).shape, m.randint_like(x, 5).shape, m.randint_like(x, 1, 5).shape,
                  m.ones(2).bernoulli().shape, x.bernoulli(0.5).shape, x.random_(0, 5).shape, x.random_(5).shape,
                  x.to_sparse().shape, x.to_sparse(1).shape, len(m.where(x > 0))]
        y = m.arange(6.0).reshape(2, 3)
        r = y.resize(3, 2)  # (a view of y's storage: y's later write shows)
        y.add_(1)
        shapes += [r.tolist(), y.t().resize(6).tolist(), m.sparse_coo_tensor((2, 2)).shape,
                   m.ones(2).fill_(m.tensor(3)).tolist()]
        if m is torch:
            expected = shapes
    assert shapes == expected


@pytest.mark.parametrize("call", [
    lambda m: m.zeros(2, 3.0), lambda m: m.ones((2, 3.0)), lambda m: m.randn(2, 3.0),
    lambda m: m.zeros(2, 3).new_zeros(2, 3.0), lambda m: m.zeros(2, 3).new(2, 3.0),
    lambda m: m.zeros(2, 3).view(2, 3.0), lambda m: m.zeros(2, 3).view((2, 3.0)),
    lambda m: m.zeros(2, 3).reshape(2, 3.0), lambda m: m.zeros(2, 3).reshape((2, "a")),
    lambda m: m.zeros(2, 3).expand(2, 3.0), lambda m: m.zeros(2, 3).repeat(1, 2.0),
    lambda m: m.zeros(2, 3).tile((1, 2.0)), lambda m: m.zeros(2, 3).view(2, m.zeros(2)),
    lambda m: m.zeros(2, 3).sum_to_size(1, 3.0),
])
def test_a_size_element_that_is_not_an_int_fails_to_unpack_like_torch(call):
    """A float (or any non-int) past a size's first element is torch's 'failed to unpack' TypeError naming the
    op's argument ('shape' for reshape, 'repeats' for repeat); the creation ops' size cache took ``(2, 3.0)`` for
    the cached ``(2, 3)`` (equal and of equal hash) and made the tensor."""
    torch.zeros(2, 3)  # (the (2, 3) size cached first)
    raises_like_torch(call)
