"""The interop and autocast entry points issue 11 names that other tests reach only indirectly, each against
torch: ``Tensor.__dlpack_device__``, ``torch.utils.dlpack.to_dlpack/from_dlpack`` both ways (torch <->
torchlike through the DLPack protocol), and ``torch.amp.autocast`` / ``torch.autocast`` as the same context."""
import numpy as np
import pytest

import torchlike
from conftest import raises_like_torch, torch


def test_dlpack_device_matches_torch():
    assert torchlike.ones(2).__dlpack_device__() == torch.ones(2).__dlpack_device__()


@pytest.mark.parametrize("dt", ["float32", "int64", "bfloat16", "bool"])
def test_utils_dlpack_round_trips_with_torch(dt):
    x = np.arange(6).reshape(2, 3)
    t = torch.tensor(x).to(getattr(torch, dt))
    # torch -> torchlike: from a producer object and from torch's to_dlpack capsule
    a = torchlike.utils.dlpack.from_dlpack(t)
    assert str(a.dtype) == str(t.dtype) and a.tolist() == t.tolist()
    # torchlike -> torch
    l = torchlike.tensor(x).to(getattr(torchlike, dt))  # noqa: E741
    b = torch.utils.dlpack.from_dlpack(torchlike.utils.dlpack.to_dlpack(l))
    assert str(b.dtype) == str(l.dtype) and b.tolist() == l.tolist()
    c = torch.from_dlpack(l)
    assert str(c.dtype) == str(l.dtype) and c.tolist() == l.tolist()


@pytest.mark.parametrize("dt", ["float32", "int64", "bool"])
def test_from_dlpack_reads_capsules_like_torch(dt):
    # a legacy capsule (to_dlpack's result) is consumed once, by either framework
    x = np.arange(6).reshape(2, 3)
    for src in (torch.tensor(x).to(getattr(torch, dt)), torchlike.tensor(x).to(getattr(torchlike, dt))):
        mod = torch if isinstance(src, torch.Tensor) else torchlike
        cap = mod.utils.dlpack.to_dlpack(src)
        a = torchlike.from_dlpack(cap)
        assert str(a.dtype) == str(src.dtype) and a.tolist() == src.tolist()
        with pytest.raises(RuntimeError) as ours:
            torchlike.utils.dlpack.from_dlpack(cap)
        with pytest.raises(RuntimeError) as theirs:
            torch.utils.dlpack.from_dlpack(cap)
        assert str(ours.value) == str(theirs.value)


def test_exporting_a_tensor_that_requires_grad_raises_like_torch():
    for make in (lambda m: m.ones(2, requires_grad=True), lambda m: m.ones(2, requires_grad=True) * 2):
        with pytest.raises(BufferError) as theirs:
            np.from_dlpack(make(torch))
        with pytest.raises(BufferError) as ours:
            np.from_dlpack(make(torchlike))
        assert str(ours.value) == str(theirs.value)
        with pytest.raises(BufferError):
            torch.from_dlpack(make(torchlike))
    assert np.from_dlpack(torchlike.ones(2, requires_grad=True).detach()).tolist() == [1.0, 1.0]


@pytest.mark.parametrize("make", ["amp.autocast", "autocast"])
def test_amp_autocast_paths_cast_like_torch(make):
    got = []
    for lib in (torch, torchlike):
        ctx = lib.amp.autocast if make == "amp.autocast" else lib.autocast
        with ctx("cpu", dtype=lib.bfloat16):
            mm = lib.mm(lib.ones(2, 2), lib.ones(2, 2))
            sm = lib.softmax(lib.ones(2, 2, dtype=lib.bfloat16), -1)
            with ctx("cpu", enabled=False):
                off = lib.mm(lib.ones(2, 2), lib.ones(2, 2))
        got.append((str(mm.dtype), str(sm.dtype), str(off.dtype), lib.is_autocast_enabled("cpu")))
    assert got[1] == got[0]


@pytest.mark.parametrize("value", [None, -7, "abc", np.ones(2)], ids=["none", "int", "str", "ndarray"])
def test_to_dlpack_of_no_tensor_raises_like_torch(value):
    """torch's _to_dlpack is a C function: its parser's TypeError, not an AttributeError (nor numpy's capsule)."""
    raises_like_torch(lambda m: m.to_dlpack(value))
    raises_like_torch(lambda m: m.utils.dlpack.to_dlpack(value))
