"""blitz-bayesian-pytorch (Bayes by Backprop): a @variational_estimator regressor of BayesianLinear layers trained
with sample_elbo (three weight samples per step, each refilling the layers' eps buffers through .data before one
backward), a BayesianConv2d classifier, a BayesianLSTM sequence model, Monte Carlo mean/std predictions
(mfvi_forward), freeze_/unfreeze_, MOPED_ re-initialisation and the KL (nn_kl_divergence)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

from blitz.modules import BayesianConv2d, BayesianLinear, BayesianLSTM
from blitz.utils import variational_estimator


def r(x, n=4):
    if isinstance(x, torch.Tensor):
        x = x.detach().double()
        if x.numel() == 1:
            return round(float(x), n)
        return [round(float(v), n) for v in x.flatten()]
    if isinstance(x, (list, tuple)):
        return [r(v, n) for v in x]
    return round(float(x), n)


@variational_estimator
class Regressor(nn.Module):
    def __init__(self):
        super().__init__()
        self.l1 = BayesianLinear(3, 16, posterior_rho_init=-4.0)
        self.l2 = BayesianLinear(16, 1, posterior_rho_init=-4.0)

    def forward(self, x):
        return self.l2(torch.tanh(self.l1(x)))


@variational_estimator
class ConvNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = BayesianConv2d(1, 4, (3, 3), padding=1, posterior_rho_init=-4.0)
        self.fc = BayesianLinear(4 * 4 * 4, 3, posterior_rho_init=-4.0)

    def forward(self, x):
        return self.fc(F.max_pool2d(F.relu(self.conv(x)), 2).flatten(1))


@variational_estimator
class SeqNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = BayesianLSTM(2, 6, posterior_rho_init=-4.0)
        self.fc = nn.Linear(6, 1)

    def forward(self, x):
        out, _ = self.lstm(x)
        return self.fc(out[:, -1])


torch.manual_seed(0)
X = torch.randn(64, 3)
Y = (X[:, :1] * 2 - X[:, 1:2] ** 2 + 0.1 * torch.randn(64, 1))
torch.manual_seed(1)
reg = Regressor()
opt = torch.optim.Adam(reg.parameters(), lr=1e-2)
for step in range(12):
    opt.zero_grad()
    loss = reg.sample_elbo(X, Y, nn.MSELoss(), sample_nbr=3, complexity_cost_weight=1 / 640)
    loss.backward()
    opt.step()
    if step % 4 == 3:
        print("reg elbo", step, r(loss), r(reg.nn_kl_divergence(), 1))
print("rho grad", r(reg.l1.weight_sampler.rho.grad.abs().sum(), 5), r(reg.l2.bias_sampler.rho.grad.abs().sum(), 5))
torch.manual_seed(2)
with torch.no_grad():
    mean, std = reg.mfvi_forward(X[:4], sample_nbr=8)
print("mfvi", r(mean.squeeze(), 3), r(std.squeeze(), 3))
reg.freeze_()
print("frozen", r(reg(X[:3]).squeeze(), 4), r(torch.equal(reg(X[:3]), reg(X[:3]))))
reg.unfreeze_()
torch.manual_seed(3)
print("unfrozen differs", r(not torch.equal(reg(X[:3]), reg(X[:3]))))

torch.manual_seed(4)
imgs = torch.randn(24, 1, 8, 8)
labels = torch.arange(3).repeat(8)
imgs[labels == 1, :, :4] += 1.0
imgs[labels == 2, :, 4:] += 1.0
torch.manual_seed(5)
cnet = ConvNet()
opt = torch.optim.SGD(cnet.parameters(), lr=0.05, momentum=0.9)
for step in range(6):
    opt.zero_grad()
    loss = cnet.sample_elbo(imgs, labels, nn.CrossEntropyLoss(), sample_nbr=2, complexity_cost_weight=1e-4)
    loss.backward()
    opt.step()
    if step % 2 == 1:
        print("conv elbo", step, r(loss))
cnet.MOPED_(delta=0.05)
print("moped rho", r(cnet.conv.weight_sampler.rho.flatten()[:3]), r(cnet.fc.bias_sampler.rho[:3]))

torch.manual_seed(6)
seq = torch.randn(8, 5, 2)
target = seq.sum((1, 2)).unsqueeze(1) / 5
torch.manual_seed(7)
snet = SeqNet()
opt = torch.optim.Adam(snet.parameters(), lr=1e-2)
for step in range(4):
    opt.zero_grad()
    loss = snet.sample_elbo(seq, target, nn.MSELoss(), sample_nbr=2, complexity_cost_weight=1e-4)
    loss.backward()
    opt.step()
    print("lstm elbo", step, r(loss))
