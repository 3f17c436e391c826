"""laplace-torch 0.3 (with curvlinops-for-pytorch 3.0.1, asdfghjkl 0.1a4 (the asdl package) and backpack-for-pytorch) under the
drop-in runner, compared line by line with real torch: a full-GGN regression Laplace with marginal-likelihood
prior precision, GLM predictive and seeded MC samples, a last-layer KFAC classifier with probit predictive, diagonal
(BackPACK) and Kron (ASDL) Laplace, subnetwork and functional (GP) Laplace, and marglik_training."""
from conftest import lib_program_vs_torch


def test_laplace_like_torch():
    _, ours = lib_program_vs_torch("lib_laplace.py", "laplace", "curvlinops", "asdl", "backpack",
                                   timeout=600, rtol=1e-4)
    assert len(ours) == 23, ours
    assert ours[1] == "full H (49, 49) 325.05 49.0", ours[1]
    assert ours[8] == "clf train 0.0253", ours[8]
    assert ours[9] == "ll kron KronLLLaplace 51.0 -12.229", ours[9]
    assert ours[-2].startswith("marglik 10 "), ours[-2]
