"""Window functions compared with torch: ``torch.signal.windows`` (every window, lengths 0..8,
symmetric and periodic, float32/float64, errors) and the top-level ``hann_window`` family."""
import pytest
import torch

import torchlike
from conftest import assert_same


# --- torch.signal.windows ----------------------------------------------------------------------------
_EXTRA = {"general_cosine": {"a": [0.4, 0.3, 0.3]}, "exponential": {"tau": 0.7}, "gaussian": {"std": 1.3},
          "kaiser": {"beta": 5.0}, "general_hamming": {"alpha": 0.6}}


@pytest.mark.parametrize("name", ["bartlett", "blackman", "cosine", "exponential", "gaussian", "general_cosine",
                                  "general_hamming", "hamming", "hann", "kaiser", "nuttall"])
def test_windows(name):
    for M in (0, 1, 2, 5, 8):
        for sym in (True, False):
            for dt in ("float32", "float64"):
                r = getattr(torch.signal.windows, name)(M, sym=sym, dtype=getattr(torch, dt), **_EXTRA.get(name, {}))
                l = getattr(torchlike.signal.windows, name)(M, sym=sym, dtype=getattr(torchlike, dt), **_EXTRA.get(name, {}))
                assert_same(l, r, 1e-5, 1e-6)
    with pytest.raises(ValueError, match="non-negative window length"):
        getattr(torchlike.signal.windows, name)(-1, **_EXTRA.get(name, {}))
    with pytest.raises(ValueError, match="float32 or float64"):
        getattr(torchlike.signal.windows, name)(3, dtype=torchlike.int64, **_EXTRA.get(name, {}))


def test_top_level_window_functions():
    for name in ("hann_window", "hamming_window", "blackman_window", "bartlett_window", "kaiser_window"):
        for periodic in (True, False):
            assert_same(getattr(torchlike, name)(9, periodic), getattr(torch, name)(9, periodic), atol=1e-6)


@pytest.mark.parametrize("dt", ["float32", "float64", "float16", "bfloat16"])
def test_top_level_windows_round_as_torch_computes_them(dt):
    # torch computes a window op by op in its dtype (float32: a symmetric Blackman window ends at -2.98e-08, not
    # 0); only its vectorized cos (within an ulp, not always correctly rounded) may differ in the last bit
    total = differing = 0
    for name in ("hann_window", "hamming_window", "blackman_window", "bartlett_window"):
        for n in (2, 5, 16, 255, 400, 1024):
            for periodic in (True, False):
                ref = getattr(torch, name)(n, periodic, dtype=getattr(torch, dt)).float()
                ours = torch.tensor(getattr(torchlike, name)(n, periodic, dtype=getattr(torchlike, dt)).float()
                                    .tolist())
                assert torch.allclose(ours, ref, rtol=1e-2 if "16" in dt else 1e-6, atol=1e-2 if "16" in dt else 2e-7), \
                    (name, n, periodic)
                total += n
                differing += int((ours != ref).sum())
    assert differing <= total // 25, (differing, total)
    end = torchlike.blackman_window(5, periodic=False, dtype=getattr(torchlike, dt))[0].item()
    assert end == torch.blackman_window(5, periodic=False, dtype=getattr(torch, dt))[0].item()
