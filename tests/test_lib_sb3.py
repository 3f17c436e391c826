"""Stable-Baselines3 (PPO, A2C, DQN, SAC, TD3 and gSDE PPO on seeded CartPole-v1/Pendulum-v1, evaluate_policy,
save/load, get/set_parameters, VecNormalize, a custom features extractor, callbacks, Dict/MultiDiscrete/MultiBinary
spaces) under the drop-in runner, compared line by line with the same program under real torch.
"""
from conftest import lib_program_vs_torch


def test_sb3_algorithms_train_save_load_and_predict_like_torch(sb3_env):
    _, ours = lib_program_vs_torch("lib_sb3_rl.py", "torch", "stable_baselines3", "gymnasium", env=sb3_env,
                                   timeout=600, rtol=1e-4)
    assert len(ours) == 28, ours
    line = {text.split(" losses")[0]: text for text in ours if " losses " in text}
    for name in ("ppo", "a2c", "dqn", "sac", "ppo sde", "td3", "dict ppo", "multibinary a2c"):
        assert "loss" in line[name].split("{")[1], (name, line[name])
    assert ours[1].startswith("ppo callback 256 2 256.0"), ours[1]
    assert "ppo reload same True" in ours[5] and ours[8].endswith("same True"), ours
    assert ours[12].startswith("dqn evals [100, 200, 300]"), ours[12]
    assert ours[14] == "dqn extractor SmallExtractor 16"
    assert ours[20] == "sac reload 200 " + ours[16].split("norm ")[1]
    assert ours[-1] == "polyak [0.1, 0.1, 0.1] explained_variance 0.9908"
