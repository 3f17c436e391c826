"""torch.stft / torch.istft against torch: framing, padding modes, window placement, normalisation, one-
and two-sided spectra, complex inputs, align_to_window, batches, gradients, and torch's errors."""
import warnings

import numpy as np
import pytest

from conftest import raises_like_torch, same_as_torch

rng = np.random.default_rng(0)
X1 = rng.standard_normal(50).astype(np.float32)
X2 = rng.standard_normal((3, 40))
XC = (rng.standard_normal(40) + 1j * rng.standard_normal(40)).astype(np.complex64)
W8 = np.hanning(8).astype(np.float32)
W6 = np.hanning(6).astype(np.float32)


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


STFT_CASES = {
    "hann": (lambda m, x, w: m.stft(x, 8, window=w, return_complex=True), X1, W8),
    "rectangular": (lambda m, x: m.stft(x, 8, return_complex=True), X1),
    "hop_and_short_window": (lambda m, x, w: m.stft(x, 8, hop_length=3, win_length=6, window=w, return_complex=True),
                             X1, W6),
    "constant": (lambda m, x, w: m.stft(x, 8, window=w, pad_mode="constant", return_complex=True), X1, W8),
    "replicate": (lambda m, x, w: m.stft(x, 8, window=w, pad_mode="replicate", return_complex=True), X1, W8),
    "circular": (lambda m, x, w: m.stft(x, 8, window=w, pad_mode="circular", return_complex=True), X1, W8),
    "no_center": (lambda m, x, w: m.stft(x, 8, window=w, center=False, return_complex=True), X1, W8),
    "normalized_twosided": (lambda m, x, w: m.stft(x, 8, window=w, normalized=True, onesided=False,
                                                   return_complex=True), X1, W8),
    "batch_float64": (lambda m, x: m.stft(x, 16, hop_length=5, return_complex=True), X2),
    "real_pairs": (lambda m, x, w: m.stft(x, 8, window=w, return_complex=False), X1, W8),
    "complex_input": (lambda m, x: m.stft(x, 8, hop_length=2), XC),
    "align_to_window": (lambda m, x, w: m.stft(x, 8, hop_length=2, win_length=6, window=w, center=False,
                                               align_to_window=True, return_complex=True), X1, W6),
    "method": (lambda m, x, w: x.stft(8, window=w, return_complex=True), X1, W8),
}


@pytest.mark.parametrize("case", sorted(STFT_CASES))
def test_stft_like_torch(case):
    fn, *inputs = STFT_CASES[case]
    same_as_torch(fn, *inputs, grad=case not in ("method",))


def _spec(x, n_fft, hop, window, onesided=True):
    import torch
    return torch.stft(torch.tensor(x), n_fft, hop_length=hop, window=torch.tensor(window), return_complex=True,
                      onesided=onesided).numpy()


W16 = np.hanning(18)[1:-1]
S = _spec(X2, 16, 4, W16)
S2 = _spec(X1, 8, 2, W8, onesided=False)
ISTFT_CASES = {
    "default": (lambda m, s, w: m.istft(s, 16, window=w), S, W16),
    "length_shorter": (lambda m, s, w: m.istft(s, 16, window=w, length=30), S, W16),
    "length_longer": (lambda m, s, w: m.istft(s, 16, window=w, length=60), S, W16),
    "normalized": (lambda m, s, w: m.istft(s, 16, window=w, normalized=True), S, W16),
    "no_center": (lambda m, s, w: m.istft(s, 16, window=w, center=False), S, W16),
    "twosided_complex": (lambda m, s, w: m.istft(s, 8, hop_length=2, window=w, onesided=False,
                                                 return_complex=True), S2, W8),
    "twosided_real": (lambda m, s, w: m.istft(s, 8, hop_length=2, window=w, onesided=False), S2, W8),
    "one_signal": (lambda m, s, w: m.istft(s, 16, window=w), S[0], W16),
}


@pytest.mark.parametrize("case", sorted(ISTFT_CASES))
def test_istft_like_torch(case):
    fn, *inputs = ISTFT_CASES[case]
    same_as_torch(fn, *inputs)


def test_round_trip_recovers_the_signal():
    import torchlike as tl
    x = tl.tensor(X2)
    w = tl.hann_window(16, dtype=tl.float64)
    y = tl.istft(tl.stft(x, 16, hop_length=4, window=w, return_complex=True), 16, hop_length=4, window=w,
                 length=40)
    np.testing.assert_allclose(y.numpy(), X2, atol=1e-12)


STFT_ERRORS = {
    "n_fft_zero": dict(n_fft=0),
    "n_fft_too_long": dict(n_fft=80, center=False),
    "hop_zero": dict(n_fft=8, hop_length=0),
    "win_longer_than_n_fft": dict(n_fft=8, win_length=9),
    "window_size": dict(n_fft=8, window=np.ones(5, np.float32)),
    "window_rank": dict(n_fft=8, window=np.ones((8, 1), np.float32)),
    "pad_mode": dict(n_fft=8, pad_mode="foo"),
    "align_with_center": dict(n_fft=8, align_to_window=True),
    "no_return_complex": dict(n_fft=8, return_complex=None),
}


@pytest.mark.parametrize("case", sorted(STFT_ERRORS))
def test_stft_errors_like_torch(case):
    kw = dict(STFT_ERRORS[case])
    w = kw.pop("window", None)
    kw.setdefault("return_complex", True)
    if w is None:
        raises_like_torch(lambda m, x: m.stft(x, **kw), X1)
    else:
        raises_like_torch(lambda m, x, w: m.stft(x, window=w, **kw), X1, w)


def test_stft_rejects_integer_and_3d_input_like_torch():
    raises_like_torch(lambda m, x: m.stft(x, 8, return_complex=True), np.arange(20))
    raises_like_torch(lambda m, x: m.stft(x, 8, return_complex=True), np.zeros((2, 3, 20), np.float32))


ISTFT_ERRORS = {
    "real_input": (lambda m, s: m.istft(s.real, 16), S),
    "hop_zero": (lambda m, s: m.istft(s, 16, hop_length=0), S),
    "hop_longer_than_window": (lambda m, s: m.istft(s, 16, hop_length=20), S),
    "win_longer_than_n_fft": (lambda m, s: m.istft(s, 16, win_length=20), S),
    "window_size": (lambda m, s, w: m.istft(s, 16, window=w), S, np.ones(5)),
    "onesided_size": (lambda m, s: m.istft(s, 15), S),
    "twosided_size": (lambda m, s: m.istft(s, 16, onesided=False), S),
    "onesided_complex_output": (lambda m, s: m.istft(s, 16, return_complex=True), S),
    "zero_window": (lambda m, s, w: m.istft(s, 16, window=w), S, np.zeros(16)),
    "rank_1": (lambda m, s: m.istft(s[0, 0], 16), S),
    "rank_4": (lambda m, s: m.istft(s[None], 16), S),
}


@pytest.mark.parametrize("case", sorted(ISTFT_ERRORS))
def test_istft_errors_like_torch(case):
    fn, *inputs = ISTFT_ERRORS[case]
    raises_like_torch(fn, *inputs, match=None)
