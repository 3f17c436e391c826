"""Anti-aliased resampling weights (``interpolate(..., antialias=True)``) for bilinear and bicubic modes.

Each output index averages the input over a window widened by the downscaling factor, with the
triangle (bilinear) or Keys cubic a=-0.5 (bicubic) filter stretched to that window and normalized to
sum 1 — the same separable scheme as torch's (and PIL's) anti-aliased resize. Upscaling is ordinary
interpolation with the same filters.

>>> import numpy as np
>>> from torchlike.nn.functional._interp_aa import aa_matrix
>>> aa_matrix(4, 2, "linear", False, None, np.float32).round(3).tolist()
[[0.429, 0.429, 0.143, 0.0], [0.0, 0.143, 0.429, 0.429]]
"""
from __future__ import annotations

import numpy as np

__all__ = ["aa_matrix"]


def _triangle(x):
    return np.maximum(0.0, 1.0 - np.abs(x))


def _cubic_a05(x):
    a = -0.5
    x = np.abs(x)
    near = ((a + 2) * x - (a + 3)) * x * x + 1
    far = ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
    return np.where(x < 1, near, np.where(x < 2, far, 0.0))


def aa_matrix(L, o, mode, align_corners, scale, ft):
    """(o, L) anti-aliased weights for one dim; ``mode`` "linear" or "cubic"; ``scale`` the user's factor."""
    if align_corners:
        sc = (L - 1) / (o - 1) if o > 1 else 0.0
    else:
        sc = 1.0 / scale if scale is not None and scale > 0 else L / o
    sc = float(ft(sc))
    size, fn = (2, _triangle) if mode == "linear" else (4, _cubic_a05)
    support = size * 0.5 * sc if sc >= 1.0 else size * 0.5
    invscale = 1.0 / sc if sc >= 1.0 else 1.0
    W = np.zeros((o, L), np.float64)
    for i in range(o):
        center = sc * (i + 0.5)
        lo = max(int(center - support + 0.5), 0)
        hi = min(int(center + support + 0.5), L)
        j = np.arange(lo, hi)
        w = fn((j - center + 0.5) * invscale).astype(ft)
        total = w.sum(dtype=ft)
        W[i, lo:hi] = w / total if total != 0 else w
    return W
