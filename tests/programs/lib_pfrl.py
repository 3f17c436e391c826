"""pfrl on a tiny seeded chain environment (no gym env needed): DQN and DoubleDQN with an epsilon-greedy
explorer, a replay buffer and target-network sync; Categorical DQN (distributional Q-function); PPO and A2C with
a softmax policy and value head; REINFORCE; Gaussian policy heads; each agent trained for
100-130 steps through act/observe, then its statistics, greedy actions and a save/load round trip."""
import os
import tempfile
import warnings

import numpy as np
import torch
from torch import nn

warnings.filterwarnings("ignore")
import pfrl  # noqa: E402
from pfrl import explorers, q_functions, replay_buffers  # noqa: E402
from pfrl.agents import A2C, DQN, PPO, REINFORCE, CategoricalDQN, DoubleDQN  # noqa: E402
from pfrl.nn import Branched  # noqa: E402
from pfrl.policies import GaussianHeadWithDiagonalCovariance, GaussianHeadWithStateIndependentCovariance, \
    SoftmaxCategoricalHead  # noqa: E402


def r(x, n=4):
    return round(float(x), n)


class Chain:
    """Five states in a row; action 1 moves right (reward 1 at the end), action 0 moves left."""

    def __init__(self, n=5):
        self.n = n

    def reset(self):
        self.s = 0
        return self.obs()

    def obs(self):
        o = np.zeros(self.n, dtype=np.float32)
        o[self.s] = 1
        return o

    def step(self, a):
        self.s = min(self.s + 1, self.n - 1) if a == 1 else max(self.s - 1, 0)
        done = self.s == self.n - 1
        return self.obs(), float(done), done


def run(agent, steps, max_len=12):
    env, total, returns = Chain(), 0.0, []
    obs, t = env.reset(), 0
    for _ in range(steps):
        a = agent.act(obs)
        obs, rew, done = env.step(int(a))
        t += 1
        total += rew
        reset = t == max_len
        agent.observe(obs, rew, done, reset)
        if done or reset:
            returns.append(total)
            obs, total, t = env.reset(), 0.0, 0
    return returns


def greedy(agent):
    with agent.eval_mode():
        env = Chain()
        acts = []
        for s in range(env.n):
            env.s = s
            acts.append(int(agent.act(env.obs())))
            agent.observe(env.obs(), 0.0, False, True)
    return acts


def report(name, agent, returns):
    stats = [(k, r(v) if isinstance(v, (float, np.floating)) else v) for k, v in agent.get_statistics()]
    print(name, "episodes", len(returns), "last", returns[-3:], "greedy", greedy(agent))
    print(name, "stats", stats)


def q_agent(cls, seed, **kw):
    pfrl.utils.set_random_seed(seed)
    q = q_functions.FCStateQFunctionWithDiscreteAction(5, 2, n_hidden_channels=16, n_hidden_layers=1)
    opt = torch.optim.Adam(q.parameters(), lr=1e-2)
    rb = replay_buffers.ReplayBuffer(500)
    ex = explorers.LinearDecayEpsilonGreedy(1.0, 0.1, 100, lambda: np.random.randint(2))
    return cls(q, opt, rb, gamma=0.9, explorer=ex, replay_start_size=20, update_interval=1,
               target_update_interval=20, minibatch_size=8, **kw)


for name, cls in (("dqn", DQN), ("ddqn", DoubleDQN)):
    agent = q_agent(cls, 0)
    report(name, agent, run(agent, 100))
    qs = agent.model(torch.eye(5)).q_values
    print(name, "q", [[r(v, 3) for v in row] for row in qs.tolist()])

# prioritized replay with n-step returns
pfrl.utils.set_random_seed(1)
q = q_functions.FCStateQFunctionWithDiscreteAction(5, 2, n_hidden_channels=16, n_hidden_layers=1)
agent = DQN(q, torch.optim.Adam(q.parameters(), lr=1e-2), replay_buffers.PrioritizedReplayBuffer(500, num_steps=2),
            gamma=0.9, explorer=explorers.ConstantEpsilonGreedy(0.2, lambda: np.random.randint(2)),
            replay_start_size=20, target_update_interval=10, minibatch_size=8)
report("per", agent, run(agent, 80))

# distributional (C51-style) Q-function
pfrl.utils.set_random_seed(2)
z = torch.linspace(-1, 2, 11)
dq = q_functions.DistributionalFCStateQFunctionWithDiscreteAction(5, 2, 11, -1.0, 2.0, n_hidden_channels=16,
                                                                    n_hidden_layers=1)
agent = CategoricalDQN(dq, torch.optim.Adam(dq.parameters(), lr=1e-2), replay_buffers.ReplayBuffer(500), 0.9,
                       explorers.ConstantEpsilonGreedy(0.3, lambda: np.random.randint(2)), replay_start_size=20,
                       target_update_interval=20, minibatch_size=8)
report("c51", agent, run(agent, 80))


def actor_critic(seed):
    pfrl.utils.set_random_seed(seed)
    return nn.Sequential(nn.Linear(5, 16), nn.Tanh(),
                         Branched(nn.Sequential(nn.Linear(16, 2), SoftmaxCategoricalHead()), nn.Linear(16, 1)))


model = actor_critic(3)
agent = PPO(model, torch.optim.Adam(model.parameters(), lr=1e-2), gamma=0.9, update_interval=32, minibatch_size=16,
            epochs=2, entropy_coef=0.01)
report("ppo", agent, run(agent, 128))

model = actor_critic(4)
agent = A2C(model, torch.optim.Adam(model.parameters(), lr=1e-2), gamma=0.9, num_processes=1, update_steps=8)
env, obs = Chain(), None
obs = env.reset()
for t in range(64):
    a = agent.batch_act([obs])
    obs, rew, done = env.step(int(a[0]))
    agent.batch_observe([obs], [rew], [done], [False])
    if done:
        obs = env.reset()
print("a2c", [(k, r(v)) for k, v in agent.get_statistics()], greedy(agent) if hasattr(agent, "eval_mode") else "")

pfrl.utils.set_random_seed(5)
policy = nn.Sequential(nn.Linear(5, 16), nn.Tanh(), nn.Linear(16, 2), SoftmaxCategoricalHead())
agent = REINFORCE(policy, torch.optim.Adam(policy.parameters(), lr=1e-2), batchsize=2, max_grad_norm=1.0)
report("reinforce", agent, run(agent, 80))

# Gaussian policy heads: sampled actions and their log-probabilities, entropy
pfrl.utils.set_random_seed(6)
for name, head, width in (("state-independent", GaussianHeadWithStateIndependentCovariance(
        2, var_type="diagonal", var_func=nn.functional.softplus, var_param_init=0.5), 2),
                          ("diagonal", GaussianHeadWithDiagonalCovariance(), 4)):
    dist = nn.Sequential(nn.Linear(5, width), head)(torch.eye(5))
    act = dist.rsample()
    print(name, [r(v) for v in act.sum(1).tolist()], [r(v) for v in dist.log_prob(act).tolist()],
          r(dist.entropy().sum()))

# save / load
agent = q_agent(DQN, 7)
run(agent, 30)
with tempfile.TemporaryDirectory() as d:
    agent.save(os.path.join(d, "dqn"))
    other = q_agent(DQN, 8)
    other.load(os.path.join(d, "dqn"))
    print("loaded", sorted(os.listdir(os.path.join(d, "dqn"))),
          torch.equal(other.model(torch.eye(5)).q_values, agent.model(torch.eye(5)).q_values))
