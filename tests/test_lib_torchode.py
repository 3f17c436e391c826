"""torchode 1.0.1 under the drop-in runner, compared line by line with real torch: batched Dopri5/Tsit5 solves with
integral and PID controllers (status, per-sample step statistics, dense output), fixed-step Heun and Euler, a
linear ODE against its exact solution, a neural ODE trained through the solver (AutoDiffAdjoint), and the
BacksolveAdjoint's gradients against autodiff. Found: products saved their constant operand's partner (einsum over
a Runge-Kutta stage buffer written in place) where torch saves nothing."""
from conftest import lib_program_vs_torch


def test_torchode_like_torch():
    _, ours = lib_program_vs_torch("lib_torchode.py", "torchode", "torchtyping", timeout=600, rtol=1e-4)
    assert len(ours) == 11, ours
    assert ours[0].startswith("dopri5 status [0, 0, 0] (3, 7, 2)"), ours[0]
    assert ours[6].startswith("linear error 1.0"), ours[6]
    assert ours[10].startswith("adjoint grads agree True"), ours[10]
