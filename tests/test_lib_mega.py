"""Mega-pytorch 0.1.0 under the drop-in runner, compared line by line with real torch: a causal Mega language model
(multi-headed damped EMA as an rfft/irfft convolution, T5-bucketed single-headed attention, gating) trained with
Adam and its EMA decay gradients, causality, a bidirectional Laplacian-attention model trained with SGD, the FFT
EMA against a plain recurrence, a layer with GroupNorm over EMA heads, T5 buckets, top-k sampling, and a
state_dict round trip."""
from conftest import lib_program_vs_torch


def test_mega_like_torch():
    _, ours = lib_program_vs_torch("lib_mega.py", "mega_pytorch", "einops", "scipy", timeout=600, rtol=1e-4)
    assert len(ours) == 12, ours
    assert ours[0] == "params 6828", ours[0]
    assert ours[3] == "causal lm 5 2.2823", ours[3]
    assert ours[5] == "causal 1.0 1.0", ours[5]
    assert ours[7].startswith("ema vs recurrence 1.0 "), ours[7]
    assert ours[9] == "t5 buckets [3, 3, 2, 0, 6, 7, 7] (5, 7)", ours[9]
    assert ours[11] == "reloaded True", ours[11]
