"""asteroid-filterbanks 0.4.0 and torch-dct 0.1.6 under the drop-in runner, compared line by line with real torch:
free, STFT, analytic, parameterized-sinc and torch.stft filterbank encoder/decoder pairs on a seeded waveform, the
stacked-real complex transforms and masks, the pseudo-inverse decoder, Griffin-Lim, a masking separator trained
with Adam, and DCT-I/II with inverses in 1-3 dimensions plus LinearDCT. asteroid calls ``torch._C._is_tracing()``
before every convolution (it raised NotImplementedError under the runner)."""
from conftest import lib_program_vs_torch


def test_asteroid_filterbanks_and_torch_dct_like_torch():
    _, ours = lib_program_vs_torch("lib_asteroid_filterbanks.py", "asteroid_filterbanks", "torch_dct", timeout=600,
                                   rtol=1e-4)
    assert len(ours) == 20, ours  # (with asteroid's two "force kernel_size=33" notices)
    assert ours[0] == "free (2, 32, 49) 0.1312 0.1679 (2, 1, 800) 0.043", ours[0]
    assert ours[8] == "complex torch.complex64 (2, 33, 47) 0.0", ours[8]
    assert ours[13] == "separator 0.4519 True True", ours[13]
    assert ours[18] == "dct3d 190.193 1.0", ours[18]
