"""complex32 (``torch.chalf``): JAX has no complex32, so torchlike stores it as complex64 with float16-rounded
parts (docs/differences.md, "complex32").  These tests pin what matches torch 2.13's CPU complex32: the dtype
objects and promotion, and the values where a complex32 tensor is made (compared after ``.to(complex64)``,
since torchlike's tensors read complex64)."""
import pytest
import torch

import torchlike
from conftest import same_as_torch

_V = [0.1 + 0.2j, 3.3 - 4.1j, 70000 + 1j, 1e-8 - 1j, float("nan") + 0.5j]


def test_dtype_objects_like_torch():
    for m in (torch, torchlike):
        assert m.chalf is m.complex32
    assert repr(torchlike.complex32) == repr(torch.complex32) == "torch.complex32"
    assert torchlike.complex32.is_complex and not torchlike.complex32.is_floating_point
    assert repr(torchlike.complex32.to_real()) == repr(torch.complex32.to_real()) == "torch.float16"
    assert repr(torchlike.float16.to_complex()) == repr(torch.float16.to_complex()) == "torch.complex32"


@pytest.mark.parametrize("other", ["float16", "float32", "float64", "bfloat16", "int64", "bool", "complex64",
                                   "complex128", "complex32"])
def test_promotion_like_torch(other):
    got = torchlike.promote_types(torchlike.complex32, getattr(torchlike, other))
    assert repr(got) == repr(torch.promote_types(torch.complex32, getattr(torch, other)))


@pytest.mark.parametrize("make", [
    lambda m: m.tensor(_V, dtype=m.chalf),
    lambda m: m.tensor([[0.1, 1.0], [2.5, 65504.0]], dtype=m.complex32),
    lambda m: m.full((3,), 0.1 + 0.2j, dtype=m.chalf),
    lambda m: m.full((2,), 3, dtype=m.chalf),
    lambda m: m.ones(2, dtype=m.chalf),
    lambda m: m.zeros(2, dtype=m.chalf),
    lambda m: m.tensor(_V).chalf(),
    lambda m: m.tensor(_V, dtype=m.complex128).to(m.chalf),
    lambda m: m.tensor([0.1, 3.3, 1e5]).chalf(),
    lambda m: m.view_as_complex(m.tensor([[0.1, 0.2], [3.0, -4.0]], dtype=m.half)),
    lambda m: m.complex(m.tensor([0.1], dtype=m.half), m.tensor([0.2], dtype=m.half)),
    lambda m: m.tensor(_V[:2]).chalf() + m.tensor(_V[:2]).chalf(),
])
def test_made_values_like_torch(make):
    same_as_torch(lambda m: make(m).to(m.complex64), grad=False, rtol=0, atol=0, quiet=True)


@pytest.mark.parametrize("fn", [
    lambda m: m.view_as_real(m.tensor(_V[:2]).chalf()).float(),
    lambda m: m.tensor(_V[:2]).chalf().real.float(),
    lambda m: m.tensor(_V[:2]).chalf().tolist(),
    lambda m: m.tensor(_V[:2]).chalf() == m.tensor(_V[:2]),
    lambda m: m.tensor(_V[:2]).chalf().to(m.int64),
])
def test_reads_like_torch(fn):
    same_as_torch(fn, grad=False, rtol=0, atol=0, quiet=True)

