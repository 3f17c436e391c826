"""cleanrl-style single-file TD3 (td3_continuous_action.py) and DDPG (ddpg_continuous_action.py) on
Pendulum-v1, one after the other: deterministic ``Actor`` with ``action_scale`` / ``action_bias`` buffers and
``tanh``, Q-networks on ``torch.cat([x, a], 1)``, Gaussian exploration noise drawn with
``torch.normal(0, actor.action_scale * exploration_noise)``, TD3's target policy smoothing
(``torch.randn_like(...) * policy_noise).clamp(-noise_clip, noise_clip)``) and clipped double-Q with
``torch.min``, delayed actor updates, Polyak target updates through ``.data.copy_``, stable_baselines3's
``ReplayBuffer``, ``SummaryWriter`` logging, ``torch.save`` of the models as a tuple of state dicts and
cleanrl's ``evaluate`` (reload with ``load_state_dict(torch.load(...))`` and run the greedy policy with
exploration noise). Small sizes; prints rounded statistics one fact per line."""
import argparse
import dataclasses
import os
import random
import tempfile
import time
from dataclasses import dataclass

import gymnasium as gym
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from stable_baselines3.common.buffers import ReplayBuffer
from torch.utils.tensorboard import SummaryWriter


@dataclass
class Args:
    exp_name: str = os.path.basename(__file__)[: -len(".py")]
    seed: int = 1
    torch_deterministic: bool = True
    cuda: bool = True
    save_model: bool = True
    env_id: str = "Pendulum-v1"
    total_timesteps: int = 330
    learning_rate: float = 3e-4
    buffer_size: int = 1000
    gamma: float = 0.99
    tau: float = 0.005
    batch_size: int = 32
    policy_noise: float = 0.2
    exploration_noise: float = 0.1
    learning_starts: int = 200
    policy_frequency: int = 2
    noise_clip: float = 0.5
    hidden: int = 64


def parse_args():
    # what tyro.cli(Args) does for this flat dataclass: one --flag per field
    parser = argparse.ArgumentParser()
    for f in dataclasses.fields(Args):
        kind = f.type if f.type is not bool else (lambda s: s.lower() in ("1", "true"))
        parser.add_argument(f"--{f.name.replace('_', '-')}", type=kind, default=f.default)
    return Args(**vars(parser.parse_args()))


def make_env(env_id, seed, idx, capture_video, run_name):
    def thunk():
        env = gym.make(env_id)
        env = gym.wrappers.RecordEpisodeStatistics(env)
        env.action_space.seed(seed)
        return env

    return thunk


# ALGO LOGIC: initialize agent here:
class QNetwork(nn.Module):
    def __init__(self, env, hidden=256):
        super().__init__()
        self.fc1 = nn.Linear(np.array(env.single_observation_space.shape).prod() + np.prod(env.single_action_space.shape), hidden)
        self.fc2 = nn.Linear(hidden, hidden)
        self.fc3 = nn.Linear(hidden, 1)

    def forward(self, x, a):
        x = torch.cat([x, a], 1)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        x = self.fc3(x)
        return x


class Actor(nn.Module):
    def __init__(self, env, hidden=256):
        super().__init__()
        self.fc1 = nn.Linear(np.array(env.single_observation_space.shape).prod(), hidden)
        self.fc2 = nn.Linear(hidden, hidden)
        self.fc_mu = nn.Linear(hidden, np.prod(env.single_action_space.shape))
        # action rescaling
        self.register_buffer(
            "action_scale", torch.tensor((env.action_space.high - env.action_space.low) / 2.0, dtype=torch.float32)
        )
        self.register_buffer(
            "action_bias", torch.tensor((env.action_space.high + env.action_space.low) / 2.0, dtype=torch.float32)
        )

    def forward(self, x):
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        x = torch.tanh(self.fc_mu(x))
        return x * self.action_scale + self.action_bias


def evaluate(model_path, make_env, env_id, eval_episodes, run_name, Model, device=torch.device("cpu"),
             capture_video=True, exploration_noise=0.1, hidden=256, max_steps=60):
    """cleanrl_utils/evals/td3_eval.py: reload the saved models and run the actor with exploration noise
    (each episode cut at ``max_steps`` here to keep the run short)."""
    envs = gym.vector.SyncVectorEnv([make_env(env_id, 0, 0, capture_video, run_name)])
    actor = Model[0](envs, hidden).to(device)
    qf = Model[1](envs, hidden).to(device)
    actor_params, qf_params = torch.load(model_path, map_location=device)[:2]
    actor.load_state_dict(actor_params)
    actor.eval()
    qf.load_state_dict(qf_params)
    qf.eval()
    # note: qf is not used in this script

    obs, _ = envs.reset(seed=0)  # (seeded here: the comparison with torch needs the same episodes)
    episodic_returns = []
    ret, steps = 0.0, 0
    while len(episodic_returns) < eval_episodes:
        with torch.no_grad():
            actions = actor(torch.Tensor(obs).to(device))
            actions += torch.normal(0, actor.action_scale * exploration_noise)
            actions = actions.cpu().numpy().clip(envs.single_action_space.low, envs.single_action_space.high)

        next_obs, rewards, terms, truncs, infos = envs.step(actions)
        ret += float(rewards[0])
        steps += 1
        if steps == max_steps:
            episodic_returns.append(ret)
            ret, steps = 0.0, 0
            next_obs, _ = envs.reset()
        obs = next_obs

    return episodic_returns


def train(args, algo):
    run_name = f"{args.env_id}__{algo}__{args.seed}__{int(time.time())}"
    logdir = tempfile.mkdtemp()
    writer = SummaryWriter(os.path.join(logdir, "runs", run_name))
    writer.add_text(
        "hyperparameters",
        "|param|value|\n|-|-|\n%s" % ("\n".join([f"|{key}|{value}|" for key, value in vars(args).items()])),
    )

    # TRY NOT TO MODIFY: seeding
    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    torch.backends.cudnn.deterministic = args.torch_deterministic

    device = torch.device("cuda" if torch.cuda.is_available() and args.cuda else "cpu")

    # env setup
    envs = gym.vector.SyncVectorEnv([make_env(args.env_id, args.seed, 0, False, run_name)])
    assert isinstance(envs.single_action_space, gym.spaces.Box), "only continuous action space is supported"

    actor = Actor(envs, args.hidden).to(device)
    qf1 = QNetwork(envs, args.hidden).to(device)
    qf1_target = QNetwork(envs, args.hidden).to(device)
    target_actor = Actor(envs, args.hidden).to(device)
    target_actor.load_state_dict(actor.state_dict())
    qf1_target.load_state_dict(qf1.state_dict())
    if algo == "td3":
        qf2 = QNetwork(envs, args.hidden).to(device)
        qf2_target = QNetwork(envs, args.hidden).to(device)
        qf2_target.load_state_dict(qf2.state_dict())
        q_optimizer = optim.Adam(list(qf1.parameters()) + list(qf2.parameters()), lr=args.learning_rate)
    else:
        q_optimizer = optim.Adam(list(qf1.parameters()), lr=args.learning_rate)
    actor_optimizer = optim.Adam(list(actor.parameters()), lr=args.learning_rate)
    print(algo, "scale", actor.action_scale.tolist(), "bias", actor.action_bias.tolist())

    envs.single_observation_space.dtype = np.float32
    rb = ReplayBuffer(
        args.buffer_size,
        envs.single_observation_space,
        envs.single_action_space,
        device,
        handle_timeout_termination=False,
    )
    start_time = time.time()

    # TRY NOT TO MODIFY: start the game
    obs, _ = envs.reset(seed=args.seed)
    autoreset = np.zeros(envs.num_envs, dtype=bool)
    for global_step in range(args.total_timesteps):
        # ALGO LOGIC: put action logic here
        if global_step < args.learning_starts:
            actions = np.array([envs.single_action_space.sample() for _ in range(envs.num_envs)])
        else:
            with torch.no_grad():
                actions = actor(torch.Tensor(obs).to(device))
                actions += torch.normal(0, actor.action_scale * args.exploration_noise)
                actions = actions.cpu().numpy().clip(envs.single_action_space.low, envs.single_action_space.high)

        # TRY NOT TO MODIFY: execute the game and log data.
        next_obs, rewards, terminations, truncations, infos = envs.step(actions)

        # gymnasium 1.x resets on the step after a done: that step's transition is not a real one
        if not autoreset[0]:
            rb.add(obs, next_obs.copy(), actions, rewards, terminations, infos)
        autoreset = np.logical_or(terminations, truncations)

        # TRY NOT TO MODIFY: CRUCIAL step easy to overlook
        obs = next_obs

        # ALGO LOGIC: training.
        if global_step > args.learning_starts:
            data = rb.sample(args.batch_size)
            with torch.no_grad():
                if algo == "td3":
                    clipped_noise = (torch.randn_like(data.actions, device=device) * args.policy_noise).clamp(
                        -args.noise_clip, args.noise_clip
                    ) * target_actor.action_scale

                    next_state_actions = (target_actor(data.next_observations) + clipped_noise).clamp(
                        envs.single_action_space.low[0], envs.single_action_space.high[0]
                    )
                    qf1_next_target = qf1_target(data.next_observations, next_state_actions)
                    qf2_next_target = qf2_target(data.next_observations, next_state_actions)
                    min_qf_next_target = torch.min(qf1_next_target, qf2_next_target)
                    next_q_value = data.rewards.flatten() + (1 - data.dones.flatten()) * args.gamma * (min_qf_next_target).view(-1)
                else:
                    next_state_actions = target_actor(data.next_observations)
                    qf1_next_target = qf1_target(data.next_observations, next_state_actions)
                    next_q_value = data.rewards.flatten() + (1 - data.dones.flatten()) * args.gamma * (qf1_next_target).view(-1)

            qf1_a_values = qf1(data.observations, data.actions).view(-1)
            qf1_loss = F.mse_loss(qf1_a_values, next_q_value)
            if algo == "td3":
                qf2_a_values = qf2(data.observations, data.actions).view(-1)
                qf2_loss = F.mse_loss(qf2_a_values, next_q_value)
                qf_loss = qf1_loss + qf2_loss
            else:
                qf_loss = qf1_loss

            # optimize the model
            q_optimizer.zero_grad()
            qf_loss.backward()
            q_optimizer.step()

            if global_step % args.policy_frequency == 0:
                actor_loss = -qf1(data.observations, actor(data.observations)).mean()
                actor_optimizer.zero_grad()
                actor_loss.backward()
                actor_optimizer.step()

                # update the target network
                for param, target_param in zip(actor.parameters(), target_actor.parameters()):
                    target_param.data.copy_(args.tau * param.data + (1 - args.tau) * target_param.data)
                for param, target_param in zip(qf1.parameters(), qf1_target.parameters()):
                    target_param.data.copy_(args.tau * param.data + (1 - args.tau) * target_param.data)
                if algo == "td3":
                    for param, target_param in zip(qf2.parameters(), qf2_target.parameters()):
                        target_param.data.copy_(args.tau * param.data + (1 - args.tau) * target_param.data)

            if global_step % 32 == 0:
                writer.add_scalar("losses/qf1_values", qf1_a_values.mean().item(), global_step)
                writer.add_scalar("losses/qf1_loss", qf1_loss.item(), global_step)
                writer.add_scalar("losses/actor_loss", actor_loss.item(), global_step)
                writer.add_scalar("charts/SPS", int(global_step / (time.time() - start_time)), global_step)
                print(f"{algo} step={global_step} qf1={qf1_a_values.mean().item():.5f}"
                      f" qf_loss={qf_loss.item():.5f} actor_loss={actor_loss.item():.5f}"
                      f" action={float(actions.flatten()[0]):.5f}")

    if args.save_model:
        model_path = os.path.join(logdir, f"{run_name}.cleanrl_model")
        if algo == "td3":
            torch.save((actor.state_dict(), qf1.state_dict(), qf2.state_dict()), model_path)
        else:
            torch.save((actor.state_dict(), qf1.state_dict()), model_path)
        print(f"{algo} model saved", os.path.getsize(model_path) > 0)

        episodic_returns = evaluate(
            model_path,
            make_env,
            args.env_id,
            eval_episodes=2,
            run_name=f"{run_name}-eval",
            Model=(Actor, QNetwork),
            device=device,
            exploration_noise=args.exploration_noise,
            hidden=args.hidden,
        )
        for idx, episodic_return in enumerate(episodic_returns):
            writer.add_scalar("eval/episodic_return", episodic_return, idx)
            print(f"{algo} eval episode {idx} return {episodic_return:.3f}")

    drift = sum((a - b).abs().sum().item() for a, b in zip(actor.parameters(), target_actor.parameters()))
    print(algo, "actor target drift", round(drift, 5))
    envs.close()
    writer.close()


if __name__ == "__main__":
    args = parse_args()
    train(args, "td3")
    train(args, "ddpg")
