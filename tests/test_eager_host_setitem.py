"""``t[k] = number`` into a host tensor (a small CPU tensor still held as numpy, ``Tensor._from_host``) writes a
copy of its array on the host, no program (not timed).  Compared with real torch: values, dtypes, versions,
views made before and after the writes, the numpy() of a written tensor, out-of-range numbers, errors."""
import pytest

from tests.conftest import raises_like_torch, same_as_torch


@pytest.mark.parametrize("dt", ["float32", "float64", "int64"])
@pytest.mark.parametrize("value", [1.5, -2, 0, True, 2 ** 40, float("inf"), float("nan"), 1e300, -1e39])
def test_host_set_number_like_torch(dt, value):
    if dt == "float32" and abs(value) > 1e38 and abs(value) != float("inf"):
        raises_like_torch(lambda m: m.zeros(6).__setitem__(2, value))
        raises_like_torch(lambda m: (m.zeros(6) + 0).__setitem__(2, value))  # a device tensor
        return
    if dt == "int64" and type(value) is not int:
        pytest.skip("int64 rows take the general path for non-int numbers (covered by test_eager_ops_speed_creation)")

    def fn(m, value=value):
        losses = m.zeros(6, dtype=getattr(m, dt))
        v0 = losses._version
        losses[2] = value
        losses[-1] = value
        r = losses.clone()
        losses[0] = 3
        return r, losses, losses._version - v0, losses.dtype, losses.sum()
    same_as_torch(fn, grad=False, quiet=True)


def test_host_set_number_then_views_and_ops_like_torch():
    def fn(m):
        t = m.tensor([[1.0, 2.0], [3.0, 4.0]])
        t[0] = 7.0  # a whole row of a 2-d host tensor
        v = t.view(-1)  # a view: the tensor moves to the device
        t[1] = -1.0  # a write after the view: seen through it
        u = m.arange(5)
        u[4] = 40
        w = u + 1  # a host op on the written tensor
        losses = m.zeros(4)
        for k in range(4):
            losses[k] = k * 0.25
        return t, v, u, w, losses.mean(), losses.numpy().tolist()
    same_as_torch(fn, grad=False)


def test_host_set_number_errors_like_torch():
    raises_like_torch(lambda m: m.zeros(3).__setitem__(3, 1.0))
    raises_like_torch(lambda m: m.zeros(3).__setitem__(-4, 1.0))
    raises_like_torch(lambda m: m.zeros(3, requires_grad=True).__setitem__(0, 1.0))
    raises_like_torch(lambda m: m.tensor(3.0).__setitem__(0, 1.0))


def test_host_set_number_keeps_earlier_numpy_like_torch_values():
    def fn(m):
        t = m.zeros(3)
        t[1] = 2.0
        a = t.numpy().copy()
        t[2] = 5.0
        return a.tolist(), t
    same_as_torch(fn, grad=False)
