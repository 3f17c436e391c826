"""diffusers (UNet2DModel + DDPMScheduler/DDIMScheduler) under the drop-in runner, compared line by line with the
same program under real torch; and the torch-level types its import names (``torch.Stream`` in an annotation of
diffusers.hooks.group_offloading, ``torch.OutOfMemoryError``) checked against torch.
"""
import os

import pytest
import torch

import torchlike
from conftest import lib_program_vs_torch, raises_like_torch


def test_diffusers_ddpm_train_sample_reload_matches_torch():
    env = dict(os.environ, HF_HUB_OFFLINE="1")
    _, ours = lib_program_vs_torch("lib_diffusers_ddpm.py", "torch", "diffusers", env=env, timeout=900)
    assert len(ours) == 13
    assert "reload maxdiff below 1e-5 True" in ours


@pytest.mark.parametrize("name", ["Stream", "Event", "OutOfMemoryError", "AcceleratorError"])
def test_torch_level_types_exist_with_torchs_module(name):
    ours, theirs = getattr(torchlike, name), getattr(torch, name)
    assert (ours.__module__, ours.__qualname__) == (theirs.__module__, theirs.__qualname__)
    assert [c.__name__ for c in ours.__mro__] == [c.__name__ for c in theirs.__mro__]


def test_cuda_out_of_memory_error_is_the_torch_level_one():
    assert torchlike.cuda.OutOfMemoryError is torchlike.OutOfMemoryError
    assert torch.cuda.OutOfMemoryError is torch.OutOfMemoryError


def test_cpu_stream_and_event_behave_like_torchs():
    for m in (torch, torchlike):
        s, e = m.Stream(), m.Event()
        got = (repr(s), repr(e), s.device_type, s.device_index, s.stream_id, str(s.device), str(e.device),
               s.query(), e.query(), s.synchronize(), e.synchronize(), s == m.Stream(device="cpu"),
               hash(s) == hash(m.Stream()))
        if m is torch:
            expected = got
    assert got == expected
    raises_like_torch(lambda m: m.Stream().wait_stream(m.Stream()))
    raises_like_torch(lambda m: m.Event().elapsed_time(m.Event()))
    for m in (torch, torchlike):
        assert m.Stream().wait_event(m.Event()) is None and m.Event().wait() is None
    raises_like_torch(lambda m: m.Event().record())
    raises_like_torch(lambda m: m.Stream().record_event())
