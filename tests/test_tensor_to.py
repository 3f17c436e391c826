"""Tensor.to overloads (dtype/device/tensor/copy/non_blocking forms, bad combinations) and the dtype
conversion methods, compared with torch."""
import re

import pytest
import torch

import torchlike
from conftest import assert_close_values, raises_like_torch, to_tl, torch_or_tl


# --- Tensor.to -------------------------------------------------------------------------------
@pytest.mark.parametrize("args,kw", [
    ((torch.float64, True, True), {}), ((torch.float64, False, False), {}),
    (("cpu", torch.float64, True, False), {}), (("cpu", None, False, True), {}),
    ((), dict(dtype=torch.int64)), ((), dict(device="cpu", dtype=torch.int64)),
    ((None,), {}), ((torch.float32, False, True), {}), ((torch.float64,), dict(copy=True, non_blocking=True)),
])
def test_to_overloads(args, kw):
    x = torch.randn(2, 3)
    conv = lambda a: torchlike.float64 if a is torch.float64 else torchlike.float32 if a is torch.float32 else \
        torchlike.int64 if a is torch.int64 else a
    r = x.to(*args, **kw)
    q = to_tl(x).to(*[conv(a) for a in args], **{k: conv(v) for k, v in kw.items()})
    assert str(q.dtype) == str(r.dtype)
    assert_close_values(q, r)


def test_to_other_tensor_and_copy():
    x, o = torch.randn(3), torch.randn(2, dtype=torch.float64)
    xt = to_tl(x)
    assert xt.to(to_tl(o), True, False).dtype is torchlike.float64
    assert (x.to(torch.float32, False, True) is x) == (xt.to(torchlike.float32, False, True) is xt)
    assert (x.to(torch.float32) is x) == (xt.to(torchlike.float32) is xt)


@pytest.mark.parametrize("args", [(torch.float64, 1), (torch.float64, None), ("x",), ("cpu", torch.float64, 1)])
def test_to_bad_combinations(args):
    x = torch.randn(2)
    conv = lambda a: torchlike.float64 if a is torch.float64 else a
    if args == ("x",):
        pytest.raises(RuntimeError, x.to, *args)
        pytest.raises((RuntimeError, TypeError), to_tl(x).to, *args)
        return
    with pytest.raises(Exception) as et:
        x.to(*args)
    raises_like_torch(torch_or_tl(lambda: x.to(*args), lambda: to_tl(x).to(*[conv(a) for a in args])),
                      match="^" + re.escape(str(et.value).split(" but")[0]))


def test_to_too_many_positional():
    x = torch.randn(2)
    raises_like_torch(torch_or_tl(lambda: x.to("cpu", torch.float64, True, True, True),
                                  lambda: to_tl(x).to("cpu", torchlike.float64, True, True, True)))


@pytest.mark.parametrize("name", ["float", "double", "half", "bfloat16", "int", "long", "bool", "byte", "char",
                                  "short", "cfloat", "cdouble"])
def test_dtype_methods_memory_format(name):
    x = torch.randn(2, 3)
    r = getattr(x, name)(memory_format=torch.preserve_format)
    q = getattr(to_tl(x), name)(memory_format=None)
    assert str(q.dtype) == str(r.dtype)
