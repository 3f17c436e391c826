"""Three pytorch/examples scripts in one program, each with its structure and torch calls, synthetic data:

- reinforcement_learning/actor_critic.py on CartPole-v1: a two-headed ``Policy`` (softmax action head, value
  head), ``Categorical`` sampling with ``SavedAction`` namedtuples, normalized discounted returns with
  ``np.finfo(np.float32).eps``, ``F.smooth_l1_loss(value, torch.tensor([R]))`` on a 0-d tensor ``R`` and
  ``torch.stack(...).sum()`` losses, a running reward;
- mnist_rnn/main.py: ``nn.LSTM(batch_first=True)`` over the image rows, ``BatchNorm1d`` on the last output,
  ``Dropout2d`` on a 2-D input (torch's deprecation warning; dropped as one unbatched channel map), Adadelta
  with ``StepLR``, the train/test loops with ``nll_loss(reduction='sum')`` and ``argmax(keepdim=True)``;
- gat/main.py: a multi-head ``GraphAttentionLayer`` (``xavier_normal_`` on 2-D and 3-D parameters, ``.mT``,
  ``torch.where`` on the adjacency with ``-9e16``, attention dropout, concat / mean heads), ``F.elu``, Adam with
  weight decay and ``NLLLoss`` on index masks from ``torch.randperm``.

Small sizes; prints rounded numbers one fact per line."""
import argparse
import warnings
from collections import namedtuple
from itertools import count

import gymnasium as gym
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.distributions import Categorical
from torch.optim.lr_scheduler import StepLR
from torch.utils.data import DataLoader, TensorDataset

# ----------------------------------------------------------------------------- actor_critic.py

SavedAction = namedtuple('SavedAction', ['log_prob', 'value'])


class Policy(nn.Module):
    """
    implements both actor and critic in one model
    """
    def __init__(self):
        super(Policy, self).__init__()
        self.affine1 = nn.Linear(4, 128)

        # actor's layer
        self.action_head = nn.Linear(128, 2)

        # critic's layer
        self.value_head = nn.Linear(128, 1)

        # action & reward buffer
        self.saved_actions = []
        self.rewards = []

    def forward(self, x):
        """
        forward of both actor and critic
        """
        x = F.relu(self.affine1(x))

        # actor: choses action to take from state s_t
        # by returning probability of each action
        action_prob = F.softmax(self.action_head(x), dim=-1)

        # critic: evaluates being in the state s_t
        state_values = self.value_head(x)

        # return values for both actor and critic as a tuple of 2 values:
        # 1. a list with the probability of each action over the action space
        # 2. the value from state s_t
        return action_prob, state_values


def actor_critic(episodes=12, gamma=0.99, seed=543, log_interval=3):
    env = gym.make('CartPole-v1')
    env.reset(seed=seed)
    torch.manual_seed(seed)
    model = Policy()
    optimizer = optim.Adam(model.parameters(), lr=3e-2)
    eps = np.finfo(np.float32).eps.item()

    def select_action(state):
        state = torch.from_numpy(state).float()
        probs, state_value = model(state)

        # create a categorical distribution over the list of probabilities of actions
        m = Categorical(probs)

        # and sample an action using the distribution
        action = m.sample()

        # save to action buffer
        model.saved_actions.append(SavedAction(m.log_prob(action), state_value))

        # the action to take (left or right)
        return action.item()

    def finish_episode():
        """
        Training code. Calculates actor and critic loss and performs backprop.
        """
        R = 0
        saved_actions = model.saved_actions
        policy_losses = []  # list to save actor (policy) loss
        value_losses = []  # list to save critic (value) loss
        returns = []  # list to save the true values

        # calculate the true value using rewards returned from the environment
        for r in model.rewards[::-1]:
            # calculate the discounted value
            R = r + gamma * R
            returns.insert(0, R)

        returns = torch.tensor(returns)
        returns = (returns - returns.mean()) / (returns.std() + eps)

        for (log_prob, value), R in zip(saved_actions, returns):
            advantage = R - value.item()

            # calculate actor (policy) loss
            policy_losses.append(-log_prob * advantage)

            # calculate critic (value) loss using L1 smooth loss
            value_losses.append(F.smooth_l1_loss(value, torch.tensor([R])))

        # reset gradients
        optimizer.zero_grad()

        # sum up all the values of policy_losses and value_losses
        loss = torch.stack(policy_losses).sum() + torch.stack(value_losses).sum()

        # perform backprop
        loss.backward()
        optimizer.step()

        # reset rewards and action buffer
        del model.rewards[:]
        del model.saved_actions[:]
        return loss

    running_reward = 10

    # run infinitely many episodes
    for i_episode in count(1):

        # reset environment and episode reward
        state, _ = env.reset()
        ep_reward = 0

        # for each episode, only run 9999 steps so that we don't
        # infinite loop while learning
        for t in range(1, 10000):

            # select action from policy
            action = select_action(state)

            # take the action
            state, reward, done, _, _ = env.step(action)

            model.rewards.append(reward)
            ep_reward += reward
            if done:
                break

        # update cumulative reward
        running_reward = 0.05 * ep_reward + (1 - 0.05) * running_reward

        # perform backprop
        loss = finish_episode()

        # log results
        if i_episode % log_interval == 0:
            print('Episode {}\tLast reward: {:.2f}\tAverage reward: {:.2f}\tloss {:.5f}'.format(
                  i_episode, ep_reward, running_reward, loss.item()))

        # check if we have "solved" the cart pole problem
        if running_reward > env.spec.reward_threshold or i_episode == episodes:
            print("Stopped! Running reward is now {:.3f} and the last episode runs to {} time steps!".format(
                running_reward, t))
            break

# ----------------------------------------------------------------------------- mnist_rnn/main.py


class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.rnn = nn.LSTM(input_size=28, hidden_size=64, batch_first=True)
        self.batchnorm = nn.BatchNorm1d(64)
        self.dropout1 = nn.Dropout2d(0.25)
        self.dropout2 = nn.Dropout2d(0.5)
        self.fc1 = nn.Linear(64, 32)
        self.fc2 = nn.Linear(32, 10)

    def forward(self, input):
        # Shape of input is (batch_size,1, 28, 28)
        # converting shape of input to (batch_size, 28, 28)
        # as required by RNN when batch_first is set True
        input = input.reshape(-1, 28, 28)
        output, hidden = self.rnn(input)

        # RNN output shape is (seq_len, batch, input_size)
        # Get last output of RNN
        output = output[:, -1, :]
        output = self.batchnorm(output)
        output = self.dropout1(output)
        output = self.fc1(output)
        output = F.relu(output)
        output = self.dropout2(output)
        output = self.fc2(output)
        output = F.log_softmax(output, dim=1)
        return output


def train(args, model, device, train_loader, optimizer, epoch):
    model.train()
    for batch_idx, (data, target) in enumerate(train_loader):
        data, target = data.to(device), target.to(device)
        optimizer.zero_grad()
        output = model(data)
        loss = F.nll_loss(output, target)
        loss.backward()
        optimizer.step()
        if batch_idx % args.log_interval == 0:
            print('Train Epoch: {} [{}/{} ({:.0f}%)]\tLoss: {:.6f}'.format(
                epoch, batch_idx * len(data), len(train_loader.dataset),
                100. * batch_idx / len(train_loader), loss.item()))
            if args.dry_run:
                break


def test(args, model, device, test_loader):
    model.eval()
    test_loss = 0
    correct = 0
    with torch.no_grad():
        for data, target in test_loader:
            data, target = data.to(device), target.to(device)
            output = model(data)
            test_loss += F.nll_loss(output, target, reduction='sum').item()  # sum up batch loss
            pred = output.argmax(dim=1, keepdim=True)  # get the index of the max log-probability
            correct += pred.eq(target.view_as(pred)).sum().item()

    test_loss /= len(test_loader.dataset)
    print('\nTest set: Average loss: {:.4f}, Accuracy: {}/{} ({:.0f}%)\n'.format(
        test_loss, correct, len(test_loader.dataset),
        100. * correct / len(test_loader.dataset)))


def mnist_rnn():
    parser = argparse.ArgumentParser(description='PyTorch MNIST Example using RNN')
    parser.add_argument('--batch-size', type=int, default=32, metavar='N')
    parser.add_argument('--test-batch-size', type=int, default=50, metavar='N')
    parser.add_argument('--epochs', type=int, default=2, metavar='N')
    parser.add_argument('--lr', type=float, default=0.1, metavar='LR')
    parser.add_argument('--gamma', type=float, default=0.7, metavar='M')
    parser.add_argument('--dry-run', action='store_true', default=False)
    parser.add_argument('--seed', type=int, default=1, metavar='S')
    parser.add_argument('--log-interval', type=int, default=2, metavar='N')
    args = parser.parse_args([])
    torch.manual_seed(args.seed)
    device = torch.device("cpu")

    # synthetic "digits": each class lights a different band of rows, plus noise (normalized as MNIST's)
    g = torch.Generator().manual_seed(0)
    labels = torch.randint(0, 10, (192,), generator=g)
    images = torch.rand(192, 1, 28, 28, generator=g) * 0.3
    for i, c in enumerate(labels.tolist()):
        images[i, 0, 2 * c + 4: 2 * c + 8, 4:24] += 0.7
    images = (images - 0.1307) / 0.3081
    train_loader = DataLoader(TensorDataset(images[:142], labels[:142]), batch_size=args.batch_size, shuffle=True)
    test_loader = DataLoader(TensorDataset(images[142:], labels[142:]), batch_size=args.test_batch_size, shuffle=True)

    model = Net().to(device)
    optimizer = optim.Adadelta(model.parameters(), lr=args.lr)

    scheduler = StepLR(optimizer, step_size=1, gamma=args.gamma)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for epoch in range(1, args.epochs + 1):
            train(args, model, device, train_loader, optimizer, epoch)
            test(args, model, device, test_loader)
            scheduler.step()
    print("dropout2d warnings", sorted({str(w.message)[:60] for w in caught if "dropout2d" in str(w.message)}))
    print("lr", [round(v, 6) for v in scheduler.get_last_lr()], "bn running_var",
          round(model.batchnorm.running_var.sum().item(), 4))

# ----------------------------------------------------------------------------- gat/main.py


class GraphAttentionLayer(nn.Module):
    """
    Graph Attention Layer (GAT) as described in the paper `"Graph Attention Networks" <https://arxiv.org/pdf/1710.10903.pdf>`.
    """
    def __init__(self, in_features: int, out_features: int, n_heads: int, concat: bool = False,
                 dropout: float = 0.4, leaky_relu_slope: float = 0.2):
        super(GraphAttentionLayer, self).__init__()

        self.n_heads = n_heads  # Number of attention heads
        self.concat = concat  # wether to concatenate the final attention heads
        self.dropout = dropout  # Dropout rate

        if concat:  # concatenating the attention heads
            self.out_features = out_features  # Number of output features per node
            assert out_features % n_heads == 0  # Ensure that out_features is a multiple of n_heads
            self.n_hidden = out_features // n_heads
        else:  # averaging output over the attention heads (Used in the main paper)
            self.n_hidden = out_features

        #  A shared linear transformation, parametrized by a weight matrix W is applied to every node
        #  Initialize the weight matrix W
        self.W = nn.Parameter(torch.empty(size=(in_features, self.n_hidden * n_heads)))

        # Initialize the attention weights a
        self.a = nn.Parameter(torch.empty(size=(n_heads, 2 * self.n_hidden, 1)))

        self.leakyrelu = nn.LeakyReLU(leaky_relu_slope)  # LeakyReLU activation function
        self.softmax = nn.Softmax(dim=1)  # softmax activation function to the attention coefficients

        self.reset_parameters()  # Reset the parameters

    def reset_parameters(self):
        """
        Reinitialize learnable parameters.
        """
        nn.init.xavier_normal_(self.W)
        nn.init.xavier_normal_(self.a)

    def _get_attention_scores(self, h_transformed: torch.Tensor):
        source_scores = torch.matmul(h_transformed, self.a[:, :self.n_hidden, :])
        target_scores = torch.matmul(h_transformed, self.a[:, self.n_hidden:, :])

        # broadcast add
        # (n_heads, n_nodes, 1) + (n_heads, 1, n_nodes) = (n_heads, n_nodes, n_nodes)
        e = source_scores + target_scores.mT
        return self.leakyrelu(e)

    def forward(self, h: torch.Tensor, adj_mat: torch.Tensor):
        n_nodes = h.shape[0]

        # Apply linear transformation to node feature -> W h
        # output shape (n_nodes, n_hidden * n_heads)
        h_transformed = torch.mm(h, self.W)
        h_transformed = F.dropout(h_transformed, self.dropout, training=self.training)

        # splitting the heads by reshaping the tensor and putting heads dim first
        # output shape (n_heads, n_nodes, n_hidden)
        h_transformed = h_transformed.view(n_nodes, self.n_heads, self.n_hidden).permute(1, 0, 2)

        # getting the attention scores
        # output shape (n_heads, n_nodes, n_nodes)
        e = self._get_attention_scores(h_transformed)

        # Set the attention score for non-existent edges to -9e15 (MASKING NON-EXISTENT EDGES)
        connectivity_mask = -9e16 * torch.ones_like(e)
        e = torch.where(adj_mat > 0, e, connectivity_mask)  # masked attention scores

        # attention coefficients are computed as a softmax over the rows
        # for each column j in the attention score matrix e
        attention = F.softmax(e, dim=-1)
        attention = F.dropout(attention, self.dropout, training=self.training)

        # final node embeddings are computed as a weighted average of the features of its neighbors
        h_prime = torch.matmul(attention, h_transformed)

        # concatenating/averaging the attention heads
        # output shape (n_nodes, out_features)
        if self.concat:
            h_prime = h_prime.permute(1, 0, 2).contiguous().view(n_nodes, self.out_features)
        else:
            h_prime = h_prime.mean(dim=0)

        return h_prime


class GAT(nn.Module):
    def __init__(self, in_features, n_hidden, n_heads, num_classes, concat=False, dropout=0.4, leaky_relu_slope=0.2):
        super(GAT, self).__init__()

        # Define the Graph Attention layers
        self.gat1 = GraphAttentionLayer(
            in_features=in_features, out_features=n_hidden, n_heads=n_heads,
            concat=concat, dropout=dropout, leaky_relu_slope=leaky_relu_slope
        )

        self.gat2 = GraphAttentionLayer(
            in_features=n_hidden, out_features=num_classes, n_heads=1,
            concat=False, dropout=dropout, leaky_relu_slope=leaky_relu_slope
        )

    def forward(self, input_tensor: torch.Tensor, adj_mat: torch.Tensor):
        # Apply the first Graph Attention layer
        x = self.gat1(input_tensor, adj_mat)
        x = F.elu(x)  # Apply ELU activation function to the output of the first layer

        # Apply the second Graph Attention layer
        x = self.gat2(x, adj_mat)

        return F.log_softmax(x, dim=1)  # Apply log softmax activation function


def gat(epochs=30):
    torch.manual_seed(13)
    # a synthetic citation graph: 3 communities, features noisy community indicators, mostly in-community edges
    num_nodes, num_classes, in_features = 60, 3, 24
    g = np.random.default_rng(3)
    labels = torch.tensor(np.repeat(np.arange(num_classes), num_nodes // num_classes))
    features = torch.FloatTensor(g.random((num_nodes, in_features)) < 0.1) + \
        F.one_hot(labels, num_classes).repeat(1, in_features // num_classes).float() * torch.FloatTensor(
            g.random((num_nodes, in_features)) < 0.4)
    features = features / features.sum(1, keepdim=True).clamp(min=1)
    src = g.integers(0, num_nodes, 240)
    same = g.random(240) < 0.8
    dst = np.where(same, (src // 20) * 20 + g.integers(0, 20, 240), g.integers(0, num_nodes, 240))
    edges = torch.tensor(np.stack([src, dst]))
    adj_mat = torch.sparse_coo_tensor(edges, torch.ones(edges.size(1)), (num_nodes, num_nodes)).to_dense()
    adj_mat = ((adj_mat + adj_mat.T + torch.eye(num_nodes)) > 0).float()
    print("graph", tuple(features.shape), int(adj_mat.sum().item()), "labels", labels.bincount().tolist())

    gat_net = GAT(in_features=in_features, n_hidden=16, n_heads=4, num_classes=num_classes, concat=False,
                  dropout=0.6, leaky_relu_slope=0.2)
    optimizer = torch.optim.Adam(gat_net.parameters(), lr=0.005, weight_decay=5e-4)
    criterion = nn.NLLLoss()

    idx = torch.randperm(num_nodes)
    idx_test, idx_val, idx_train = idx[:12], idx[12:24], idx[24:]

    def train_iter(epoch, model, optimizer, criterion, input, target, mask_train, mask_val, print_every=10):
        start_t = 0
        model.train()
        optimizer.zero_grad()

        # Forward pass
        output = model(*input)
        loss = criterion(output[mask_train], target[mask_train])  # Compute the loss using the training mask

        loss.backward()
        optimizer.step()

        # Evaluate the model performance on training and validation sets
        loss_train, acc_train = test(model, criterion, input, target, mask_train)
        loss_val, acc_val = test(model, criterion, input, target, mask_val)

        if epoch % print_every == 0:
            # Print the training progress at specified intervals
            print(f'epoch: {epoch:05d} ({start_t:.0f}) | loss_train: {loss_train.item():.4f} | '
                  f'loss_val: {loss_val.item():.4f} | acc_train: {acc_train:.4f} | acc_val: {acc_val:.4f}')

    def test(model, criterion, input, target, mask):
        model.eval()
        with torch.no_grad():
            output = model(*input)
            output, target = output[mask], target[mask]

            loss = criterion(output, target)
            acc = (output.argmax(dim=1) == target).float().sum() / len(target)
        return loss, acc.item()

    for epoch in range(epochs):
        train_iter(epoch + 1, gat_net, optimizer, criterion, (features, adj_mat), labels, idx_train, idx_val,
                   print_every=10)
    loss_test, acc_test = test(gat_net, criterion, (features, adj_mat), labels, idx_test)
    print(f'Test set results: loss {loss_test:.4f} accuracy {acc_test:.4f}')
    print("attention params", tuple(gat_net.gat1.a.shape), round(gat_net.gat1.a.std().item(), 5),
          tuple(gat_net.gat1.W.shape))


if __name__ == '__main__':
    actor_critic()
    mnist_rnn()
    gat()
