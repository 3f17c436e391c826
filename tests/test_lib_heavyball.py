"""heavyball 3.2.1 under the drop-in runner, compared line by line with real torch: thirteen of its chainable
optimizers (AdamW, NAdam, LaProp, ADOPT, RMSprop, AdEMAMix, SGD, SignLaProp, UnscaledAdamW, AdamC, SFAdamW, Muon,
MuonLaProp) stepping with closures, eagerly (``compile_mode = None``), and a state_dict resume.

Found: each step runs inside torch._dynamo.utils.disable_cache_limit(), and torch._dynamo.utils was not loaded
with torch._dynamo."""
from conftest import lib_program_vs_torch


def test_heavyball_like_torch():
    _, ours = lib_program_vs_torch("lib_heavyball.py", "heavyball", timeout=600, rtol=1e-4)
    assert len(ours) == 14, ours
    assert ours[0] == "AdamW [2.402, 2.2457, 2.1062, 1.982, 1.8719] 24.755", ours[0]
    assert ours[11] == "Muon [2.402, 2.3507, 2.3009, 2.2525, 2.2057] 24.413", ours[11]
    assert ours[13] == "resumed [1.4757, 1.4115] [1.4757, 1.4115]", ours[13]
