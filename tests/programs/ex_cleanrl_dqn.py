"""cleanrl-style single-file DQN (dqn.py) on CartPole-v1: a dataclass of arguments parsed from the command line,
``gym.vector.SyncVectorEnv`` of ``RecordEpisodeStatistics`` environments with seeded action spaces, a Q-network
and a target network loaded from its ``state_dict``, stable_baselines3's ``ReplayBuffer`` (its samples are
torch tensors), a linear epsilon schedule, ``gather`` of the taken actions' values, ``F.mse_loss`` and the soft
target update ``target_param.data.copy_(tau * param.data + (1 - tau) * target_param.data)``. Small sizes; prints
rounded statistics."""
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
    env_id: str = "CartPole-v1"
    total_timesteps: int = 700
    learning_rate: float = 2.5e-4
    num_envs: int = 1
    buffer_size: int = 1000
    gamma: float = 0.99
    tau: float = 0.5
    target_network_frequency: int = 50
    batch_size: int = 32
    start_e: float = 1
    end_e: float = 0.05
    exploration_fraction: float = 0.5
    learning_starts: int = 200
    train_frequency: int = 4


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
    def __init__(self, env):
        super().__init__()
        self.network = nn.Sequential(
            nn.Linear(np.array(env.single_observation_space.shape).prod(), 120),
            nn.ReLU(),
            nn.Linear(120, 84),
            nn.ReLU(),
            nn.Linear(84, env.single_action_space.n),
        )

    def forward(self, x):
        return self.network(x)


def linear_schedule(start_e: float, end_e: float, duration: int, t: int):
    slope = (end_e - start_e) / duration
    return max(slope * t + start_e, end_e)


if __name__ == "__main__":
    args = parse_args()
    assert args.num_envs == 1, "vectorized envs are not supported at the moment"
    run_name = f"{args.env_id}__{args.exp_name}__{args.seed}__{int(time.time())}"
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
    envs = gym.vector.SyncVectorEnv(
        [make_env(args.env_id, args.seed + i, i, False, run_name) for i in range(args.num_envs)]
    )
    assert isinstance(envs.single_action_space, gym.spaces.Discrete), "only discrete action space is supported"

    q_network = QNetwork(envs).to(device)
    optimizer = optim.Adam(q_network.parameters(), lr=args.learning_rate)
    target_network = QNetwork(envs).to(device)
    target_network.load_state_dict(q_network.state_dict())
    print("same after load", all(torch.equal(a, b) for a, b in zip(q_network.parameters(), target_network.parameters())))

    rb = ReplayBuffer(
        args.buffer_size,
        envs.single_observation_space,
        envs.single_action_space,
        device,
        handle_timeout_termination=False,
    )
    start_time = time.time()
    episodes = []
    losses = []

    # TRY NOT TO MODIFY: start the game
    obs, _ = envs.reset(seed=args.seed)
    autoreset = np.zeros(envs.num_envs, dtype=bool)
    for global_step in range(args.total_timesteps):
        # ALGO LOGIC: put action logic here
        epsilon = linear_schedule(args.start_e, args.end_e, args.exploration_fraction * args.total_timesteps, global_step)
        if random.random() < epsilon:
            actions = np.array([envs.single_action_space.sample() for _ in range(envs.num_envs)])
        else:
            q_values = q_network(torch.Tensor(obs).to(device))
            actions = torch.argmax(q_values, dim=1).cpu().numpy()

        # TRY NOT TO MODIFY: execute the game and log data.
        next_obs, rewards, terminations, truncations, infos = envs.step(actions)

        if "episode" in infos:
            for i in np.nonzero(infos["_episode"])[0]:
                episodes.append(int(infos["episode"]["r"][i]))
                writer.add_scalar("charts/episodic_return", infos["episode"]["r"][i], global_step)
                writer.add_scalar("charts/episodic_length", infos["episode"]["l"][i], global_step)

        # TRY NOT TO MODIFY: save data to reply buffer; gymnasium 1.x resets on the step after a done, whose
        # transition (final observation -> reset observation) is not a real one
        if not autoreset[0]:
            rb.add(obs, next_obs.copy(), actions, rewards, terminations, infos)
        autoreset = np.logical_or(terminations, truncations)

        # TRY NOT TO MODIFY: CRUCIAL step easy to overlook
        obs = next_obs

        # ALGO LOGIC: training.
        if global_step > args.learning_starts:
            if global_step % args.train_frequency == 0:
                data = rb.sample(args.batch_size)
                with torch.no_grad():
                    target_max, _ = target_network(data.next_observations).max(dim=1)
                    td_target = data.rewards.flatten() + args.gamma * target_max * (1 - data.dones.flatten())
                old_val = q_network(data.observations).gather(1, data.actions).squeeze()
                loss = F.mse_loss(td_target, old_val)

                if global_step % 100 == 0:
                    writer.add_scalar("losses/td_loss", loss, global_step)
                    writer.add_scalar("losses/q_values", old_val.mean().item(), global_step)
                    writer.add_scalar("charts/SPS", int(global_step / (time.time() - start_time)), global_step)
                    print(f"step={global_step} eps={epsilon:.4f} td_loss={loss.item():.6f}"
                          f" q_values={old_val.mean().item():.6f} dtypes={data.actions.dtype},{data.rewards.dtype}"
                          f" shapes={tuple(data.observations.shape)},{tuple(data.actions.shape)}")
                losses.append(loss.item())

                # optimize the model
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()

            # update target network
            if global_step % args.target_network_frequency == 0:
                for target_network_param, q_network_param in zip(target_network.parameters(), q_network.parameters()):
                    target_network_param.data.copy_(
                        args.tau * q_network_param.data + (1.0 - args.tau) * target_network_param.data
                    )

    print("episodes", len(episodes), "returns", episodes)
    print("updates", len(losses), "mean loss", round(float(np.mean(losses)), 5), "buffer size", rb.size())
    print("target norm", round(sum(p.norm().item() ** 2 for p in target_network.parameters()) ** 0.5, 5),
          "q norm", round(sum(p.norm().item() ** 2 for p in q_network.parameters()) ** 0.5, 5))
    model_path = os.path.join(logdir, f"{args.exp_name}.cleanrl_model")
    torch.save(q_network.state_dict(), model_path)
    reloaded = QNetwork(envs)
    reloaded.load_state_dict(torch.load(model_path, map_location=device))
    probe = torch.Tensor(obs)
    print("reloaded q", [round(v, 5) for v in reloaded(probe).flatten().tolist()],
          "argmax", reloaded(probe).argmax(dim=1).tolist())
    envs.close()
    writer.close()
