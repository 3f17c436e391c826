"""perceiver-pytorch 0.11.0 (Perceiver, PerceiverIO, PerceiverLM) under the drop-in runner, compared line by line
with the same program under real torch (tests/programs/lib_perceiver.py)."""
from conftest import lib_program_vs_torch


def test_perceiver_and_perceiver_io_like_torch():
    _, ours = lib_program_vs_torch("lib_perceiver.py", "torch", "perceiver_pytorch")
    assert len(ours) == 8, ours
    line = {text.split(" ")[0] + " " + text.split(" ")[1]: text for text in ours}
    assert line["perceiver params"] == "perceiver params 96761 2 False"
    assert line["perceiver losses"] == "perceiver losses [1.8397, 1.4019, 1.1946, 1.1378]"
    assert line["perceiver eval"] == "perceiver eval (6, 5) 1.6236 0.4293 (6, 8, 32) 3"
    assert line["state 81"].startswith("state 81 ['latents', "), line["state 81"]
    assert line["perceiver io"] == "perceiver io (2, 10, 7) -3.8377 0.025"
    assert line["perceiver lm"] == "perceiver lm (3, 16, 30) [3.4446, 3.4141, 3.3874, 3.3631]"
