"""geomloss 0.3.1 (Sinkhorn divergences and kernel MMDs, tensorized backend) under the drop-in runner, compared
line by line with the same program under real torch (tests/programs/lib_geomloss.py): SamplesLoss on weighted,
batched and float32 clouds, dual potentials, first and second-order gradients, the geomloss.ot solvers, and
an Adam gradient flow of a point cloud.
"""
from conftest import lib_program_vs_torch


def test_geomloss_losses_gradients_and_flow_like_torch():
    _, ours = lib_program_vs_torch("lib_geomloss.py", "torch", "geomloss", timeout=900, rtol=1e-4)
    assert len(ours) == 20, ours
    assert ours[0] == "sinkhorn [('blur', 0.05), ('p', 2)] () torch.float64 3.3202 3.2431", ours[0]
    line = {}
    for text in ours:
        line.setdefault(text.split(" ")[0], text)
    assert line["float32"] == "float32 torch.float32 3.32"
    assert line["batched"] == "batched (3,) [0.9486, 0.5814, 2.1443]"
    assert line["potentials"].startswith("potentials (1, 40) (1, 30) 3.2431 "), line["potentials"]
    assert line["ot.solve"].startswith("ot.solve OTResultMatrix "), line["ot.solve"]
    assert line["flow"].endswith(" True"), line["flow"]
