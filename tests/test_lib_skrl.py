"""skrl 2.1.1 under the drop-in runner, compared line by line with real torch: PPO (Gaussian policy, value model,
RunningStandardScaler preprocessors, KLAdaptiveLR) on Pendulum-v1, DQN with a RandomMemory replay buffer and
epsilon-greedy exploration on CartPole-v1 and SAC (twin critics, polyak targets, learned entropy coefficient,
gradient clipping) on Pendulum-v1, each driven by skrl's SequentialTrainer, plus an agent checkpoint round trip."""
from conftest import lib_program_vs_torch


def test_skrl_like_torch():
    _, ours = lib_program_vs_torch("lib_skrl.py", "skrl", "gymnasium", timeout=600, rtol=1e-4)
    assert len(ours) == 24, ours
    assert ours[0] == "env 1 (3,) (1,) cpu", ours[0]
    assert ours[1] == "ppo params 162 161", ours[1]
    assert ours[11] == "ppo reloaded True", ours[11]
    assert ours[12].startswith("dqn updates 60 "), ours[12]
    assert ours[16].startswith("memory 80 80 False"), ours[16]
