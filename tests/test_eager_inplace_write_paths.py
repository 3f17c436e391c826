"""The short in-place write paths of issue 10 (docs/eager_speed.md, "In-place writes and products with grad"),
pinned against torch: ``y.add_(x)``/``sub_``/``mul_`` of host tensors computed into ``y`` without the out-of-place
result (``_dispatch.host_pointwise(..., into=True)``), ``copy_``/``fill_``/``zero_`` of host tensors
(``_dispatch.host_assign``), the write of one device root into another (``_mutation._inplace_update``'s first
branch) and the saved operands of a product with one differentiable input (``_dispatch._record``).  Each case
gives torch's values, dtypes, versions, aliasing and errors; where a path does not apply the general one runs."""
import pytest

import torchlike
from tests.conftest import raises_like_torch, same_as_torch

torch = pytest.importorskip("torch", reason="torch is the oracle for these tests")


def _dev(m, t):
    """``t`` moved to torchlike's device (a device op or a view does that to a host tensor); torch's as it is."""
    if m is torchlike:
        t._value  # noqa: B018
        assert t._host_array() is None
    return t


@pytest.mark.parametrize("op", ["add_", "sub_", "mul_"])
@pytest.mark.parametrize("dtype", ["int32", "int64", "float32", "float64"])
def test_device_roots_written_in_place_match_torch(op, dtype):
    def fn(m):
        d = getattr(m, dtype)
        y = _dev(m, m.tensor([[1, 2], [3, 4]], dtype=d))
        x = _dev(m, m.tensor([[5, -6], [7, 8]], dtype=d))
        v = y[1]  # a view made before the writes sees them
        before = y * 1
        r = getattr(y, op)(x)
        getattr(y, op)(y)  # (self as its own operand: full overlap, allowed)
        getattr(y, op)(m.tensor([2, 3], dtype=d))  # a broadcast operand (the general path)
        return r is y, y, v, before, m.tensor([y._version, x._version, v._version])
    same_as_torch(fn, grad=False)


def test_device_writes_that_cast_or_broadcast_self_give_torchs_result_or_error():
    def cast(m):
        y = _dev(m, m.zeros(3, dtype=m.float64))
        y.add_(_dev(m, m.ones(3)))  # a float32 operand: computed in float64
        z = _dev(m, m.zeros(3))
        z.add_(_dev(m, m.ones(3, dtype=m.float64)))  # the result is cast back to float32
        return y, z, m.tensor([y._version, z._version])
    same_as_torch(cast, grad=False)

    def int_into_float(m):
        y = _dev(m, m.zeros(3, dtype=m.int64))
        y.add_(_dev(m, m.ones(3)))
    raises_like_torch(int_into_float)

    def broadcast_self(m):
        y = _dev(m, m.zeros(3))
        y.add_(_dev(m, m.ones(2, 3)))
    raises_like_torch(broadcast_self)


def test_device_writes_keep_torchs_autograd_rules():
    def saved(m):  # y is saved by the product: writing it in place fails the backward
        w = m.tensor([1.0, 2.0], requires_grad=True)
        y = _dev(m, m.tensor([3.0, 4.0]))
        z = (w * y).sum()
        y.add_(_dev(m, m.ones(2)))
        z.backward()
    raises_like_torch(saved)

    def leaf(m):
        w = m.tensor([1.0, 2.0], requires_grad=True)
        w.add_(_dev(m, m.ones(2)))
    raises_like_torch(leaf)

    def no_grad(m):  # a leaf written under no_grad keeps requiring grad; a non-leaf keeps its grad_fn
        w = m.tensor([1.0, 2.0], requires_grad=True)
        h = w * 2
        with m.no_grad():
            w.add_(_dev(m, m.ones(2)))
            h.mul_(_dev(m, m.ones(2)))
        (w * h).sum().backward()
        return w.grad, m.tensor([w._version, h._version]), w.requires_grad, h.grad_fn is not None
    same_as_torch(no_grad, grad=False)

    def recorded(m):  # an operand with history makes the write a recorded op (the general path)
        w = m.tensor([1.0, 2.0], requires_grad=True)
        y = _dev(m, m.zeros(2))
        y.add_(w * 3)
        y.sum().backward()
        return w.grad, y.grad_fn.name(), m.tensor(y._version)
    same_as_torch(recorded, grad=False)


def test_host_writes_into_self_match_torch():
    def fn(m):
        y = m.tensor([1.0, 2.0, 3.0])
        z = m.tensor([250, 3, 7], dtype=m.uint8)
        y.add_(y)  # self as its own operand
        y.sub_(0.5)
        y.mul_(m.tensor([2.0, 0.0, -1.0]))
        z.add_(10)  # uint8 wraps
        z.mul_(m.tensor([2, 2, 2], dtype=m.uint8))
        y += m.tensor([1.0, 1.0, 1.0])  # __iadd__: add_
        return y, z, m.tensor([y._version, z._version])
    same_as_torch(fn, grad=False)
    y = torchlike.tensor([1.0, 2.0])
    y.add_(y)
    y.mul_(3)
    assert y._host_array() is not None and y._version == 2

    def out_of_range(m):  # numbers the dtype does not hold (the general path): torch's wrapped results
        y = m.tensor([1, 2], dtype=m.uint8)
        y.add_(300)
        z = m.tensor([1.0, 2.0])
        z.mul_(1e300)
        return y, z, m.tensor([y._version, z._version])
    same_as_torch(out_of_range, grad=False)


def test_host_copy_fill_zero_match_torch():
    def fn(m):
        a = m.tensor([1.0, 2.0])
        b = m.tensor([3.0, 4.0])
        a.copy_(b)
        b.add_(1)  # a took b's values, not its memory
        c = m.tensor([1, 2], dtype=m.int16)
        c.fill_(7)
        c.fill_(m.tensor(3))  # a tensor value: the general path
        d = m.tensor([1.5, 2.5], dtype=m.float64)
        d.zero_()
        d.fill_(float("inf"))
        return a, b, c, d, m.tensor([a._version, b._version, c._version, d._version])
    same_as_torch(fn, grad=False)

    def fill_overflow(m):
        m.tensor([1, 2], dtype=m.int8).fill_(1000)
    raises_like_torch(fill_overflow)

    def copy_shape(m):
        m.tensor([1.0, 2.0]).copy_(m.tensor([1.0, 2.0, 3.0]))
    raises_like_torch(copy_shape)


def test_products_with_one_differentiable_input_save_only_what_its_gradient_reads():
    def written(m, which, op):
        w = m.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        h = w * 1  # a non-leaf: it may be written
        x = m.tensor([[0.5, 1.5], [2.5, -1.0]])
        z = (x @ h if op == "matmul" else x * h).sum()
        (h if which == "h" else x).add_(1)
        z.backward()
        return w.grad

    # h's gradient reads x (saved: writing x fails); x needs no gradient, so h is not saved (writing it is fine)
    for op in ("mul", "matmul"):
        same_as_torch(lambda m: written(m, "h", op), grad=False)
        raises_like_torch(lambda m: written(m, "x", op))

    def both(m):  # both differentiable: each is saved for the other's gradient
        a = m.tensor([1.0, 2.0], requires_grad=True) * 1
        b = m.tensor([3.0, 4.0], requires_grad=True) * 1
        z = (a * b).sum()
        a.add_(1)
        z.backward()
    raises_like_torch(both)


def test_leaves_recorded_again_after_their_graph_is_freed_match_torch():
    # each op makes a leaf's AccumulateGrad again once the previous graph is gone (_record, inline); a view made
    # under no_grad of a leaf requiring grad requires grad, and its gradient goes nowhere
    def fn(m):
        w = m.tensor([1.0, 2.0, 3.0], requires_grad=True)
        for _ in range(3):
            (w * 2).sum()  # (freed at once)
        with m.no_grad():
            v = w[:2]
        z = (v * 3).sum() + (w * w).sum()
        z.backward()
        return w.grad, v.grad, v.requires_grad, v.is_leaf, type(z.grad_fn.next_functions[1][0]).__name__
    same_as_torch(fn, grad=False)


def test_copy_of_self_is_an_in_place_write_like_torchs():
    # torch's copy_ kernel returns at once for src is self, after the in-place dispatch moved the version and
    # autograd recorded the op: no overlap check (an expanded self is fine), the leaf and saved-tensor errors
    def fn(m):
        y = m.tensor([1.0, 2.0])  # host-resident in torchlike
        y.copy_(y)
        d = m.tensor([[1, 2]]) * 1
        d.copy_(d)
        e = m.tensor([3.0]).expand(3)
        e.copy_(e)
        w = m.tensor([1.0, 2.0], requires_grad=True)
        h = w * 2
        h.copy_(h)
        (h * w).sum().backward()
        b = w * 1
        v = b[:1].expand(2)
        v.copy_(v)  # (an expanded view with history: recorded, no overlap error; its backward is not compared)
        return y, d, e, h, v, w.grad, h.grad_fn.name(), v.grad_fn.name(), b.grad_fn.name(), \
            m.tensor([y._version, d._version, e._version, h._version, b._version])
    same_as_torch(fn, grad=False)

    def leaf(m):
        w = m.tensor([1.0, 2.0], requires_grad=True)
        w.copy_(w)
    raises_like_torch(leaf)

    def saved(m):
        w = m.tensor([1.0, 2.0], requires_grad=True)
        x = m.tensor([3.0, 4.0])
        z = (w * x).sum()
        x.copy_(x)
        z.backward()
    raises_like_torch(saved)
