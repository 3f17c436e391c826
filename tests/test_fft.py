"""torchlike.fft compared with torch: values, dtypes, n/s/dim/norm handling, gradients, errors."""
import numpy as np
import pytest
import torch

import torchlike
from test_matmul import arr, check

F64, C128 = np.float64, np.complex128


@pytest.mark.parametrize("name", ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"])
@pytest.mark.parametrize("kw", [{}, {"n": 5, "dim": 0, "norm": "ortho"}, {"n": 3, "norm": "forward"}])
def test_1d(name, kw):
    real_in = name in ("rfft", "ihfft")
    x = arr(4, 6, dtype=F64 if real_in else C128)
    check(lambda lib, t: getattr(lib.fft, name)(t, **kw), x, rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("name", ["fft2", "ifft2", "rfft2", "irfft2", "hfft2", "ihfft2",
                                  "fftn", "ifftn", "rfftn", "irfftn", "hfftn", "ihfftn"])
def test_nd(name):
    real_in = name.startswith(("rfft", "ihfft"))
    x = arr(2, 4, 6, dtype=F64 if real_in else C128)
    f = getattr(torch.fft, name)
    check(lambda lib, t: getattr(lib.fft, name)(t), x, rtol=1e-7, atol=1e-9)
    check(lambda lib, t: getattr(lib.fft, name)(t, s=(3, 5), dim=(0, 2), norm="ortho"), x, rtol=1e-7, atol=1e-9)
    if name.endswith("n"):
        check(lambda lib, t: getattr(lib.fft, name)(t, s=(4, 4), norm="forward"), x, grad=False, rtol=1e-7,
              atol=1e-9)
    del f


@pytest.mark.parametrize("dt", [np.float32, np.int64, np.complex64, bool])
def test_dtype_promotion(dt):
    x = arr(8, dtype=dt) if dt is not bool else np.array([True, False, True, True])
    for name in ("fft", "ifft", "irfft", "hfft"):
        check(lambda lib, t: getattr(lib.fft, name)(t), x, grad=False, rtol=1e-5, atol=1e-5)
    if dt is not np.complex64:
        check(lambda lib, t: lib.fft.rfft(t), x, grad=False, rtol=1e-5, atol=1e-5)
    check(lambda lib, t: lib.fft.fft(t), arr(8, dtype=np.float32), rtol=1e-5, atol=1e-5)


def test_freq_and_shift():
    for n, d in [(5, 1.0), (8, 0.1), (1, 2.0)]:
        for name in ("fftfreq", "rfftfreq"):
            check(lambda lib: getattr(lib.fft, name)(n, d), grad=False, rtol=0, atol=0)
            check(lambda lib: getattr(lib.fft, name)(n, d, dtype=lib.float64), grad=False, rtol=0, atol=0)
    x = arr(4, 5, dtype=F64)
    for name in ("fftshift", "ifftshift"):
        check(lambda lib, t: getattr(lib.fft, name)(t), x)
        check(lambda lib, t: getattr(lib.fft, name)(t, dim=1), x, grad=False)
        check(lambda lib, t: getattr(lib.fft, name)(t, dim=(0, 1)), arr(3, 3, dtype=np.int64), grad=False)


def test_out_and_roundtrip():
    x = arr(3, 8, dtype=F64)
    for lib in (torch, torchlike):
        t = lib.tensor(x)
        np.testing.assert_allclose(np.asarray(lib.fft.irfft(lib.fft.rfft(t), n=8).tolist()), x, atol=1e-12)
    o_t, o_l = torch.empty(0, dtype=torch.complex128), torchlike.empty(0, dtype=torchlike.complex128)
    torch.fft.fft(torch.tensor(x), out=o_t)
    torchlike.fft.fft(torchlike.tensor(x), out=o_l)
    np.testing.assert_allclose(np.asarray(o_l._value), o_t.numpy())


@pytest.mark.parametrize("expr", [
    "F.rfft(lib.ones(4, dtype=lib.complex64))", "F.fft(lib.ones(4), norm='x')", "F.fft(lib.ones(4), n=0)",
    "F.fft(lib.ones(4), dim=2)", "F.fftn(lib.ones(4, 3), s=(2, 2, 2))", "F.fft(lib.ones(4, dtype=lib.float16))",
    "F.ihfft(lib.ones(4, dtype=lib.complex64))", "F.fft2(lib.ones(4))",
    "F.rfftn(lib.ones(4, 4, dtype=lib.complex64))", "F.rfft2(lib.ones(4, 4, dtype=lib.complex64))",
    "F.ihfft2(lib.ones(4, 4, dtype=lib.complex64))", "F.fftn(lib.ones(4, 4), s=(2, 2), dim=(0,))",
])
def test_errors_match_torch(expr):
    errs = []
    for lib in (torch, torchlike):
        with pytest.raises(Exception) as ei:
            eval(expr, {"lib": lib, "F": lib.fft})
        errs.append(ei.value)
    assert type(errs[1]) is type(errs[0])
    assert str(errs[1]).split("\n")[0] == str(errs[0]).split("\n")[0]


# --- dims of a 0-dim input and empty dims ---------------------------------------------------------
_FFTS = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fft2", "ifft2", "rfft2", "irfft2", "hfft2", "ihfft2",
         "fftn", "ifftn", "rfftn", "irfftn", "hfftn", "ihfftn"]


@pytest.mark.parametrize("name", _FFTS)
@pytest.mark.parametrize("x,kw", [(1.0, {}), (1.0, {"dim": (0,)}), (1.0, {"dim": ()}), ([1.0, 2.0, 3.0], {"dim": ()})])
def test_fft_dims_of_a_scalar_and_empty_dims_match_torch(name, x, kw):
    """torch wraps FFT dims without the scalar allowance (IndexError for a 0-dim input), and the one-sided
    n-dimensional transforms need at least one axis."""
    if "dim" in kw and not name.endswith("n"):
        kw = {} if kw["dim"] == () else {"dim": kw["dim"][0]} if not name.endswith("2") else kw
    results = []
    for lib in (torch, torchlike):
        try:
            v = getattr(lib.fft, name)(lib.tensor(x), **kw)
            results.append(("value", v.tolist(), repr(v.dtype)))
        except Exception as e:  # noqa: BLE001  (compared with torch's exception below)
            results.append((type(e).__name__, str(e)))
    assert results[1] == results[0]
