"""torch.ao.quantization.fake_quantize's base class and switches, compared with torch: FakeQuantizeBase's buffers,
state_dict, enable/disable methods, the module-level switches a model applies, with_args and its abstractness;
the fake quantizers torchlike lacks (fixed-qparams, learnable) say so (FakeQuantize itself: test_quantized_static.py)."""
import pytest
import torch

import torchlike


def _subclass(lib):
    class Passthrough(lib.ao.quantization.FakeQuantizeBase):
        def forward(self, x):
            return x

        def calculate_qparams(self, **kwargs):
            return lib.tensor([1.0]), lib.tensor([0])
    return Passthrough


def _state(lib):
    fq = lib.ao.quantization.fake_quantize
    model = lib.nn.Sequential(lib.nn.Linear(2, 2), _subclass(lib)(), _subclass(lib)())
    seen = [dict((k, v.tolist()) for k, v in model[1].state_dict().items())]
    model.apply(fq.disable_fake_quant)
    seen.append([m.fake_quant_enabled.tolist() for m in model[1:]])
    model.apply(fq.disable_observer)
    model[2].enable_observer()
    model.apply(lib.quantization.enable_fake_quant)
    seen.append([(m.fake_quant_enabled.tolist(), m.observer_enabled.tolist(), m.observer_enabled.dtype is lib.uint8)
                 for m in model[1:]])
    model[1].disable_fake_quant()
    model.apply(lib.ao.quantization.enable_observer)
    seen.append([(m.fake_quant_enabled.tolist(), m.observer_enabled.tolist()) for m in model[1:]])
    made = _subclass(lib).with_args()()
    seen.append((type(made).__name__, isinstance(made, lib.ao.quantization.FakeQuantizeBase)))
    return seen


def test_fake_quantize_base_and_switches_match_torch():
    assert _state(torchlike) == _state(torch)


def test_fake_quantize_base_is_abstract_like_torch():
    with pytest.raises(TypeError) as theirs:
        torch.ao.quantization.FakeQuantizeBase()
    with pytest.raises(TypeError) as ours:
        torchlike.ao.quantization.FakeQuantizeBase()
    assert str(ours.value) == str(theirs.value)


def test_qat_fake_quantize_modules_name_themselves():
    with pytest.raises(NotImplementedError,
                       match="torch.ao.quantization.fake_quantize.FixedQParamsFakeQuantize is not"):
        torchlike.ao.quantization.fake_quantize.FixedQParamsFakeQuantize
