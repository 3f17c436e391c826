"""super_resolution + siamese patterns: PixelShuffle, orthogonal_ init with calculate_gain, StepLR,
TripletMarginLoss, CosineSimilarity, argparse --cuda / device checks (cuda, mps, accelerator)."""
import argparse
from math import log10

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.nn.init as init
import torch.optim as optim
from torch.optim.lr_scheduler import StepLR

parser = argparse.ArgumentParser()
parser.add_argument('--upscale_factor', type=int, default=2)
parser.add_argument('--cuda', action='store_true', help='use cuda?')
parser.add_argument('--mps', action='store_true', default=False)
parser.add_argument('--seed', type=int, default=123)
opt = parser.parse_args()
if opt.cuda and not torch.cuda.is_available():
    raise Exception("No GPU found, please run without --cuda")
if not opt.mps and torch.backends.mps.is_available():
    raise Exception("Found mps device, please run with --mps to enable macOS GPU")
torch.manual_seed(opt.seed)
if opt.cuda:
    device = torch.device("cuda")
elif opt.mps:
    device = torch.device("mps")
else:
    device = torch.device("cpu")
accel = torch.accelerator.current_accelerator() if torch.accelerator.is_available() else None
print(f"device {device} cuda {torch.cuda.is_available()} count {torch.cuda.device_count()} "
      f"cudnn {torch.backends.cudnn.enabled} accel_ok {accel is None or accel.type in ('cuda', 'mps', 'xpu')}")


class Net(nn.Module):
    def __init__(self, upscale_factor):
        super(Net, self).__init__()
        self.relu = nn.ReLU()
        self.conv1 = nn.Conv2d(1, 8, (5, 5), (1, 1), (2, 2))
        self.conv2 = nn.Conv2d(8, 8, (3, 3), (1, 1), (1, 1))
        self.conv3 = nn.Conv2d(8, upscale_factor ** 2, (3, 3), (1, 1), (1, 1))
        self.pixel_shuffle = nn.PixelShuffle(upscale_factor)
        self._initialize_weights()

    def forward(self, x):
        x = self.relu(self.conv1(x))
        x = self.relu(self.conv2(x))
        x = self.pixel_shuffle(self.conv3(x))
        return x

    def _initialize_weights(self):
        init.orthogonal_(self.conv1.weight, init.calculate_gain('relu'))
        init.orthogonal_(self.conv2.weight, init.calculate_gain('relu'))
        init.orthogonal_(self.conv3.weight)


model = Net(upscale_factor=opt.upscale_factor).to(device)
criterion = nn.MSELoss()
optimizer = optim.Adam(model.parameters(), lr=0.01)
scheduler = StepLR(optimizer, step_size=2, gamma=0.5)
lowres = torch.rand(4, 1, 6, 6)
highres = F.interpolate(lowres, scale_factor=2, mode='nearest')
for epoch in range(1, 5):
    optimizer.zero_grad()
    loss = criterion(model(lowres.to(device)), highres.to(device))
    loss.backward()
    optimizer.step()
    scheduler.step()
    with torch.no_grad():
        mse = criterion(model(lowres), highres)
        psnr = 10 * log10(1 / mse.item())
    print("===> Epoch {} Loss: {:.5f} PSNR: {:.4f} dB lr {:.5f}".format(
        epoch, loss.item(), psnr, scheduler.get_last_lr()[0]))
print(f"ps {tuple(nn.PixelShuffle(2)(torch.arange(16.).view(1, 4, 2, 2)).flatten().tolist())}")


class SiameseNetwork(nn.Module):
    def __init__(self):
        super(SiameseNetwork, self).__init__()
        self.conv = nn.Sequential(nn.Conv2d(1, 4, 3), nn.ReLU(inplace=True), nn.AdaptiveAvgPool2d((2, 2)))
        self.fc = nn.Sequential(nn.Linear(16, 8), nn.ReLU(inplace=True), nn.Linear(8, 4))
        self.fc.apply(self.init_weights)

    def init_weights(self, m):
        if isinstance(m, nn.Linear):
            torch.nn.init.xavier_uniform_(m.weight)
            m.bias.data.fill_(0.01)

    def forward_once(self, x):
        output = self.conv(x)
        output = output.view(output.size()[0], -1)
        return self.fc(output)

    def forward(self, input1, input2):
        return self.forward_once(input1), self.forward_once(input2)


net = SiameseNetwork()
optimizer = optim.Adadelta(net.parameters(), lr=1.0)
scheduler = StepLR(optimizer, step_size=1, gamma=0.7)
triplet = nn.TripletMarginLoss(margin=1.0, p=2)
cos = nn.CosineSimilarity(dim=1, eps=1e-6)
a, p, n = torch.rand(4, 1, 8, 8), torch.rand(4, 1, 8, 8), torch.rand(4, 1, 8, 8)
for step in range(4):
    optimizer.zero_grad()
    ea, ep = net(a, p)
    en = net.forward_once(n)
    loss = triplet(ea, ep, en) + (1 - cos(ea, ep)).mean()
    loss.backward()
    optimizer.step()
    scheduler.step()
    print(f"siamese step {step} loss {loss.item():.5f} cos {cos(ea, en).mean().item():.5f} "
          f"lr {optimizer.param_groups[0]['lr']:.4f}")
