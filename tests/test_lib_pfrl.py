"""pfrl 0.4.0 under the drop-in runner, compared line by line with real torch: DQN and DoubleDQN with a linearly
decaying epsilon-greedy explorer, a replay buffer and target-network sync; DQN on a prioritized n-step replay
buffer; CategoricalDQN on a distributional Q-function; PPO and A2C on a Branched softmax-policy/value model;
REINFORCE; the Gaussian policy heads (state-independent and diagonal covariance: rsample, log_prob, entropy); and
an agent's save/load. The agents run on a seeded five-state chain environment written in the program.

Found: nothing; every printed value (losses, Q-values, greedy actions, statistics) is exact at 4 decimals."""
from conftest import lib_program_vs_torch


def test_pfrl_agents_like_torch():
    t, ours = lib_program_vs_torch("lib_pfrl.py", "pfrl", timeout=600)
    assert len(ours) == 18, ours
    assert ours == t
    assert ours[0].startswith("dqn episodes ") and ours[0].endswith("greedy [1, 1, 1, 1, 1]"), ours[0]
    assert ours[-1] == "loaded ['model.pt', 'optimizer.pt', 'target_model.pt'] True", ours[-1]
