"""BoTorch (on gpytorch and linear_operator) under the drop-in runner, compared with real torch, in double
precision: SingleTaskGP with Normalize/Standardize fitted by fit_gpytorch_mll (scipy L-BFGS-B), its posterior,
LogEI / qLogEI (seeded SobolQMCNormalSampler: torch.quasirandom.SobolEngine) / UCB, three BO iterations of
optimize_acqf, a two-objective ModelListGP with qLogNEHVI, and qLogNEI."""
from conftest import lib_program_vs_torch


def test_botorch_bayesian_optimisation_matches_torch():
    expected, ours = lib_program_vs_torch("lib_botorch_bo.py", "torch", "botorch", timeout=600, rtol=1e-3)
    assert len(ours) == 14
    assert ours[1].startswith("lengthscale [") and ours[2].startswith("noise [")
    iters = [line for line in ours if line.startswith("iter ")]
    assert len(iters) == 3 and all("candidate [" in line for line in iters)
    # the BO loop found a better point than the initial design (the same one as under torch)
    assert float(iters[-1].split("best ")[1]) > float(ours[0].split()[-1])
    assert ours[-2].startswith("qLogNEHVI [") and ours[-1].startswith("qLogNEI [")
