"""torchquad 0.6.0 (through autoray's torch backend) under the drop-in runner, compared line by line with real
torch: Trapezoid, Simpson, Boole and Gauss-Legendre in 1 and 3 dimensions with float64 defaults, seeded Monte
Carlo and VEGAS, gradients of an integral with respect to an integrand parameter and to the integration domain,
and an Adam fit through the integral."""
from conftest import lib_program_vs_torch


def test_torchquad_like_torch():
    _, ours = lib_program_vs_torch("lib_torchquad.py", "torchquad", timeout=600, rtol=1e-5)
    assert len(ours) == 9, ours
    assert ours[0] == "trapezoid torch.float64 0.521521 3.324104", ours[0]
    assert ours[3] == "gauss_legendre torch.float64 0.521607 2.943036", ours[3]
    assert ours[6] == "integral grad 1.446433 -0.478839", ours[6]
    assert ours[7] == "domain grad 0.3334 [-0.0002, 1.0002]", ours[7]
