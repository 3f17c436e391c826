"""sb3-contrib 2.9.2 under the drop-in runner, compared line by line with real torch: RecurrentPPO (LSTM policy,
hidden state carried through predict), QR-DQN quantiles, TQC, TRPO's conjugate-gradient step and line search on a
discrete and a continuous env, MaskablePPO with action masks, and save/load."""
from conftest import lib_program_vs_torch


def test_sb3_contrib_like_torch(sb3_env):
    _, ours = lib_program_vs_torch("lib_sb3_contrib.py", "sb3_contrib", "gymnasium", env=sb3_env, timeout=600,
                                   rtol=1e-4)
    assert len(ours) == 17, ours
    assert ours[2].startswith("rppo step 0 [1, 1, 1]"), ours[2]
    assert ours[6].startswith("qrdqn quantiles (3, 8, 2)"), ours[6]
    assert "ls_success 1.0" in ours[10], ours[10]
    assert ours[14] == "maskable predict [2, 2, 3]", ours[14]
    assert ours[15] == "rppo reload 11.0497 True", ours[15]
