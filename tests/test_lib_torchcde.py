"""torchcde 0.2.5 (natural cubic / linear / rectilinear / Hermite interpolation coefficients, cdeint with fixed-grid
and adaptive solvers, backpropagation and the adjoint method, a Neural CDE classifier trained a few steps, save and
reload) under the drop-in runner, compared line by line with the same program under real torch.
"""
from conftest import lib_program_vs_torch


def test_torchcde_interpolation_and_neural_cde_like_torch():
    _, ours = lib_program_vs_torch("lib_torchcde.py", "torch", "torchcde", timeout=900)
    assert len(ours) == 20, ours
    line = {" ".join(text.split(" ")[:2]): text for text in ours}
    assert line["cubic coeffs"] == "cubic coeffs (2, 6, 12) torch.float32 [25.9993] False"
    assert line["cubic fills"] == "cubic fills missing [0.8378] [-0.03266]"
    assert line["rectilinear (2,"].startswith("rectilinear (2, 13, 3) [41.5889] [0.0, 12.0] "), line
    assert line["hermite (2,"].startswith("hermite (2, 6, 12) [1.7, 0.99738, -0.98652, "), line
    losses = [float(text.split()[4]) for text in ours if text.startswith("train step")]
    assert len(losses) == 4 and losses[-1] < losses[0], losses
    assert line["dopri5 grad"].endswith("adjoint agrees True"), line["dopri5 grad"]
    assert line["linear cde"].startswith("linear cde path (3, 24, 8) "), line["linear cde"]
    assert ours[-1] == "reload ['func.linear1.bias', 'func.linear1.weight', 'func.linear2.bias'] True"
