"""DeepXDE on its PyTorch backend (a 1-D Poisson PINN: Interval, DirichletBC, PDE data, FNN, Adam then L-BFGS,
dde.grad.jacobian/hessian, model.predict with an operator) under the drop-in runner, compared line by line with
the same program under real torch."""
import os

from conftest import lib_program_vs_torch


def test_deepxde_poisson_pinn_trains_and_predicts_like_torch():
    _, ours = lib_program_vs_torch("lib_deepxde.py", "torch", "deepxde", env=dict(os.environ, DDE_BACKEND="pytorch"),
                                   timeout=600, rtol=1e-4)
    assert len(ours) == 13, ours
    assert ours[0] == "backend pytorch torch.float32"
    assert ours[2] == "net 321 ModuleList 3"
    assert [line.split()[1] for line in ours[3:7]] == ["0", "20", "40", "60"], ours
    assert ours[8].startswith("lbfgs [63, 68, 73, 78]") and ours[8].endswith(" 18 27"), ours[8]
    assert ours[9].startswith("predict (5, 1) float32 ["), ours[9]
    # second derivatives through dde.grad.hessian (double backward) of a trained tanh network
    assert ours[11].startswith("grads (5, 1) [") and "9.74" in ours[11], ours[11]
