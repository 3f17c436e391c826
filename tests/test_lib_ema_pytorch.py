"""ema-pytorch (EMA with warmup decay schedule, update_every, buffers, state_dict round trip, copy back to the
model) under the drop-in runner, compared line by line with the same program under real torch.
"""
from conftest import lib_program_vs_torch


def test_ema_pytorch_tracks_reloads_and_copies_like_torch():
    _, ours = lib_program_vs_torch("lib_ema_pytorch.py", "torch", "ema_pytorch", timeout=600)
    assert len(ours) == 14
    ema_out = ours[10].split()[-1]
    assert ours[12] == f"reloaded ema output {ema_out}" and ours[13] == f"model after copy {ema_out}"
