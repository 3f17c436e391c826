"""torch.linspace in float32 and float64 equals torch's bit for bit (its CPU kernel's fused multiply-adds
from both ends), and so do float16/bfloat16 (c10's rounded Half arithmetic) and the integer dtypes (truncated
fused multiply-adds from the truncated bounds)."""
import numpy as np
import pytest

CASES = [(-3, 3, 64), (0, 1, 100), (0.1, 7.3, 33), (-5, 17.25, 1000), (1e-3, 2.5, 7), (0, 10, 11), (3, -2, 50),
         (-1e5, 3.3, 12345), (2.5, 2.5, 4), (0, 1, 2), (-1, 1, 3)]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", CASES, ids=[f"{a}_{b}_{n}" for a, b, n in CASES])
def test_linspace_is_torchs_bit_for_bit(case, dtype):
    import torch

    import torchlike
    theirs = torch.linspace(*case, dtype=getattr(torch, dtype)).numpy()
    ours = torchlike.linspace(*case, dtype=getattr(torchlike, dtype)).numpy()
    assert ours.dtype == theirs.dtype
    np.testing.assert_array_equal(ours, theirs)


def test_default_dtype_and_logspace_follow():
    import torch

    import torchlike
    np.testing.assert_array_equal(torchlike.linspace(-3, 3, 64).numpy(), torch.linspace(-3, 3, 64).numpy())
    np.testing.assert_allclose(torchlike.logspace(-2, 2, 33).numpy(), torch.logspace(-2, 2, 33).numpy(),
                               rtol=2e-7)


STEPS = [("t5", None), ("t3", "int32"), (2.5, None), (True, None), ("t2.5", None), ("l3", None), ("tTrue", None)]


@pytest.mark.parametrize("fn", ["linspace", "logspace"])
@pytest.mark.parametrize("steps,dt", STEPS, ids=[f"{s}-{d}" for s, d in STEPS])
def test_steps_argument_like_torch(fn, steps, dt):
    """``steps`` may be a 0-d integer tensor (vector-quantize-pytorch passes an element of a levels tensor);
    a float, a bool, a float/bool tensor or a 1-d tensor is torch's invalid-combination TypeError."""
    import torch

    import torchlike
    got = []
    for mod in (torch, torchlike):
        if isinstance(steps, str):
            v = steps[1:]
            v = [int(v)] if steps[0] == "l" else (v == "True" if v == "True" else float(v) if "." in v else int(v))
            s = mod.tensor(v, dtype=getattr(mod, dt) if dt else None)
        else:
            s = steps
        try:
            got.append(getattr(mod, fn)(-0.5, 0.5, s).tolist())
        except TypeError as e:
            got.append(str(e))
    assert got[1] == got[0]


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("case", CASES + [(-8, 8, 161), (0, 1, 1000), (0, 1, 70000)],
                         ids=[f"{a}_{b}_{n}" for a, b, n in CASES + [(-8, 8, 161), (0, 1, 1000), (0, 1, 70000)]])
def test_half_linspace_is_torchs_bit_for_bit(case, dtype):
    """float16/bfloat16 linspace rounds every product and sum to the dtype, as c10::Half arithmetic does
    (``linspace(-8, 8, 161, dtype=float16)`` differed from torch in 62 places by one ulp)."""
    import torch

    import torchlike
    got = []
    for mod in (torch, torchlike):
        try:
            got.append(mod.linspace(*case, dtype=getattr(mod, dtype)).float().numpy())
        except RuntimeError as e:  # float16's overflow of -1e5, torch's message
            got.append(str(e))
    if isinstance(got[0], str):
        assert got[1] == got[0]
    else:
        np.testing.assert_array_equal(got[1], got[0])


INT_CASES = CASES + [(27.4, -46.0, 92), (-96.7, 62.7, 12), (-3, 3, 4), (250, -250, 5), (2.7, 3, 1), (-5, 100, 70000),
                     (300, 3, 4), (float("nan"), 3, 4), (0, 3, 0), (-2 ** 62, 2 ** 62, 7)]


@pytest.mark.parametrize("dtype", ["int64", "int32", "int16", "int8", "uint8", "bool"])
@pytest.mark.parametrize("case", INT_CASES, ids=[f"{a}_{b}_{n}" for a, b, n in INT_CASES])
def test_integer_linspace_is_torchs(case, dtype):
    """torch truncates the bounds to the dtype (uint8 wrapping -3 to 253, its overflow error past the range),
    then truncates ``start + step * i`` / ``end - step * (steps - 1 - i)``, each a fused multiply-add in double
    (numpy's linspace was a unit off in places: linspace(27.4, -46, 92, dtype=int64)[4] is 23 in torch); Bool
    takes one value at most."""
    import torch

    import torchlike

    def run(mod):
        try:
            r = mod.linspace(*case, dtype=getattr(mod, dtype))
        except Exception as e:  # noqa: BLE001 (the error itself is compared)
            return type(e).__name__, str(e)
        return str(r.dtype), r.tolist()
    assert run(torchlike) == run(torch)


COMPLEX_CASES = [(-3, 3 + 4j, 64), (1 + 2j, -5.5 - 0.25j, 1000), (0.1j, 7.3, 33), (2.5 + 1j, 2.5 + 1j, 4), (0, 1j, 2)]


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("case", COMPLEX_CASES, ids=[f"{a}_{b}_{n}" for a, b, n in COMPLEX_CASES])
def test_complex_linspace_is_torchs_bit_for_bit(case, dtype):
    """torch's complex linspace is the real one on each part (bounds and step in the part's dtype, fused
    multiply-adds from both ends)."""
    import torch

    import torchlike
    theirs = torch.linspace(*case, dtype=getattr(torch, dtype)).numpy()
    ours = torchlike.linspace(*case, dtype=getattr(torchlike, dtype)).numpy()
    assert ours.dtype == theirs.dtype
    np.testing.assert_array_equal(ours, theirs)


@pytest.mark.parametrize("fn", ["linspace", "logspace"])
@pytest.mark.parametrize("dtype", [None, "float32", "int64", "bool"])
def test_complex_bound_and_real_dtype(fn, dtype):
    """A complex bound infers the default complex dtype (also for logspace), which torch refuses to cast to a
    real ``dtype=``."""
    import torch

    import torchlike

    def run(mod):
        try:
            r = getattr(mod, fn)(1 + 2j, 3, 5, **({"dtype": getattr(mod, dtype)} if dtype else {}))
        except RuntimeError as e:
            return str(e)
        return str(r.dtype)
    assert run(torchlike) == run(torch)
