"""The trace-based part of the profiling tools: fvcore's FlopCountAnalysis (torch.jit tracing). torchlike has no
TorchScript tracer, so under the runner it ends in a clear NotImplementedError (tests/test_lib_flop_tools.py;
docs/differences.md); under torch the same program prints the counts. (ptflops' aten backend, a
TorchDispatchMode, runs: tests/programs/lib_ptflops_aten.py.)
"""
import torch
from fvcore.nn import FlopCountAnalysis, flop_count_table
from torch import nn

torch.manual_seed(0)
cnn = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                    nn.Linear(8 * 8 * 8, 10)).eval()
x = torch.randn(2, 3, 16, 16)

try:
    flops = FlopCountAnalysis(cnn, x)
    print("fvcore total", flops.total())
    print("fvcore by operator", dict(flops.by_operator()))
    print(flop_count_table(flops, max_depth=1))
except Exception as e:
    print("fvcore error", type(e).__name__, e)

