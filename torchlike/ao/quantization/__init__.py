"""torchlike.ao.quantization: eager-mode post-training quantization as torch's x86 (fbgemm/oneDNN) CPU backend does
it -- observers, qconfigs, ``prepare``/``convert``/``quantize`` (static), ``prepare_qat``/``quantize_qat`` with
``FakeQuantize`` (quantization-aware training) and ``quantize_dynamic`` -- plus the stubs and module fusion
(``fuse_modules``).  FX graph mode is not supported (those names raise a
NotImplementedError naming them, see docs/differences.md).

>>> from torchlike.ao.quantization import DeQuantStub
>>> DeQuantStub()
DeQuantStub()
"""
from ..._missing import module_getattr
from .stubs import DeQuantStub, QuantStub, QuantWrapper
from . import fuser_method_mappings, observer, quantization_mappings, quantize_fx  # noqa: F401
from .fuser_method_mappings import get_fuser_method
from .fuse_modules import fuse_modules, fuse_modules_qat  # (the function shadows its module, as in torch)
from .observer import HistogramObserver, MinMaxObserver, MovingAverageMinMaxObserver, \
    MovingAveragePerChannelMinMaxObserver, NoopObserver, ObserverBase, PerChannelMinMaxObserver, \
    PlaceholderObserver, default_debug_observer, default_dynamic_quant_observer, default_float_qparams_observer, \
    default_histogram_observer, default_observer, default_per_channel_weight_observer, \
    default_placeholder_observer, default_weight_observer, get_observer_state_dict, load_observer_state_dict
from .qconfig import QConfig, QConfigDynamic, default_dynamic_qconfig, default_per_channel_qconfig, \
    default_qconfig, float16_dynamic_qconfig, float_qparams_weight_only_qconfig, get_default_qconfig, \
    per_channel_dynamic_qconfig
from .quantization_mappings import get_default_dynamic_quant_module_mappings, \
    get_default_qconfig_propagation_list, get_default_static_quant_module_mappings, no_observer_set
from .quantize import add_quant_dequant, convert, prepare, prepare_qat, propagate_qconfig_, quantize, \
    quantize_dynamic, quantize_qat, swap_module

__all__ = ["DeQuantStub", "QuantStub", "QuantWrapper", "fuse_modules", "fuse_modules_qat", "get_fuser_method",
           "QConfig", "QConfigDynamic", "default_dynamic_qconfig", "float16_dynamic_qconfig",
           "per_channel_dynamic_qconfig", "float_qparams_weight_only_qconfig", "default_qconfig",
           "default_per_channel_qconfig", "get_default_qconfig", "convert", "prepare", "quantize",
           "get_default_dynamic_quant_module_mappings", "get_default_static_quant_module_mappings",
           "get_default_qconfig_propagation_list", "no_observer_set", "propagate_qconfig_", "quantize_dynamic",
           "swap_module", "add_quant_dequant", "prepare_qat", "quantize_qat", "ObserverBase", "MinMaxObserver",
           "MovingAverageMinMaxObserver", "PerChannelMinMaxObserver", "MovingAveragePerChannelMinMaxObserver",
           "HistogramObserver", "PlaceholderObserver", "NoopObserver", "default_observer", "default_weight_observer",
           "default_per_channel_weight_observer", "default_histogram_observer", "default_placeholder_observer",
           "default_dynamic_quant_observer", "default_float_qparams_observer", "default_debug_observer",
           "get_observer_state_dict", "load_observer_state_dict"]

from . import fake_quantize  # noqa: E402
from .fake_quantize import FakeQuantizeBase, disable_fake_quant, disable_observer, enable_fake_quant, \
    enable_observer  # noqa: E402
__all__ += ["FakeQuantizeBase", "disable_fake_quant", "disable_observer", "enable_fake_quant", "enable_observer"]
from .fake_quantize import FakeQuantize, FusedMovingAvgObsFakeQuantize, default_fake_quant, \
    default_fused_act_fake_quant, default_fused_per_channel_wt_fake_quant, default_fused_wt_fake_quant, \
    default_histogram_fake_quant, default_per_channel_weight_fake_quant, default_weight_fake_quant  # noqa: E402
from .qconfig import default_qat_qconfig, get_default_qat_qconfig  # noqa: E402
from .quantization_mappings import get_default_qat_module_mappings  # noqa: E402
__all__ += ["FakeQuantize", "FusedMovingAvgObsFakeQuantize", "default_fused_act_fake_quant",
            "default_fused_per_channel_wt_fake_quant", "default_fused_wt_fake_quant", "default_fake_quant", "default_histogram_fake_quant",
            "default_per_channel_weight_fake_quant", "default_weight_fake_quant", "default_qat_qconfig",
            "get_default_qat_qconfig", "get_default_qat_module_mappings"]

__getattr__ = module_getattr("torch.ao.quantization")
