"""The model-profiling tools research scripts call on their models, under the drop-in runner:
- thop: profile with its per-module hooks, custom_ops, ret_layer_info, clever_format, and fx_profile (torch.fx);
- ptflops: get_model_complexity_info, pytorch backend (module hooks plus its patched torch.nn.functional and
  torch.* functions), the per-layer table, units, ignore_modules, input_constructor, verbose, custom module hooks;
- fvcore: parameter_count, parameter_count_table; its weight init, precise-BN statistics, focal/GIoU/smooth-L1
  losses and Checkpointer save/resume/periodic;
- torchsummary: summary tables with one or two inputs and frozen layers, and its own error on layers returning
  nested tuples;
on a small CNN, an LSTM model, a Transformer encoder layer model and a two-input model, compared line by line with
the same program under real torch.

ptflops' aten backend (a TorchDispatchMode counting aten.mm/addmm/bmm/convolution) reports torch's MACs, params and
per-module table on a CNN, a transformer block, an encoder layer, a bias-free MLP and a transposed convolution.
fvcore's FlopCountAnalysis (torch.jit tracing) needs a tracer torchlike does not have; it ends in a clear
NotImplementedError (docs/differences.md, "Model-profiling tools").
"""
import os
import subprocess
import sys

import pytest

from conftest import _ROOT, lib_program_vs_torch

TOOLS = ("torch", "thop", "ptflops", "fvcore", "torchsummary")


def test_flop_tools_count_and_print_like_torch():
    _, ours = lib_program_vs_torch("lib_flop_tools.py", *TOOLS, timeout=600, rtol=1e-6)
    assert len(ours) == 358, len(ours)
    assert "thop cnn 287744.0 3994.0 287.744K 3.994K" in ours
    assert "thop custom 352.0 74.0 352.00B" in ours and "thop layer 1 96.0 0.0 []" in ours
    assert "thop buffers left [] True" in ours
    # ptflops' total counts the patched F.relu / F.max_pool2d calls the ReLU and MaxPool2d modules make
    assert "ptflops raw cnn 152074 3994" in ours and "ptflops raw encoder 46279 9059" in ours
    assert "    (3): MaxPool2d(0, 0.000% Params, 2.05 KMac, 1.347% MACs, kernel_size=2, stride=2, padding=0, " \
           "dilation=1, ceil_mode=False)" in ours
    assert "| layer.self_attn.in_proj_weight | (96, 32)             |" in ours
    assert "Total params: 3,994" in ours and "            Linear-4                     [4, 2]              34" in ours
    assert "torchsummary encoder AttributeError 'NoneType' object has no attribute 'size'" in ours
    # two inputs, report_missing, profile_origin; ptflops' input_constructor, verbose and custom module hooks
    assert "\x1b[00mthop two-input 600.0 49.0" in ours and "thop origin 600.0 49.0" in ours   # after prRed's reset
    assert "ptflops two-input 266 49" in ours and "Warning: module Softmax is treated as a zero-op." in ours
    assert "ptflops custom 106 Mac 74" in ours and "ptflops attrs left ['accumulate_params']" in ours
    assert "thop fx flops 16640" in ours and "{'flatten': ('call_method', 'flatten')}" in ours   # fx_profile
    assert "bn stats [0.0146, -0.0349, -0.0101, -0.0201] [1.9839, 1.6895, 1.7789, 1.5952]" in ours   # precise BN
    assert "loaded extra ['iteration', 'note', 'optimizer'] 3 x" in ours and "same True" in ours   # Checkpointer
    assert ours[-1].startswith("periodic ['last_checkpoint', 'model_0000003.pth', 'model_0000005.pth'")
    assert "fvcore frozen 3994 2570" in ours and "Non-trainable params: 1,424" in ours


def test_ptflops_aten_backend_counts_like_torch():
    _, ours = lib_program_vs_torch("lib_ptflops_aten.py", "torch", "ptflops", timeout=600, rtol=0)
    assert "ptflops aten cnn 60306 898" in ours and "ptflops aten block 20958 3397" in ours
    assert "ptflops aten encoder 12960 2224" in ours and "ptflops aten mlp_nobias 1200 300" in ours
    assert "ptflops aten convT 3100 112" in ours and "aten.bmm: 1.15 KMac" in ours


def test_trace_based_counters_fail_with_torch_style_errors():
    for mod in TOOLS[:-1]:
        pytest.importorskip(mod)
    env = dict(os.environ, PYTHONPATH=_ROOT)
    out = subprocess.run([sys.executable, "-m", "torchlike", "run", "tests/programs/lib_flop_tools_tracing.py"],
                         capture_output=True, text=True, timeout=600, env=env, cwd=_ROOT)
    assert out.returncode == 0, out.stderr[-3000:]
    lines = out.stdout.splitlines()
    assert lines[0] == ("fvcore error NotImplementedError torch.jit._get_trace_graph: torchlike has no TorchScript "
                        "tracer, so no TorchScript graph can be built (count flops with "
                        "torch.utils.flop_counter.FlopCounterMode; see docs/differences.md)")
    assert "jax" not in (out.stdout + out.stderr).lower()
