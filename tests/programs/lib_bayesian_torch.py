"""bayesian-torch (Intel Labs): mean-field variational BNN layers. dnn_to_bnn turns a trained CNN into a
Reparameterization BNN with MOPED priors (posteriors initialised from the deterministic weights), trained a few
steps on cross-entropy plus the scaled KL; Monte Carlo predictions with predictive entropy and mutual
information; hand-built Flipout models (LinearFlipout, Conv1dFlipout, ConvTranspose2dReparameterization) returning
(output, kl); LSTMReparameterization and LSTMFlipout sequence models trained with a
reparameterized head; a state_dict round trip."""
import io

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

from bayesian_torch.layers import (Conv1dFlipout, ConvTranspose2dReparameterization, LinearFlipout,
                                   LinearReparameterization, LSTMFlipout, LSTMReparameterization)
from bayesian_torch.models.dnn_to_bnn import dnn_to_bnn, get_kl_loss
from bayesian_torch.utils.util import mutual_information, predictive_entropy


def r(x, n=4):
    if isinstance(x, torch.Tensor):
        x = x.detach().double()
        if x.numel() == 1:
            return round(float(x), n)
        return [round(float(v), n) for v in x.flatten()]
    if isinstance(x, np.ndarray):
        return [round(float(v), n) for v in x.flatten()]
    if isinstance(x, (list, tuple)):
        return [r(v, n) for v in x]
    return round(float(x), n)


# data: 8x8 "images" of three classes (bright quadrant)
torch.manual_seed(0)
X = 0.3 * torch.randn(48, 1, 8, 8)
Y = torch.arange(3).repeat(16)
for i, c in enumerate(Y.tolist()):
    X[i, 0, (c // 2) * 4:(c // 2) * 4 + 4, (c % 2) * 4:(c % 2) * 4 + 4] += 1.0

torch.manual_seed(1)
cnn = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(), nn.Linear(64, 3))
opt = torch.optim.Adam(cnn.parameters(), lr=1e-2)
for step in range(10):
    opt.zero_grad()
    loss = F.cross_entropy(cnn(X), Y)
    loss.backward()
    opt.step()
print("dnn loss", r(loss))

prior = {"prior_mu": 0.0, "prior_sigma": 1.0, "posterior_mu_init": 0.0, "posterior_rho_init": -3.0,
         "type": "Reparameterization", "moped_enable": True, "moped_delta": 0.1}
dnn_to_bnn(cnn, prior)
print("bnn layers", [type(m).__name__ for m in cnn])
print("bnn params", sum(p.numel() for p in cnn.parameters()), sorted(n for n, _ in cnn[0].named_parameters()))
print("moped rho", r(cnn[4].rho_weight[0, :3]), r(cnn[4].mu_weight[0, :3]))
torch.manual_seed(2)
print("kl init", r(get_kl_loss(cnn), 2))
opt = torch.optim.Adam(cnn.parameters(), lr=5e-3)
for step in range(6):
    opt.zero_grad()
    ce = F.cross_entropy(cnn(X), Y)
    kl = get_kl_loss(cnn)
    loss = ce + kl / X.shape[0] / 100
    loss.backward()
    opt.step()
    if step % 2 == 1:
        print("bnn", step, r(ce), r(kl, 2))

torch.manual_seed(3)
cnn.eval()
with torch.no_grad():
    mc = torch.stack([F.softmax(cnn(X[:4]), -1) for _ in range(8)]).numpy()
print("mc mean", r(mc.mean(0), 3))
print("entropy", r(predictive_entropy(mc), 3))
print("mutual info", r(mutual_information(mc), 4))


# hand-built flipout / reparameterization model returning (out, kl)
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = Conv1dFlipout(2, 4, 3, padding=1, posterior_rho_init=-3.0)
        self.fc = LinearFlipout(4 * 6, 5, posterior_rho_init=-3.0)
        self.up = ConvTranspose2dReparameterization(1, 2, 2, stride=2, posterior_rho_init=-3.0)

    def forward(self, x):
        h, kl1 = self.conv(x)
        h, kl2 = self.fc(torch.tanh(h).flatten(1))
        img, kl3 = self.up(h[:, :4].reshape(-1, 1, 2, 2))
        return h, img, kl1 + kl2 + kl3


torch.manual_seed(4)
net = Net()
xs = torch.randn(6, 2, 6)
target = torch.randn(6, 5)
opt = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9)
for step in range(5):
    opt.zero_grad()
    h, img, kl = net(xs)
    loss = F.mse_loss(h, target) + 1e-3 * img.pow(2).mean() + kl / 1000
    loss.backward()
    opt.step()
    print("flipout", step, r(loss), r(kl, 2))
print("up shape", tuple(img.shape), r(img.mean()))

# LSTM variational layers (each time step refills the ih/hh eps buffers through .data, so torch's backward reads
# the last step's samples), trained with a reparameterized head on the last hidden state
torch.manual_seed(5)
seq = torch.randn(3, 7, 4)
for cls in (LSTMReparameterization, LSTMFlipout):
    torch.manual_seed(6)
    lstm = cls(4, 5, posterior_rho_init=-3.0)
    head = LinearReparameterization(5, 1, posterior_rho_init=-3.0)
    opt = torch.optim.Adam([*lstm.parameters(), *head.parameters()], lr=1e-2)
    for step in range(4):
        opt.zero_grad()
        out, (h_t, c_t), kl = lstm(seq)
        y, kl_h = head(out[:, -1])
        loss = (y - 1.0).pow(2).mean() + (kl + kl_h) / 1e4
        loss.backward()
        opt.step()
    print(cls.__name__, tuple(out.shape), tuple(h_t.shape), r(loss), r(kl, 2))
    print(cls.__name__, "rho grad", r(lstm.ih.rho_weight.grad.abs().sum(), 5), r(lstm.hh.rho_bias.grad.abs().sum(), 5))

buf = io.BytesIO()
torch.save(net.state_dict(), buf)
buf.seek(0)
net2 = Net()
net2.load_state_dict(torch.load(buf))
print("state keys", len(net.state_dict()), sorted(net.state_dict())[:4])
print("reloaded", all(torch.equal(a, b) for a, b in zip(net.state_dict().values(), net2.state_dict().values())))
