"""tianshou 2.0 on CartPole the way its examples drive it, seeded end to end: a DQN (DiscreteQLearningPolicy over
tianshou's ``Net``, n-step returns, a target network, epsilon-greedy exploration) trained with
``OffPolicyTrainerParams`` through ``algorithm.run_training``, a PPO (``ProbabilisticActorPolicy`` with a
``DiscreteActor``/``DiscreteCritic`` over a shared ``Net``, GAE, clipped objective, Categorical actions) trained with
``OnPolicyTrainerParams``, then a manual loop (collect into a ``VectorReplayBuffer``, ``algorithm.update``),
test-collector returns, and a state-dict round trip; then tianshou's ``Batch`` over torch tensors (to_torch with
a dtype, cat/stack/split, indexing) and a ``PrioritizedVectorReplayBuffer`` feeding
per-sample weights back; losses and returns printed rounded."""
import io
import logging
import warnings

import gymnasium as gym
import numpy as np
import torch

import tianshou as ts
from tianshou.algorithm import DQN, PPO
from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
from tianshou.algorithm.modelfree.reinforce import ProbabilisticActorPolicy
from tianshou.algorithm.optim import AdamOptimizerFactory
from tianshou.data import Batch, Collector, CollectStats, PrioritizedVectorReplayBuffer, VectorReplayBuffer, \
    to_numpy, to_torch, to_torch_as
from tianshou.env import DummyVectorEnv
from tianshou.trainer import OffPolicyTrainerParams, OnPolicyTrainerParams
from tianshou.utils.net.common import ActorCritic, Net
from tianshou.utils.net.discrete import DiscreteActor, DiscreteCritic
from tianshou.utils.torch_utils import policy_within_training_step, torch_train_mode

warnings.simplefilter("ignore")
logging.disable(logging.WARNING)


def r(x, n=4):
    return round(float(x), n)


def envs(n, seed):
    v = DummyVectorEnv([lambda: gym.make("CartPole-v1") for _ in range(n)])
    v.seed(seed)
    return v


def seed_all(s):
    np.random.seed(s)
    torch.manual_seed(s)


def returns(collector, n_episode, seed):
    collector.reset()
    stats = collector.collect(n_episode=n_episode, reset_before_collect=True, gym_reset_kwargs={"seed": seed})
    return sorted(r(x, 1) for x in stats.returns)


def dqn():
    seed_all(0)
    env = gym.make("CartPole-v1")
    net = Net(state_shape=env.observation_space.shape, action_shape=env.action_space.n, hidden_sizes=[32, 32])
    policy = DiscreteQLearningPolicy(model=net, action_space=env.action_space, eps_training=0.2, eps_inference=0.05)
    algo = DQN(policy=policy, optim=AdamOptimizerFactory(lr=3e-3), gamma=0.9, n_step_return_horizon=3,
               target_update_freq=40)
    train_envs, test_envs = envs(4, 1), envs(2, 2)
    train_c = Collector[CollectStats](algo, train_envs, VectorReplayBuffer(2000, 4), exploration_noise=True)
    test_c = Collector[CollectStats](algo, test_envs, exploration_noise=True)
    train_c.reset()
    train_c.collect(n_step=128, random=True)
    print("dqn params", sum(p.numel() for p in net.parameters()), len(train_c.buffer))
    result = algo.run_training(OffPolicyTrainerParams(
        training_collector=train_c, test_collector=test_c, max_epochs=2, epoch_num_steps=160,
        collection_step_num_env_steps=16, test_step_num_episodes=2, batch_size=32,
        update_step_num_gradient_steps_per_sample=0.25, verbose=False, show_progress=False))
    print("dqn run", result.update_step, result.train_step, result.train_episode, result.test_episode,
          r(result.best_reward, 2), r(result.best_reward_std, 2))
    # manual updates: sample from the buffer, one gradient step each
    losses = []
    with policy_within_training_step(algo.policy), torch_train_mode(algo):
        for _ in range(6):
            stats = algo.update(sample_size=32, buffer=train_c.buffer)
            losses.append(r(stats.loss))
    print("dqn losses", losses)
    obs = torch.tensor(np.array([[0.0, 0.1, -0.05, 0.2], [0.02, -0.3, 0.1, 0.0]]), dtype=torch.float32)
    q = net(obs)[0]
    print("dqn q", [r(v) for v in q.flatten().tolist()], q.argmax(-1).tolist())
    print("dqn test returns", returns(test_c, 2, 7))
    buf = io.BytesIO()
    torch.save(algo.state_dict(), buf)
    buf.seek(0)
    state = torch.load(buf)
    print("dqn state", len(state), sorted(state)[:2])


def ppo():
    seed_all(3)
    env = gym.make("CartPole-v1")
    body = Net(state_shape=env.observation_space.shape, hidden_sizes=[32, 32])
    actor = DiscreteActor(preprocess_net=body, action_shape=env.action_space.n)
    critic = DiscreteCritic(preprocess_net=Net(state_shape=env.observation_space.shape, hidden_sizes=[32, 32]))
    policy = ProbabilisticActorPolicy(actor=actor, dist_fn=torch.distributions.Categorical,
                                      action_space=env.action_space, deterministic_eval=True,
                                      action_scaling=False)
    algo = PPO(policy=policy, critic=critic, optim=AdamOptimizerFactory(lr=3e-3), eps_clip=0.2, vf_coef=0.5,
               ent_coef=0.01, gae_lambda=0.95, gamma=0.99, max_grad_norm=0.5, return_scaling=False)
    print("ppo params", sum(p.numel() for p in ActorCritic(actor, critic).parameters()))
    train_envs, test_envs = envs(4, 11), envs(2, 12)
    train_c = Collector[CollectStats](algo, train_envs, VectorReplayBuffer(1000, 4))
    test_c = Collector[CollectStats](algo, test_envs)
    train_c.reset()
    result = algo.run_training(OnPolicyTrainerParams(
        training_collector=train_c, test_collector=test_c, max_epochs=2, epoch_num_steps=256,
        collection_step_num_env_steps=128, update_step_num_repetitions=2, test_step_num_episodes=2,
        batch_size=64, verbose=False, show_progress=False))
    print("ppo run", result.update_step, result.train_step, result.train_episode, result.test_episode,
          r(result.best_reward, 2), r(result.best_reward_std, 2))
    # a manual on-policy step: collect, then update over the whole buffer
    train_c.reset_buffer(keep_statistics=True)
    with policy_within_training_step(algo.policy):
        collected = train_c.collect(n_step=96)
        with torch_train_mode(algo):
            stats = algo.update(buffer=train_c.buffer, batch_size=32, repeat=2)
    print("ppo collected", collected.n_collected_steps, sorted(r(x, 1) for x in collected.returns))
    print("ppo update", r(stats.loss.mean), r(stats.actor_loss.mean), r(stats.vf_loss.mean), r(stats.ent_loss.mean),
          stats.gradient_steps)
    obs = torch.tensor(np.array([[0.0, 0.1, -0.05, 0.2], [0.02, -0.3, 0.1, 0.0]]), dtype=torch.float32)
    probs = actor(obs)[0]
    print("ppo probs", [r(v) for v in probs.flatten().tolist()], r(critic(obs).sum()))
    print("ppo test returns", returns(test_c, 2, 9))


def batches():
    seed_all(5)
    b = Batch(obs=np.arange(12, dtype=np.float64).reshape(4, 3), act=np.array([0, 1, 1, 0]),
              info=Batch(w=np.ones(4, dtype=np.float32)))
    t = to_torch(b, dtype=torch.float32)
    print("batch to_torch", t.obs.dtype, t.act.dtype, t.info.w.dtype, tuple(t.obs.shape), r(t.obs.sum()))
    both = Batch.cat([t, t[1:3]])
    stacked = Batch.stack([t[0], t[3]])
    print("batch cat/stack", len(both), tuple(both.obs.shape), tuple(stacked.obs.shape), r(stacked.obs.mean()))
    parts = [len(p) for p in both.split(2, shuffle=False)]
    mixed = Batch.cat([Batch(a=torch.ones(2), b=torch.zeros(2, 2)), Batch(a=torch.full((3,), 2.0), b=torch.ones(3, 2))])
    print("batch split", parts, tuple(mixed.b.shape), r(mixed.a.sum()), r(mixed.b.sum()), both[[0, 5]].act.tolist())
    like = to_torch_as(np.array([1.5, 2.5]), torch.zeros(1, dtype=torch.float64))
    print("batch as/numpy", like.dtype, r(like.sum()), type(to_numpy(t).obs).__name__)
    buf = PrioritizedVectorReplayBuffer(64, 2, alpha=0.6, beta=0.4)
    for i in range(20):
        buf.add(Batch(obs=np.full((2, 3), i, dtype=np.float32), act=np.array([i % 2, 1 - i % 2]),
                      rew=np.array([0.1 * i, -0.1 * i]), terminated=np.array([i % 7 == 6, False]),
                      truncated=np.array([False, i == 19]), obs_next=np.full((2, 3), i + 1, dtype=np.float32),
                      info=Batch()), buffer_ids=[0, 1])
    sample, idx = buf.sample(8)
    buf.update_weight(idx, torch.linspace(0.1, 2.0, len(idx)))
    print("prioritized", len(buf), len(idx), r(np.sum(sample.weight), 3), r(buf.weight[idx].sum(), 3))


def main():
    print("tianshou", ts.__version__)
    dqn()
    ppo()
    batches()


if __name__ == "__main__":
    main()
