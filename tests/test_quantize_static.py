"""Eager-mode static post-training quantization end to end (tests/programs/quantize_static.py): a small CNN
(QuantStub, fused Conv+BN+ReLU, convs, max pool, FloatFunctional add, Linear+ReLU, Linear, DeQuantStub) prepared,
calibrated, converted and run under the runner prints what it prints under torch (x86 backend)."""
import pytest

from conftest import lib_program_vs_torch

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning", "ignore::DeprecationWarning")


def test_quantize_static_program_matches_torch():
    expected, ours = lib_program_vs_torch("quantize_static.py", "torch")
    text = "\n".join(ours)
    # the quantized path really ran: quantized module types, observers, outputs, reload
    assert "x86 converted ['Quantize', 'ConvReLU2d'" in text
    assert "x86 observer quant HistogramObserver" in text and "default observer quant MinMaxObserver" in text
    assert "x86 conv QuantizedConvReLU2d" in text and "torch.per_channel_affine" in text
    assert "x86 conv out torch.quint8" in text
    assert sum(line.endswith("reloaded same output True") or "reloaded same output True" in line
               for line in ours) == 2
    # the integer outputs and final values are bit-equal (only the float calibration of fc differs by an ulp)
    for a, b in zip(expected, ours):
        if " out " in a or "input" in a or "conv out" in a:
            assert a == b


def test_quantize_qat_program_matches_torch():
    expected, ours = lib_program_vs_torch("quantize_qat.py", "torch")
    text = "\n".join(ours)
    assert "['QuantStub', 'ConvBnReLU2d', 'Identity', 'Identity', 'Conv2d', 'Linear', 'DeQuantStub']" in text
    assert sum(line.startswith("step ") for line in ours) == 4
    assert "QuantizedConvReLU2d(3, 8" in text
    assert [line for line in expected if line.startswith("step ")] == [line for line in ours if line.startswith("step ")]
