"""Short-time Fourier transforms: ``torch.stft`` and its inverse ``torch.istft``, with torch's framing,
padding, window placement, normalisation and checks.

A frame ``t`` is the ``n_fft`` samples from ``t * hop_length`` (after ``center`` padding by ``n_fft // 2``
with ``pad_mode``); a window shorter than ``n_fft`` sits in the middle of the frame. ``istft`` overlaps and
adds the inverse transforms and divides by the overlapped squared window.

    >>> import torchlike as torch
    >>> x = torch.arange(16.0)
    >>> s = torch.stft(x, 8, hop_length=4, window=torch.hann_window(8), return_complex=True)
    >>> s.shape, s.dtype
    (torch.Size([5, 5]), torch.complex64)
    >>> torch.allclose(torch.istft(s, 8, hop_length=4, window=torch.hann_window(8), length=16), x, atol=1e-4)
    True
"""
from __future__ import annotations

import warnings

import jax.numpy as jnp
import numpy as np

from .. import _dtype
from .._errors import torch_warn
from .._creation import ones
from ._util import Tensor, dispatch, register
from .complex_ops import view_as_real
from .padding import pad

__all__ = ["stft", "istft"]


def _frames(x, n_fft, hop, n_frames):
    """(..., n_frames, n_fft) frames of the last axis of ``x``, frame t starting at t * hop."""
    idx = np.arange(n_frames)[:, None] * hop + np.arange(n_fft)[None, :]
    return x[..., idx]


def _stft_impl(x, w, *, n_fft, hop, n_frames, onesided, normalized, cdt):
    fr = _frames(x, n_fft, hop, n_frames) * w
    if onesided:
        y = jnp.fft.rfft(fr, n=n_fft, axis=-1)
    else:
        y = jnp.fft.fft(fr.astype(cdt), n=n_fft, axis=-1)
    if normalized:
        y = y * (1.0 / np.sqrt(n_fft))
    return jnp.swapaxes(y, -1, -2).astype(cdt)


def _pad(x, pads, mode="constant"):
    return pad(x, pads, mode=mode)


def _padded_window(window, n_fft, win_length):
    """The window zero-padded to ``n_fft``, centred in the frame as torch places it."""
    left = (n_fft - win_length) // 2
    if left == 0 and win_length == n_fft:
        return window
    return _pad(window, (left, n_fft - win_length - left))


def _typ(t):
    return _dtype._CAP.get(t.dtype.name, t.dtype.name.capitalize())


def _opt(v):
    return "None" if v is None else str(int(v))


def _window_str(window):
    return "None" if window is None else f"torch.{_typ(window)}Tensor{{[{', '.join(map(str, window.shape))}]}}"


def _describe(x, n_fft, hop, win_length, window, normalized, onesided, return_complex, align):
    """torch's prefix of stft's messages: the call as the kernel saw it (after center padding)."""
    return (f"stft(torch.{_typ(x)}Tensor[{', '.join(map(str, x.shape))}], n_fft={n_fft}, hop_length={hop}, "
            f"win_length={win_length}, window={_window_str(window)}, normalized={int(normalized)}, "
            f"onesided={_opt(onesided)}, return_complex={_opt(return_complex)}, align_to_window={_opt(align)}) : ")


def _describe_inverse(x, n_fft, hop, win_length, window, center, normalized, onesided, length, return_complex):
    """torch's prefix of istft's messages."""
    return (f"istft(CPU{_typ(x)}Type[{', '.join(map(str, x.shape))}], n_fft={n_fft}, hop_length={hop}, "
            f"win_length={win_length}, window={_window_str(window)}, center={int(center)}, "
            f"normalized={int(normalized)}, onesided={_opt(onesided)}, length={_opt(length)}, "
            f"return_complex={int(return_complex)})")


@register("stft", promote="none")
def stft(input, n_fft, hop_length=None, win_length=None, window=None, center=True, pad_mode="reflect",
         normalized=False, onesided=None, return_complex=None, align_to_window=None):
    """Short-time Fourier transform of a 1-D signal or a batch of them (torch.stft).

    >>> import torchlike as torch
    >>> torch.stft(torch.ones(8), 4, hop_length=4, window=torch.ones(4), return_complex=True)[0].real.tolist()
    [4.0, 4.0, 4.0]
    """
    if not isinstance(input, Tensor):
        raise TypeError(f"stft(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    if window is not None and not isinstance(window, Tensor):
        raise TypeError(f"stft(): argument 'window' must be Tensor, not {type(window).__name__}")
    complex_in = input.dtype.is_complex or (window is not None and window.dtype.is_complex)
    if return_complex is None and not complex_in:
        raise RuntimeError("stft requires the return_complex parameter be given for real inputs, and will further "
                           "require that return_complex=True in a future PyTorch release.")
    if center and align_to_window is not None:
        raise RuntimeError("stft align_to_window should only be set when center = false")
    if center:  # torch pads first (as a 3-d batch) and checks the rank after, naming the padded shape
        ext = input.reshape((1,) * max(0, 3 - input.ndim) + tuple(input.shape))
        p = n_fft // 2
        input = _pad(ext, (p, p), pad_mode).reshape(tuple(input.shape[:-1]) + (ext.shape[-1] + 2 * p,))
    hop = n_fft // 4 if hop_length is None else hop_length
    wl = n_fft if win_length is None else win_length
    head = _describe(input, n_fft, hop, wl, window, normalized, onesided, return_complex, align_to_window)
    if input.ndim not in (1, 2):
        raise RuntimeError(head + "expected a 1D or 2D tensor")
    if not (input.dtype.is_floating_point or input.dtype.is_complex):
        raise RuntimeError(head + "expected a tensor of floating point or complex values")
    if input.dtype in (_dtype.float16, _dtype.bfloat16, _dtype.complex32):
        raise RuntimeError(f"MKL FFT doesn't support tensors of type: {_typ(input)}")
    length = input.shape[-1]
    if not 0 < n_fft <= length:
        raise RuntimeError(head + f"expected 0 < n_fft < {length}, but got n_fft={n_fft}")
    if hop <= 0:
        raise RuntimeError(head + f"expected hop_length > 0, but got hop_length={hop}")
    if not 0 < wl <= n_fft:
        raise RuntimeError(head + f"expected 0 < win_length <= n_fft, but got win_length={wl}")
    if window is not None and (window.ndim != 1 or window.shape[0] != wl):
        raise RuntimeError(head + f"expected a 1D window tensor of size equal to win_length={wl}, but got window "
                           f"with size [{', '.join(str(s) for s in window.shape)}]")
    if window is None:
        torch_warn("A window was not provided. A rectangular window will be applied,which is known to cause "
                      "spectral leakage. Other windows such as torch.hann_window or torch.hamming_window are "
                      "recommended to reduce spectral leakage.To suppress this warning and use a rectangular "
                      "window, explicitly set `window=torch.ones(n_fft, device=<device>)`.",
                      "aten/src/ATen/native/SpectralOps.cpp:835", once=True)
    if onesided is None:
        onesided = not complex_in
    elif onesided and complex_in:
        raise RuntimeError("Cannot have onesided output if window or input is complex")
    wdt = window.dtype if window is not None else input.dtype.to_real() if input.dtype.is_complex else input.dtype
    win = ones(wl, dtype=wdt) if window is None else window
    left = (n_fft - wl) // 2
    if align_to_window:  # the window's own span starts at t * hop_length
        n_frames = 1 + (length - wl) // hop
        need = (n_frames - 1) * hop + n_fft
        input = _pad(input, (left, max(0, need - left - length)))
    else:
        n_frames = 1 + (length - n_fft) // hop
    win = _padded_window(win, n_fft, wl)
    cdt = _dtype.result_type(input, win)
    cdt = cdt if cdt.is_complex else cdt.to_complex()
    out = dispatch(_stft_impl, (input, win), (("n_fft", n_fft), ("hop", hop), ("n_frames", n_frames),
                                              ("onesided", bool(onesided)), ("normalized", bool(normalized)),
                                              ("cdt", cdt.np)), name="StftBackward0")
    if not return_complex and not complex_in:
        warnings.warn("stft with return_complex=False is deprecated. In a future pytorch release, stft will return "
                      "complex tensors for all inputs, and return_complex=False will raise an error.\nNote: you can "
                      "still call torch.view_as_real on the complex output to recover the old return format.",
                      UserWarning, stacklevel=2)
        return view_as_real(out)
    if return_complex is False:
        return view_as_real(out)
    return out


def _istft_impl(y, w, *, n_fft, hop, onesided, normalized, start, end, rdt, cdt):
    fr = jnp.swapaxes(y, -1, -2)
    norm = "ortho" if normalized else "backward"
    if rdt is not None:  # a real signal: torch keeps the first n_fft // 2 + 1 bins of a two-sided spectrum
        t = jnp.fft.irfft(fr[..., :n_fft // 2 + 1], n=n_fft, axis=-1, norm=norm)
    else:
        t = jnp.fft.ifft(fr, n=n_fft, axis=-1, norm=norm)
    t = t * w
    n_frames = fr.shape[-2]
    total = n_fft + hop * (n_frames - 1)
    idx = (np.arange(n_frames)[:, None] * hop + np.arange(n_fft)[None, :]).reshape(-1)
    sig = jnp.zeros(t.shape[:-2] + (total,), t.dtype).at[..., idx].add(t.reshape(t.shape[:-2] + (-1,)))
    env = jnp.zeros((total,), jnp.real(w).dtype).at[idx].add(jnp.tile(jnp.abs(w) ** 2, n_frames))
    sig = sig[..., start:min(end, total)] / env[start:min(end, total)]
    if end > total:
        sig = jnp.pad(sig, [(0, 0)] * (sig.ndim - 1) + [(0, end - total)])
    return sig.astype(cdt if rdt is None else rdt)


@register("istft", promote="none")
def istft(input, n_fft, hop_length=None, win_length=None, window=None, center=True, normalized=False,
          onesided=None, length=None, return_complex=False):
    """Inverse short-time Fourier transform (torch.istft): overlap-add of the frames' inverse transforms,
    divided by the overlapped squared window.

    >>> import torchlike as torch
    >>> s = torch.stft(torch.arange(8.0), 4, window=torch.hann_window(4), return_complex=True)
    >>> torch.istft(s, 4, window=torch.hann_window(4)).round().tolist()
    [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]
    """
    if not isinstance(input, Tensor):
        raise TypeError(f"istft(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    if not input.dtype.is_complex:
        raise RuntimeError("istft requires a complex-valued input tensor matching the output from stft with "
                           "return_complex=True.")
    hop = n_fft // 4 if hop_length is None else hop_length
    wl = n_fft if win_length is None else win_length
    head = _describe_inverse(input, n_fft, hop, wl, window, center, normalized, onesided, length, return_complex)
    if input.ndim < 2:
        raise IndexError(f"Dimension out of range (expected to be in range of [-{input.ndim + 1}, "
                         f"{input.ndim}], but got -3)")
    if input.ndim > 3:  # torch counts the real view's trailing 2
        raise RuntimeError(head + f" : expected a tensor with 3 or 4 dimensions, but got {input.ndim + 1}")
    n_frames, fft_size = input.shape[-1], input.shape[-2]
    if onesided is None:
        onesided = fft_size != n_fft
    if not 0 < hop <= wl:
        raise RuntimeError(head + " : expected 0 < hop_length <= win_length")
    if not 0 < wl <= n_fft:
        raise RuntimeError(head + " : expected 0 < win_length <= n_fft")
    if window is not None and (window.ndim != 1 or window.shape[0] != wl):
        raise RuntimeError(head + " : Invalid window shape. window has to be 1D and length of `win_length`")
    if onesided:
        if n_fft // 2 + 1 != fft_size:
            raise RuntimeError(head + " : expected the frequency dimension (3rd to the last) of the input tensor "
                               f"to match n_fft / 2 + 1 when onesided=True, but got {fft_size}")
    elif n_fft != fft_size:
        raise RuntimeError(head + " : expected the frequency dimension (3rd to the last) of the input tensor to "
                           f"match n_fft when onesided=False, but got {fft_size}")
    if window is None:
        torch_warn("A window was not provided. A rectangular window will be applied.Please provide the same "
                   "window used by stft to make the inversion lossless.To suppress this warning and use a "
                   "rectangular window, explicitly set `window=torch.ones(n_fft, device=<device>)`.",
                   "aten/src/ATen/native/SpectralOps.cpp:1035", once=True)
    complex_w = window is not None and window.dtype.is_complex
    if return_complex:
        if onesided:
            raise RuntimeError("Cannot have onesided output if window or input is complex")
    elif complex_w:
        raise RuntimeError("Complex windows are incompatible with return_complex=False")
    rdt = input.dtype.to_real()
    win = _padded_window(ones(wl, dtype=rdt) if window is None else window, n_fft, wl)
    total = n_fft + hop * (n_frames - 1)
    start = n_fft // 2 if center else 0
    end = start + length if length is not None else (total - n_fft // 2 if center else total)
    env = _envelope(win, n_fft, hop, n_frames, start, min(end, total))
    if env is not None and env < 1e-11:
        raise RuntimeError(head + " window overlap add min: 1\n[ CPUBoolType{} ]")  # torch prints its check
    cdt = input.dtype if not complex_w else _dtype.result_type(input, win)
    return dispatch(_istft_impl, (input, win), (("n_fft", n_fft), ("hop", hop), ("onesided", bool(onesided)),
                                                ("normalized", bool(normalized)), ("start", start), ("end", end),
                                                ("rdt", None if return_complex else rdt.np), ("cdt", cdt.np)),
                    name="IstftBackward0")


def _envelope(win, n_fft, hop, n_frames, start, end):
    """The smallest overlapped squared window over the kept span (None when the window is being traced)."""
    try:
        w = np.abs(np.asarray(win._value)) ** 2
    except Exception:  # a traced window: torch's check needs its values; compiled code skips it
        return None
    env = np.zeros(n_fft + hop * (n_frames - 1))
    np.add.at(env, (np.arange(n_frames)[:, None] * hop + np.arange(n_fft)[None, :]).reshape(-1), np.tile(w, n_frames))
    kept = env[start:end]
    return float(kept.min()) if kept.size else None

