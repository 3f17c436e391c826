"""siren-pytorch 0.1.7 under the drop-in runner, compared line by line with real torch: SirenWrapper fitting a
seeded image with Adam, latent modulation, a 1-D SirenNet with dropout and a final activation trained with SGD,
first and second derivatives with respect to the input coordinates (create_graph), and a state_dict round trip."""
from conftest import lib_program_vs_torch


def test_siren_like_torch():
    _, ours = lib_program_vs_torch("lib_siren.py", "siren_pytorch", timeout=600, rtol=1e-4)
    assert len(ours) == 11, ours
    assert ours[0] == "params 2307 (144, 2)", ours[0]
    assert ours[4] == "fit 7 0.4633", ours[4]
    assert ours[9] == "layer (2, 5) 1.0 0.9093", ours[9]
    assert ours[10] == "reloaded True", ours[10]
