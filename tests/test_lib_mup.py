"""mup 1.0.0 (maximal update parametrization) under the drop-in runner, compared line by line with real torch:
MuReadout / MuSharedReadout heads, make_base_shapes / set_base_shapes (infshape attributes on parameters, the
readout and bias rescaling, base shapes through a YAML file), mup's initialisers built on torch.nn.init's private
_no_grad_* helpers, MuAdam / MuAdamW / MuSGD per-width learning-rate groups trained at two widths, and the
coordinate check (forward hooks into a pandas DataFrame)."""
from conftest import lib_program_vs_torch


def test_mup_like_torch():
    _, ours = lib_program_vs_torch("lib_mup.py", "mup", "pandas", "yaml", timeout=600, rtol=1e-4)
    assert len(ours) == 26, ours
    assert ours[4] == "adamw 16 [(0.005, 0.2, 1), (0.01, 0.1, 5)] 1.4443 2.1018", ours[4]
    assert ours[9] == "adamw 64 [(0.00125, 0.8, 1), (0.01, 0.1, 5)] 1.4637 3.7459", ours[9]
    assert ours[13] == "tied True 1 4.0", ours[13]
    assert ours[17] == "reloaded 0.0 4.0", ours[17]
    assert ours[18] == "coord rows 36 ['l1', 'lr', 'module', 'optimizer', 't', 'width']", ours[18]
