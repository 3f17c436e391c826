"""kymatio's torch frontend: 1-D wavelet scattering (orders 1 and 2, average/no-average, out_type list, the
filter-bank meta), 2-D scattering on small images (L orientations, J scales, padding), scattering used
inside an nn.Module and trained a few steps, and gradients through it."""
import torch
# (kymatio.torch also imports the 3-D frontend, whose filter bank needs scipy.special.sph_harm, gone from scipy
# 1.17: the 1-D and 2-D torch frontends are imported from their modules)
from kymatio.scattering1d.frontend.torch_frontend import ScatteringTorch1D as Scattering1D
from kymatio.scattering2d.frontend.torch_frontend import ScatteringTorch2D as Scattering2D


def r(x, n=4):
    return round(float(x), n)


def summary(t):
    return [list(t.shape), r(t.abs().sum()), r(t.max())]


torch.manual_seed(0)
x1 = torch.randn(2, 256)
s1 = Scattering1D(J=4, shape=256, Q=4)
out = s1(x1)
print("1d", summary(out))
print("1d per order", [r(out[..., s1.meta()["order"] == o, :].abs().sum()) for o in (0, 1, 2)])
print("1d meta", sorted(s1.meta()), s1.meta()["order"].shape)
s1b = Scattering1D(J=3, shape=128, Q=(2, 1), max_order=1)
print("1d order1", summary(s1b(torch.randn(3, 128))))
s1c = Scattering1D(J=3, shape=128, Q=1, T=0, out_type="list")
lst = s1c(torch.randn(128))
print("1d list", len(lst), [list(d["coef"].shape) for d in lst[:4]], sorted(lst[0]))

x2 = torch.randn(2, 16, 16)
s2 = Scattering2D(J=2, shape=(16, 16), L=4)
out2 = s2(x2)
print("2d", summary(out2))
print("2d order1", summary(Scattering2D(J=2, shape=(16, 16), L=4, max_order=1)(x2)))


# gradients through the scattering transform
xg = torch.randn(1, 128, requires_grad=True)
Scattering1D(J=3, shape=128, Q=2)(xg).pow(2).sum().backward()
print("grad", r(xg.grad.abs().sum()), r(xg.grad[0, :5].sum()))


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.scat = Scattering2D(J=2, shape=(16, 16), L=4)
        self.fc = torch.nn.Linear(25 * 4 * 4, 2)

    def forward(self, x):
        return self.fc(self.scat(x).flatten(1))


torch.manual_seed(1)
net = Net()
X = torch.randn(8, 16, 16)
y = (X.mean((1, 2)) > 0).long()
opt = torch.optim.Adam(net.parameters(), lr=1e-2)
losses = []
for _ in range(3):
    loss = torch.nn.functional.cross_entropy(net(X), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    losses.append(r(loss))
print("train", losses, len(list(net.parameters())), [n for n, _ in net.named_buffers()][:3])
