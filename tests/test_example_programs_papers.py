"""Famous research-paper reimplementations re-created as stand-alone programs (own code after the public
repositories' idioms, synthetic data, no downloads) and run unmodified under the drop-in runner:
rosinality/stylegan2-pytorch (native upfirdn2d and fused_leaky_relu, modulated convolution with demodulation,
style mixing, R1 and path-length regularisation with ``autograd.grad(create_graph=True)``).

Each program in tests/programs/ex_*.py seeds torch, trains a few steps and prints one fact per line. It runs
with plain python (real torch, the oracle) and under ``python -m torchlike run``; the printed lines must
match, numbers within ``rtol`` (``conftest.lib_program_vs_torch``), and a few key lines are checked exactly."""
import pytest
from conftest import lib_program_vs_torch

PROGRAMS_AND_TOLERANCES = [
    ("ex_stylegan2_rosinality.py", 1e-4),
]
REQUIRES = {}
KEY_LINES = {  # lines each program must print exactly (under both libraries)
    "ex_stylegan2_rosinality.py": [
        "kernel (4, 4) 1.0 0.140625",
        "fused_lrelu [[-0.14142, 1.41421], [1.41421, -1.13137]]",
        "g params 3161 d params 2961",
        "EqualLinear(16, 16) EqualConv2d(3, 8, 1, stride=1, padding=0) EqualLinear(128, 8)",
        "noise shapes [(1, 1, 4, 4), (1, 1, 8, 8), (1, 1, 8, 8)]",
        "path_lengths (2,) Tensor",
        "state_dict 33 ['style.1.weight', 'style.1.bias', 'style.2.weight'] True",
    ],
}


@pytest.mark.parametrize("name,rtol", PROGRAMS_AND_TOLERANCES, ids=[p[0][3:-3] for p in PROGRAMS_AND_TOLERANCES])
def test_paper_program_matches_torch(name, rtol):
    pytest.importorskip("torch", reason="the comparison runs the program with real torch too")
    expected, ours = lib_program_vs_torch(name, *REQUIRES.get(name, ()), timeout=600, rtol=rtol)
    assert len(ours) >= 10, ours
    for line in KEY_LINES[name]:
        assert line in expected, (line, expected)
        assert line in ours, (line, ours)
