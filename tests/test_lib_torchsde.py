"""torchsde (an OU SDE by Euler, Milstein and SRK from a seeded BrownianInterval with space-time Levy area, a
general-noise SDE, a neural Stratonovich SDE fitted through sdeint (midpoint) and sdeint_adjoint (reversible
Heun), BrownianTree increments) under the drop-in runner, compared line by line with the same program under real
torch.
"""
from conftest import lib_program_vs_torch


def test_torchsde_solvers_adjoint_and_brownian_match_torch():
    _, ours = lib_program_vs_torch("lib_torchsde_sde.py", "torch", "torchsde", timeout=600, rtol=1e-6)
    assert len(ours) == 11
    assert [line.split()[0] for line in ours[:4]] == ["euler", "milstein", "srk", "general"]
    losses = [float(line.split()[-1]) for line in ours if line.startswith("sdeint_adjoint")]
    assert len(losses) == 3 and losses[-1] < losses[0], losses
