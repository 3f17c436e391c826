"""auraloss 0.4.0 under the drop-in runner, compared line by line with real torch: the time-domain losses (ESR,
DC, log-cosh, SNR, SI-SDR, SD-SDR) with each reduction, single/multi-resolution STFT losses (torch.stft with hann
and hamming windows, 'full' output, scale invariance), the stereo sum-and-difference STFT loss, the FIR
pre-emphasis filters (Conv1d with scipy-fitted A-weighting taps), and a conv denoiser trained with Adam."""
from conftest import lib_program_vs_torch


def test_auraloss_like_torch():
    _, ours = lib_program_vs_torch("lib_auraloss.py", "auraloss", timeout=600, rtol=1e-4)
    assert len(ours) == 22, ours
    assert ours[6] == "ESRLoss [0.0665, 0.1307]", ours[6]
    assert ours[14] == "mono rejected Input must be stereo: 1 channel(s).", ours[14]
    assert ours[17].startswith("fir aw (2, 1, 2048)"), ours[17]
    assert ours[-1] == "after 0.1416", ours[-1]
