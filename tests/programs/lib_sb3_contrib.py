"""sb3-contrib (Stable-Baselines3's experimental algorithms): RecurrentPPO with an LSTM policy, QR-DQN (quantile
regression), TQC (truncated quantile critics) and TRPO (conjugate-gradient natural step with a line search), each
trained a few hundred steps on seeded classic-control envs on the CPU; training losses from the logger, parameter
norms, deterministic predictions (with the LSTM state carried between calls), quantiles, MaskablePPO with action
masks, and a save/load round trip. Runs are short so that float rounding differences cannot grow into different
trajectories."""
import os
import tempfile

import gymnasium as gym
import numpy as np
import torch
from gymnasium import spaces
from sb3_contrib import QRDQN, TQC, TRPO, MaskablePPO, RecurrentPPO


def r(x, n=4):
    return round(float(x), n)


def losses(model):
    return {k.split("/")[-1]: r(v) for k, v in sorted(model.logger.name_to_value.items())
            if k.startswith("train/") and ("loss" in k or k.endswith("kl_divergence_loss") or "std" in k)}


def norm(model):
    return r(sum(float(p.detach().pow(2).sum()) for p in model.policy.parameters()) ** 0.5)


probe = np.array([[0.01, -0.02, 0.03, 0.04], [0.1, 0.5, -0.1, -0.5], [-0.05, 0.2, 0.05, -0.2]], np.float32)
pend = np.array([[1.0, 0.0, 0.1], [0.0, 1.0, -0.5]], np.float32)

# RecurrentPPO: an LSTM actor-critic on CartPole, predictions carrying the hidden state
rppo = RecurrentPPO("MlpLstmPolicy", "CartPole-v1", n_steps=32, batch_size=16, n_epochs=2, seed=0, device="cpu",
                    policy_kwargs=dict(net_arch=[16], lstm_hidden_size=16, n_lstm_layers=1))
rppo.learn(64)
print("rppo losses", losses(rppo))
print("rppo norm", norm(rppo))
state, starts = None, np.ones(3, dtype=bool)
for i in range(3):
    acts, state = rppo.predict(probe, state=state, episode_start=starts, deterministic=True)
    starts = np.zeros(3, dtype=bool)
    print("rppo step", i, acts.tolist(), [r(v) for v in state[0][0, :, :2].flatten()])

# QR-DQN: quantile Q-network
qr = QRDQN("MlpPolicy", "CartPole-v1", learning_starts=48, buffer_size=500, batch_size=32, train_freq=4,
           target_update_interval=24, seed=0, device="cpu", policy_kwargs=dict(net_arch=[32], n_quantiles=8))
qr.learn(120)
print("qrdqn losses", losses(qr), "norm", norm(qr), "eps", r(qr.exploration_rate))
with torch.no_grad():
    quant = qr.quantile_net(torch.as_tensor(probe))
print("qrdqn quantiles", tuple(quant.shape), [r(v) for v in quant[0, :3, 0]], "mean",
      [[r(v) for v in row] for row in quant.mean(1)])
print("qrdqn predict", qr.predict(probe, deterministic=True)[0].tolist())

# TQC on Pendulum: distributional critics with truncation
tqc = TQC("MlpPolicy", "Pendulum-v1", learning_starts=48, buffer_size=500, batch_size=32, top_quantiles_to_drop_per_net=2,
          seed=0, device="cpu", policy_kwargs=dict(net_arch=[32], n_quantiles=10, n_critics=2))
tqc.learn(80)
print("tqc losses", losses(tqc), "norm", norm(tqc), "ent_coef", r(tqc.log_ent_coef.exp().item()))
print("tqc predict", [[r(v) for v in row] for row in tqc.predict(pend, deterministic=True)[0]])

# TRPO on CartPole and on Pendulum
trpo = TRPO("MlpPolicy", "CartPole-v1", n_steps=64, batch_size=32, seed=0, device="cpu", cg_max_steps=5,
            n_critic_updates=3, policy_kwargs=dict(net_arch=[32]))
trpo.learn(128)
tl = trpo.logger.name_to_value
print("trpo", losses(trpo), "kl", r(tl["train/kl_divergence_loss"]), "ls_success", r(tl["train/is_line_search_success"]))
print("trpo norm", norm(trpo), "predict", trpo.predict(probe, deterministic=True)[0].tolist())
trpo_c = TRPO("MlpPolicy", "Pendulum-v1", n_steps=32, batch_size=32, seed=0, device="cpu", cg_max_steps=4,
              n_critic_updates=2, policy_kwargs=dict(net_arch=[16]))
trpo_c.learn(64)
print("trpo pendulum", losses(trpo_c), "norm", norm(trpo_c))


# MaskablePPO: invalid actions masked out of the categorical distribution
class MaskEnv(gym.Env):
    """Four discrete actions of which only the ones with the observation's sign bit set are valid."""

    observation_space = spaces.Box(-1, 1, (4,), np.float32)
    action_space = spaces.Discrete(4)

    def reset(self, seed=None, options=None):
        super().reset(seed=seed)
        self.t, self.o = 0, self.np_random.uniform(-1, 1, 4).astype(np.float32)
        return self.o, {}

    def action_masks(self):
        m = self.o > 0
        m[0] = True
        return m

    def step(self, a):
        rew = float(self.o[a])
        self.t, self.o = self.t + 1, self.np_random.uniform(-1, 1, 4).astype(np.float32)
        return self.o, rew, False, self.t >= 16, {}


mppo = MaskablePPO("MlpPolicy", MaskEnv(), n_steps=32, batch_size=32, n_epochs=2, seed=0, device="cpu",
                   policy_kwargs=dict(net_arch=[16]))
mppo.learn(64)
print("maskable losses", losses(mppo), "norm", norm(mppo))
masks = np.array([[True, False, True, False], [True, True, True, True], [True, False, False, True]])
print("maskable predict", mppo.predict(probe, action_masks=masks, deterministic=True)[0].tolist())

with tempfile.TemporaryDirectory() as tmp:
    rppo.save(os.path.join(tmp, "rppo"))
    loaded = RecurrentPPO.load(os.path.join(tmp, "rppo"), device="cpu")
    a1, _ = rppo.predict(probe, episode_start=np.ones(3, dtype=bool), deterministic=True)
    a2, _ = loaded.predict(probe, episode_start=np.ones(3, dtype=bool), deterministic=True)
    print("rppo reload", norm(loaded), bool(np.array_equal(a1, a2)))
    qr.save(os.path.join(tmp, "qr"))
    print("qrdqn reload", norm(QRDQN.load(os.path.join(tmp, "qr"), device="cpu")))
