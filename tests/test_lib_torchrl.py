"""TorchRL (GymEnv with ObservationNorm/DoubleToFloat/StepCounter transforms, rollouts, PPO with a TanhNormal
ProbabilisticActor, ValueOperator, Collector, ReplayBuffer/LazyTensorStorage, GAE and ClipPPOLoss; a
OneHotCategorical actor; DQN with DQNLoss and SoftUpdate) under the drop-in runner, compared line by line with the
same program under real torch. GAE vmaps its value network over TensorDicts (tensordict's vmap protocol)."""
from conftest import lib_program_vs_torch


def test_torchrl_ppo_and_dqn_on_gym_envs_like_torch():
    _, ours = lib_program_vs_torch("lib_torchrl.py", "torch", "torchrl", "gymnasium", timeout=600, rtol=1e-4)
    assert len(ours) == 16, ours
    assert ours[1] == "specs (3,) torch.float32 (1,) -2.0 2.0", ours[1]
    assert ours[2].startswith("rollout (5,) ['action', 'done', 'next', 'observation', 'step_count'"), ours[2]
    ppo = [line for line in ours if line.startswith("ppo batch")]
    assert len(ppo) == 2 and all("'loss_critic'" in line and line.endswith(" 64") for line in ppo), ppo
    assert ours[7].startswith("ppo eval (20,) ") and ours[7].endswith(" 20"), ours[7]
    assert ours[8] == "cartpole (4,) OneHot (2,)"
    assert [line.split()[3] for line in ours if line.startswith("dqn batch")] == ["32", "64", "96"], ours
    assert ours[-1].startswith("dqn eval ("), ours[-1]
