"""Eager-mode static post-training quantization (x86 backend): a small CNN with QuantStub, a fused Conv+BN+ReLU,
a second conv, a FloatFunctional add, a Linear(+ReLU) and a DeQuantStub; calibrated on seeded data with the
default x86 qconfig (HistogramObserver activations, per-channel weights), converted, and run.  Prints the
observers' qparams, the quantized weights' integer sums, scales/zero points, the quantized outputs and a
save/load round trip."""
import io
import warnings

import torch
from torch import nn
from torch.ao import quantization as tq

warnings.filterwarnings("ignore")
torch.manual_seed(0)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.quant = tq.QuantStub()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.bn = nn.BatchNorm2d(8)
        self.relu = nn.ReLU()
        self.conv2 = nn.Conv2d(8, 8, 3, padding=1, stride=2)
        self.pool = nn.MaxPool2d(2)
        self.skip = nn.Conv2d(3, 8, 1, stride=4)
        self.add = nn.quantized.FloatFunctional()
        self.fc = nn.Linear(8 * 2 * 2, 16)
        self.fc_relu = nn.ReLU()
        self.fc2 = nn.Linear(16, 4)
        self.dequant = tq.DeQuantStub()

    def forward(self, x):
        x = self.quant(x)
        y = self.relu(self.bn(self.conv(x)))
        y = self.pool(self.conv2(y))
        y = self.add.add(y, self.skip(x))
        y = torch.flatten(y, 1)
        y = self.fc_relu(self.fc(y))
        return self.dequant(self.fc2(y))


def run(qconfig_name, qconfig):
    torch.manual_seed(1)
    model = Net().eval()
    with torch.no_grad():  # non-trivial batch-norm statistics
        model.bn.running_mean.uniform_(-0.2, 0.2)
        model.bn.running_var.uniform_(0.5, 1.5)
    fused = tq.fuse_modules(model, [["conv", "bn", "relu"], ["fc", "fc_relu"]])
    fused.qconfig = qconfig
    prepared = tq.prepare(fused)
    print(qconfig_name, "prepared", type(prepared.conv).__name__, type(prepared.conv.activation_post_process).__name__)
    gen = torch.Generator().manual_seed(2)
    with torch.no_grad():
        for _ in range(4):
            prepared(torch.randn(4, 3, 8, 8, generator=gen))
    for name in ("quant", "conv", "conv2", "skip", "add", "fc", "fc2"):
        obs = getattr(prepared, name).activation_post_process
        s, z = obs.calculate_qparams()
        print(qconfig_name, "observer", name, type(obs).__name__, round(float(s), 8), int(z))
    q = tq.convert(prepared)
    print(qconfig_name, "converted", [type(m).__name__ for m in q.children()])
    for name in ("conv", "conv2", "skip", "fc", "fc2"):
        mod = getattr(q, name)
        w = mod.weight()
        print(qconfig_name, name, mod._get_name(), round(mod.scale, 8), mod.zero_point, w.qscheme(),
              int(w.int_repr().int().sum()), int(w.int_repr().abs().int().sum()))
    print(qconfig_name, "add", round(q.add.scale, 8), q.add.zero_point)
    x = torch.randn(6, 3, 8, 8, generator=gen)
    with torch.no_grad():
        xq = q.quant(x)
        print(qconfig_name, "input", round(xq.q_scale(), 8), xq.q_zero_point(), int(xq.int_repr().int().sum()))
        h = q.conv(xq)
        print(qconfig_name, "conv out", h.dtype, round(h.q_scale(), 8), int(h.int_repr().int().sum()),
              int((h.int_repr().int() ** 2).sum()))
        y = q(x)
        ref = model(x)
    print(qconfig_name, "out", [round(v, 5) for v in y[0].tolist()], round(float(y.sum()), 4))
    print(qconfig_name, "float-vs-quant max diff < 0.5", bool((y - ref).abs().max() < 0.5))
    buf = io.BytesIO()
    torch.save(q.state_dict(), buf)
    print(qconfig_name, "state_dict keys", list(q.state_dict().keys())[:12])
    fresh = tq.fuse_modules(Net().eval(), [["conv", "bn", "relu"], ["fc", "fc_relu"]])
    fresh.qconfig = qconfig
    fresh = tq.prepare(fresh)
    fresh(x)
    q2 = tq.convert(fresh)
    buf.seek(0)
    q2.load_state_dict(torch.load(buf, weights_only=False))
    with torch.no_grad():
        print(qconfig_name, "reloaded same output", bool(torch.equal(q2(x), y)), round(q2.fc.scale, 8))
    return q, x, y


q, x, y = run("x86", tq.get_default_qconfig("x86"))
print("qconfig", tq.get_default_qconfig("x86").weight().qscheme, tq.default_qconfig.activation().quant_max)
q_mm, _, _ = run("default", tq.default_qconfig)
print(q_mm)
