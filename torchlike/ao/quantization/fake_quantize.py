"""torch.ao.quantization.fake_quantize: ``FakeQuantizeBase``, the base class every fake-quantize module derives
from (libraries check ``isinstance(m, FakeQuantizeBase)``), and the ``enable_/disable_fake_quant`` and
``enable_/disable_observer`` switches a model ``apply``s; ``FakeQuantize`` (observer + fake quantization, bit-equal
to torch's) and the ``default_*_fake_quant`` constructors that quantization-aware training uses.
``FusedMovingAvgObsFakeQuantize`` (torch's x86 QAT default); the other fake quantizers (learnable, fixed qparams)
raise a NotImplementedError naming them (see docs/differences.md).

>>> import torchlike as torch
>>> from torchlike.ao.quantization.fake_quantize import FakeQuantizeBase, disable_fake_quant
>>> class Identity(FakeQuantizeBase):
...     def forward(self, x):
...         return x
...     def calculate_qparams(self, **kwargs):
...         return torch.tensor([1.0]), torch.tensor([0])
>>> m = Identity()
>>> disable_fake_quant(m)
>>> m.fake_quant_enabled, m.observer_enabled
(tensor([0], dtype=torch.uint8), tensor([1], dtype=torch.uint8))
"""
from __future__ import annotations

from abc import ABC, abstractmethod

from ... import _creation, _dtype
from ..._missing import module_getattr
from ...nn.modules.module import Module
from ..._fake_quantize import fake_quantize_per_channel_affine, fake_quantize_per_tensor_affine, \
    fused_moving_avg_obs_fake_quant
from ..._quantized import per_channel_affine, per_channel_affine_float_qparams, per_channel_symmetric, \
    per_tensor_affine, per_tensor_symmetric
from .observer import HistogramObserver, MovingAverageMinMaxObserver, MovingAveragePerChannelMinMaxObserver, \
    _with_args

__all__ = ["FakeQuantizeBase", "FakeQuantize", "disable_fake_quant", "disable_observer", "enable_fake_quant",
           "enable_observer", "default_fake_quant", "default_weight_fake_quant", "default_per_channel_weight_fake_quant",
           "default_histogram_fake_quant", "FusedMovingAvgObsFakeQuantize", "default_fused_act_fake_quant",
           "default_fused_wt_fake_quant", "default_fused_per_channel_wt_fake_quant"]


class FakeQuantizeBase(ABC, Module):
    """Base fake quantize module: ``forward`` updates the statistics of the observed tensor and fake-quantizes
    it; ``calculate_qparams`` computes the quantization parameters from them. ``fake_quant_enabled`` and
    ``observer_enabled`` are uint8 buffers (1 or 0)."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("fake_quant_enabled", _creation.tensor([1], dtype=_dtype.uint8))
        self.register_buffer("observer_enabled", _creation.tensor([1], dtype=_dtype.uint8))

    @abstractmethod
    def forward(self, x):
        pass

    @abstractmethod
    def calculate_qparams(self, **kwargs):
        pass

    def enable_fake_quant(self, enabled: bool = True) -> None:
        self.fake_quant_enabled[0] = 1 if enabled else 0

    def disable_fake_quant(self):
        self.enable_fake_quant(False)

    def enable_observer(self, enabled: bool = True) -> None:
        self.observer_enabled[0] = 1 if enabled else 0

    def disable_observer(self):
        self.enable_observer(False)

    @classmethod
    def with_args(cls, **kwargs):
        fake_quant_constructor = _with_args(cls, **kwargs)
        fake_quant_constructor.__module__ = __name__
        return fake_quant_constructor


_QRANGE = {_dtype.quint8: (0, 255), _dtype.qint8: (-128, 127), _dtype.uint8: (0, 255), _dtype.int8: (-128, 127),
           _dtype.qint32: (-(2 ** 31), 2 ** 31 - 1), _dtype.int32: (-(2 ** 31), 2 ** 31 - 1)}


class FakeQuantize(FakeQuantizeBase):
    """Simulates quantize-dequantize in training (quantization-aware training): ``observer`` (when enabled) updates
    ``scale``/``zero_point`` from each input, then the input is fake-quantized with them (straight-through
    gradient), per tensor or per channel as the observer's qscheme says."""

    def __init__(self, observer=MovingAverageMinMaxObserver, quant_min=None, quant_max=None, is_dynamic=False,
                 **observer_kwargs):
        super().__init__()
        if quant_min is not None and quant_max is not None:
            if quant_min > quant_max:
                raise AssertionError("quant_min must be less than or equal to quant_max")
            dtype = observer_kwargs.get("dtype", _dtype.quint8)
            if hasattr(observer, "p"):
                dtype = getattr(getattr(observer, "p", {}), "keywords", {}).get("dtype", dtype)
            lo, hi = _QRANGE.get(dtype, (quant_min, quant_max))
            if lo > quant_min:
                raise AssertionError("quant_min out of bound")
            if quant_max > hi:
                raise AssertionError("quant_max out of bound")
            observer_kwargs.update({"quant_min": quant_min, "quant_max": quant_max})
        observer_kwargs["is_dynamic"] = is_dynamic
        self.activation_post_process = observer(**observer_kwargs)
        self.quant_min = self.activation_post_process.quant_min
        self.quant_max = self.activation_post_process.quant_max
        self.is_dynamic = self.activation_post_process.is_dynamic
        zero_point_dtype = _dtype.float32 if self.activation_post_process.qscheme is \
            per_channel_affine_float_qparams else _dtype.int32
        self.register_buffer("scale", _creation.tensor([1.0], dtype=_dtype.float32))
        self.register_buffer("zero_point", _creation.tensor([0], dtype=zero_point_dtype))
        self.dtype = self.activation_post_process.dtype
        self.qscheme = self.activation_post_process.qscheme
        self.ch_axis = getattr(self.activation_post_process, "ch_axis", -1)
        self.is_per_channel = self.qscheme in (per_channel_affine, per_channel_symmetric,
                                               per_channel_affine_float_qparams)
        if not self.is_per_channel and self.qscheme not in (per_tensor_affine, per_tensor_symmetric):
            raise AssertionError("Only per channel and per tensor quantization are supported in fake quantize "
                                 f"got qscheme: {self.qscheme}")

    def calculate_qparams(self):
        return self.activation_post_process.calculate_qparams()

    def forward(self, X):
        if int(self.observer_enabled[0]) == 1:
            self.activation_post_process(X.detach())
            _scale, _zero_point = self.calculate_qparams()
            if self.scale.shape != _scale.shape:
                self.scale = _creation.zeros(_scale.shape, dtype=self.scale.dtype)
                self.zero_point = _creation.zeros(_zero_point.shape, dtype=self.zero_point.dtype)
            self.scale.copy_(_scale)
            self.zero_point.copy_(_zero_point)
        if int(self.fake_quant_enabled[0]) == 1:
            app = self.activation_post_process
            if self.is_per_channel:
                X = fake_quantize_per_channel_affine(X, self.scale, self.zero_point, self.ch_axis, app.quant_min,
                                                     app.quant_max)
            else:
                X = fake_quantize_per_tensor_affine(X, self.scale, self.zero_point, app.quant_min, app.quant_max)
        return X

    def extra_repr(self):
        return (f"fake_quant_enabled={self.fake_quant_enabled}, observer_enabled={self.observer_enabled}, "
                f"quant_min={self.activation_post_process.quant_min}, "
                f"quant_max={self.activation_post_process.quant_max}, dtype={self.dtype}, qscheme={self.qscheme}, "
                f"ch_axis={self.ch_axis}, scale={self.scale}, zero_point={self.zero_point}")

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs):
        for name in ("scale", "zero_point"):
            key = prefix + name
            if key in state_dict:
                setattr(self, name, _creation.zeros(state_dict[key].shape, dtype=getattr(self, name).dtype))
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                                      error_msgs)


default_fake_quant = FakeQuantize.with_args(observer=MovingAverageMinMaxObserver, quant_min=0, quant_max=255,
                                            dtype=_dtype.quint8, qscheme=per_tensor_affine, reduce_range=True)
default_weight_fake_quant = FakeQuantize.with_args(observer=MovingAverageMinMaxObserver, quant_min=-128,
                                                   quant_max=127, dtype=_dtype.qint8, qscheme=per_tensor_symmetric,
                                                   reduce_range=False)
default_per_channel_weight_fake_quant = FakeQuantize.with_args(observer=MovingAveragePerChannelMinMaxObserver,
                                                               quant_min=-128, quant_max=127, dtype=_dtype.qint8,
                                                               qscheme=per_channel_symmetric, reduce_range=False,
                                                               ch_axis=0)
default_histogram_fake_quant = FakeQuantize.with_args(observer=HistogramObserver, quant_min=0, quant_max=255,
                                                      dtype=_dtype.quint8, qscheme=per_tensor_affine,
                                                      reduce_range=True)


class FusedMovingAvgObsFakeQuantize(FakeQuantize):
    """FakeQuantize with the moving-average observation, the qparams (ATen's ChooseQuantizationParams) and the
    fake quantization in one op (``torch.fused_moving_avg_obs_fake_quant``): torch's x86 QAT default."""

    def __init__(self, observer=MovingAverageMinMaxObserver, quant_min=0, quant_max=255, **observer_kwargs):
        super().__init__(observer, quant_min, quant_max, **observer_kwargs)
        if not isinstance(self.activation_post_process,
                          (MovingAverageMinMaxObserver, MovingAveragePerChannelMinMaxObserver)):
            raise AssertionError("Fused observer+fake_quant module only works with MovingAverageMinMaxObserver")
        self.register_buffer("fake_quant_enabled", _creation.tensor([1], dtype=_dtype.int64))
        self.register_buffer("observer_enabled", _creation.tensor([1], dtype=_dtype.int64))
        self.is_symmetric_quant = self.activation_post_process.qscheme in (per_tensor_symmetric,
                                                                           per_channel_symmetric)

    def calculate_qparams(self):
        return self.activation_post_process.calculate_qparams()

    def extra_repr(self):
        app = self.activation_post_process
        return (f"fake_quant_enabled={self.fake_quant_enabled}, observer_enabled={self.observer_enabled}, "
                f"scale={self.scale}, zero_point={self.zero_point}, dtype={self.dtype}, quant_min={app.quant_min}, "
                f"quant_max={app.quant_max}, qscheme={self.qscheme}, reduce_range={app.reduce_range}")

    def forward(self, X):
        app = self.activation_post_process
        return fused_moving_avg_obs_fake_quant(X, self.observer_enabled, self.fake_quant_enabled, app.min_val,
                                               app.max_val, self.scale, self.zero_point, app.averaging_constant,
                                               app.quant_min, app.quant_max, self.ch_axis, self.is_per_channel,
                                               self.is_symmetric_quant)


default_fused_act_fake_quant = FusedMovingAvgObsFakeQuantize.with_args(observer=MovingAverageMinMaxObserver,
                                                                       quant_min=0, quant_max=255,
                                                                       dtype=_dtype.quint8)
default_fused_wt_fake_quant = FusedMovingAvgObsFakeQuantize.with_args(observer=MovingAverageMinMaxObserver,
                                                                      quant_min=-128, quant_max=127,
                                                                      dtype=_dtype.qint8,
                                                                      qscheme=per_tensor_symmetric)
default_fused_per_channel_wt_fake_quant = FusedMovingAvgObsFakeQuantize.with_args(
    observer=MovingAveragePerChannelMinMaxObserver, quant_min=-128, quant_max=127, dtype=_dtype.qint8,
    qscheme=per_channel_symmetric)


def disable_fake_quant(mod):
    """Disable fake quantization for ``mod`` if it is a fake-quantize module (``model.apply(disable_fake_quant)``)."""
    if isinstance(mod, FakeQuantizeBase):
        mod.disable_fake_quant()


def enable_fake_quant(mod):
    """Enable fake quantization for ``mod`` if it is a fake-quantize module."""
    if isinstance(mod, FakeQuantizeBase):
        mod.enable_fake_quant()


def disable_observer(mod):
    """Disable observation for ``mod`` if it is a fake-quantize module."""
    if isinstance(mod, FakeQuantizeBase):
        mod.disable_observer()


def enable_observer(mod):
    """Enable observation for ``mod`` if it is a fake-quantize module."""
    if isinstance(mod, FakeQuantizeBase):
        mod.enable_observer()


__getattr__ = module_getattr("torch.ao.quantization.fake_quantize")
