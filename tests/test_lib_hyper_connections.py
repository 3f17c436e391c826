"""hyper-connections 0.4.11 under the drop-in runner, compared line by line with real torch: HyperConnections
(multi-stream residuals with tanh-gated dynamic mixing, fractional streams), manifold-constrained mHC
(Sinkhorn-Knopp, plain and log-domain), manual width/depth connections vs decorate_branch, channel-first conv
branches, and the package's mHCv2 ViT trained with Adam."""
from conftest import lib_program_vs_torch


def test_hyper_connections_like_torch():
    _, ours = lib_program_vs_torch("lib_hyper_connections.py", "hyper_connections", timeout=600, rtol=1e-4)
    assert len(ours) == 16, ours
    assert ours[0] == "hc out (2, 5, 8) 340 1.2018 4.0457", ours[0]
    assert ours[8].startswith("sinkhorn_knopps [1.0, 1.0, 1.0, 1.0] [1.0, 1.0, 1.0, 1.0]"), ours[8]
    assert ours[10].endswith(" True"), ours[10]
    assert ours[12] == "vit params 5807", ours[12]
    losses = [float(line.split()[-1]) for line in ours if line.startswith("vit ") and line.split()[1].isdigit()]
    assert len(losses) == 2 and losses[1] < losses[0], losses
