"""jzbontar/pixelcnn-pytorch-style PixelCNN (main.py): ``MaskedConv2d`` subclassing ``nn.Conv2d`` with a
``mask`` buffer cloned from ``weight.data`` and cut by slice assignment for mask types 'A' / 'B', applied with
``self.weight.data *= self.mask`` before ``super().forward``; a stack of masked convs, ``BatchNorm2d`` and
``ReLU`` ending in 256-way logits; ``F.cross_entropy`` against ``(input.data[:, 0] * 255).long()``; Adam; a test
loop under ``torch.no_grad()``; pixel-by-pixel sampling with ``torch.multinomial`` written back into the
sample with ``sample[:, :, i, j] = ...``. Synthetic 8x8 images; small sizes; prints rounded numbers one fact per
line."""
import time

import torch
import torch.nn.functional as F
from torch import nn, optim
from torch.utils import data


class MaskedConv2d(nn.Conv2d):
    def __init__(self, mask_type, *args, **kwargs):
        super(MaskedConv2d, self).__init__(*args, **kwargs)
        assert mask_type in {'A', 'B'}
        self.register_buffer('mask', self.weight.data.clone())
        _, _, kH, kW = self.weight.size()
        self.mask.fill_(1)
        self.mask[:, :, kH // 2, kW // 2 + (mask_type == 'B'):] = 0
        self.mask[:, :, kH // 2 + 1:] = 0

    def forward(self, x):
        self.weight.data *= self.mask
        return super(MaskedConv2d, self).forward(x)


fm = 16
net = None


def build():
    return nn.Sequential(
        MaskedConv2d('A', 1, fm, 7, 1, 3, bias=False), nn.BatchNorm2d(fm), nn.ReLU(True),
        MaskedConv2d('B', fm, fm, 7, 1, 3, bias=False), nn.BatchNorm2d(fm), nn.ReLU(True),
        MaskedConv2d('B', fm, fm, 7, 1, 3, bias=False), nn.BatchNorm2d(fm), nn.ReLU(True),
        nn.Conv2d(fm, 256, 1))


def synthetic_images(n, seed):
    """(n, 1, 8, 8) in [0, 1], multiples of 1/255: bright diagonal stripes with an offset per image."""
    g = torch.Generator().manual_seed(seed)
    yy, xx = torch.meshgrid(torch.arange(8), torch.arange(8), indexing="ij")
    off = torch.randint(0, 4, (n, 1, 1), generator=g)
    img = (((yy + xx)[None] + off) % 4 == 0).float() * 200 + torch.randint(0, 40, (n, 8, 8), generator=g)
    return (img / 255.0)[:, None]


if __name__ == "__main__":
    torch.manual_seed(0)
    net = build()
    print("mask A center row", net[0].mask[0, 0, 3].tolist(), "mask B center row", net[3].mask[0, 0, 3].tolist())
    print("mask sums", int(net[0].mask[0, 0].sum().item()), int(net[3].mask[0, 0].sum().item()),
          "buffers", [n for n, _ in net.named_buffers()][:3])

    tr = data.DataLoader(data.TensorDataset(synthetic_images(96, 0), torch.zeros(96)), batch_size=32,
                         shuffle=True, num_workers=0, pin_memory=False)
    te = data.DataLoader(data.TensorDataset(synthetic_images(32, 1), torch.zeros(32)), batch_size=32,
                         shuffle=False, num_workers=0, pin_memory=False)
    sample = torch.Tensor(4, 1, 8, 8)
    optimizer = optim.Adam(net.parameters())
    for epoch in range(3):
        # train
        err_tr = []
        time_tr = time.time()
        net.train(True)
        for input, _ in tr:
            target = (input.data[:, 0] * 255).long()
            loss = F.cross_entropy(net(input), target)
            err_tr.append(loss.item())
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        time_tr = time.time() - time_tr

        # compute error on test set
        err_te = []
        time_te = time.time()
        net.train(False)
        with torch.no_grad():
            for input, _ in te:
                target = (input.data[:, 0] * 255).long()
                loss = F.cross_entropy(net(input), target)
                err_te.append(loss.item())
        time_te = time.time() - time_te

        # sample
        sample.fill_(0)
        net.train(False)
        with torch.no_grad():
            for i in range(8):
                for j in range(8):
                    out = net(sample)
                    probs = F.softmax(out[:, :, i, j], dim=1).data
                    sample[:, :, i, j] = torch.multinomial(probs, 1).float() / 255.
        print('epoch={}; nll_tr={:.5f}; nll_te={:.5f}'.format(
            epoch, sum(err_tr) / len(err_tr), sum(err_te) / len(err_te)))
        print("sample", round(sample.sum().item(), 4), [int(v) for v in (sample[0, 0, 0] * 255).round().tolist()])
    masked_out = (net[0].weight.data * (1 - net[0].mask)).abs().sum().item()
    print("weights outside the mask", masked_out, "bn running mean", round(net[1].running_mean.sum().item(), 5))
