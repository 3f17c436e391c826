"""torch's argument parser takes numpy's keyword names, ``axis=`` for ``dim=`` and ``keepdims=`` for
``keepdim=``, on functions and methods (torchmetrics' KLDivergence calls ``sum(axis=...)``)."""
import pytest

import torchlike
from conftest import assert_same, to_tl, torch

FUNCS = ["sum", "mean", "amax", "amin", "std", "var", "argmax", "argmin", "cumsum", "cumprod", "softmax",
         "log_softmax", "logsumexp", "prod", "all", "any", "nansum", "nanmean", "count_nonzero", "squeeze",
         "unsqueeze", "argsort"]


@pytest.mark.parametrize("name", FUNCS)
def test_axis_on_functions_and_methods(name):
    x = torch.rand(3, 4) + 0.5
    if name in ("all", "any"):
        x = x > 0.8
    lx = to_tl(x)
    assert_same(getattr(torchlike, name)(lx, axis=1), getattr(torch, name)(x, axis=1))
    assert_same(getattr(lx, name)(axis=0), getattr(x, name)(axis=0))


@pytest.mark.parametrize("name", ["sum", "mean", "amax", "std", "logsumexp", "prod", "all"])
def test_keepdims(name):
    x = torch.rand(3, 4)
    lx = to_tl(x)
    assert_same(getattr(torchlike, name)(lx, axis=1, keepdims=True), getattr(torch, name)(x, axis=1, keepdims=True))
    assert_same(getattr(lx, name)(dim=0, keepdims=True), getattr(x, name)(dim=0, keepdims=True))


def test_joins_take_axis():
    a, b = torch.rand(2, 3), torch.rand(2, 3)
    assert_same(torchlike.cat([to_tl(a), to_tl(b)], axis=1), torch.cat([a, b], axis=1))
    assert_same(torchlike.stack([to_tl(a), to_tl(b)], axis=1), torch.stack([a, b], axis=1))


def test_both_names_is_torchs_error():
    x = torch.ones(2, 3)
    for lib, t in ((torch, x), (torchlike, to_tl(x))):
        with pytest.raises(TypeError, match="unexpected keyword argument 'axis'"):
            lib.sum(t, dim=1, axis=1)
