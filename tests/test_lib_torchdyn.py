"""torchdyn 1.0.6 (its fixed-step, adaptive and implicit ODE solvers, a NeuralODE classifier with Augmenter and
DepthCat trained by backpropagation and by the adjoint and interpolated-adjoint sensitivities, continuous
normalizing flows with exact and Hutchinson traces, a state-dict round trip) under the drop-in runner, compared line
by line with the same program under real torch.
"""
from conftest import lib_program_vs_torch


def test_torchdyn_solvers_neural_ode_cnf_like_torch():
    _, ours = lib_program_vs_torch("lib_torchdyn.py", "torch", "torchdyn", timeout=900)
    # torchdyn prints a note each time it wraps a vector field that takes no time argument
    lines = [text for text in ours if not text.startswith("Your vector field")]
    assert len(lines) == 14, lines
    line = {" ".join(text.split(" ")[:2]): text for text in lines}
    assert line["odeint rk4"] == "odeint rk4 (9, 2, 2) x(2) [-1.0725, 1.2365, -0.6183, -0.5363] err 3.08e-03"
    assert line["odeint dopri5"].endswith("err < 1e-5 True"), line["odeint dopri5"]
    assert line["odeint tsit5"].endswith("err < 1e-5 True"), line["odeint tsit5"]
    assert line["moons (64,"] == "moons (64, 2) torch.float32 torch.int64 [0.5501, 0.3001] 32"
    assert line["node autograd"].startswith("node autograd rk4 losses [0.748, 0.7224, 0.6979]"), line["node autograd"]
    assert line["node adjoint"].startswith("node adjoint rk4 losses [0.748, 0.7224, 0.6979]"), line["node adjoint"]
    assert line["cnf autograd_trace"].startswith("cnf autograd_trace nll 3.3552 "), line["cnf autograd_trace"]
    assert lines[-1] == "reload ['1.vf.vf.vf.1.bias', '1.vf.vf.vf.1.weight'] True"
