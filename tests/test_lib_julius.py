"""julius 0.2.8 under the drop-in runner, compared line by line with real torch: sinc resampling (fractional
ratios, output_length, full), FIR low/high/band-pass filter banks (direct and FFT, strided, unpadded), mel-band
splitting, fft_conv1d against F.conv1d and a trained FFTConv1d, the as_strided unfold, a TorchScript-scripted
filter, and gradients through a resampler. Its mel scale (2595 * log10(1 + f / 700)) found torchlike's float32
log10 1 ulp off torch's (999.9856 against 999.9855)."""
from conftest import lib_program_vs_torch


def test_julius_like_torch():
    _, ours = lib_program_vs_torch("lib_julius.py", "julius", timeout=600, rtol=1e-4)
    assert len(ours) == 24, ours
    assert ours[2] == "mel [150.4892, 999.9855] 213.4924 [20.0, 61.3073, 104.9845, 151.1674, 200.0]", ours[2]
    assert ours[3] == "unfold (1, 3, 4) [0.0, 1.0, 2.0, 3.0, 3.0, 4.0, 5.0, 6.0, 6.0, 7.0, 8.0, 9.0]", ours[3]
    assert ours[16] == "scripted 0.0", ours[16]
    assert ours[19].startswith("short Input should be at least as large as the kernel size 40"), ours[19]
