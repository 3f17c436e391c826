"""FrEIA 0.2 under the drop-in runner, compared line by line with real torch: maximum-likelihood training of a
SequenceINN of AllInOneBlocks and of a conditional GLOW/PermuteRandom flow (sampled through the inverse), a
GraphINN over images (Haar and IRevNet downsampling, RNVP and NICE coupling, Split/Concat, Flatten), an
IResNetLayer inverted by fixed-point iteration, and inverse passes that undo the forward and its log-Jacobian."""
from conftest import lib_program_vs_torch


def test_freia_like_torch():
    _, ours = lib_program_vs_torch("lib_freia.py", "FrEIA", timeout=600, rtol=1e-4)
    assert len(ours) == 18, ours
    assert ours[0] == "aio params 536", ours[0]
    assert ours[5] == "aio inverse 1.0 1.0", ours[5]
    assert ours[11].startswith("graph (5, 256) "), ours[11]
    assert ours[15] == "graph inverse 1.0 1.0", ours[15]
