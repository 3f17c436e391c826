"""ptflops' aten backend (``get_model_complexity_info(..., backend="aten")``: a TorchDispatchMode that counts
aten.mm/addmm/bmm/convolution) on a small CNN, a transformer-ish block written with matmuls, an
nn.TransformerEncoderLayer and a bias-free MLP: the MACs, params and per-module table match torch's
(tests/test_lib_flop_tools.py; torchlike/utils/_aten_calls.py says which aten calls each op shows).
"""
import io
import math

import torch
from ptflops import get_model_complexity_info
from torch import nn


class Block(nn.Module):
    """Single-head self-attention and an MLP, with explicit matmuls (4-D q @ k^T: expand/view/bmm)."""

    def __init__(self, d=16, heads=2):
        super().__init__()
        self.heads = heads
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(d, dim=-1)
        q, k, v = (z.reshape(b, t, self.heads, d // self.heads).transpose(1, 2) for z in (q, k, v))
        att = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(d // self.heads), dim=-1)
        y = (att @ v).transpose(1, 2).reshape(b, t, d)
        x = x + self.proj(y)
        return x + self.mlp(self.ln2(x))


torch.manual_seed(0)
models = {
    "cnn": (nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
                          nn.Conv2d(8, 4, 3, stride=2, bias=False), nn.Flatten(), nn.Linear(4 * 3 * 3, 10)),
            (3, 16, 16)),
    "block": (nn.Sequential(Block(), nn.LayerNorm(16), nn.Linear(16, 5)), (6, 16)),
    "encoder": (nn.TransformerEncoderLayer(16, 2, dim_feedforward=32, batch_first=True), (6, 16)),
    "mlp_nobias": (nn.Sequential(nn.Linear(12, 20, bias=False), nn.ReLU(), nn.Linear(20, 3, bias=False)), (4, 12)),
    "convT": (nn.Sequential(nn.ConvTranspose2d(3, 4, 3, stride=2, padding=1, output_padding=1)), (3, 5, 5)),
}
for name, (model, res) in models.items():
    buf = io.StringIO()
    macs, params = get_model_complexity_info(model, res, backend="aten", print_per_layer_stat=True, ost=buf,
                                             as_strings=False)
    print("ptflops aten", name, macs, params)
    print(buf.getvalue().rstrip())
