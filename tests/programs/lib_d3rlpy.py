"""d3rlpy: offline reinforcement learning from a fixed dataset. An MDPDataset of seeded episodes with discrete
actions trained by DiscreteCQL (conservative Q-learning, double DQN targets, a target-network update
interval) with TD-error / value-estimation / action-match evaluators, a continuous-action dataset trained by
TD3+BC, CQL (twin critics, learned temperature and alpha) and behaviour cloning, each through d3rlpy's own fit
loop; greedy actions, Q values, observation/reward scalers, a model saved and loaded, and greedy policies
exported with save_policy (torch.jit.trace of a function, then its save) and run from torch.jit.load."""
import logging
import os
import tempfile

import d3rlpy
import numpy as np
import structlog
import torch
from d3rlpy.logging import NoopAdapterFactory
from d3rlpy.metrics import (AverageValueEstimationEvaluator, DiscreteActionMatchEvaluator,
                            InitialStateValueEstimationEvaluator, TDErrorEvaluator)

# d3rlpy's structlog messages carry wall-clock timestamps; keep the program's output to what it computed
structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.ERROR))


def r(x, n=4):
    if isinstance(x, (torch.Tensor, np.ndarray)):
        x = np.asarray(x, dtype=np.float64)
        if x.size == 1:
            return round(float(x), n)
        return [round(float(v), n) for v in x.flatten()]
    if isinstance(x, (list, tuple)):
        return [r(v, n) for v in x]
    return round(float(x), n)


def episodes(rng, n_steps, obs_dim, discrete, episode_len=20):
    obs = rng.standard_normal((n_steps, obs_dim)).astype(np.float32)
    if discrete:
        actions = rng.integers(0, 3, size=n_steps)
        rewards = (obs[:, 0] * (actions == 1) - 0.1 * actions).astype(np.float32)
    else:
        actions = np.tanh(rng.standard_normal((n_steps, 2))).astype(np.float32)
        rewards = (-((actions - obs[:, :2] * 0.5) ** 2).sum(1)).astype(np.float32)
    terminals = np.zeros(n_steps, dtype=np.float32)
    terminals[episode_len - 1::episode_len] = 1.0
    return obs, actions, rewards, terminals


def losses(history):
    return [(epoch, {k: r(v) for k, v in sorted(metrics.items()) if not k.startswith("time")})
            for epoch, metrics in history]


fit_args = {"logger_adapter": NoopAdapterFactory(), "show_progress": False}
workdir = tempfile.mkdtemp()
rng = np.random.default_rng(0)

# discrete actions: DiscreteCQL with evaluators
d3rlpy.seed(0)
dataset = d3rlpy.dataset.MDPDataset(*episodes(rng, 200, 4, discrete=True))
print("dataset", dataset.size(), dataset.transition_count, dataset.dataset_info.action_size,
      type(dataset.dataset_info.action_space).__name__)
cql = d3rlpy.algos.DiscreteCQLConfig(batch_size=32, learning_rate=3e-3, target_update_interval=10, alpha=0.5,
                                     gamma=0.9).create(device="cpu:0")
evaluators = {"td_error": TDErrorEvaluator(episodes=dataset.episodes[:3]),
              "value": AverageValueEstimationEvaluator(episodes=dataset.episodes[:3]),
              "init_value": InitialStateValueEstimationEvaluator(episodes=dataset.episodes[:3]),
              "match": DiscreteActionMatchEvaluator(episodes=dataset.episodes[:3])}
history = cql.fit(dataset, n_steps=40, n_steps_per_epoch=20, evaluators=evaluators, **fit_args)
for epoch, metrics in losses(history):
    print("discrete cql", epoch, metrics)
probe = np.array([[1.0, 0.0, 0.5, -0.5], [-1.0, 0.2, 0.0, 0.3], [0.5, 0.5, 0.5, 0.5]], dtype=np.float32)
print("discrete actions", cql.predict(probe).tolist())
print("discrete values", r(cql.predict_value(probe, np.array([0, 1, 2]))))
path = os.path.join(workdir, "cql.d3")
cql.save(path)
again = d3rlpy.load_learnable(path, device="cpu:0")
print("reloaded", type(again).__name__, np.allclose(again.predict_value(probe, np.array([0, 1, 2])),
                                                     cql.predict_value(probe, np.array([0, 1, 2]))))
cql.save_policy(os.path.join(workdir, "cql_policy.pt"))  # the greedy policy traced to TorchScript
policy = torch.jit.load(os.path.join(workdir, "cql_policy.pt"))
print("exported policy", policy(torch.tensor(probe)).tolist())

# continuous actions with scalers: TD3+BC, CQL, behaviour cloning
obs, actions, rewards, terminals = episodes(rng, 160, 3, discrete=False)
dataset = d3rlpy.dataset.MDPDataset(obs, actions, rewards, terminals)
probe = np.array([[0.5, -0.5, 0.1], [1.0, 1.0, -1.0]], dtype=np.float32)
probe_actions = np.array([[0.2, -0.2], [0.5, 0.5]], dtype=np.float32)

d3rlpy.seed(1)
td3bc = d3rlpy.algos.TD3PlusBCConfig(batch_size=32, actor_learning_rate=1e-3, critic_learning_rate=1e-3, alpha=2.5,
                                     update_actor_interval=2,
                                     observation_scaler=d3rlpy.preprocessing.StandardObservationScaler(),
                                     reward_scaler=d3rlpy.preprocessing.MinMaxRewardScaler()).create(device="cpu:0")
history = td3bc.fit(dataset, n_steps=20, n_steps_per_epoch=10, **fit_args)
for epoch, metrics in losses(history):
    print("td3+bc", epoch, metrics)
print("td3+bc actions", r(td3bc.predict(probe)), r(td3bc.predict_value(probe, probe_actions)))
td3bc.save_policy(os.path.join(workdir, "td3bc_policy.pt"))  # the observation scaler is traced in
policy = torch.jit.load(os.path.join(workdir, "td3bc_policy.pt"))
print("exported td3+bc policy", r(policy(torch.tensor(probe))))

d3rlpy.seed(2)
cql_c = d3rlpy.algos.CQLConfig(batch_size=16, n_action_samples=4, alpha_threshold=5.0, conservative_weight=2.0,
                               action_scaler=d3rlpy.preprocessing.MinMaxActionScaler()).create(device="cpu:0")
history = cql_c.fit(dataset, n_steps=20, n_steps_per_epoch=10, **fit_args)
for epoch, metrics in losses(history):
    print("cql", epoch, metrics)
print("cql actions", r(cql_c.predict(probe)), r(cql_c.predict_value(probe, probe_actions)))

d3rlpy.seed(3)
bc = d3rlpy.algos.BCConfig(batch_size=32, learning_rate=3e-3).create(device="cpu:0")
history = bc.fit(dataset, n_steps=20, n_steps_per_epoch=10, **fit_args)
for epoch, metrics in losses(history):
    print("bc", epoch, metrics)
print("bc actions", r(bc.predict(probe)))
model_path = os.path.join(workdir, "bc.pt")
bc.save_model(model_path)
bc2 = d3rlpy.algos.BCConfig(batch_size=32).create(device="cpu:0")
bc2.build_with_dataset(dataset)
bc2.load_model(model_path)
print("bc reloaded", np.allclose(bc2.predict(probe), bc.predict(probe)))
