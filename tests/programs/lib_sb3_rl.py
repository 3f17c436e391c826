"""Stable-Baselines3: PPO, A2C, DQN and SAC trained a few hundred steps on seeded classic-control envs (CartPole-v1,
Pendulum-v1) on the CPU; training losses from the logger, parameter norms, deterministic predictions, evaluation
rewards, save/load, get/set_parameters, a VecNormalize vectorized env, a custom features extractor and callbacks.
Also gSDE PPO, TD3 with action noise, a Dict-observation MultiDiscrete env, a MultiBinary env, policy and replay
buffer save/load and polyak_update. Runs are short so that float rounding differences cannot grow into different
trajectories."""
import os
import tempfile

import gymnasium as gym
import numpy as np
import torch
import torch.nn as nn
from gymnasium import spaces
from stable_baselines3 import A2C, DQN, PPO, SAC, TD3
from stable_baselines3.common.callbacks import BaseCallback, EvalCallback
from stable_baselines3.common.env_util import make_vec_env
from stable_baselines3.common.evaluation import evaluate_policy
from stable_baselines3.common.noise import NormalActionNoise
from stable_baselines3.common.policies import ActorCriticPolicy
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from stable_baselines3.common.utils import explained_variance, polyak_update
from stable_baselines3.common.vec_env import VecNormalize


def r(x, n=4):
    return round(float(x), n)


def losses(model):
    return {k.split("/")[-1]: r(v) for k, v in sorted(model.logger.name_to_value.items())
            if k.startswith("train/") and "loss" in k}


def norm(model):
    return r(sum(float(p.detach().pow(2).sum()) for p in model.policy.parameters()) ** 0.5)


class CountSteps(BaseCallback):
    """Counts environment steps and rollouts; sums the rewards seen."""

    def __init__(self):
        super().__init__()
        self.steps = self.rollouts = 0
        self.reward = 0.0

    def _on_step(self):
        self.steps += 1
        self.reward += float(np.sum(self.locals["rewards"]))
        return True

    def _on_rollout_end(self):
        self.rollouts += 1


class SmallExtractor(BaseFeaturesExtractor):
    """A two-layer MLP features extractor with a LayerNorm."""

    def __init__(self, observation_space, features_dim=16):
        super().__init__(observation_space, features_dim)
        n = int(np.prod(observation_space.shape))
        self.net = nn.Sequential(nn.Linear(n, 32), nn.Tanh(), nn.Linear(32, features_dim), nn.LayerNorm(features_dim))

    def forward(self, obs):
        return self.net(obs)


class DictEnv(gym.Env):
    """Dict observations (a Box and a Discrete) and a MultiDiscrete action; 20-step episodes."""

    observation_space = spaces.Dict({"vec": spaces.Box(-1, 1, (3,), np.float32), "disc": spaces.Discrete(4)})
    action_space = spaces.MultiDiscrete([3, 2])

    def _obs(self):
        return {"vec": self.np_random.uniform(-1, 1, 3).astype(np.float32), "disc": int(self.np_random.integers(4))}

    def reset(self, seed=None, options=None):
        super().reset(seed=seed)
        self.t, self.o = 0, self._obs()
        return self.o, {}

    def step(self, a):
        rew = float(self.o["vec"][0] * (a[0] - 1) + (a[1] == self.o["disc"] % 2))
        self.t, self.o = self.t + 1, self._obs()
        return self.o, rew, False, self.t >= 20, {}


class BinEnv(gym.Env):
    """A MultiBinary(3) action rewarded for matching the signs of the observation; 16-step episodes."""

    observation_space = spaces.Box(-1, 1, (4,), np.float32)
    action_space = spaces.MultiBinary(3)

    def reset(self, seed=None, options=None):
        super().reset(seed=seed)
        self.t, self.o = 0, self.np_random.uniform(-1, 1, 4).astype(np.float32)
        return self.o, {}

    def step(self, a):
        rew = float(np.sum((self.o[:3] > 0) == a))
        self.t, self.o = self.t + 1, self.np_random.uniform(-1, 1, 4).astype(np.float32)
        return self.o, rew, False, self.t >= 16, {}


probe = np.array([[0.01, -0.02, 0.03, 0.04], [0.1, 0.5, -0.1, -0.5], [-0.05, 0.2, 0.05, -0.2]], np.float32)

# PPO on CartPole with a custom callback
env = gym.make("CartPole-v1")
cb = CountSteps()
ppo = PPO("MlpPolicy", env, n_steps=128, batch_size=32, n_epochs=2, seed=0, device="cpu", verbose=0,
          policy_kwargs=dict(net_arch=[32, 32]))
ppo.learn(total_timesteps=256, callback=cb)
print("ppo losses", losses(ppo))
print("ppo callback", cb.steps, cb.rollouts, r(cb.reward), "norm", norm(ppo))
acts, _ = ppo.predict(probe, deterministic=True)
print("ppo predict", acts.tolist())
with torch.no_grad():
    obs_t, _ = ppo.policy.obs_to_tensor(probe)
    values, logp, ent = ppo.policy.evaluate_actions(obs_t, torch.as_tensor(acts))
print("ppo values", [r(v) for v in values.flatten()], "logp", [r(v) for v in logp], "ent", [r(v) for v in ent])
mean_r, std_r = evaluate_policy(ppo, make_vec_env("CartPole-v1", seed=7), n_eval_episodes=3, deterministic=True)
print("ppo eval", r(mean_r, 2), r(std_r, 2))

# save / load, get_parameters / set_parameters
with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "ppo_cartpole")
    ppo.save(path)
    loaded = PPO.load(path, device="cpu")
    acts2, _ = loaded.predict(probe, deterministic=True)
    print("ppo reload same", bool(np.array_equal(acts, acts2)), "norm", norm(loaded))
params = ppo.get_parameters()
print("get_parameters", sorted(params), len(params["policy"]), sorted(params["policy"])[:3])
fresh = PPO("MlpPolicy", gym.make("CartPole-v1"), seed=1, device="cpu", policy_kwargs=dict(net_arch=[32, 32]))
print("fresh norm", norm(fresh))
fresh.set_parameters(params, exact_match=True)
acts3, _ = fresh.predict(probe, deterministic=True)
print("set_parameters norm", norm(fresh), "same", bool(np.array_equal(acts, acts3)))

# A2C on a VecNormalize-wrapped make_vec_env
venv = VecNormalize(make_vec_env("CartPole-v1", n_envs=2, seed=0), norm_obs=True, norm_reward=True)
a2c = A2C("MlpPolicy", venv, n_steps=8, seed=0, device="cpu", policy_kwargs=dict(net_arch=[32]))
a2c.learn(total_timesteps=160)
print("a2c losses", losses(a2c), "norm", norm(a2c))
print("a2c obs_rms", [r(v, 3) for v in venv.obs_rms.mean], [r(v, 3) for v in venv.obs_rms.var])
print("a2c predict", a2c.predict(venv.normalize_obs(probe), deterministic=True)[0].tolist())

# DQN with a custom features extractor and an EvalCallback
with tempfile.TemporaryDirectory() as tmp:
    eval_cb = EvalCallback(make_vec_env("CartPole-v1", seed=8), n_eval_episodes=2, eval_freq=100, log_path=tmp, verbose=0)
    dqn = DQN("MlpPolicy", "CartPole-v1", learning_starts=100, buffer_size=1000, batch_size=32, train_freq=4,
              target_update_interval=50, exploration_fraction=0.5, seed=0, device="cpu",
              policy_kwargs=dict(features_extractor_class=SmallExtractor,
                                 features_extractor_kwargs=dict(features_dim=16), net_arch=[32]))
    dqn.learn(total_timesteps=300, callback=eval_cb)
    evals = np.load(os.path.join(tmp, "evaluations.npz"))
    print("dqn evals", evals["timesteps"].tolist(), [r(v, 2) for v in evals["results"].mean(1)])
print("dqn losses", losses(dqn), "norm", norm(dqn), "eps", r(dqn.exploration_rate))
print("dqn extractor", type(dqn.q_net.features_extractor).__name__, dqn.q_net.features_extractor.features_dim)
with torch.no_grad():
    q = dqn.q_net(torch.as_tensor(probe))
print("dqn q", [[r(v) for v in row] for row in q], "predict", dqn.predict(probe, deterministic=True)[0].tolist())

# SAC on Pendulum
sac = SAC("MlpPolicy", "Pendulum-v1", learning_starts=100, buffer_size=1000, batch_size=32, seed=0, device="cpu",
          policy_kwargs=dict(net_arch=[32, 32]))
sac.learn(total_timesteps=200)
print("sac losses", losses(sac), "norm", norm(sac))
print("sac ent_coef", r(sac.log_ent_coef.exp().item()))
pend = np.array([[1.0, 0.0, 0.1], [0.0, 1.0, -0.5]], np.float32)
print("sac predict", [[r(v) for v in row] for row in sac.predict(pend, deterministic=True)[0]])
mean_r, _ = evaluate_policy(sac, make_vec_env("Pendulum-v1", seed=9), n_eval_episodes=1, deterministic=True)
print("sac eval", r(mean_r, 1))

# SAC's replay buffer saved and loaded with the model
with tempfile.TemporaryDirectory() as tmp:
    sac.save(os.path.join(tmp, "sac"))
    sac.save_replay_buffer(os.path.join(tmp, "rb"))
    sac2 = SAC.load(os.path.join(tmp, "sac"), device="cpu")
    sac2.load_replay_buffer(os.path.join(tmp, "rb"))
    print("sac reload", sac2.replay_buffer.size(), norm(sac2))

# PPO with generalized state-dependent exploration on Pendulum; the policy alone saved and loaded.
# (SAC with use_sde is left out: its squashed log-probability log(1 - tanh(x)**2 + 1e-6) at saturated actions
# magnifies the last-ulp difference of XLA's tanh, see docs/differences.md.)
pend_env = gym.make("Pendulum-v1")
sde = PPO("MlpPolicy", pend_env, n_steps=64, batch_size=32, n_epochs=2, use_sde=True, sde_sample_freq=4, seed=0,
          device="cpu", target_kl=0.5, clip_range_vf=0.2, policy_kwargs=dict(net_arch=[32]))
sde.learn(128)
print("ppo sde losses", losses(sde), "norm", norm(sde))
print("ppo sde predict", [[r(v) for v in row] for row in sde.predict(pend, deterministic=True)[0]])
with tempfile.TemporaryDirectory() as tmp:
    sde.policy.save(os.path.join(tmp, "policy.pth"))
    pol = ActorCriticPolicy.load(os.path.join(tmp, "policy.pth"), device="cpu")
    print("policy reload", r(sum(float(q.detach().pow(2).sum()) for q in pol.parameters()) ** 0.5),
          [[r(v) for v in row] for row in pol.predict(pend, deterministic=True)[0]])

# TD3 with Gaussian action noise
td3 = TD3("MlpPolicy", "Pendulum-v1", learning_starts=50, buffer_size=500, batch_size=32, seed=0, device="cpu",
          action_noise=NormalActionNoise(np.zeros(1), 0.1 * np.ones(1)), policy_kwargs=dict(net_arch=[32]))
td3.learn(150)
print("td3 losses", losses(td3), "norm", norm(td3))

# Dict observations with MultiInputPolicy and a MultiDiscrete action; a MultiBinary action with A2C on Adam
mi = PPO("MultiInputPolicy", DictEnv(), n_steps=40, batch_size=20, n_epochs=2, seed=0, device="cpu")
mi.learn(80)
probe_env = DictEnv()
probe_env.reset(seed=3)
print("dict ppo losses", losses(mi), "norm", norm(mi), "predict", mi.predict(probe_env._obs(), deterministic=True)[0].tolist())
bn = A2C("MlpPolicy", BinEnv(), n_steps=8, seed=0, device="cpu", use_rms_prop=False, normalize_advantage=True)
bn.learn(64)
print("multibinary a2c losses", losses(bn), "norm", norm(bn), "predict", bn.predict(probe, deterministic=True)[0].tolist())

a, b = [torch.ones(3)], [torch.zeros(3)]
polyak_update(a, b, 0.1)
print("polyak", [r(v) for v in b[0]], "explained_variance",
      r(explained_variance(np.array([1.0, 2, 3, 4]), np.array([1.1, 2.1, 2.9, 4.2]))))
