"""Memory formats: a tensor converted to channels_last / channels_last_3d (``.to``, ``.contiguous``, ``clone``,
``empty``, the ``*_like`` factories, ``Module.to``) answers ``is_contiguous`` as torch's does, any other
tensor what its strides say; values never change (XLA picks physical layouts, docs/differences.md)."""
import numpy as np
import pytest
import torch

import torchlike

CASES = {
    "plain_cl": lambda m, x: x.is_contiguous(memory_format=m.channels_last),
    "to_cl": lambda m, x: x.to(memory_format=m.channels_last).is_contiguous(),
    "to_cl_cl": lambda m, x: x.to(memory_format=m.channels_last).is_contiguous(memory_format=m.channels_last),
    "to_dtype_cl": lambda m, x: x.to(m.float64, memory_format=m.channels_last).is_contiguous(
        memory_format=m.channels_last),
    "contiguous_cl": lambda m, x: x.contiguous(memory_format=m.channels_last).is_contiguous(
        memory_format=m.channels_last),
    "back_to_rows": lambda m, x: x.to(memory_format=m.channels_last).contiguous().is_contiguous(),
    "back_to_rows_cl": lambda m, x: x.to(memory_format=m.channels_last).contiguous().is_contiguous(
        memory_format=m.channels_last),
    "empty_like": lambda m, x: m.empty_like(x.to(memory_format=m.channels_last)).is_contiguous(),
    "zeros_like_rows": lambda m, x: m.zeros_like(x.to(memory_format=m.channels_last),
                                                 memory_format=m.contiguous_format).is_contiguous(),
    "clone_preserve": lambda m, x: x.to(memory_format=m.channels_last).clone().is_contiguous(
        memory_format=m.channels_last),
    "clone_rows": lambda m, x: x.to(memory_format=m.channels_last).clone(
        memory_format=m.contiguous_format).is_contiguous(),
    "empty_cl": lambda m, x: m.empty(*x.shape, memory_format=m.channels_last).is_contiguous(
        memory_format=m.channels_last),
    "permuted_view": lambda m, x: x.permute(0, 2, 3, 1).contiguous().permute(0, 3, 1, 2).is_contiguous(
        memory_format=m.channels_last),
    "transposed_view": lambda m, x: x.transpose(1, 2).is_contiguous(),
}


@pytest.mark.parametrize("shape", [(2, 3, 4, 5), (2, 1, 4, 5), (2, 3, 1, 1), (1, 3, 1, 1)])
@pytest.mark.parametrize("case", sorted(CASES))
def test_is_contiguous_matches_torch(case, shape):
    want = CASES[case](torch, torch.zeros(shape))
    assert CASES[case](torchlike, torchlike.zeros(shape)) == want


def test_channels_last_3d_and_rank_errors():
    for m in (torch, torchlike):
        x = m.zeros(2, 3, 4, 5, 6).to(memory_format=m.channels_last_3d)
        assert x.is_contiguous(memory_format=m.channels_last_3d) and not x.is_contiguous()
        assert not m.zeros(2, 3, 4, 5).is_contiguous(memory_format=m.channels_last_3d)
        with pytest.raises(RuntimeError, match="required rank 4 tensor to use channels_last format"):
            m.zeros(2, 3).contiguous(memory_format=m.channels_last)


def test_module_to_channels_last_tags_4d_parameters_and_keeps_values():
    got = []
    for m in (torch, torchlike):
        m.manual_seed(0)
        conv = m.nn.Conv2d(3, 8, 3)
        w = conv.weight.detach().clone()
        conv.to(memory_format=m.channels_last)
        assert conv.weight.is_contiguous(memory_format=m.channels_last) and conv.bias.is_contiguous()
        assert m.equal(conv.weight.detach(), w)
        x = m.arange(2 * 3 * 6 * 6, dtype=m.float32).reshape(2, 3, 6, 6).to(memory_format=m.channels_last)
        y = conv(x)
        y.sum().backward()
        got.append((y.detach().numpy(), conv.weight.grad.numpy()))
        conv.to(memory_format=m.contiguous_format)
        assert conv.weight.is_contiguous()
    np.testing.assert_allclose(got[1][0], got[0][0], rtol=1e-5, atol=1e-4)
    np.testing.assert_allclose(got[1][1], got[0][1], rtol=1e-5, atol=1e-3)
