"""torch.ao.quantization.fuse_modules as inference code uses it: fold BatchNorm into convolutions, fuse
activations, QAT-mode containers, hooks moved to the fused module, and the errors for bad requests."""
import torch
import torch.nn as nn
import torch.ao.nn.intrinsic as nni
from torch.ao.quantization import fuse_modules, fuse_modules_qat

torch.manual_seed(0)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)
        self.bn = nn.BatchNorm2d(4)
        self.relu = nn.ReLU()
        self.block = nn.Sequential(nn.Conv1d(4, 4, 1), nn.BatchNorm1d(4))
        self.fc = nn.Linear(4, 5)
        self.fc_bn = nn.BatchNorm1d(5)
        self.fc2 = nn.Linear(5, 2)
        self.act = nn.ReLU()
        self.up = nn.ConvTranspose2d(4, 2, 2, stride=2)
        self.up_bn = nn.BatchNorm2d(2)

    def forward(self, x):
        y = self.relu(self.bn(self.conv(x)))
        z = self.up_bn(self.up(y))
        v = self.block(y.mean(-1))
        return self.act(self.fc2(self.fc_bn(self.fc(v.mean(-1))))), z


net = Net()
for _ in range(3):  # running statistics that are not the defaults
    net(torch.randn(6, 3, 5, 5))
net.eval()
x = torch.randn(2, 3, 5, 5)
ref = net(x)
calls = []
net.conv.register_forward_pre_hook(lambda m, a: calls.append("pre " + type(m).__name__))
net.relu.register_forward_hook(lambda m, a, o: calls.append("post " + type(m).__name__))
fused = fuse_modules(net, [["conv", "bn", "relu"], ["block.0", "block.1"], ["fc", "fc_bn"], ["fc2", "act"],
                           ["up", "up_bn"]])
out = fused(x)
print(fused)
print(calls, [type(net.conv).__name__, type(fused.bn).__name__, fused.bn.training])
for a, b in zip(out, ref):
    print(tuple(a.shape), round((a - b).abs().max().item(), 4))
print(sorted(k for k in fused.state_dict()))

qat = fuse_modules_qat(Net().train(), [["conv", "bn", "relu"], ["fc", "fc_bn"]])
print(type(qat.conv).__name__, type(qat.fc).__name__, len(qat.conv), qat.conv.training)
print(nni.ConvBnReLU2d.__mro__[1].__name__, isinstance(qat.conv, nn.Sequential))
print(nni.ConvAddReLU2d(nn.Conv2d(1, 1, 1), torch.add, nn.ReLU()))

for what in (lambda: fuse_modules(Net().train(), ["conv", "bn"]),
             lambda: fuse_modules(Net().eval(), ["conv", "fc"]),
             lambda: fuse_modules(Net().eval(), ["conv", "nothere"]),
             lambda: fuse_modules_qat(nn.Sequential(nn.Conv2d(1, 2, 1), nn.BatchNorm2d(3)), ["0", "1"]),
             lambda: fuse_modules_qat(nn.Sequential(nn.ConvTranspose2d(1, 2, 1), nn.BatchNorm2d(2)), ["0", "1"]),
             lambda: nni.ConvReLU2d(nn.Conv1d(1, 1, 1), nn.ReLU()),
             lambda: nni.ConvBnReLU2d(nn.Conv2d(1, 1, 1), nn.BatchNorm2d(1), nn.Tanh())):
    try:
        what()
        print("no error")
    except Exception as e:
        print(type(e).__name__, str(e).replace("torch.nn.modules.", "").replace("torchlike.nn.modules.", ""))
