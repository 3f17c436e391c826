"""The model-profiling tools research scripts call on their models: thop (profile, clever_format, custom_ops,
per-layer info, the torch.fx-based fx_profile), ptflops (get_model_complexity_info, pytorch backend, per-layer table), fvcore (parameter_count,
parameter_count_table, FlopCountAnalysis, flop_count_table) and torchsummary (summary) on a small CNN, an LSTM
model and a Transformer encoder layer model. Each tool's printed counts and tables are compared line by line.
fvcore's FlopCountAnalysis and ptflops' aten backend need torch's TorchScript tracer and dispatch-mode layer, which
torchlike does not have (tests/test_lib_flop_tools.py checks their clear errors; see docs/differences.md).
"""
import io

import torch
from torch import nn

torch.manual_seed(0)


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(8, 16, 3, padding=1, bias=False), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2))
        self.classifier = nn.Linear(16 * 4 * 4, 10)

    def forward(self, x):
        return self.classifier(torch.flatten(self.features(x), 1))


class LSTMNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(12, 20, num_layers=2, batch_first=True)
        self.head = nn.Linear(20, 4)

    def forward(self, x):
        out, _ = self.lstm(x)
        return self.head(out[:, -1])


class EncoderNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(10, 32)
        self.layer = nn.TransformerEncoderLayer(d_model=32, nhead=4, dim_feedforward=64, dropout=0.0,
                                                batch_first=True)
        self.norm = nn.LayerNorm(32)
        self.out = nn.Linear(32, 3)

    def forward(self, x):
        return self.out(self.norm(self.layer(self.proj(x))).mean(1))


class Swish(nn.Module):
    def forward(self, x):
        return x * torch.sigmoid(x)


cnn, lstm, enc = SmallCNN().eval(), LSTMNet().eval(), EncoderNet().eval()
x_img = torch.randn(2, 3, 16, 16)
x_seq = torch.randn(2, 7, 12)
x_tok = torch.randn(2, 5, 10)
models = [("cnn", cnn, x_img), ("lstm", lstm, x_seq), ("encoder", enc, x_tok)]


def show(text):
    """Print a tool's multi-line output, trailing blanks stripped (torch and the runner both print them)."""
    for line in text.rstrip("\n").split("\n"):
        print(line.rstrip())


# --- thop ------------------------------------------------------------------------------------------------
from thop import clever_format, profile  # noqa: E402


def count_swish(m, x, y):
    m.total_ops += torch.DoubleTensor([int(x[0].numel()) * 3])


for name, model, x in models:
    macs, params = profile(model, inputs=(x,), verbose=True)
    print("thop", name, macs, params, *clever_format([macs, params], "%.3f"))
swish_net = nn.Sequential(nn.Linear(6, 8), Swish(), nn.Linear(8, 2))
macs, params, info = profile(swish_net, inputs=(torch.randn(4, 6),), custom_ops={Swish: count_swish},
                             verbose=True, ret_layer_info=True)
print("thop custom", macs, params, clever_format(macs))
for key, (ops, n, sub) in info.items():
    print("thop layer", key, ops, n, sorted(sub))
print("thop buffers left", sorted(b for b, _ in swish_net.named_buffers()), swish_net.training)

# --- ptflops (pytorch backend) ---------------------------------------------------------------------------
from ptflops import get_model_complexity_info  # noqa: E402

for name, model, x in models:
    buf = io.StringIO()
    macs, params = get_model_complexity_info(model, tuple(x.shape[1:]), print_per_layer_stat=True, ost=buf,
                                             as_strings=True, backend="pytorch")
    print("ptflops", name, macs, params)
    show(buf.getvalue())
    macs, params = get_model_complexity_info(model, tuple(x.shape[1:]), print_per_layer_stat=False,
                                             as_strings=False, backend="pytorch")
    print("ptflops raw", name, macs, params)
buf = io.StringIO()
macs, params = get_model_complexity_info(cnn, (3, 16, 16), print_per_layer_stat=True, ost=buf, backend="pytorch",
                                         flops_units="KMac", param_units="K", output_precision=3,
                                         ignore_modules=[nn.BatchNorm2d])
print("ptflops units", macs, params)
show(buf.getvalue())

# --- fvcore ------------------------------------------------------------------------------------------------
from fvcore.nn import parameter_count, parameter_count_table  # noqa: E402

for name, model, x in models:
    print("fvcore params", name, dict(parameter_count(model)))
    show(parameter_count_table(model, max_depth=3))

# --- torchsummary --------------------------------------------------------------------------------------------
from torchsummary import summary  # noqa: E402

summary(cnn, (3, 16, 16), device="cpu")
summary(nn.Sequential(nn.Linear(10, 16), nn.ReLU(), nn.Dropout(0.1), nn.Linear(16, 2)), (10,), batch_size=4,
        device="cpu")
for name, model, x in models[1:]:   # a layer returning a tuple holding a tuple or None: torchsummary's own error
    try:
        summary(model, tuple(x.shape[1:]), device="cpu")
    except Exception as e:
        print("torchsummary", name, type(e).__name__, e)

# --- more of each tool's options ------------------------------------------------------------------------------
from thop import profile_origin  # noqa: E402


class TwoInput(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(6, 4)
        self.b = nn.Conv1d(2, 3, 3)
        self.act = nn.LeakyReLU(0.1)
        self.pool = nn.AdaptiveAvgPool1d(2)
        self.up = nn.Upsample(scale_factor=2, mode="nearest")
        self.sm = nn.Softmax(dim=-1)

    def forward(self, x, y):
        h = self.pool(self.act(self.b(y)))
        return self.sm(self.a(x)), self.up(h)


two = TwoInput().eval()
xa, xb = torch.randn(3, 6), torch.randn(3, 2, 9)
macs, params = profile(two, inputs=(xa, xb), verbose=False, report_missing=True)
print("thop two-input", macs, params)
print("thop origin", *profile_origin(two, inputs=(xa, xb), verbose=False))
print("thop clever", clever_format([1234567.0, 0.5, 2.5e9, 3e12 + 1], "%.1f"))

buf = io.StringIO()
macs, params = get_model_complexity_info(two, (6,), input_constructor=lambda res: {"x": xa[:1], "y": xb[:1]},
                                         print_per_layer_stat=True, ost=buf, as_strings=False, verbose=True)
print("ptflops two-input", macs, params)
show(buf.getvalue())


def swish_hook(module, inputs, output):
    module.__flops__ += int(output.numel()) * 4


buf = io.StringIO()
macs, params = get_model_complexity_info(swish_net, (6,), print_per_layer_stat=True, ost=buf,
                                         custom_modules_hooks={Swish: swish_hook},
                                         backend_specific_config={"count_functional": False})
print("ptflops custom", macs, params)
show(buf.getvalue())
print("ptflops attrs left", sorted(a for a in vars(swish_net[1]) if "flops" in a or "params" in a))

print("fvcore table depth1")
show(parameter_count_table(enc, max_depth=1))
frozen = SmallCNN()
for p in frozen.features.parameters():
    p.requires_grad_(False)
print("fvcore frozen", parameter_count(frozen)[""], parameter_count(frozen.classifier)[""])



class TwoToOne(nn.Module):
    def __init__(self):
        super().__init__()
        self.a, self.b = nn.Linear(9, 4), nn.Linear(9, 4, bias=False)

    def forward(self, x, y):
        return self.a(x) + self.b(y)


summary(TwoToOne(), [(2, 9), (2, 9)], batch_size=2, device="cpu")
summary(frozen, (3, 16, 16), device="cpu")

# thop's torch.fx profiler: symbolic_trace, ShapeProp, the node kinds and targets it keys its counters on
from thop.fx_profile import fx_profile  # noqa: E402


class FxNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)
        self.bn = nn.BatchNorm2d(4)
        self.relu = nn.ReLU()
        self.pool = nn.MaxPool2d(2)
        self.fc, self.fc2 = nn.Linear(4 * 4 * 4, 5), nn.Linear(4 * 4 * 4, 5)

    def forward(self, x):
        h = self.pool(self.relu(self.bn(self.conv(x))))
        h = h.flatten(1)
        return (self.fc(h) + self.fc2(h)).clamp(min=0.0)


print("thop fx flops", fx_profile(FxNet().eval(), torch.randn(2, 3, 8, 8), verbose=True))

# fvcore's other model utilities: weight init, precise BN statistics, detection losses, Checkpointer
import os  # noqa: E402
import tempfile  # noqa: E402

from fvcore.common.checkpoint import Checkpointer, PeriodicCheckpointer  # noqa: E402
from fvcore.nn import (c2_msra_fill, c2_xavier_fill, get_bn_modules, giou_loss, sigmoid_focal_loss,  # noqa: E402
                       sigmoid_focal_loss_star, smooth_l1_loss, update_bn_stats)

torch.manual_seed(0)
net = nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4), nn.ReLU(), nn.Flatten(), nn.Linear(4 * 6 * 6, 2))
c2_msra_fill(net[0])
c2_xavier_fill(net[4])
print("fill", round(net[0].weight.std().item(), 4), net[0].bias.abs().sum().item(),
      round(net[4].weight.std().item(), 4))
print("bn modules", [type(m).__name__ for m in get_bn_modules(net)])
data = [torch.randn(4, 3, 8, 8) for _ in range(5)]
update_bn_stats(net, data, num_iters=5)
print("bn stats", [round(v, 4) for v in net[1].running_mean.tolist()],
      [round(v, 4) for v in net[1].running_var.tolist()])
logits, targets = torch.randn(6, 3), (torch.rand(6, 3) > 0.5).float()
print("focal", round(sigmoid_focal_loss(logits, targets, reduction="mean").item(), 5),
      round(sigmoid_focal_loss_star(logits, targets, reduction="sum").item(), 5))
a = torch.tensor([[0., 0., 2., 2.], [1., 1., 3., 4.]])
b = torch.tensor([[1., 1., 3., 3.], [0., 0., 2., 2.]])
print("giou", [round(v, 5) for v in giou_loss(a, b).tolist()], round(giou_loss(a, b, reduction="mean").item(), 5))
print("smooth_l1", round(smooth_l1_loss(logits, targets, beta=0.5, reduction="mean").item(), 5),
      round(smooth_l1_loss(logits, targets, beta=0.0, reduction="sum").item(), 5))
d = tempfile.mkdtemp()
opt = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
ck = Checkpointer(net, save_dir=d, optimizer=opt)
ck.save("model_a", iteration=3, note="x")
print("saved", sorted(os.listdir(d)), ck.has_checkpoint(), os.path.basename(ck.get_checkpoint_file()))
net2 = nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4), nn.ReLU(), nn.Flatten(), nn.Linear(4 * 6 * 6, 2))
ck2 = Checkpointer(net2, save_dir=d)
extra = ck2.resume_or_load(os.path.join(d, "model_a.pth"), resume=True)
print("loaded extra", sorted(extra), extra["iteration"], extra.get("note"))
print("same", all(torch.equal(p, q) for p, q in zip(net.state_dict().values(), net2.state_dict().values())))
pc = PeriodicCheckpointer(ck, period=2, max_iter=5, max_to_keep=2)
for it in range(6):
    pc.step(it)
print("periodic", sorted(os.listdir(d)))
