"""gpytorch (with linear_operator) under the drop-in runner, compared with real torch: an exact GP
(ConstantMean, ScaleKernel(RBFKernel), GaussianLikelihood, ExactMarginalLogLikelihood) trained with Adam and
its posterior under fast_pred_var, and a variational GP (CholeskyVariationalDistribution, learned inducing
points, MaternKernel, VariationalELBO)."""
from conftest import lib_program_vs_torch


def test_gpytorch_exact_and_variational_gp_match_torch():
    _, ours = lib_program_vs_torch("lib_gpytorch_gp.py", "torch", "gpytorch", timeout=600, rtol=2e-4)
    assert len(ours) == 5 + 3
    assert ours[0].startswith("iter 0 loss") and ours[-1].startswith("upper")
