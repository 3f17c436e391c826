"""nnAudio 0.3.4 under the drop-in runner, compared line by line with real torch: STFT (complex, magnitude,
phase, log-frequency) and its inverse, MelSpectrogram, MFCC, CQT1992v2, CQT2010v2, Gammatonegram, and a classifier
trained with Adam through a MelSpectrogram whose mel filter bank and Fourier kernels are trainable."""
from conftest import lib_program_vs_torch


def test_nnaudio_like_torch():
    _, ours = lib_program_vs_torch("lib_nnaudio.py", "nnAudio", "scipy", timeout=600, rtol=1e-4)
    assert len(ours) == 18, ours
    assert ours[3] == "istft (2, 4096) 1.0", ours[3]
    assert ours[6] == "mel peak bins [5, 13]", ours[6]
    assert ours[9] == "cqt peak bins [36, 24]", ours[9]
    assert ours[12] == "trainable 18099 ['mel_basis', 'stft.wsin', 'stft.wcos']", ours[12]
    assert ours[17] == "accuracy 1.0", ours[17]
