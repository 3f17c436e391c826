"""SHAP's explainers on PyTorch models: DeepExplainer (DeepLIFT-style backward hooks on Linear, ReLU, Tanh, Sigmoid,
Conv2d, MaxPool2d, Softmax and Dropout; shap's additivity check enforced) for an MLP trained a few Adam steps and a
small CNN, with ranked outputs, and GradientExplainer (expected gradients, with local smoothing) on both, all with
seeded backgrounds; plus the Explanation/summary values users read."""
import warnings

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

warnings.filterwarnings("ignore")
import shap  # noqa: E402


def r(x, n=4):
    x = np.asarray(x.detach() if isinstance(x, torch.Tensor) else x, dtype=np.float64)
    if x.size == 1:
        return round(float(x.reshape(-1)[0]), n)
    return [round(float(v), n) for v in x.flatten()]


torch.manual_seed(0)
X = torch.randn(64, 6)
y = (X[:, 0] - 2 * X[:, 2] + 0.5 * X[:, 4] > 0).long()
mlp = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 8), nn.Tanh(), nn.Dropout(0.1), nn.Linear(8, 2),
                    nn.Softmax(dim=1))
opt = torch.optim.Adam(mlp.parameters(), lr=0.02)
for step in range(20):
    opt.zero_grad()
    loss = F.nll_loss(torch.log(mlp(X) + 1e-8), y)
    loss.backward()
    opt.step()
print("mlp loss", r(loss))
mlp.eval()
bg, xs = X[:16], X[40:44]
deep = shap.DeepExplainer(mlp, bg)
sv = deep.shap_values(xs, check_additivity=True)
print("deep expected", r(deep.expected_value))
print("deep shape", np.asarray(sv).shape)
print("deep values", r(np.asarray(sv)[0, :, 0]), r(np.asarray(sv)[1, :, 1]))
with torch.no_grad():
    gap = mlp(xs) - mlp(bg).mean(0)
print("additive", bool(np.allclose(np.asarray(sv).sum(1), gap.numpy(), atol=1e-4)))
print("top feature", np.abs(np.asarray(sv)).mean((0, 2)).argsort()[::-1][:3].tolist())
ranked, idx = deep.shap_values(xs[:2], ranked_outputs=1, check_additivity=False)
print("ranked", idx.tolist(), r(np.asarray(ranked)[0, 0]))


class CNN(nn.Module):
    """Conv2d -> ReLU -> MaxPool2d -> Conv2d -> Sigmoid -> Linear head."""

    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(1, 4, 3, padding=1)
        self.act = nn.ReLU()
        self.pool = nn.MaxPool2d(2)
        self.c2 = nn.Conv2d(4, 4, 3)
        self.sig = nn.Sigmoid()
        self.fc = nn.Linear(4 * 2 * 2, 3)

    def forward(self, x):
        x = self.sig(self.c2(self.pool(self.act(self.c1(x)))))
        return self.fc(x.flatten(1))


torch.manual_seed(1)
cnn = CNN().eval()
imgs = torch.randn(12, 1, 8, 8)
deep_c = shap.DeepExplainer(cnn, imgs[:8])
svc = deep_c.shap_values(imgs[8:10], check_additivity=True)
svc = np.asarray(svc)
print("cnn deep", svc.shape, r(deep_c.expected_value), r(svc.sum((1, 2, 3))))
print("cnn deep pixels", r(svc[0, 0, 3:5, 3:5, 0]))

np.random.seed(0)
torch.manual_seed(2)
grad = shap.GradientExplainer(mlp, bg)
gv = np.asarray(grad.shap_values(xs[:2], nsamples=40, rseed=0))
print("gradient", gv.shape, r(gv[0, :, 0], 3))
gvs, gidx = grad.shap_values(xs[:2], nsamples=20, ranked_outputs=2, rseed=1)
print("gradient ranked", gidx.tolist(), r(np.asarray(gvs)[0, 0, :3], 3))
gexp = shap.GradientExplainer(cnn, imgs[:8], local_smoothing=0.1)
gc = np.asarray(gexp.shap_values(imgs[8:9], nsamples=16, rseed=3))
print("gradient cnn", gc.shape, r(gc.sum((1, 2, 3)), 3))

expl = deep(xs)
print("explanation", type(expl).__name__, expl.values.shape, r(expl.values[0, :2, 0]), r(expl.data[0, :2]))
