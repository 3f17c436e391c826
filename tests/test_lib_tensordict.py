"""tensordict (TensorDict with nested keys: indexing, masking, apply, to, stack/cat, reshape/unbind, update,
exclude/select, flatten/unflatten keys, from_dict; a tensorclass; a TensorDictSequential of TensorDictModules over
nn.Linear trained with Adam) under the drop-in runner, compared line by line with the same program under real torch.
memmap_ is left out (docs/differences.md, "Library: tensordict").
"""
from conftest import lib_program_vs_torch


def test_tensordict_basics_and_modules_match_torch():
    _, ours = lib_program_vs_torch("lib_tensordict_basics.py", "torch", "tensordict", timeout=600, rtol=1e-4)
    assert len(ours) == 16
    tags = [line.split()[0] for line in ours]
    assert tags[0] == "td" and "stack" in tags and "tensorclass" in tags
    assert ours[tags.index("stack")].split()[1:3] == ["(2,", "4)"]
    losses = [float(v) for v in ours[-1].split("losses")[1].strip(" []").split(",")]
    assert len(losses) == 5 and losses[-1] < losses[0], losses
