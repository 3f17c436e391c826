"""d3rlpy 2.8.1 under the drop-in runner, compared line by line with real torch: offline RL from seeded MDPDatasets
through d3rlpy's own fit loop: DiscreteCQL with TD-error, value-estimation and action-match evaluators and a
save/load_learnable round trip, TD3+BC with observation and reward scalers, CQL with an action scaler and learned
temperature/alpha, behaviour cloning with a save_model/load_model round trip, and greedy policies exported by
save_policy (torch.jit.trace of a closure, the traced function's save) and run from torch.jit.load."""
from conftest import lib_program_vs_torch


def test_d3rlpy_like_torch():
    _, ours = lib_program_vs_torch("lib_d3rlpy.py", "d3rlpy", "gym", timeout=600, rtol=1e-4)
    assert len(ours) == 18, ours
    assert ours[0] == "dataset 10 200 3 ActionSpace", ours[0]
    assert ours[1].startswith("discrete cql 1 {'conservative_loss': "), ours[1]
    assert ours[5] == "reloaded DiscreteCQL True", ours[5]
    assert ours[6] == "exported policy [1, 0, 0]", ours[6]
    assert ours[10].startswith("exported td3+bc policy ["), ours[10]
    assert ours[11].startswith("cql 1 {'actor_loss': "), ours[11]
    assert ours[17] == "bc reloaded True", ours[17]
