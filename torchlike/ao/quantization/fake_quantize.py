"""torch.ao.quantization.fake_quantize: ``FakeQuantizeBase``, the base class every fake-quantize module derives
from (libraries check ``isinstance(m, FakeQuantizeBase)``), and the ``enable_/disable_fake_quant`` and
``enable_/disable_observer`` switches a model ``apply``s. Quantization-aware training's concrete modules
(``FakeQuantize``, ``FusedMovingAvgObsFakeQuantize``, the ``default_*_fake_quant`` constructors) are not supported:
those names raise a NotImplementedError naming them (see docs/differences.md).

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
from .observer import _with_args

__all__ = ["FakeQuantizeBase", "disable_fake_quant", "disable_observer", "enable_fake_quant", "enable_observer"]


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
