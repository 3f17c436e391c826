"""The copy semantics docs/differences.md states for the interop conversions: where torchlike shares memory
the way torch does (reads through dlpack, from_jax/.jax() identity) the result is compared with torch; the
documented differences (a torchlike in-place op detaches from the producer, read-only .numpy()) are pinned."""
import numpy as np
import pytest

import torchlike
from conftest import torch

jax = pytest.importorskip("jax")
jnp = jax.numpy


def test_from_dlpack_sees_the_producers_writes_like_torch():
    seen = []
    for lib in (torch, torchlike):
        src = torch.arange(4.0)  # torch's buffers meet XLA's alignment: shared, not copied
        t = lib.from_dlpack(src)
        src[0] = 100.0
        seen.append(t.tolist())
    assert seen[1] == seen[0] == [100.0, 1.0, 2.0, 3.0]


def test_inplace_on_torchlike_gives_a_new_buffer():
    a = torch.arange(4.0)
    t = torchlike.from_dlpack(a)
    t.add_(1)
    assert t.tolist() == [1.0, 2.0, 3.0, 4.0]
    assert a.tolist() == [0.0, 1.0, 2.0, 3.0]  # torch: the producer would see the write


def test_consumers_alias_the_current_buffer():
    t = torchlike.arange(3.0)
    c = torch.from_dlpack(t)
    c[0] = 5.0
    assert t.tolist() == [5.0, 1.0, 2.0]
    t.mul_(2)
    assert c.tolist() == [5.0, 1.0, 2.0] and t.tolist() == [10.0, 2.0, 4.0]


def test_from_jax_and_jax_are_the_same_array():
    j = jnp.arange(3.0)
    t = torchlike.from_jax(j)
    assert t.jax() is j
    t.add_(1)
    assert t.jax() is not j and j.tolist() == [0.0, 1.0, 2.0]


def test_numpy_and_from_numpy_share_memory_as_torch():
    for m in (torch, torchlike):
        t = m.arange(3.0)
        n = t.numpy()
        n[0] = 1.0
        b = np.arange(3.0, dtype=np.float32)
        u = m.from_numpy(b)
        b[1] = 50.0
        assert t.tolist() == [1.0, 1.0, 2.0] and u.tolist() == [0.0, 50.0, 2.0], m.__name__
