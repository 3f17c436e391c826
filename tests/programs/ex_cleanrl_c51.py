"""cleanrl-style single-file C51 (c51.py) on CartPole-v1: a distributional Q-network whose ``atoms`` are a
``torch.linspace`` buffer, ``torch.softmax`` over ``view(len(x), n, n_atoms)``, greedy actions from
``(pmfs * atoms).sum(2)`` and ``torch.argmax``, the categorical projection of the target distribution
(``floor``/``ceil``/``clamp``, ``(l == u).float()``, a per-sample ``index_add_`` into ``torch.zeros_like``),
the cross-entropy loss on ``clamp(min=1e-5, max=1 - 1e-5).log()``, Adam with ``eps=0.01 / batch_size``, a
linear epsilon schedule, hard target updates with ``load_state_dict``, stable_baselines3's ``ReplayBuffer``,
``SummaryWriter`` logging and cleanrl's ``torch.save({"model_weights": ..., "args": vars(args)})`` followed by
the evaluation that reloads it. Small sizes; prints rounded statistics one fact per line."""
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
    env_id: str = "CartPole-v1"
    total_timesteps: int = 600
    learning_rate: float = 2.5e-4
    num_envs: int = 1
    n_atoms: int = 51
    v_min: float = -100
    v_max: float = 100
    buffer_size: int = 1000
    gamma: float = 0.99
    target_network_frequency: int = 50
    batch_size: int = 32
    start_e: float = 1
    end_e: float = 0.05
    exploration_fraction: float = 0.5
    learning_starts: int = 200
    train_frequency: int = 2


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
    def __init__(self, env, n_atoms=101, v_min=-100, v_max=100):
        super().__init__()
        self.env = env
        self.n_atoms = n_atoms
        self.register_buffer("atoms", torch.linspace(v_min, v_max, steps=n_atoms))
        self.n = env.single_action_space.n
        self.network = nn.Sequential(
            nn.Linear(np.array(env.single_observation_space.shape).prod(), 120),
            nn.ReLU(),
            nn.Linear(120, 84),
            nn.ReLU(),
            nn.Linear(84, self.n * n_atoms),
        )

    def get_action(self, x, action=None):
        logits = self.network(x)
        # probability mass function for each action
        pmfs = torch.softmax(logits.view(len(x), self.n, self.n_atoms), dim=2)
        q_values = (pmfs * self.atoms).sum(2)
        if action is None:
            action = torch.argmax(q_values, 1)
        return action, pmfs[torch.arange(len(x)), action]


def linear_schedule(start_e: float, end_e: float, duration: int, t: int):
    slope = (end_e - start_e) / duration
    return max(slope * t + start_e, end_e)


def evaluate(model_path, make_env, env_id, eval_episodes, run_name, Model, device=torch.device("cpu"),
             epsilon=0.05, capture_video=True, max_steps=60):
    """cleanrl_utils/evals/c51_eval.py (episodes cut at ``max_steps`` here to keep the run short)."""
    envs = gym.vector.SyncVectorEnv([make_env(env_id, 0, 0, capture_video, run_name)])
    model_data = torch.load(model_path, map_location="cpu")
    args = model_data["args"]
    model = Model(envs, n_atoms=args["n_atoms"], v_min=args["v_min"], v_max=args["v_max"])
    model.load_state_dict(model_data["model_weights"])
    model = model.to(device)
    model.eval()

    obs, _ = envs.reset(seed=0)  # (seeded here: the comparison with torch needs the same episodes)
    episodic_returns = []
    ret, steps = 0.0, 0
    while len(episodic_returns) < eval_episodes:
        if random.random() < epsilon:
            actions = np.array([envs.single_action_space.sample() for _ in range(envs.num_envs)])
        else:
            actions, _ = model.get_action(torch.Tensor(obs).to(device))
            actions = actions.cpu().numpy()
        next_obs, rewards, terms, truncs, infos = envs.step(actions)
        ret += float(rewards[0])
        steps += 1
        if steps == max_steps or terms[0] or truncs[0]:
            episodic_returns.append(ret)
            ret, steps = 0.0, 0
            next_obs, _ = envs.reset()
        obs = next_obs

    return episodic_returns


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

    q_network = QNetwork(envs, n_atoms=args.n_atoms, v_min=args.v_min, v_max=args.v_max).to(device)
    optimizer = optim.Adam(q_network.parameters(), lr=args.learning_rate, eps=0.01 / args.batch_size)
    target_network = QNetwork(envs, n_atoms=args.n_atoms, v_min=args.v_min, v_max=args.v_max).to(device)
    target_network.load_state_dict(q_network.state_dict())
    print("atoms", q_network.atoms.shape, round(q_network.atoms[1].item() - q_network.atoms[0].item(), 5),
          "buffers", [n for n, _ in q_network.named_buffers()], "eps", optimizer.defaults["eps"])

    rb = ReplayBuffer(
        args.buffer_size,
        envs.single_observation_space,
        envs.single_action_space,
        device,
        handle_timeout_termination=False,
    )
    start_time = time.time()
    episodes = []

    # TRY NOT TO MODIFY: start the game
    obs, _ = envs.reset(seed=args.seed)
    autoreset = np.zeros(envs.num_envs, dtype=bool)
    for global_step in range(args.total_timesteps):
        # ALGO LOGIC: put action logic here
        epsilon = linear_schedule(args.start_e, args.end_e, args.exploration_fraction * args.total_timesteps, global_step)
        if random.random() < epsilon:
            actions = np.array([envs.single_action_space.sample() for _ in range(envs.num_envs)])
        else:
            actions, pmf = q_network.get_action(torch.Tensor(obs).to(device))
            actions = actions.cpu().numpy()

        # TRY NOT TO MODIFY: execute the game and log data.
        next_obs, rewards, terminations, truncations, infos = envs.step(actions)

        if "episode" in infos:
            for i in np.nonzero(infos["_episode"])[0]:
                episodes.append(int(infos["episode"]["r"][i]))
                writer.add_scalar("charts/episodic_return", infos["episode"]["r"][i], global_step)
                writer.add_scalar("charts/episodic_length", infos["episode"]["l"][i], global_step)

        # gymnasium 1.x resets on the step after a done: that step's transition is not a real one
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
                    _, next_pmfs = target_network.get_action(data.next_observations)
                    next_atoms = data.rewards + args.gamma * target_network.atoms * (1 - data.dones)
                    # projection
                    delta_z = target_network.atoms[1] - target_network.atoms[0]
                    tz = next_atoms.clamp(args.v_min, args.v_max)

                    b = (tz - args.v_min) / delta_z
                    l = b.floor().clamp(0, args.n_atoms - 1)
                    u = b.ceil().clamp(0, args.n_atoms - 1)
                    # (l == u).float() handles the case where bj is exactly an integer
                    # example bj = 1, then the upper ceiling should be uj= 2, and lj= 1
                    d_m_l = (u + (l == u).float() - b) * next_pmfs
                    d_m_u = (b - l) * next_pmfs
                    target_pmfs = torch.zeros_like(next_pmfs)
                    for i in range(target_pmfs.size(0)):
                        target_pmfs[i].index_add_(0, l[i].long(), d_m_l[i])
                        target_pmfs[i].index_add_(0, u[i].long(), d_m_u[i])

                _, old_pmfs = q_network.get_action(data.observations, data.actions.flatten())
                loss = (-(target_pmfs * old_pmfs.clamp(min=1e-5, max=1 - 1e-5).log()).sum(-1)).mean()

                if global_step % 50 == 0:
                    writer.add_scalar("losses/loss", loss.item(), global_step)
                    old_val = (old_pmfs * q_network.atoms).sum(1)
                    writer.add_scalar("losses/q_values", old_val.mean().item(), global_step)
                    writer.add_scalar("charts/SPS", int(global_step / (time.time() - start_time)), global_step)
                    print(f"step={global_step} loss={loss.item():.5f} q_values={old_val.mean().item():.5f}"
                          f" target_mass={target_pmfs.sum().item():.4f} epsilon={epsilon:.4f}")

                # optimize the model
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()

            # update target network
            if global_step % args.target_network_frequency == 0:
                target_network.load_state_dict(q_network.state_dict())

    print("episodes", len(episodes), "returns", episodes)
    if args.save_model:
        model_path = os.path.join(logdir, f"{args.exp_name}.cleanrl_model")
        model_data = {
            "model_weights": q_network.state_dict(),
            "args": vars(args),
        }
        torch.save(model_data, model_path)
        print("model saved", sorted(model_data), len(model_data["model_weights"]))

        episodic_returns = evaluate(
            model_path,
            make_env,
            args.env_id,
            eval_episodes=3,
            run_name=f"{run_name}-eval",
            Model=QNetwork,
            device=device,
            epsilon=0.05,
        )
        for idx, episodic_return in enumerate(episodic_returns):
            writer.add_scalar("eval/episodic_return", episodic_return, idx)
            print(f"eval episode {idx} return {episodic_return:.1f}")

    with torch.no_grad():
        _, pmf = q_network.get_action(torch.Tensor(obs).to(device))
        print("final pmf", tuple(pmf.shape), round(pmf.sum().item(), 5), round((pmf * q_network.atoms).sum().item(), 5))
    envs.close()
    writer.close()
