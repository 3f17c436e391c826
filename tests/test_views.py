"""Views alias their root: in-place writes through any alias are visible through all of them."""
import numpy as np
import pytest
import torch

import torchlike
from conftest import assert_same


def both(shape=(4, 5)):
    a = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
    return torch.tensor(a), torchlike.tensor(a)


def test_chain_of_views_write_visible_in_base_and_siblings():
    for_torch, ours = both()
    results = []
    for x in (for_torch, ours):
        v1 = x.t()                    # (5, 4)
        v2 = v1.narrow(0, 1, 3)       # rows 1..3 of the transpose
        v3 = v2.select(1, 2)          # column 2
        sib = x.narrow(1, 1, 3)
        v3.mul_(-1)
        results.append((x.clone(), sib.clone(), v1.clone()))
    for o, t in zip(results[1], results[0]):
        assert_same(o, t)


def test_inplace_on_base_visible_through_views():
    t, o = both()
    vt, vo = t.t().diagonal(), o.t().diagonal()
    t.add_(100)
    o.add_(100)
    assert_same(vo, vt)


def test_strides_offsets_contiguity_match_torch():
    t, o = both((3, 4, 5))
    cases = [lambda x: x.t() if x.ndim == 2 else x.transpose(0, 2), lambda x: x.narrow(2, 1, 3),
             lambda x: x.select(1, 2), lambda x: x.permute(2, 0, 1), lambda x: x.unsqueeze(1),
             lambda x: x.diagonal(0, 1, 2), lambda x: x.unfold(2, 2, 1), lambda x: x.expand(2, 3, 4, 5),
             lambda x: x.view(12, 5), lambda x: x.transpose(0, 1).narrow(0, 1, 2)]
    for f in cases:
        a, b = f(t), f(o)
        assert b.stride() == a.stride()
        assert b.storage_offset() == a.storage_offset()
        assert b.is_contiguous() == a.is_contiguous()
        assert b._base is o


def test_view_of_noncontiguous_raises_and_reshape_copies():
    t, o = both()
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        t.t().view(20)
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        o.t().view(20)
    r = o.t().reshape(20)
    r.fill_(0)
    assert o.sum().item() != 0  # reshape of a non-viewable tensor is a copy


def test_expanded_view_write_raises():
    for lib in (torch, torchlike):
        e = lib.ones(3).expand(2, 3)
        with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
            e.add_(1)


def test_as_strided_and_split_views():
    t, o = both((4, 4))
    assert_same(o.as_strided((2, 2), (1, 4), 1), t.as_strided((2, 2), (1, 4), 1))
    for a, b in zip(t.split(3, 1), o.split(3, 1)):
        assert_same(b, a)
    o.chunk(2, 0)[1].zero_()
    t.chunk(2, 0)[1].zero_()
    assert_same(o, t)
    o.unbind(1)[0].fill_(7)
    t.unbind(1)[0].fill_(7)
    assert_same(o, t)


def test_real_imag_views_write_back():
    data = np.array([1 + 2j, 3 - 1j], dtype=np.complex64)
    t, o = torch.tensor(data), torchlike.tensor(data)
    t.real.mul_(2)
    o.real.mul_(2)
    t.imag.add_(1)
    o.imag.add_(1)
    assert_same(o, t)


def test_detach_shares_storage_and_version():
    o = torchlike.ones(3)
    d = o.detach()
    d.add_(1)
    assert o.tolist() == [2.0, 2.0, 2.0]
    assert o._version == d._version == 1


def test_contiguous_and_clone():
    t, o = both()
    a, b = t.t().contiguous(), o.t().contiguous()
    assert b.is_contiguous() and b._base is None
    assert_same(b, a)
    c = o.clone()
    c.fill_(0)
    assert o.sum().item() == t.sum().item()
