"""skrl: reinforcement-learning agents on gymnasium environments, driven by skrl's own trainer. PPO with a
Gaussian policy and a deterministic value model (shared RunningStandardScaler preprocessors, KLAdaptiveLR
schedule) trained on Pendulum-v1 by the SequentialTrainer, DQN with a RandomMemory replay buffer and
epsilon-greedy exploration on CartPole-v1, the losses skrl tracks, greedy actions after training, and a
checkpoint saved and loaded through the agent."""
import os
import tempfile

import gymnasium as gym
import torch
import torch.nn as nn
from skrl.agents.torch.dqn import DQN, DQN_CFG
from skrl.agents.torch.ppo import PPO, PPO_CFG
from skrl.agents.torch.sac import SAC, SAC_CFG
from skrl.envs.wrappers.torch import wrap_env
from skrl.memories.torch import RandomMemory
from skrl.models.torch import DeterministicMixin, GaussianMixin, Model
from skrl.resources.preprocessors.torch import RunningStandardScaler
from skrl.resources.schedulers.torch import KLAdaptiveLR
from skrl.trainers.torch import SequentialTrainer
from skrl.utils import set_seed


def r(x, n=4):
    if isinstance(x, torch.Tensor):
        x = x.detach().double()
        if x.numel() == 1:
            return round(float(x), n)
        return [round(float(v), n) for v in x.flatten()]
    if isinstance(x, (list, tuple)):
        return [r(v, n) for v in x]
    return round(float(x), n)


def tracked(agent, key):
    return [r(v) for v in agent.tracking_data.get(key, [])]


class Policy(GaussianMixin, Model):
    def __init__(self, observation_space, action_space, device):
        Model.__init__(self, observation_space=observation_space, action_space=action_space, device=device)
        GaussianMixin.__init__(self, clip_actions=True, clip_log_std=True, min_log_std=-5.0, max_log_std=2.0)
        self.net = nn.Sequential(nn.Linear(self.num_observations, 32), nn.ELU(), nn.Linear(32, self.num_actions),
                                 nn.Tanh())
        self.log_std_parameter = nn.Parameter(torch.zeros(self.num_actions))

    def compute(self, inputs, role=""):
        return 2 * self.net(inputs["observations"]), {"log_std": self.log_std_parameter}


class Value(DeterministicMixin, Model):
    def __init__(self, observation_space, action_space, device):
        Model.__init__(self, observation_space=observation_space, action_space=action_space, device=device)
        DeterministicMixin.__init__(self, clip_actions=False)
        self.net = nn.Sequential(nn.Linear(self.num_observations, 32), nn.ELU(), nn.Linear(32, 1))

    def compute(self, inputs, role=""):
        return self.net(inputs["observations"]), {}


class QNet(DeterministicMixin, Model):
    def __init__(self, observation_space, action_space, device):
        Model.__init__(self, observation_space=observation_space, action_space=action_space, device=device)
        DeterministicMixin.__init__(self)
        self.net = nn.Sequential(nn.Linear(self.num_observations, 32), nn.ReLU(), nn.Linear(32, self.num_actions))

    def compute(self, inputs, role=""):
        return self.net(inputs["observations"]), {}


class Critic(DeterministicMixin, Model):
    def __init__(self, observation_space, action_space, device):
        Model.__init__(self, observation_space=observation_space, action_space=action_space, device=device)
        DeterministicMixin.__init__(self)
        self.net = nn.Sequential(nn.Linear(self.num_observations + self.num_actions, 32), nn.ReLU(), nn.Linear(32, 1))

    def compute(self, inputs, role=""):
        return self.net(torch.cat([inputs["observations"], inputs["taken_actions"]], dim=1)), {}


workdir = tempfile.mkdtemp()
# a write interval past the run's end: skrl tracks every statistic but never writes one
no_files = {"write_interval": 10 ** 6, "checkpoint_interval": 0, "directory": workdir}

# PPO on Pendulum
set_seed(0)
env = wrap_env(gym.make("Pendulum-v1"), wrapper="gymnasium")
device = env.device
print("env", env.num_envs, env.observation_space.shape, env.action_space.shape, str(device))
memory = RandomMemory(memory_size=32, num_envs=env.num_envs, device=device)
models = {"policy": Policy(env.observation_space, env.action_space, device),
          "value": Value(env.observation_space, env.action_space, device)}
cfg = PPO_CFG(rollouts=32, learning_epochs=3, mini_batches=4, learning_rate=3e-3, learning_rate_scheduler=KLAdaptiveLR,
              learning_rate_scheduler_kwargs={"kl_threshold": 0.008}, observation_preprocessor=RunningStandardScaler,
              observation_preprocessor_kwargs={"size": env.observation_space, "device": device},
              value_preprocessor=RunningStandardScaler, value_preprocessor_kwargs={"size": 1, "device": device},
              entropy_loss_scale=0.01, experiment=no_files)
agent = PPO(models=models, memory=memory, observation_space=env.observation_space, action_space=env.action_space,
            device=device, cfg=cfg)
print("ppo params", sum(p.numel() for p in agent.policy.parameters()), sum(p.numel() for p in agent.value.parameters()))
trainer = SequentialTrainer(env=env, agents=agent, cfg={"timesteps": 96, "headless": True, "disable_progressbar": True,
                                                          "close_environment_at_exit": False})
trainer.train()
print("ppo policy loss", tracked(agent, "Loss / Policy loss"))
print("ppo value loss", tracked(agent, "Loss / Value loss"))
print("ppo entropy loss", tracked(agent, "Loss / Entropy loss"))
print("ppo std", tracked(agent, "Policy / Standard deviation"))
print("ppo lr", tracked(agent, "Learning / Learning rate"))
print("ppo reward", tracked(agent, "Reward / Instantaneous reward (mean)")[-3:])
print("ppo rollout values", r(memory.get_tensor_by_name("values")[:3]))
obs = torch.tensor([[1.0, 0.0, 0.5], [0.0, 1.0, -0.5]])
with torch.no_grad():
    pre = agent._observation_preprocessor(obs)
    mean, outputs = agent.policy.act({"observations": pre}, role="policy")
print("ppo scaled obs", r(pre))
print("ppo act", r(outputs["mean_actions"]), r(outputs["log_prob"]))
agent.save(os.path.join(workdir, "ppo.pt"))
set_seed(5)
agent2 = PPO(models={"policy": Policy(env.observation_space, env.action_space, device),
                     "value": Value(env.observation_space, env.action_space, device)},
             memory=None, observation_space=env.observation_space, action_space=env.action_space, device=device,
             cfg=PPO_CFG(observation_preprocessor=RunningStandardScaler,
                         observation_preprocessor_kwargs={"size": env.observation_space, "device": device},
                         experiment=no_files))
agent2.load(os.path.join(workdir, "ppo.pt"))
with torch.no_grad():
    _, out2 = agent2.policy.act({"observations": agent2._observation_preprocessor(obs)}, role="policy")
print("ppo reloaded", torch.allclose(out2["mean_actions"], outputs["mean_actions"]))
env.close()

# DQN on CartPole
set_seed(1)
env = wrap_env(gym.make("CartPole-v1"), wrapper="gymnasium")
env.action_space.seed(1)  # random_timesteps sample the gymnasium space, which has its own generator
memory = RandomMemory(memory_size=200, num_envs=env.num_envs, device=device, replacement=False)
q = QNet(env.observation_space, env.action_space, device)
target_q = QNet(env.observation_space, env.action_space, device)
cfg = DQN_CFG(batch_size=16, learning_starts=20, random_timesteps=10, target_update_interval=5, learning_rate=1e-3,
              exploration_scheduler=lambda t, ts: max(0.05, 1.0 - t / 50), experiment=no_files)
dqn = DQN(models={"q_network": q, "target_q_network": target_q}, memory=memory,
          observation_space=env.observation_space, action_space=env.action_space, device=device, cfg=cfg)
SequentialTrainer(env=env, agents=dqn, cfg={"timesteps": 80, "headless": True, "disable_progressbar": True,
                                            "close_environment_at_exit": False}).train()
q_losses = tracked(dqn, "Loss / Q-network loss")
print("dqn updates", len(q_losses), q_losses[:3], q_losses[-3:])
print("dqn epsilon", tracked(dqn, "Exploration / Exploration epsilon")[-1:])
print("dqn target q", tracked(dqn, "Target / Target (mean)")[-3:])
with torch.no_grad():
    values, _ = dqn.q_network.act({"observations": torch.tensor([[0.0, 0.1, 0.02, -0.1], [0.1, -0.2, 0.0, 0.3]])},
                                  role="q_network")
print("dqn q", r(values), values.argmax(dim=1).tolist())
print("memory", len(memory), memory.memory_index, memory.filled, sorted(memory.get_tensor_names()))
env.close()

# SAC on Pendulum: twin critics, polyak-averaged targets, learned entropy coefficient, gradient clipping
set_seed(2)
env = wrap_env(gym.make("Pendulum-v1"), wrapper="gymnasium")
env.action_space.seed(2)
memory = RandomMemory(memory_size=100, num_envs=env.num_envs, device=device)
sac_models = {"policy": Policy(env.observation_space, env.action_space, device)}
for name in ("critic_1", "critic_2", "target_critic_1", "target_critic_2"):
    sac_models[name] = Critic(env.observation_space, env.action_space, device)
cfg = SAC_CFG(batch_size=16, learning_starts=16, random_timesteps=8, learning_rate=(3e-3, 3e-3, 3e-3), polyak=0.05,
              grad_norm_clip=1.0, experiment=no_files)
sac = SAC(models=sac_models, memory=memory, observation_space=env.observation_space, action_space=env.action_space,
          device=device, cfg=cfg)
SequentialTrainer(env=env, agents=sac, cfg={"timesteps": 40, "headless": True, "disable_progressbar": True,
                                            "close_environment_at_exit": False}).train()
for key in ("Loss / Policy loss", "Loss / Critic loss", "Loss / Entropy loss", "Coefficient / Entropy coefficient",
            "Q-network / Q1 (mean)", "Target / Target (mean)"):
    print("sac", key, tracked(sac, key)[-3:])
print("sac target gap", r(sum((a - b).abs().sum() for a, b in zip(sac.critic_1.parameters(),
                                                                   sac.target_critic_1.parameters()))))
env.close()
