"""Edge cases from the reference inputs of torch's OpInfos (samples past the default conformance cap), each
against torch: two Python numbers to mul, diff with n=0, complex() of infinite parts, a single sample's
multi_margin_loss shape, a 0-d vector_norm over its dim."""
import numpy as np
import pytest
import torch

import torchlike
from conftest import same_as_torch

INF, NAN = float("inf"), float("nan")


@pytest.mark.parametrize("a,b", [(2.0, 3.0), (2, 3), (True, False), (2, 0.5), (1.5j, 2)])
def test_mul_of_two_numbers_is_a_0d_tensor(a, b):
    theirs, ours = torch.mul(a, b), torchlike.mul(a, b)
    assert str(ours.dtype) == str(theirs.dtype) and tuple(ours.shape) == () and ours.item() == theirs.item()


def test_diff_with_n_0_returns_a_copy_of_the_input():
    same_as_torch(lambda m, x, p: m.diff(x, n=0, dim=0, prepend=p, append=p), np.ones((3, 2)), np.zeros((2, 2)))


def test_complex_of_infinite_and_nan_parts():
    re = np.array([INF, INF, INF, -INF, -INF, -INF, NAN, NAN, NAN, 1.0])
    im = np.array([INF, -INF, NAN] * 3 + [-INF])
    for dt in (np.float32, np.float64):
        theirs = torch.complex(torch.tensor(re.astype(dt)), torch.tensor(im.astype(dt)))
        ours = torchlike.complex(torchlike.tensor(re.astype(dt)), torchlike.tensor(im.astype(dt)))
        assert str(ours.dtype) == str(theirs.dtype)
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


@pytest.mark.parametrize("target", [[1], 1])
def test_multi_margin_loss_of_one_sample_has_the_targets_shape(target):
    same_as_torch(lambda m, x: m.nn.functional.multi_margin_loss(x, m.tensor(target), margin=0.5, reduction="none"),
                  np.array([-8.5, -1.75, -4.25, -2.5, -7.75]))


@pytest.mark.parametrize("shape", [(0, 2), (0, 4, 3)])
def test_group_norm_of_an_empty_batch(shape):
    c = shape[1]
    same_as_torch(lambda m, x, w, b: m.nn.functional.group_norm(x, 2, w, b), np.zeros(shape, np.float32),
                  np.ones(c, np.float32), np.zeros(c, np.float32))
    same_as_torch(lambda m, x: m.native_group_norm(x, None, None, 0, c, int(np.prod(shape[2:])), 2, 1e-5),
                  np.zeros(shape, np.float32))


@pytest.mark.parametrize("name", ["__mul__", "__rmul__"])
def test_mul_dunders_still_refuse_a_number_as_self(name):
    # torch.mul(2, 3) is a tensor, but Tensor.__mul__(2, 3) is a descriptor misuse in torch (an error input)
    for m in (torch, torchlike):
        with pytest.raises(TypeError, match=f"descriptor '{name}' for 'torch._C.TensorBase' objects doesn't apply"):
            getattr(m.Tensor, name)(2, 3)
    x = torchlike.tensor([1.0, 2.0])
    assert (x * 3).tolist() == (3 * x).tolist() == [3.0, 6.0]


OPERATORS = [f"__{p}{op}__" for op in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "and",
                                       "or", "xor", "lshift", "rshift") for p in ("", "r", "i")] + \
    ["__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__"]


def _called_through_the_class(m, name, self):
    f = getattr(m.Tensor, name, None)
    if f is None:
        return "missing"
    try:
        r = f(self, m.tensor([3, 4]))
    except Exception as e:  # noqa: BLE001 - the exception is the outcome compared
        return type(e).__name__, str(e)
    return "NotImplemented" if r is NotImplemented else "a value"


@pytest.mark.parametrize("name", OPERATORS)
def test_operators_called_through_the_class_with_a_number_as_self(name):
    # torch's OpInfo reference inputs call e.g. Tensor.__rsub__(5.1, t): torch's Python operators return
    # NotImplemented (rsub, pow, ipow, rmatmul), its C ones raise the descriptor error
    assert _called_through_the_class(torchlike, name, 5) == _called_through_the_class(torch, name, 5)
    assert _called_through_the_class(torchlike, name, 5.1) == _called_through_the_class(torch, name, 5.1)


def test_angle_of_real_nan_is_nan_with_gradient_0():
    same_as_torch(lambda m, x: m.angle(x), np.array([NAN, -0.0, 0.0, -INF, -1.0, 2.0], np.float32), grad=False)
    same_as_torch(lambda m, x: m.angle(x), np.array([NAN, INF, -INF, -1.0, 2.0], np.float64))


@pytest.mark.parametrize("fn", ["gammainc", "gammaincc"])
def test_incomplete_gamma_at_zero_and_infinite_a(fn):
    # (and past a = 1000, torch's asymptotic values: JAX's series never ended in float64 for a = 1e20)
    a = np.array([INF, INF, INF, 1.0, NAN, 2.0, 0.0, 0.0, -0.0, 0.0, 1e20, 1e20, 4988429.0, 1001.2, 5000.0, 2000.0],
                 np.float64)
    x = np.array([1.0, INF, 0.0, INF, 1.0, 1e30, 0.0, 0.25, 0.001, INF, 1e20, 501.0, 4988429.0, 1001.2, 6000.0,
                  1990.0], np.float64)
    same_as_torch(lambda m, a, x: getattr(m.special, fn)(a, x), a, x, grad=False)
    same_as_torch(lambda m, a, x: getattr(m.special, fn)(a, x), a.astype(np.float32), x.astype(np.float32),
                  grad=False)


def test_histogramdd_of_an_empty_input_has_edges_0_to_1():
    same_as_torch(lambda m, x: m.histogramdd(x, bins=[1, 2]), np.zeros((0, 2), np.float32), grad=False)
    same_as_torch(lambda m, x: m.histogramdd(x, (1, 1, 1, 1, 1)), np.zeros((5, 0, 5), np.float32), grad=False)


@pytest.mark.parametrize("seq,vals", [((0, 0), (0, 0)), ((0, 3), (0, 2)), ((2, 0), (2, 2))])
def test_searchsorted_with_an_empty_batch_or_sequence(seq, vals):
    same_as_torch(lambda m, s, v: m.searchsorted(s, v), np.zeros(seq, np.float32), np.zeros(vals, np.float32),
                  grad=False)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("beta", [12.0, 88.0, 90.0, 100.0, 710.0])
def test_kaiser_window_overflows_as_torchs(beta, dtype):
    # torch evaluates the Bessel function in the window's dtype: 0 or NaN once exp(x) overflows
    want = torch.signal.windows.kaiser(64, beta=beta, sym=False, dtype=getattr(torch, dtype)).numpy()
    got = torchlike.signal.windows.kaiser(64, beta=beta, sym=False, dtype=getattr(torchlike, dtype)).numpy()
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-4, atol=1e-7, equal_nan=True)
