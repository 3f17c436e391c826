"""Correctness of the fast eager paths for small ops (not timed): basic slicing/select with the start
positions as a traced argument (one program per slice structure), iteration in one program, writes
through such views, stack/cat, item/tolist/__index__ -- all compared with real torch."""
import numpy as np
import pytest

import torchlike
from tests.conftest import raises_like_torch, same_as_torch

rng = np.random.default_rng(0)
F = rng.standard_normal((7, 5)).astype(np.float32)
D = np.arange(40, dtype=np.int64)

SLICES = [slice(2, 6), slice(0, 3), slice(5, None), slice(None, -2), slice(-3, None), slice(-100, 3),
          slice(3, 100), slice(100, 200), slice(6, 2), slice(1, None, 2), slice(None, None, 3),
          slice(-5, -1, 2), slice(0, 0), slice(2, 3), slice(None, None)]


@pytest.mark.parametrize("s", SLICES, ids=str)
def test_slice_dim0_float_with_grad(s):
    same_as_torch(lambda m, x: x[s] * 2, F)


@pytest.mark.parametrize("s", SLICES, ids=str)
def test_slice_int_data(s):
    same_as_torch(lambda m, x: x[s], D)


def test_varying_starts_like_a_batch_loader():
    def fn(m, x):
        ix = m.tensor([0, 5, 31, 17, 3, 31])
        a = m.stack([x[i:i + 8] for i in ix])
        b = m.stack([x[i + 1:i + 9] for i in ix])
        return a, b
    same_as_torch(fn, D)


@pytest.mark.parametrize("i", [0, 3, -1, -7, 6])
def test_int_index_select(i):
    same_as_torch(lambda m, x: x[i], F)


@pytest.mark.parametrize("i", [7, -8, 100])
def test_int_index_out_of_range(i):
    raises_like_torch(lambda m, x: x[i], F)


@pytest.mark.parametrize("i", [5, -6])
def test_int_index_out_of_range_dim1(i):
    raises_like_torch(lambda m, x: x[:, i], F)


def test_bad_steps_and_bound_types():
    raises_like_torch(lambda m, x: x[::0], F)
    raises_like_torch(lambda m, x: x[::-1], F)
    raises_like_torch(lambda m, x: x[1.5:], F)
    raises_like_torch(lambda m, x: x[m.tensor(1.0):], F)
    raises_like_torch(lambda m, x: m.tensor(3)[0], D)
    raises_like_torch(lambda m, x: m.tensor(3)[0:1], D)


def test_tensor_slice_bounds():
    same_as_torch(lambda m, x: x[m.tensor(2):m.tensor(5)], F)
    same_as_torch(lambda m, x: x[m.tensor([3])[0]:], D)


@pytest.mark.parametrize("key", [(slice(1, 4), 2), (Ellipsis, slice(1, 3)), (None, 2), (slice(None), -1),
                                 (2, slice(None, None, 2)), (slice(-2, None), None, slice(1, 2))], ids=str)
def test_multi_dim_basic(key):
    same_as_torch(lambda m, x: x[key], F)


def test_three_d_select_middle():
    x3 = rng.standard_normal((3, 4, 5)).astype(np.float32)
    same_as_torch(lambda m, x: x[:, -1, :], x3)
    same_as_torch(lambda m, x: x[1:, 2, 1::2], x3)


def test_write_through_slice_reaches_base():
    def fn(m, x):
        x = x.clone()
        v = x[2:9:3]
        v[1] = -5
        v.add_(100)
        x[0] = 7
        x[10:12] = m.tensor([1, 2])
        return x, v, v.stride(), v.storage_offset(), x._version
    same_as_torch(fn, D)


def test_base_write_reaches_views_with_varying_starts():
    def fn(m, x):
        x = x.clone()
        views = [x[i:i + 3] for i in range(0, 30, 7)]
        rows = list(x.view(8, 5))
        x.mul_(-1)
        x[4] = 999
        return views, rows[0], rows[7]
    same_as_torch(fn, D)


def test_setitem_loop_like_estimate_loss():
    def fn(m, x):
        losses = m.zeros(25)
        for k in range(25):
            losses[k] = float(k) * 0.5
        return losses, losses.mean()
    same_as_torch(fn, D, grad=False)


def test_autograd_through_slices_and_writes():
    def fn(m, x):
        y = x * 1
        y[1:3] = y[4:6] + 3
        z = y[::2] + y[-1]
        return z
    same_as_torch(fn, F)


def test_slice_of_leaf_in_place_error():
    def fn(m, x):
        x.requires_grad_()
        x[1:3].add_(1)
    raises_like_torch(fn, F)


def test_iteration_rows_share_one_unbind_node():
    def fn(m, x):
        rows = list(x * 2)
        same_node = all(r.grad_fn is rows[0].grad_fn for r in rows)
        return m.stack(rows[::2]), type(rows[0].grad_fn).__name__, same_node
    same_as_torch(fn, F)


def test_iteration_long_tensor_and_errors():
    same_as_torch(lambda m, x: [int(i) for i in x], D)
    same_as_torch(lambda m, x: list(x[:0]), D)
    raises_like_torch(lambda m, x: list(m.tensor(2.0)), F)


def test_stack_grads_and_promotion():
    same_as_torch(lambda m, x: m.stack([x[0], x[3], x[1] * 2], dim=1), F)
    same_as_torch(lambda m, x: m.stack([x[0], x[1].double()]), F)
    same_as_torch(lambda m, x, d: m.stack([x[0], d[:5]]).dtype, F, D)
    same_as_torch(lambda m, x: m.stack([x[0:2], x[2:4]], dim=-1), F)


def test_stack_errors():
    raises_like_torch(lambda m, x: m.stack([x[0], x[1:3]]), F)
    raises_like_torch(lambda m, x: m.stack([]), F)
    raises_like_torch(lambda m, x: m.stack([x, 1]), F)
    raises_like_torch(lambda m, x: m.stack(x), F)
    raises_like_torch(lambda m, x: m.stack([x, x], dim=3), F)


def test_cat_grads_promotion_errors():
    same_as_torch(lambda m, x: m.cat([x[:2], x[3:], x[2:3] * 3]), F)
    same_as_torch(lambda m, x, d: m.cat([x[0], d[:3]]), F, D, grad=False)
    raises_like_torch(lambda m, x: m.cat([x[0], x[:2]]), F)
    raises_like_torch(lambda m, x: m.cat([x[0, 0], x[1, 0]]), F)


def test_item_tolist_index():
    def fn(m, x, d):
        t = x[1, 2]
        return t.item(), x[2:4].tolist(), d[7].item(), [10, 20, 30, 40][d[3]], int(d[5]), float(x[0, 0]), \
            m.tensor(True).item(), m.tensor([2.5], dtype=m.bfloat16).item()
    same_as_torch(fn, F, D, grad=False)
    raises_like_torch(lambda m, x: [1, 2][x[0]], F)
    raises_like_torch(lambda m, x: [1, 2][x[:2]], D)
    raises_like_torch(lambda m, x: x.item(), F)


def test_narrow_select_split_varying():
    def fn(m, x):
        return [x.narrow(0, i, 2) for i in range(5)] + [x.select(1, -i) for i in range(1, 5)] + \
            list(x.split(3)) + list(x.chunk(2, dim=1))
    same_as_torch(fn, F)


def test_new_start_positions_add_no_programs():
    data = torchlike.arange(1000)
    data[5:13]  # warm
    before = torchlike.cache_info()["programs"]
    for i in range(50):
        data[i:i + 8]
        data[i]
    assert torchlike.cache_info()["programs"] - before <= 2


def test_in_place_write_after_mul_by_a_number_is_no_error_like_torch():
    """x * 3 saves only the number (torch's mul.Scalar), so writing to x afterwards is fine at backward;
    x * x saves x and the same write is torch's in-place error."""
    def scalar(m):
        y = m.arange(8.0, requires_grad=True).clone()
        z = y[4:6] * 3
        y.add_(1)
        z.sum().backward()
        return z
    same_as_torch(scalar, grad=False)

    def tensor(m):
        y = m.arange(8.0, requires_grad=True).clone()
        z = y[4:6] * y[4:6]
        y.add_(1)
        z.sum().backward()
    raises_like_torch(tensor, match="modified by an inplace operation")
