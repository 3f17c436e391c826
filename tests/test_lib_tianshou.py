"""tianshou 2.0.1 (installed with --no-deps: it asks for pandas<3 and, through virtualenv<21, filelock<4; its
imports need deepdiff, overrides, pettingzoo, sensai-utils) under the drop-in runner on gymnasium's CartPole,
compared line by line with real torch: DQN (n-step returns, target network, epsilon-greedy) through
OffPolicyTrainerParams, PPO (Categorical actor, GAE, clipped objective, grad-norm clipping) through
OnPolicyTrainerParams, manual collect/update steps, test returns, a state-dict round trip, tianshou's Batch over
torch tensors and a prioritized replay buffer, all seeded.  Its import needs ``overrides``' ``@override`` to read
the class-statement frame (tests/test_class_statement_frames.py)."""
from conftest import lib_program_vs_torch


def test_tianshou_dqn_ppo_cartpole_like_torch():
    theirs, ours = lib_program_vs_torch("lib_tianshou.py", "tianshou", "gymnasium", timeout=600, rtol=1e-3)
    assert len(ours) == 18, ours
    assert ours[0] == "tianshou 2.0.1", ours[0]
    assert ours[1] == "dqn params 1282 128", ours[1]
    assert ours[2] == theirs[2] and ours[2].startswith("dqn run 20 320 "), ours[2]  # same episodes: same actions
    assert ours[8] == theirs[8] and ours[8].startswith("ppo run 4 512 "), ours[8]
    assert ours[9] == theirs[9], (ours[9], theirs[9])  # the collected returns: the same sampled actions
    assert ours[13:] == theirs[13:], (ours[13:], theirs[13:])  # Batch and the prioritized buffer: exact
