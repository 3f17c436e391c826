"""The shared comparators in conftest: a success-path comparison fails when either side raises or when it
compared nothing; an error-path comparison fails when torch does not raise."""
import numpy as np
import pytest

from conftest import raises_like_torch, same_as_torch

X = np.arange(6, dtype=np.float32).reshape(2, 3)


def test_same_as_torch_compares_values_and_grads():
    r = same_as_torch(lambda m, x: (x * 2).sum(0), X)
    assert tuple(r.shape) == (3,)
    same_as_torch(lambda m, x: m.max(x, 1), X)  # structseq: type name, fields and items
    same_as_torch(lambda m, x: x.sum().item(), X, grad=False)  # python scalar


def test_same_as_torch_fails_when_both_raise():
    with pytest.raises(AssertionError, match="torch raised"):
        same_as_torch(lambda m, x: m.no_such_op(x), X)


def test_same_as_torch_fails_when_nothing_compared():
    with pytest.raises(AssertionError, match="compared nothing"):
        same_as_torch(lambda m, x: None, X)


def test_same_as_torch_fails_on_dtype_difference():
    with pytest.raises(AssertionError):
        same_as_torch(lambda m, x: x.double() if m.__name__ == "torch" else x, X, grad=False)


def test_raises_like_torch_requires_torch_to_raise():
    with pytest.raises(AssertionError, match="torch did not raise"):
        raises_like_torch(lambda m, x: x + 1, X)


def test_raises_like_torch_matches_type_and_message():
    e = raises_like_torch(lambda m, x: x.reshape(4, 4), X)
    assert isinstance(e, RuntimeError)
    raises_like_torch(lambda m, x: m.cat([x, x.sum()]), X, match="zero-dimensional")
