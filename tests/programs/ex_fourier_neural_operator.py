"""neuraloperator/neuraloperator ``fourier_1d.py`` / ``fourier_2d.py``-style (zongyi-li's original scripts; own
code, a synthetic Burgers-like data set in place of the ``.mat`` files): ``SpectralConv1d``/``SpectralConv2d``
with complex ``cfloat`` weights (``scale * torch.rand(..., dtype=torch.cfloat)``), ``torch.fft.rfft``/``rfft2``,
a complex ``torch.einsum`` on the lowest modes written into ``torch.zeros(..., dtype=torch.cfloat)``,
``torch.fft.irfft(n=...)``/``irfft2(s=...)``; ``FNO1d``/``FNO2d`` with a grid channel from ``torch.linspace``
+ ``repeat``, ``fc0`` lift, ``nn.Conv1d``/``Conv2d`` 1x1 skip, ``F.gelu``, ``permute``; the repo's
``UnitGaussianNormalizer`` (encode/decode) and ``LpLoss`` (relative L2 with ``torch.norm(..., p, 1)``);
``count_params`` over complex parameters (``reduce(operator.mul, list(p.size()+(2,) if p.is_complex() ...))``);
``Adam`` with ``weight_decay`` on complex parameters, ``StepLR``, and a ``torch.no_grad`` test loop."""
import operator
from functools import reduce

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
np.random.seed(0)


class SpectralConv1d(nn.Module):
    def __init__(self, in_channels, out_channels, modes1):
        super(SpectralConv1d, self).__init__()
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.modes1 = modes1
        self.scale = (1 / (in_channels * out_channels))
        self.weights1 = nn.Parameter(self.scale * torch.rand(in_channels, out_channels, self.modes1, dtype=torch.cfloat))

    def compl_mul1d(self, input, weights):
        return torch.einsum("bix,iox->box", input, weights)

    def forward(self, x):
        batchsize = x.shape[0]
        x_ft = torch.fft.rfft(x)
        out_ft = torch.zeros(batchsize, self.out_channels, x.size(-1) // 2 + 1, device=x.device, dtype=torch.cfloat)
        out_ft[:, :, :self.modes1] = self.compl_mul1d(x_ft[:, :, :self.modes1], self.weights1)
        x = torch.fft.irfft(out_ft, n=x.size(-1))
        return x


class FNO1d(nn.Module):
    def __init__(self, modes, width):
        super(FNO1d, self).__init__()
        self.modes1 = modes
        self.width = width
        self.padding = 2
        self.fc0 = nn.Linear(2, self.width)
        self.conv0 = SpectralConv1d(self.width, self.width, self.modes1)
        self.conv1 = SpectralConv1d(self.width, self.width, self.modes1)
        self.w0 = nn.Conv1d(self.width, self.width, 1)
        self.w1 = nn.Conv1d(self.width, self.width, 1)
        self.fc1 = nn.Linear(self.width, 32)
        self.fc2 = nn.Linear(32, 1)

    def forward(self, x):
        grid = self.get_grid(x.shape, x.device)
        x = torch.cat((x, grid), dim=-1)
        x = self.fc0(x)
        x = x.permute(0, 2, 1)
        x = F.pad(x, [0, self.padding])
        x1 = self.conv0(x)
        x2 = self.w0(x)
        x = F.gelu(x1 + x2)
        x1 = self.conv1(x)
        x2 = self.w1(x)
        x = x1 + x2
        x = x[..., :-self.padding]
        x = x.permute(0, 2, 1)
        x = self.fc1(x)
        x = F.gelu(x)
        x = self.fc2(x)
        return x

    def get_grid(self, shape, device):
        batchsize, size_x = shape[0], shape[1]
        gridx = torch.tensor(np.linspace(0, 1, size_x), dtype=torch.float)
        gridx = gridx.reshape(1, size_x, 1).repeat([batchsize, 1, 1])
        return gridx.to(device)


class SpectralConv2d(nn.Module):
    def __init__(self, in_channels, out_channels, modes1, modes2):
        super(SpectralConv2d, self).__init__()
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.modes1 = modes1
        self.modes2 = modes2
        self.scale = (1 / (in_channels * out_channels))
        self.weights1 = nn.Parameter(self.scale * torch.rand(in_channels, out_channels, self.modes1, self.modes2, dtype=torch.cfloat))
        self.weights2 = nn.Parameter(self.scale * torch.rand(in_channels, out_channels, self.modes1, self.modes2, dtype=torch.cfloat))

    def compl_mul2d(self, input, weights):
        return torch.einsum("bixy,ioxy->boxy", input, weights)

    def forward(self, x):
        batchsize = x.shape[0]
        x_ft = torch.fft.rfft2(x)
        out_ft = torch.zeros(batchsize, self.out_channels, x.size(-2), x.size(-1) // 2 + 1, dtype=torch.cfloat, device=x.device)
        out_ft[:, :, :self.modes1, :self.modes2] = \
            self.compl_mul2d(x_ft[:, :, :self.modes1, :self.modes2], self.weights1)
        out_ft[:, :, -self.modes1:, :self.modes2] = \
            self.compl_mul2d(x_ft[:, :, -self.modes1:, :self.modes2], self.weights2)
        x = torch.fft.irfft2(out_ft, s=(x.size(-2), x.size(-1)))
        return x


class FNO2d(nn.Module):
    def __init__(self, modes1, modes2, width):
        super(FNO2d, self).__init__()
        self.width = width
        self.fc0 = nn.Linear(3, self.width)
        self.conv0 = SpectralConv2d(self.width, self.width, modes1, modes2)
        self.w0 = nn.Conv2d(self.width, self.width, 1)
        self.fc1 = nn.Linear(self.width, 16)
        self.fc2 = nn.Linear(16, 1)

    def forward(self, x):
        grid = self.get_grid(x.shape, x.device)
        x = torch.cat((x, grid), dim=-1)
        x = self.fc0(x)
        x = x.permute(0, 3, 1, 2)
        x = F.gelu(self.conv0(x) + self.w0(x))
        x = x.permute(0, 2, 3, 1)
        return self.fc2(F.gelu(self.fc1(x)))

    def get_grid(self, shape, device):
        batchsize, size_x, size_y = shape[0], shape[1], shape[2]
        gridx = torch.tensor(np.linspace(0, 1, size_x), dtype=torch.float)
        gridx = gridx.reshape(1, size_x, 1, 1).repeat([batchsize, 1, size_y, 1])
        gridy = torch.tensor(np.linspace(0, 1, size_y), dtype=torch.float)
        gridy = gridy.reshape(1, 1, size_y, 1).repeat([batchsize, size_x, 1, 1])
        return torch.cat((gridx, gridy), dim=-1).to(device)


class UnitGaussianNormalizer(object):
    def __init__(self, x, eps=0.00001):
        super(UnitGaussianNormalizer, self).__init__()
        self.mean = torch.mean(x, 0)
        self.std = torch.std(x, 0)
        self.eps = eps

    def encode(self, x):
        return (x - self.mean) / (self.std + self.eps)

    def decode(self, x, sample_idx=None):
        std = self.std + self.eps
        mean = self.mean
        return (x * std) + mean


class LpLoss(object):
    def __init__(self, d=2, p=2, size_average=True, reduction=True):
        super(LpLoss, self).__init__()
        assert d > 0 and p > 0
        self.d = d
        self.p = p
        self.reduction = reduction
        self.size_average = size_average

    def rel(self, x, y):
        num_examples = x.size()[0]
        diff_norms = torch.norm(x.reshape(num_examples, -1) - y.reshape(num_examples, -1), self.p, 1)
        y_norms = torch.norm(y.reshape(num_examples, -1), self.p, 1)
        if self.reduction:
            if self.size_average:
                return torch.mean(diff_norms / y_norms)
            else:
                return torch.sum(diff_norms / y_norms)
        return diff_norms / y_norms

    def __call__(self, x, y):
        return self.rel(x, y)


def count_params(model):
    c = 0
    for p in list(model.parameters()):
        c += reduce(operator.mul, list(p.size() + (2,) if p.is_complex() else p.size()))
    return c


# ---- synthetic 1-d data: u0 = random low-frequency signal, u = smoothed shift of it ----
ntrain, ntest, s = 24, 8, 64
xs = torch.linspace(0, 1, s)
k = torch.arange(1, 5).float()
coef = torch.randn(ntrain + ntest, 4) / k
x_data = (coef[:, :, None] * torch.sin(2 * np.pi * k[None, :, None] * xs[None, None, :])).sum(1)
y_data = torch.roll(x_data, 3, dims=-1) * 0.5 + 0.1 * x_data ** 2
x_train, y_train = x_data[:ntrain], y_data[:ntrain]
x_test, y_test = x_data[-ntest:], y_data[-ntest:]
print("data", tuple(x_train.shape), tuple(y_test.shape), round(y_train.abs().mean().item(), 4))

x_normalizer = UnitGaussianNormalizer(x_train)
x_train = x_normalizer.encode(x_train)
x_test = x_normalizer.encode(x_test)
print("normalizer", tuple(x_normalizer.mean.shape), round(x_normalizer.std.mean().item(), 4))
x_train = x_train.reshape(ntrain, s, 1)
x_test = x_test.reshape(ntest, s, 1)

train_loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x_train, y_train), batch_size=8, shuffle=True)
test_loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x_test, y_test), batch_size=8, shuffle=False)

model = FNO1d(modes=8, width=16)
print("count_params", count_params(model))
cplx = [n for n, p in model.named_parameters() if p.is_complex()]
print("complex params", cplx, model.conv0.weights1.dtype)

optimizer = torch.optim.Adam(model.parameters(), lr=0.003, weight_decay=1e-4)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=2, gamma=0.5)
myloss = LpLoss(size_average=False)
for ep in range(4):
    model.train()
    train_mse = 0
    train_l2 = 0
    for x, y in train_loader:
        optimizer.zero_grad()
        out = model(x)
        mse = F.mse_loss(out.view(x.shape[0], -1), y.view(x.shape[0], -1), reduction='mean')
        l2 = myloss(out.view(x.shape[0], -1), y.view(x.shape[0], -1))
        l2.backward()
        optimizer.step()
        train_mse += mse.item()
        train_l2 += l2.item()
    scheduler.step()
    model.eval()
    test_l2 = 0.0
    with torch.no_grad():
        for x, y in test_loader:
            out = model(x)
            test_l2 += myloss(out.view(x.shape[0], -1), y.view(x.shape[0], -1)).item()
    train_mse /= len(train_loader)
    train_l2 /= ntrain
    test_l2 /= ntest
    print("ep", ep, round(train_mse, 4), round(train_l2, 4), round(test_l2, 4), scheduler.get_last_lr())

g = model.conv0.weights1.grad
print("complex grad", g.dtype, tuple(g.shape), round(g.abs().sum().item(), 4))
st = optimizer.state[model.conv0.weights1]
print("adam state", st["exp_avg"].dtype, st["exp_avg_sq"].dtype, round(st["exp_avg_sq"].real.sum().item() * 1e6, 4),
      round(st["exp_avg_sq"].imag.abs().sum().item(), 6))

# ---- fft round-trips used by the scripts ----
sig = torch.randn(2, 3, 10)
print("rfft", tuple(torch.fft.rfft(sig).shape), torch.fft.rfft(sig).dtype,
      round((torch.fft.irfft(torch.fft.rfft(sig), n=10) - sig).abs().max().item(), 5))
img = torch.randn(2, 3, 8, 6)
f2 = torch.fft.rfft2(img)
print("rfft2", tuple(f2.shape), round(f2.real.sum().item(), 4), round(f2.imag.abs().sum().item(), 4),
      round((torch.fft.irfft2(f2, s=(8, 6)) - img).abs().max().item(), 5))

# ---- one 2-d model step ----
torch.manual_seed(1)
a = torch.randn(4, 16, 16, 1)
u = torch.roll(a, 2, dims=1) + 0.3 * a
model2 = FNO2d(4, 4, 8)
print("count_params 2d", count_params(model2))
opt2 = torch.optim.Adam(model2.parameters(), lr=1e-3)
for it in range(3):
    opt2.zero_grad()
    out = model2(a)
    loss = LpLoss()(out, u)
    loss.backward()
    opt2.step()
    print("2d it", it, tuple(out.shape), round(loss.item(), 4))
print("2d grad w2", round(model2.conv0.weights2.grad.abs().sum().item(), 4),
      round(model2.conv0.weights2.grad.real.sum().item(), 4))

# ---- spectral helpers from the repo's utilities and notebooks ----
freqs = torch.fft.fftfreq(8, d=0.5)
print("fftfreq", freqs.tolist(), torch.fft.rfftfreq(8).tolist())
print("fftshift", torch.fft.fftshift(torch.arange(6)).tolist(), torch.fft.ifftshift(torch.arange(5)).tolist())
w = model.conv1.weights1.detach()
vr = torch.view_as_real(w)
print("view_as_real", tuple(vr.shape), vr.dtype, round(vr[..., 1].sum().item(), 4),
      round(torch.view_as_complex(vr.contiguous()).angle().mean().item(), 4))
z = torch.polar(torch.tensor([1.0, 2.0]), torch.tensor([0.0, np.pi / 2]))
print("polar", [round(v, 4) for v in torch.view_as_real(z).flatten().tolist()], z.abs().tolist())
full = torch.fft.fftn(img, dim=(-2, -1), norm="ortho")
print("fftn ortho", round(full.abs().pow(2).sum().item(), 3), round(img.pow(2).sum().item(), 3),
      round(torch.fft.ifftn(full, dim=(-2, -1), norm="ortho").real.sub(img).abs().max().item(), 5))
