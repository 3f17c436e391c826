"""TorchRL on seeded gymnasium classic-control envs (Pendulum-v1, CartPole-v1) on the CPU: a TransformedEnv with
ObservationNorm (stats from random rollouts), DoubleToFloat and StepCounter, check_env_specs and env.rollout;
PPO (ProbabilisticActor with TanhNormal, ValueOperator over MLPs, the Collector, a ReplayBuffer over a
LazyTensorStorage with SamplerWithoutReplacement, GAE and ClipPPOLoss) for two batches; a OneHotCategorical actor
with GAE + ClipPPOLoss on CartPole; DQN (QValueActor, EGreedyModule, DQNLoss, SoftUpdate, RandomSampler). Prints
shapes, losses, returns and parameter norms, rounded; runs are short so float rounding cannot change trajectories.
(torchrl 0.14 replaced SyncDataCollector with Collector, the same single-process collector.)"""
import logging

import torch
from tensordict.nn import NormalParamExtractor, TensorDictModule, TensorDictSequential
from torch import nn
from torchrl.collectors import Collector
from torchrl.data import LazyTensorStorage, ReplayBuffer
from torchrl.data.replay_buffers.samplers import RandomSampler, SamplerWithoutReplacement
from torchrl.envs import Compose, DoubleToFloat, GymEnv, ObservationNorm, StepCounter, TransformedEnv
from torchrl.envs.utils import ExplorationType, check_env_specs, set_exploration_type
from torchrl.modules import (MLP, EGreedyModule, OneHotCategorical, ProbabilisticActor, QValueActor, TanhNormal,
                             ValueOperator)
from torchrl.objectives import ClipPPOLoss, DQNLoss, SoftUpdate
from torchrl.objectives.value import GAE


logging.getLogger("torchrl").setLevel(logging.WARNING)  # its INFO lines carry timestamps


def r(x, n=4):
    return round(float(x), n)


def norm(module):
    return r(sum(float(p.detach().pow(2).sum()) for p in module.parameters()) ** 0.5)


def losses(td):
    return {k: r(v) for k, v in sorted(td.items()) if k.startswith("loss_")}


# --- Pendulum: transforms, specs, rollout ---------------------------------------------------------------------
torch.manual_seed(0)
env = TransformedEnv(GymEnv("Pendulum-v1"),
                     Compose(ObservationNorm(in_keys=["observation"]), DoubleToFloat(), StepCounter()))
env.set_seed(0)
env.transform[0].init_stats(num_iter=50, reduce_dim=0, cat_dim=0)
print("obsnorm", [r(v) for v in env.transform[0].loc], [r(v) for v in env.transform[0].scale])
print("specs", tuple(env.observation_spec["observation"].shape), env.observation_spec["observation"].dtype,
      tuple(env.action_spec.shape), r(env.action_spec.space.low), r(env.action_spec.space.high))
check_env_specs(env)
roll = env.rollout(5)
print("rollout", tuple(roll.batch_size), sorted(roll.keys()), tuple(roll["next", "reward"].shape),
      [r(v) for v in roll["next", "reward"].flatten()], roll["next", "step_count"].flatten().tolist())

# --- PPO on Pendulum ------------------------------------------------------------------------------------------
torch.manual_seed(1)
actor_net = nn.Sequential(MLP(in_features=3, out_features=2, num_cells=[32, 32], activation_class=nn.Tanh),
                          NormalParamExtractor())
actor = ProbabilisticActor(TensorDictModule(actor_net, in_keys=["observation"], out_keys=["loc", "scale"]),
                           spec=env.action_spec, in_keys=["loc", "scale"], distribution_class=TanhNormal,
                           distribution_kwargs={"low": env.action_spec.space.low,
                                                "high": env.action_spec.space.high},
                           return_log_prob=True)
value = ValueOperator(MLP(in_features=3, out_features=1, num_cells=[32, 32], activation_class=nn.Tanh),
                      in_keys=["observation"])
td = env.reset()
print("actor out", sorted(actor(td.clone()).keys()), tuple(value(td.clone())["state_value"].shape))
advantage = GAE(gamma=0.99, lmbda=0.95, value_network=value, average_gae=True)
ppo = ClipPPOLoss(actor, value, clip_epsilon=0.2, entropy_coeff=1e-3, critic_coeff=1.0, loss_critic_type="smooth_l1")
optim = torch.optim.Adam(ppo.parameters(), lr=3e-4)
collector = Collector(env, actor, frames_per_batch=64, total_frames=128, split_trajs=False)
rb = ReplayBuffer(storage=LazyTensorStorage(64), sampler=SamplerWithoutReplacement())
for i, data in enumerate(collector):
    with torch.no_grad():
        advantage(data)
    rb.extend(data.reshape(-1))
    for _ in range(64 // 16):
        sub = rb.sample(16)
        vals = ppo(sub)
        loss = vals["loss_objective"] + vals["loss_critic"] + vals["loss_entropy"]
        optim.zero_grad()
        loss.backward()
        gn = torch.nn.utils.clip_grad_norm_(ppo.parameters(), 1.0)
        optim.step()
    print("ppo batch", i, tuple(data.batch_size), r(data["next", "reward"].mean()), r(data["value_target"].mean()),
          losses(vals), r(gn), len(rb))
collector.shutdown()
print("ppo norms", norm(actor), norm(value))
with set_exploration_type(ExplorationType.DETERMINISTIC), torch.no_grad():
    ev = env.rollout(20, actor)
print("ppo eval", tuple(ev.batch_size), r(ev["next", "reward"].sum(), 3), int(ev["next", "step_count"].max()))

# --- OneHotCategorical actor on CartPole ------------------------------------------------------------------------
torch.manual_seed(2)
cenv = TransformedEnv(GymEnv("CartPole-v1"), StepCounter())
cenv.set_seed(0)
print("cartpole", tuple(cenv.observation_spec["observation"].shape), type(cenv.action_spec).__name__,
      tuple(cenv.action_spec.shape))
cactor = ProbabilisticActor(TensorDictModule(MLP(in_features=4, out_features=2, num_cells=[16]),
                                             in_keys=["observation"], out_keys=["logits"]),
                            spec=cenv.action_spec, in_keys=["logits"], distribution_class=OneHotCategorical,
                            return_log_prob=True)
cvalue = ValueOperator(MLP(in_features=4, out_features=1, num_cells=[16]), in_keys=["observation"])
with torch.no_grad():
    croll = cenv.rollout(12, cactor)
    GAE(gamma=0.9, lmbda=0.9, value_network=cvalue)(croll)
print("cat rollout", tuple(croll.batch_size), croll["action"].argmax(-1).tolist(),
      [r(v) for v in croll["action_log_prob"]], bool(croll["next", "done"].any()))
closs = ClipPPOLoss(cactor, cvalue)
cvals = closs(croll)
(cvals["loss_objective"] + cvals["loss_critic"] + cvals["loss_entropy"]).backward()
print("cat ppo", losses(cvals), r(croll["advantage"].sum()),
      r(sum(float(p.grad.norm()) for p in closs.parameters() if p.grad is not None)))

# --- DQN on CartPole ---------------------------------------------------------------------------------------------
torch.manual_seed(3)
qnet = QValueActor(MLP(in_features=4, out_features=2, num_cells=[32]), in_keys=["observation"],
                   spec=cenv.action_spec)
explore = EGreedyModule(cenv.action_spec, eps_init=0.5, eps_end=0.05, annealing_num_steps=100)
policy = TensorDictSequential(qnet, explore)
dqn = DQNLoss(qnet, action_space=cenv.action_spec, delay_value=True)
dqn.make_value_estimator(gamma=0.99)
updater = SoftUpdate(dqn, eps=0.9)
qopt = torch.optim.Adam(dqn.parameters(), lr=1e-3)
qbuf = ReplayBuffer(storage=LazyTensorStorage(500), sampler=RandomSampler(), batch_size=32)
qcol = Collector(cenv, policy, frames_per_batch=32, total_frames=96)
for i, data in enumerate(qcol):
    qbuf.extend(data.reshape(-1))
    explore.step(data.numel())
    for _ in range(4):
        batch = qbuf.sample()
        ql = dqn(batch)["loss"]
        qopt.zero_grad()
        ql.backward()
        qopt.step()
        updater.step()
    print("dqn batch", i, len(qbuf), tuple(batch["action_value"].shape), r(ql), r(explore.eps),
          r(data["next", "reward"].sum()))
qcol.shutdown()
target = dqn.target_value_network_params
print("dqn norms", norm(qnet), r(sum(float(p.pow(2).sum()) for p in target.values(True, True)) ** 0.5))
with set_exploration_type(ExplorationType.DETERMINISTIC), torch.no_grad():
    qev = cenv.rollout(50, qnet)
print("dqn eval", tuple(qev.batch_size), r(qev["next", "reward"].sum()), qev["action"].argmax(-1)[:10].tolist())
