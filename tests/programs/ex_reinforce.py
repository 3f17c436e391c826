"""REINFORCE / actor-critic pattern: Categorical sampling, log_prob, eps from finfo, returns normalisation."""
import argparse
from collections import namedtuple
from itertools import count

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.distributions import Categorical

parser = argparse.ArgumentParser()
parser.add_argument('--gamma', type=float, default=0.99)
parser.add_argument('--seed', type=int, default=543)
args = parser.parse_args()
torch.manual_seed(args.seed)
SavedAction = namedtuple('SavedAction', ['log_prob', 'value'])


class ToyEnv:
    """Deterministic 1-D walk: 4 observations, 2 actions, reward 1 for moving right."""
    def __init__(self, seed):
        self.rng = np.random.RandomState(seed)

    def reset(self):
        self.pos = 0
        return self.rng.uniform(-0.05, 0.05, size=4).astype(np.float32), {}

    def step(self, action):
        self.pos += 1 if action == 1 else -1
        obs = np.array([self.pos, self.pos * 0.5, -self.pos, 1.0], dtype=np.float32) * 0.1
        reward = 1.0 if action == 1 else 0.0
        done = abs(self.pos) >= 3
        return obs, reward, done, False, {}


class Policy(nn.Module):
    def __init__(self):
        super(Policy, self).__init__()
        self.affine1 = nn.Linear(4, 32)
        self.dropout = nn.Dropout(p=0.0)
        self.affine2 = nn.Linear(32, 2)
        self.value_head = nn.Linear(32, 1)
        self.saved_log_probs = []
        self.saved_actions = []
        self.rewards = []

    def forward(self, x):
        x = self.affine1(x)
        x = self.dropout(x)
        x = F.relu(x)
        action_scores = self.affine2(x)
        return F.softmax(action_scores, dim=1), self.value_head(x)


policy = Policy()
optimizer = optim.Adam(policy.parameters(), lr=1e-2)
eps = np.finfo(np.float32).eps.item()
teps = torch.finfo(torch.float32).eps


def select_action(state):
    state = torch.from_numpy(state).float().unsqueeze(0)
    probs, state_value = policy(state)
    m = Categorical(probs)
    action = m.sample()
    policy.saved_log_probs.append(m.log_prob(action))
    policy.saved_actions.append(SavedAction(m.log_prob(action), state_value))
    return action.item()


def finish_episode():
    R = 0
    policy_loss = []
    value_losses = []
    returns = []
    for r in policy.rewards[::-1]:
        R = r + args.gamma * R
        returns.insert(0, R)
    returns = torch.tensor(returns)
    returns = (returns - returns.mean()) / (returns.std() + eps)
    for (log_prob, value), R in zip(policy.saved_actions, returns):
        advantage = R - value.item()
        policy_loss.append(-log_prob * advantage)
        value_losses.append(F.smooth_l1_loss(value, torch.tensor([[R]])))
    optimizer.zero_grad()
    loss = torch.stack(policy_loss).sum() + torch.stack(value_losses).sum()
    loss.backward()
    optimizer.step()
    del policy.rewards[:]
    del policy.saved_log_probs[:]
    del policy.saved_actions[:]
    return loss.item()


def main():
    env = ToyEnv(args.seed)
    running_reward = 10
    print(f"eps {teps:.3e} {eps:.3e}")
    for i_episode in range(1, 5):
        state, _ = env.reset()
        ep_reward = 0
        for t in range(1, 10):
            action = select_action(state)
            state, reward, done, _, _ = env.step(action)
            policy.rewards.append(reward)
            ep_reward += reward
            if done:
                break
        running_reward = 0.05 * ep_reward + (1 - 0.05) * running_reward
        loss = finish_episode()
        print('Episode {}\tLast reward: {:.2f}\tAverage reward: {:.2f}\tsteps {}\tloss {:.5f}'.format(
            i_episode, ep_reward, running_reward, t, loss))
    for _ in count(1):
        break


if __name__ == '__main__':
    main()
