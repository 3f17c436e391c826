"""torch.quasirandom.SobolEngine (BoTorch's SobolQMCNormalSampler draws from it), checked against torch."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")

import torchlike  # noqa: E402
from torchlike.quasirandom import _initial_state  # noqa: E402


def test_direction_numbers_match_torch_for_all_dimensions():
    ref = torch.zeros(21201, 30, dtype=torch.long)
    torch._sobol_engine_initialize_state_(ref, 21201)
    np.testing.assert_array_equal(_initial_state(21201, 30), ref.numpy())


@pytest.mark.parametrize("default", ["float32", "float64"])
@pytest.mark.parametrize("dim,scramble,seed,ns", [(5, False, None, [1, 7, 8]), (3, True, 3, [5, 1, 10]),
                                                  (7, True, 0, [64, 3])])
def test_draws_fast_forward_and_state_match_torch(default, dim, scramble, seed, ns):
    """Bit-equal points in both dtypes (the first point of a scrambled engine rounds through the default
    dtype of construction time, as in torch), fast_forward, reset, draw_base2 and the state tensors."""
    old = torch.get_default_dtype()
    torch.set_default_dtype(getattr(torch, default))
    torchlike.set_default_dtype(getattr(torchlike, default))
    try:
        a = torch.quasirandom.SobolEngine(dim, scramble=scramble, seed=seed)
        b = torchlike.quasirandom.SobolEngine(dim, scramble=scramble, seed=seed)
    finally:
        torch.set_default_dtype(old)
        torchlike.set_default_dtype(getattr(torchlike, str(old).split(".")[1]))
    assert repr(a) == repr(b)
    for dt in ["float32", "float64"]:
        for n in ns:
            x, y = a.draw(n, dtype=getattr(torch, dt)), b.draw(n, dtype=getattr(torchlike, dt))
            assert y.dtype == getattr(torchlike, dt)
            np.testing.assert_array_equal(y.numpy(), x.numpy())
        a.fast_forward(5)
        b.fast_forward(5)
        np.testing.assert_array_equal(b.draw(3).numpy(), a.draw(3).numpy())
        for name in ["sobolstate", "quasi", "shift"]:
            np.testing.assert_array_equal(getattr(b, name).numpy(), getattr(a, name).numpy())
        a.reset()
        b.reset()
        np.testing.assert_array_equal(b.draw_base2(3).numpy(), a.draw_base2(3).numpy())


def test_unseeded_scramble_draws_from_the_default_generator():
    torch.manual_seed(4)
    torchlike.manual_seed(4)
    x = torch.quasirandom.SobolEngine(4, scramble=True).draw(6)
    y = torchlike.quasirandom.SobolEngine(4, scramble=True).draw(6)
    np.testing.assert_array_equal(y.numpy(), x.numpy())
    np.testing.assert_array_equal(torchlike.rand(3).numpy(), torch.rand(3).numpy())


@pytest.mark.parametrize("call", ["dim0", "dim_big", "base2", "half"])
def test_errors_match_torch(call):
    def run(lib):
        if call == "dim0":
            lib.quasirandom.SobolEngine(0)
        elif call == "dim_big":
            lib.quasirandom.SobolEngine(21202)
        elif call == "base2":
            e = lib.quasirandom.SobolEngine(2)
            e.draw(3)
            e.draw_base2(2)
        else:
            lib.quasirandom.SobolEngine(2).draw(3, dtype=lib.half)
    with pytest.raises(Exception) as et:
        run(torch)
    with pytest.raises(type(et.value)) as el:
        run(torchlike)
    assert str(el.value) == str(et.value)


def test_quasirandom_is_an_attribute_after_import_and_out_is_filled():
    import subprocess
    import sys
    code = "import torchlike; print(torchlike.quasirandom.SobolEngine(2))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "SobolEngine(dimension=2)"
    o_t, o_l = torch.empty(0), torchlike.empty(0)
    r_t = torch.quasirandom.SobolEngine(3, scramble=True, seed=2).draw(4, out=o_t)
    r_l = torchlike.quasirandom.SobolEngine(3, scramble=True, seed=2).draw(4, out=o_l)
    assert r_t is o_t and r_l is o_l and tuple(o_l.shape) == (4, 3)
    np.testing.assert_array_equal(o_l.numpy(), o_t.numpy())
