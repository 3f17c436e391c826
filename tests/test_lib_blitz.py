"""blitz-bayesian-pytorch 0.2.8 under the drop-in runner, compared line by line with real torch: sample_elbo
training with several weight samples per backward (each refilling the eps buffers through .data: torch's backward
reads the last sample, as torchlike's now does), BayesianLinear/BayesianConv2d/BayesianLSTM models, mfvi_forward,
freeze_/unfreeze_ (the frozen forward reads weight_mu, which shares storage with the sampler's Parameter(mu)
that the optimizer steps) and MOPED_."""
from conftest import lib_program_vs_torch


def test_blitz_like_torch():
    _, ours = lib_program_vs_torch("lib_blitz.py", "blitz", timeout=600, rtol=1e-4)
    assert len(ours) == 15, ours
    assert ours[0] == "reg elbo 3 4.4401 141.3", ours[0]
    assert ours[3] == "rho grad 0.14499 0.00949", ours[3]
    assert ours[5] == "frozen [-1.2994, -0.5013, -1.2284] 1.0", ours[5]
