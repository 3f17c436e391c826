"""torchlike.result_type / promote_types equal torch's over all dtype pairs and scalar kinds."""
import itertools

import pytest
import torch
import warnings

warnings.filterwarnings('ignore', message='ComplexHalf')

import torchlike
from conftest import raises_like_torch

NAMES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64",
         "complex64", "complex128"]
SCALARS = [True, 3, 2.5, 1 + 2j]


def _tl(name, shape):
    return torchlike.zeros(shape, dtype=getattr(torchlike, name))


def _th(name, shape):
    return torch.zeros(shape, dtype=getattr(torch, name))


@pytest.mark.parametrize("a,b", list(itertools.product(NAMES, NAMES)))
def test_promote_types(a, b):
    assert str(torchlike.promote_types(getattr(torchlike, a), getattr(torchlike, b))) == \
        str(torch.promote_types(getattr(torch, a), getattr(torch, b)))


@pytest.mark.parametrize("a,b", list(itertools.product(NAMES, NAMES)))
@pytest.mark.parametrize("shapes", [((2,), ()), ((), (2,)), ((), ())])
def test_result_type_tensors(a, b, shapes):
    sa, sb = shapes
    assert str(torchlike.result_type(_tl(a, sa), _tl(b, sb))) == str(torch.result_type(_th(a, sa), _th(b, sb)))


@pytest.mark.parametrize("a", NAMES)
@pytest.mark.parametrize("s", SCALARS)
@pytest.mark.parametrize("shape", [(2,), ()])
def test_result_type_scalar(a, s, shape):
    assert str(torchlike.result_type(_tl(a, shape), s)) == str(torch.result_type(_th(a, shape), s))


@pytest.mark.parametrize("default", ["float32", "float64"])
@pytest.mark.parametrize("a", ["int64", "bool", "float16"])
@pytest.mark.parametrize("s", SCALARS)
def test_result_type_follows_default_dtype(default, a, s):
    torchlike.set_default_dtype(getattr(torchlike, default))
    torch.set_default_dtype(getattr(torch, default))
    try:
        assert str(torchlike.result_type(_tl(a, (2,)), s)) == str(torch.result_type(_th(a, (2,)), s))
    finally:
        torchlike.set_default_dtype(torchlike.float32)
        torch.set_default_dtype(torch.float32)


@pytest.mark.parametrize("a,b", list(itertools.product(NAMES, NAMES)))
def test_binary_op_result_dtype(a, b):
    x, y = _tl(a, (2,)) , _tl(b, ())
    if a == "bool" and b == "bool":
        return  # sub on bools raises in both; covered below
    expected = (_th(a, (2,)) * _th(b, ())).dtype
    if expected == torch.complex32:  # no complex32 arrays in JAX: docs/differences.md
        assert torchlike.result_type(x, y) is torchlike.complex32
        assert (x * y).dtype is torchlike.complex64
        return
    assert str((x * y).dtype) == str(expected)


def test_bool_sub_raises_like_torch():
    with pytest.raises(RuntimeError, match="Subtraction, the `-` operator, with two bool tensors"):
        torch.ones(2, dtype=torch.bool) - torch.ones(2, dtype=torch.bool)
    with pytest.raises(RuntimeError, match="Subtraction, the `-` operator, with two bool tensors"):
        torchlike.ones(2, dtype=torchlike.bool) - torchlike.ones(2, dtype=torchlike.bool)


def test_int64_default_and_real_float64():
    assert torchlike.arange(3).dtype is torchlike.int64
    assert torchlike.tensor([1, 2]).dtype is torchlike.int64
    x = torchlike.tensor([1.0], dtype=torchlike.float64)
    assert x._value.dtype.name == "float64"
    assert (torchlike.tensor([2 ** 40]) * 2).item() == 2 ** 41


def test_can_cast_matches_torch():
    for a, b in itertools.product(NAMES, NAMES):
        assert torchlike.can_cast(getattr(torchlike, a), getattr(torchlike, b)) == \
            torch.can_cast(getattr(torch, a), getattr(torch, b)), (a, b)


def test_finfo_iinfo():
    for n in ["float16", "bfloat16", "float32", "float64"]:
        a, b = torchlike.finfo(getattr(torchlike, n)), torch.finfo(getattr(torch, n))
        assert (a.eps, a.max, a.min, a.tiny, a.bits) == (b.eps, b.max, b.min, b.tiny, b.bits)
    for n in ["uint8", "int8", "int16", "int32", "int64"]:
        a, b = torchlike.iinfo(getattr(torchlike, n)), torch.iinfo(getattr(torch, n))
        assert (a.max, a.min, a.bits) == (b.max, b.min, b.bits)
    assert torchlike.float32.itemsize == torch.float32.itemsize


FINFO = ["float16", "bfloat16", "float32", "float64", "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz",
         "float8_e5m2fnuz", "complex64", "complex128"]
IINFO = ["uint8", "int8", "int16", "int32", "int64", "uint16", "uint32", "uint64"]


def test_finfo_iinfo_reprs_and_resolution_match_torch():
    """resolution is 10 ** -digits10 in double (0.001 for float16, not ml_dtypes' 0.0010004); iinfo prints its
    limits as %g (min=-2.14748e+09), as torch's repr does."""
    for n in FINFO:
        a, b = torchlike.finfo(getattr(torchlike, n)), torch.finfo(getattr(torch, n))
        assert (repr(a), str(a), a.resolution, type(a.resolution)) == (repr(b), str(b), b.resolution,
                                                                      type(b.resolution)), n
    for n in IINFO:
        a, b = torchlike.iinfo(getattr(torchlike, n)), torch.iinfo(getattr(torch, n))
        assert (repr(a), str(a)) == (repr(b), str(b)), n


def test_iinfo_of_bool_raises_like_torch():
    raises_like_torch(lambda m: m.iinfo(m.bool))
    assert torchlike.float32.is_floating_point and not torchlike.int64.is_floating_point
