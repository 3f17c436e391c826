"""Quantization-aware training in eager mode (x86's default qconfig: fused moving-average fake quantizers): a small
CNN with a fused Conv+BN+ReLU (BN folded into the fake-quantized weight), a conv and a Linear, trained a few SGD steps through fake quantization,
converted to a quantized model and run.  Prints the losses, fake-quant scales, the converted model and outputs."""
import warnings, torch
from torch import nn
from torch.ao import quantization as tq
warnings.filterwarnings("ignore")
torch.manual_seed(0)
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.quant = tq.QuantStub(); self.conv = nn.Conv2d(3, 8, 3, padding=1); self.bn = nn.BatchNorm2d(8); self.relu = nn.ReLU()
        self.conv2 = nn.Conv2d(8, 4, 3, stride=2); self.fc = nn.Linear(4 * 3 * 3, 5); self.dequant = tq.DeQuantStub()
    def forward(self, x):
        x = self.relu(self.bn(self.conv(self.quant(x)))); x = self.conv2(x)
        return self.dequant(self.fc(torch.flatten(x, 1)))
model = Net().train()
model = tq.fuse_modules_qat(model, [["conv", "bn", "relu"]])
model.qconfig = tq.get_default_qat_qconfig("x86")
qat = tq.prepare_qat(model)
print([type(m).__name__ for m in qat.children()])
opt = torch.optim.SGD(qat.parameters(), lr=0.05)
gen = torch.Generator().manual_seed(3)
for step in range(4):
    x = torch.randn(8, 3, 8, 8, generator=gen); y = torch.randn(8, 5, generator=gen)
    loss = ((qat(x) - y) ** 2).mean(); opt.zero_grad(); loss.backward(); opt.step()
    print("step", step, round(loss.item(), 5), round(float(qat.conv.weight_fake_quant.scale[0]), 7), round(float(qat.quant.activation_post_process.scale), 7))
qat.eval()
q = tq.convert(qat)
print(q)
x = torch.randn(2, 3, 8, 8, generator=gen)
out = q(x)
print([round(v, 5) for v in out[0].tolist()])
print(int(q.conv.weight().int_repr().int().sum()), q.conv.scale, q.fc.scale)
