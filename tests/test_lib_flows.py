"""nflows (MAF with batch norm and permutations, rational-quadratic spline coupling/autoregressive transforms,
LU linear, a conditional MAF, SimpleRealNVP) and normflows (RealNVP with ActNorm, affine coupling blocks with
LU permutations, neural spline flows, forward and reverse KL, planar/radial flows, save/load), trained a few
steps on a seeded numpy two-moons set, under the drop-in runner, compared line by line with real torch.
"""
from conftest import lib_program_vs_torch


def test_nflows_and_normflows_train_sample_and_invert_like_torch():
    _, ours = lib_program_vs_torch("lib_flows.py", "torch", "nflows", "normflows", timeout=600, rtol=3e-4)
    assert len(ours) == 33, ours
    for line in ours:
        if " losses [" in line:
            losses = [float(v) for v in line.split("[")[1][:-1].split(",")]
            assert len(losses) == 5, line
            if "reverse" not in line:
                assert losses[-1] < losses[0], line
    assert ours[0].startswith("nflows maf params 1868 ")
    assert ours[8] == "nflows nsf invert 0.0 0.0"
    assert ours[12].startswith("nflows cmaf sample [2, 2, 2] ")
    assert [ours[i] for i in (20, 24, 28)] == [f"normflows {n} invert 0.0" for n in ("realnvp", "glowish", "nsf")]
    assert ours[-1] == "normflows load same True 70"


def test_nflows_and_normflows_less_used_transforms_like_torch():
    """nflows' piecewise linear/quadratic/cubic splines, SVD/QR/Householder/LU linear transforms, elementwise and
    CDF transforms (LeakyReLU's ``(x < 0).type(torch.Tensor)``), a multiscale image flow, MADE-MoG; normflows'
    multiscale Glow with class-conditional bases, a residual flow with induced-norm layers, circular splines, a
    Gaussian-mixture base, MCMC layers, exact/brute-force residual log-determinants, a conditional flow; NaiveLinear's inverse raises torch's RuntimeError for the removed torch.solve."""
    _, ours = lib_program_vs_torch("lib_flows_more.py", "torch", "nflows", "normflows", timeout=600, rtol=3e-4)
    assert len(ours) == 65, ours
    inverts = [line for line in ours if " invert " in line]
    assert len(inverts) == 24 and all(line.endswith(" 0.0") for line in inverts), inverts
    assert ours[17].startswith("nflows naive inverse RuntimeError This function was deprecated"), ours[17]
    assert ours[26] == "nflows leakyrelu [0.7322, -0.0819, -0.0537] [-4.6052, -4.6052, -4.6052] invert 0.0 0.0"
    assert ours[46].startswith("normflows glow sample [2, 1, 8, 8] ")
    assert ours[53].endswith(" True") and "torch.float64" in ours[55]
    assert ours[58] == "normflows hmc " + ours[58].split()[2] + " [0.0, 0.0, 0.0]", ours[58]
