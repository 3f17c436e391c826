"""pytorch/examples ``mnist/main.py``-style (own code; synthetic 28x28 digits-like images in place of the MNIST
download, torchvision-free transforms): ``argparse`` settings parsed from a list, ``torch.accelerator``
device selection, the two-conv ``Net`` (``F.relu``, ``F.max_pool2d``, ``Dropout(0.25/0.5)``, ``torch.flatten``,
``F.log_softmax``), ``train()`` with the classic ``'Train Epoch: {} [{}/{} ({:.0f}%)]\\tLoss: {:.6f}'`` log and
``dry_run``, ``test()`` summing ``F.nll_loss(reduction='sum')`` with ``argmax(keepdim=True)`` /
``eq(target.view_as(pred))``, ``optim.Adadelta`` with ``StepLR(step_size=1, gamma)``, ``DataLoader`` kwargs
(``shuffle``, ``num_workers``/``pin_memory`` only with an accelerator), then ``torch.save(model.state_dict())``,
reload into a fresh ``Net`` and re-test."""
import argparse
import os
import tempfile

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.optim.lr_scheduler import StepLR


class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.conv1 = nn.Conv2d(1, 32, 3, 1)
        self.conv2 = nn.Conv2d(32, 64, 3, 1)
        self.dropout1 = nn.Dropout(0.25)
        self.dropout2 = nn.Dropout(0.5)
        self.fc1 = nn.Linear(9216, 128)
        self.fc2 = nn.Linear(128, 10)

    def forward(self, x):
        x = self.conv1(x)
        x = F.relu(x)
        x = self.conv2(x)
        x = F.relu(x)
        x = F.max_pool2d(x, 2)
        x = self.dropout1(x)
        x = torch.flatten(x, 1)
        x = self.fc1(x)
        x = F.relu(x)
        x = self.dropout2(x)
        x = self.fc2(x)
        output = F.log_softmax(x, dim=1)
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


def test(model, device, test_loader):
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
    return correct


class SyntheticDigits(torch.utils.data.Dataset):
    """uint8 28x28 images of a class-dependent bar pattern plus noise; __getitem__ applies ToTensor and
    Normalize((0.1307,), (0.3081,)) as the example's transforms.Compose does."""

    def __init__(self, n, seed):
        rs = np.random.RandomState(seed)
        self.targets = rs.randint(0, 10, n)
        imgs = rs.randint(0, 60, (n, 28, 28)).astype(np.uint8)
        for i, c in enumerate(self.targets):
            imgs[i, 4 + 2 * c:6 + 2 * c, 4:24] = 255  # a horizontal bar whose height is the class
            imgs[i, 4:24, 4 + 2 * c] = 200
        self.data = imgs

    def __len__(self):
        return len(self.data)

    def __getitem__(self, index):
        img, target = self.data[index], int(self.targets[index])
        x = torch.from_numpy(img).to(dtype=torch.float32).div(255).unsqueeze(0)  # ToTensor
        x = x.sub_(torch.tensor([0.1307]).view(-1, 1, 1)).div_(torch.tensor([0.3081]).view(-1, 1, 1))  # Normalize
        return x, target


def main(argv):
    # Training settings
    parser = argparse.ArgumentParser(description='PyTorch MNIST Example')
    parser.add_argument('--batch-size', type=int, default=64, metavar='N',
                        help='input batch size for training (default: 64)')
    parser.add_argument('--test-batch-size', type=int, default=1000, metavar='N',
                        help='input batch size for testing (default: 1000)')
    parser.add_argument('--epochs', type=int, default=14, metavar='N',
                        help='number of epochs to train (default: 14)')
    parser.add_argument('--lr', type=float, default=1.0, metavar='LR',
                        help='learning rate (default: 1.0)')
    parser.add_argument('--gamma', type=float, default=0.7, metavar='M',
                        help='Learning rate step gamma (default: 0.7)')
    parser.add_argument('--no-accel', action='store_true',
                        help='disables accelerator')
    parser.add_argument('--dry-run', action='store_true',
                        help='quickly check a single pass')
    parser.add_argument('--seed', type=int, default=1, metavar='S',
                        help='random seed (default: 1)')
    parser.add_argument('--log-interval', type=int, default=10, metavar='N',
                        help='how many batches to wait before logging training status')
    parser.add_argument('--save-model', action='store_true',
                        help='For Saving the current Model')
    args = parser.parse_args(argv)

    use_accel = not args.no_accel and torch.accelerator.is_available()

    torch.manual_seed(args.seed)

    if use_accel:
        device = torch.accelerator.current_accelerator()
    else:
        device = torch.device("cpu")
    print("device", device, use_accel)

    train_kwargs = {'batch_size': args.batch_size}
    test_kwargs = {'batch_size': args.test_batch_size}
    if use_accel:
        accel_kwargs = {'num_workers': 1,
                        'persistent_workers': True,
                        'pin_memory': True,
                        'shuffle': True}
        train_kwargs.update(accel_kwargs)
        test_kwargs.update(accel_kwargs)
    train_kwargs.update({'shuffle': True})

    dataset1 = SyntheticDigits(192, seed=0)
    dataset2 = SyntheticDigits(96, seed=1)
    train_loader = torch.utils.data.DataLoader(dataset1, **train_kwargs)
    test_loader = torch.utils.data.DataLoader(dataset2, **test_kwargs)
    x0, y0 = dataset1[0]
    print("sample", x0.shape, x0.dtype, round(x0.mean().item(), 4), round(x0.min().item(), 4), y0)

    model = Net().to(device)
    optimizer = optim.Adadelta(model.parameters(), lr=args.lr)

    scheduler = StepLR(optimizer, step_size=1, gamma=args.gamma)
    for epoch in range(1, args.epochs + 1):
        train(args, model, device, train_loader, optimizer, epoch)
        test(model, device, test_loader)
        scheduler.step()
        print("lr", [round(g['lr'], 6) for g in optimizer.param_groups], scheduler.get_last_lr())

    if args.save_model:
        path = os.path.join(tempfile.mkdtemp(), "mnist_cnn.pt")
        torch.save(model.state_dict(), path)
        model2 = Net()
        print(model2.load_state_dict(torch.load(path, weights_only=True)))
        print("reloaded correct", test(model2, device, test_loader))
        print("state keys", list(model2.state_dict().keys()))
        print("adadelta state", sorted(optimizer.state_dict()["state"][0].keys()),
              optimizer.state_dict()["param_groups"][0]["rho"])


if __name__ == '__main__':
    main(['--batch-size', '32', '--test-batch-size', '48', '--epochs', '2', '--log-interval', '2',
          '--save-model', '--lr', '0.5'])
    main(['--batch-size', '32', '--epochs', '1', '--dry-run', '--no-accel'])
