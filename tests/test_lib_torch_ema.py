"""torch-ema (ExponentialMovingAverage: update, average_parameters(), store/copy_to/restore, state_dict round
trip, ``to(dtype)``) under the drop-in runner, compared line by line with the same program under real torch.
"""
from conftest import lib_program_vs_torch


def test_torch_ema_tracks_swaps_and_reloads_like_torch():
    _, ours = lib_program_vs_torch("lib_torch_ema.py", "torch", "torch_ema", timeout=600, rtol=1e-5)
    assert len(ours) == 13
    assert ours[-3] == "loaded decay 0.9 num_updates 6" and ours[-1] == "dtype torch.float64"
    # the shadow parameters read back equal the ones copied into the model
    assert ours[8].split()[1:] == ours[-2].split()[1:]
