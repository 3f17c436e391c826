"""pytorch-minimize 0.1.0 (torchmin) under the drop-in runner, compared line by line with real torch: BFGS,
L-BFGS, CG, Newton-CG, exact Newton (Hessians through torch._vmap_internals._vmap), dogleg and trust-region
solvers on Rosenbrock, least_squares, minimize_constr (scipy's trust-constr), and the Minimizer / ScipyMinimizer
optimizers (torch.autograd.functional's private helpers). Its imports of torch's private _vmap,
autograd.functional helpers and torch.optim.lbfgs._strong_wolfe / _cubic_interpolate used to fail under the
runner (tests/test_torch_private_helpers.py)."""
from conftest import lib_program_vs_torch


def test_torchmin_like_torch():
    _, ours = lib_program_vs_torch("lib_torchmin.py", "torchmin", timeout=600, rtol=1e-4)
    assert len(ours) == 12, ours
    assert ours[4] == "newton-exact 0.0 [1.0, 1.0, 1.0, 1.0] True True", ours[4]
    assert ours[8] == "least_squares [2.489, 1.298, 0.399] 0.000863 True", ours[8]
    assert ours[9] == "constrained [0.786, 0.618] 0.0457 1.0", ours[9]
    assert ours[11] == "ScipyMinimizer 0.00153 [1.507, -2.0, 0.507] 0.306", ours[11]
