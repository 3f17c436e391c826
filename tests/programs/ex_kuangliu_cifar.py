"""kuangliu/pytorch-cifar ``main.py`` + ``models/resnet.py`` + ``utils.py``-style (own code; random tensors shaped
like CIFAR-10 in place of the torchvision download): ``argparse`` (``--lr``, ``--resume/-r``) parsed from a
list, ``device = 'cuda' if torch.cuda.is_available() else 'cpu'``, ``BasicBlock``/``Bottleneck`` with the
1x1-conv shortcut, ``ResNet18()``, ``cudnn.benchmark`` under the CUDA branch, tensor-op augmentation
(``RandomCrop(32, padding=4)`` and ``RandomHorizontalFlip`` written with ``F.pad``/``torch.flip``),
``get_mean_and_std`` and ``init_params`` from utils, ``SGD(momentum=0.9, weight_decay=5e-4)`` with
``CosineAnnealingLR(T_max=200)``, ``train()``/``test()`` with ``outputs.max(1)`` accuracy and the
``'Loss: %.3f | Acc: %.3f%% (%d/%d)'`` progress text, ``torch.save(state, './checkpoint/ckpt.pth')`` when the
accuracy improves, then a second run with ``--resume`` that reloads ``net``/``acc``/``epoch``."""
import argparse
import os
import tempfile

import torch
import torch.backends.cudnn as cudnn
import torch.nn as nn
import torch.nn.functional as F
import torch.nn.init as init
import torch.optim as optim


class BasicBlock(nn.Module):
    expansion = 1

    def __init__(self, in_planes, planes, stride=1):
        super(BasicBlock, self).__init__()
        self.conv1 = nn.Conv2d(in_planes, planes, kernel_size=3, stride=stride, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        self.conv2 = nn.Conv2d(planes, planes, kernel_size=3, stride=1, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes)

        self.shortcut = nn.Sequential()
        if stride != 1 or in_planes != self.expansion * planes:
            self.shortcut = nn.Sequential(
                nn.Conv2d(in_planes, self.expansion * planes, kernel_size=1, stride=stride, bias=False),
                nn.BatchNorm2d(self.expansion * planes)
            )

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        out += self.shortcut(x)
        out = F.relu(out)
        return out


class Bottleneck(nn.Module):
    expansion = 4

    def __init__(self, in_planes, planes, stride=1):
        super(Bottleneck, self).__init__()
        self.conv1 = nn.Conv2d(in_planes, planes, kernel_size=1, bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        self.conv2 = nn.Conv2d(planes, planes, kernel_size=3, stride=stride, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes)
        self.conv3 = nn.Conv2d(planes, self.expansion * planes, kernel_size=1, bias=False)
        self.bn3 = nn.BatchNorm2d(self.expansion * planes)

        self.shortcut = nn.Sequential()
        if stride != 1 or in_planes != self.expansion * planes:
            self.shortcut = nn.Sequential(
                nn.Conv2d(in_planes, self.expansion * planes, kernel_size=1, stride=stride, bias=False),
                nn.BatchNorm2d(self.expansion * planes)
            )

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = F.relu(self.bn2(self.conv2(out)))
        out = self.bn3(self.conv3(out))
        out += self.shortcut(x)
        out = F.relu(out)
        return out


class ResNet(nn.Module):
    def __init__(self, block, num_blocks, num_classes=10):
        super(ResNet, self).__init__()
        self.in_planes = 64

        self.conv1 = nn.Conv2d(3, 64, kernel_size=3, stride=1, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(64)
        self.layer1 = self._make_layer(block, 64, num_blocks[0], stride=1)
        self.layer2 = self._make_layer(block, 128, num_blocks[1], stride=2)
        self.layer3 = self._make_layer(block, 256, num_blocks[2], stride=2)
        self.layer4 = self._make_layer(block, 512, num_blocks[3], stride=2)
        self.linear = nn.Linear(512 * block.expansion, num_classes)

    def _make_layer(self, block, planes, num_blocks, stride):
        strides = [stride] + [1] * (num_blocks - 1)
        layers = []
        for stride in strides:
            layers.append(block(self.in_planes, planes, stride))
            self.in_planes = planes * block.expansion
        return nn.Sequential(*layers)

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.layer1(out)
        out = self.layer2(out)
        out = self.layer3(out)
        out = self.layer4(out)
        out = F.avg_pool2d(out, 4)
        out = out.view(out.size(0), -1)
        out = self.linear(out)
        return out


def ResNet18():
    return ResNet(BasicBlock, [2, 2, 2, 2])


def ResNet50():
    return ResNet(Bottleneck, [3, 4, 6, 3])


def get_mean_and_std(dataset):
    '''Compute the mean and std value of dataset.'''
    dataloader = torch.utils.data.DataLoader(dataset, batch_size=1, shuffle=True, num_workers=0)
    mean = torch.zeros(3)
    std = torch.zeros(3)
    print('==> Computing mean and std..')
    for inputs, targets in dataloader:
        for i in range(3):
            mean[i] += inputs[:, i, :, :].mean()
            std[i] += inputs[:, i, :, :].std()
    mean.div_(len(dataset))
    std.div_(len(dataset))
    return mean, std


def init_params(net):
    '''Init layer parameters.'''
    for m in net.modules():
        if isinstance(m, nn.Conv2d):
            init.kaiming_normal_(m.weight, mode='fan_out')
            if m.bias:
                init.constant_(m.bias, 0)
        elif isinstance(m, nn.BatchNorm2d):
            init.constant_(m.weight, 1)
            init.constant_(m.bias, 0)
        elif isinstance(m, nn.Linear):
            init.normal_(m.weight, std=1e-3)
            if m.bias is not None:
                init.constant_(m.bias, 0)


class RandomCIFAR(torch.utils.data.Dataset):
    """CIFAR-10-shaped uint8 images and labels drawn once from a seeded generator; ``train`` applies the
    repo's augmentation (random crop with 4-pixel zero padding, horizontal flip) with tensor ops."""

    def __init__(self, n, train, mean, std, seed):
        g = torch.Generator().manual_seed(seed)
        self.data = torch.randint(0, 256, (n, 3, 32, 32), generator=g, dtype=torch.uint8)
        self.targets = torch.randint(0, 10, (n,), generator=g).tolist()
        self.train = train
        self.mean = torch.tensor(mean).view(3, 1, 1)
        self.std = torch.tensor(std).view(3, 1, 1)

    def __len__(self):
        return len(self.targets)

    def __getitem__(self, index):
        img = self.data[index].float().div(255)
        if self.train:
            padded = F.pad(img, (4, 4, 4, 4))
            i, j = torch.randint(0, 9, (2,)).tolist()
            img = padded[:, i:i + 32, j:j + 32]
            if torch.rand(1) < 0.5:
                img = torch.flip(img, dims=[2])
        img = (img - self.mean) / self.std
        return img, self.targets[index]


def run(argv, root):
    parser = argparse.ArgumentParser(description='PyTorch CIFAR10 Training')
    parser.add_argument('--lr', default=0.1, type=float, help='learning rate')
    parser.add_argument('--resume', '-r', action='store_true', help='resume from checkpoint')
    parser.add_argument('--epochs', default=2, type=int)
    args = parser.parse_args(argv)

    device = 'cuda' if torch.cuda.is_available() else 'cpu'
    best_acc = 0  # best test accuracy
    start_epoch = 0  # start from epoch 0 or last checkpoint epoch

    # Data
    print('==> Preparing data..')
    mean, std = (0.4914, 0.4822, 0.4465), (0.2023, 0.1994, 0.2010)
    trainset = RandomCIFAR(16, True, mean, std, seed=1)
    trainloader = torch.utils.data.DataLoader(trainset, batch_size=8, shuffle=True, num_workers=0)
    testset = RandomCIFAR(16, False, mean, std, seed=5)
    testloader = torch.utils.data.DataLoader(testset, batch_size=8, shuffle=False, num_workers=0)

    # Model
    print('==> Building model..')
    net = ResNet18()
    net = net.to(device)
    if device == 'cuda':
        net = torch.nn.DataParallel(net)
        cudnn.benchmark = True

    if args.resume:
        # Load checkpoint.
        print('==> Resuming from checkpoint..')
        assert os.path.isdir(os.path.join(root, 'checkpoint')), 'Error: no checkpoint directory found!'
        checkpoint = torch.load(os.path.join(root, 'checkpoint', 'ckpt.pth'))
        net.load_state_dict(checkpoint['net'])
        best_acc = checkpoint['acc']
        start_epoch = checkpoint['epoch']
        print('resumed acc %.3f epoch %d type %s' % (best_acc, start_epoch, type(start_epoch).__name__))

    criterion = nn.CrossEntropyLoss()
    optimizer = optim.SGD(net.parameters(), lr=args.lr, momentum=0.9, weight_decay=5e-4)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=200)

    def train(epoch):
        print('\nEpoch: %d' % epoch)
        net.train()
        train_loss = 0
        correct = 0
        total = 0
        for batch_idx, (inputs, targets) in enumerate(trainloader):
            inputs, targets = inputs.to(device), targets.to(device)
            optimizer.zero_grad()
            outputs = net(inputs)
            loss = criterion(outputs, targets)
            loss.backward()
            optimizer.step()

            train_loss += loss.item()
            _, predicted = outputs.max(1)
            total += targets.size(0)
            correct += predicted.eq(targets).sum().item()
            print(batch_idx, len(trainloader), 'Loss: %.3f | Acc: %.3f%% (%d/%d)'
                  % (train_loss / (batch_idx + 1), 100. * correct / total, correct, total))

    def test(epoch):
        nonlocal best_acc
        net.eval()
        test_loss = 0
        correct = 0
        total = 0
        with torch.no_grad():
            for batch_idx, (inputs, targets) in enumerate(testloader):
                inputs, targets = inputs.to(device), targets.to(device)
                outputs = net(inputs)
                loss = criterion(outputs, targets)

                test_loss += loss.item()
                _, predicted = outputs.max(1)
                total += targets.size(0)
                correct += predicted.eq(targets).sum().item()
                print(batch_idx, len(testloader), 'Loss: %.3f | Acc: %.3f%% (%d/%d)'
                      % (test_loss / (batch_idx + 1), 100. * correct / total, correct, total))
                print('logits sum %.4f' % outputs.sum().item())

        # Save checkpoint.
        acc = 100. * correct / total
        if acc > best_acc:
            print('Saving..')
            state = {
                'net': net.state_dict(),
                'acc': acc,
                'epoch': epoch,
            }
            if not os.path.isdir(os.path.join(root, 'checkpoint')):
                os.mkdir(os.path.join(root, 'checkpoint'))
            torch.save(state, os.path.join(root, 'checkpoint', 'ckpt.pth'))
            best_acc = acc

    for epoch in range(start_epoch, start_epoch + args.epochs):
        train(epoch)
        test(epoch)
        scheduler.step()
        print('lr %.6f' % scheduler.get_last_lr()[0])
    return net


def main():
    torch.manual_seed(0)
    with tempfile.TemporaryDirectory() as root:
        net = run(['--lr', '0.002', '--epochs', '1'], root)
        print('params', sum(p.numel() for p in net.parameters()))
        print('buffers', sorted({k.split('.')[-1] for k, _ in net.named_buffers()}))
        print('bn1 running_mean %.5f' % net.bn1.running_mean.sum().item())
        print('num_batches_tracked', net.bn1.num_batches_tracked.item(), net.bn1.num_batches_tracked.dtype)
        ckpt = torch.load(os.path.join(root, 'checkpoint', 'ckpt.pth'))
        print('ckpt keys', sorted(ckpt), len(ckpt['net']), type(ckpt['net']).__name__)
        net2 = run(['--lr', '0.002', '--resume', '--epochs', '1'], root)
        print('resumed weight sum %.4f' % sum(p.sum().item() for p in net2.parameters()))

        # utils.py helpers
        mean, std = get_mean_and_std(RandomCIFAR(4, False, (0., 0., 0.), (1., 1., 1.), seed=3))
        print('mean', [round(v, 5) for v in mean.tolist()], 'std', [round(v, 5) for v in std.tolist()])
        torch.manual_seed(1)
        small = ResNet(Bottleneck, [1, 1, 1, 1], num_classes=4)
        init_params(small)
        small.eval()
        out = small(torch.randn(2, 3, 32, 32))
        print('bottleneck out', tuple(out.shape), '%.6f' % out.abs().sum().item())
        print('bottleneck linear', tuple(small.linear.weight.shape), '%.6f' % small.linear.weight.std().item())
        print('resnet50 params', sum(p.numel() for p in ResNet50().parameters()))


if __name__ == '__main__':
    main()
