"""The fused-module containers of torch.ao.nn.intrinsic (``ConvReLU2d``, ``LinearReLU``, ``ConvBn2d``, ...):
Sequentials of the modules ``torch.ao.quantization.fuse_modules`` merged, each checking its members' exact
types as torch's do. In float mode they run their members in order (torchlike has no quantized kernels).

>>> import torchlike
>>> from torchlike.ao.nn.intrinsic import LinearReLU
>>> m = LinearReLU(torchlike.nn.Linear(2, 3), torchlike.nn.ReLU())
>>> m(torchlike.ones(1, 2)).shape
torch.Size([1, 3])
"""
from __future__ import annotations

from ..... import nn
from .....nn.utils.parametrize import type_before_parametrizations

__all__ = ["ConvBn1d", "ConvBn2d", "ConvBn3d", "ConvBnReLU1d", "ConvBnReLU2d", "ConvBnReLU3d", "ConvReLU1d",
           "ConvReLU2d", "ConvReLU3d", "LinearReLU", "BNReLU2d", "BNReLU3d", "LinearBn1d", "LinearLeakyReLU",
           "LinearTanh", "ConvAdd2d", "ConvAddReLU2d"]


class _FusedModule(nn.Sequential):
    """A Sequential of modules fused for quantization; ``_members`` are the exact types it takes."""
    _members: tuple = ()

    def __init__(self, *modules):
        kinds = [type_before_parametrizations(m) for m in modules]
        if kinds != list(self._members):
            names = [k.__name__ for k in kinds]
            listed = " and ".join(names) if len(names) == 2 else ", ".join(names[:-1]) + ", and " + names[-1]
            raise AssertionError(f"Incorrect types for input modules: {listed}")
        super().__init__(*modules)


def _fused(name, *members, doc):
    cls = type(name, (_FusedModule,), {"_members": members, "__doc__": doc, "__module__": __name__,
                                      "__qualname__": name})
    return cls


ConvReLU1d = _fused("ConvReLU1d", nn.Conv1d, nn.ReLU, doc="Conv1d then ReLU.")
ConvReLU2d = _fused("ConvReLU2d", nn.Conv2d, nn.ReLU, doc="Conv2d then ReLU.")
ConvReLU3d = _fused("ConvReLU3d", nn.Conv3d, nn.ReLU, doc="Conv3d then ReLU.")
LinearReLU = _fused("LinearReLU", nn.Linear, nn.ReLU, doc="Linear then ReLU.")
BNReLU2d = _fused("BNReLU2d", nn.BatchNorm2d, nn.ReLU, doc="BatchNorm2d then ReLU.")
BNReLU3d = _fused("BNReLU3d", nn.BatchNorm3d, nn.ReLU, doc="BatchNorm3d then ReLU.")
ConvBn1d = _fused("ConvBn1d", nn.Conv1d, nn.BatchNorm1d, doc="Conv1d then BatchNorm1d (the QAT fusion).")
ConvBn2d = _fused("ConvBn2d", nn.Conv2d, nn.BatchNorm2d, doc="Conv2d then BatchNorm2d (the QAT fusion).")
ConvBn3d = _fused("ConvBn3d", nn.Conv3d, nn.BatchNorm3d, doc="Conv3d then BatchNorm3d (the QAT fusion).")
ConvBnReLU1d = _fused("ConvBnReLU1d", nn.Conv1d, nn.BatchNorm1d, nn.ReLU, doc="Conv1d, BatchNorm1d, ReLU.")
ConvBnReLU2d = _fused("ConvBnReLU2d", nn.Conv2d, nn.BatchNorm2d, nn.ReLU, doc="Conv2d, BatchNorm2d, ReLU.")
ConvBnReLU3d = _fused("ConvBnReLU3d", nn.Conv3d, nn.BatchNorm3d, nn.ReLU, doc="Conv3d, BatchNorm3d, ReLU.")
LinearBn1d = _fused("LinearBn1d", nn.Linear, nn.BatchNorm1d, doc="Linear then BatchNorm1d (the QAT fusion).")
LinearLeakyReLU = _fused("LinearLeakyReLU", nn.Linear, nn.LeakyReLU, doc="Linear then LeakyReLU.")
LinearTanh = _fused("LinearTanh", nn.Linear, nn.Tanh, doc="Linear then Tanh.")


class ConvAdd2d(_FusedModule):
    """``add(conv(x1), x2)``."""
    _members = (nn.Conv2d,)

    def __init__(self, conv, add):
        super().__init__(conv)
        self.add = add

    def forward(self, x1, x2):
        return self.add(self[0](x1), x2)


class ConvAddReLU2d(_FusedModule):
    """``relu(add(conv(x1), x2))``."""
    _members = (nn.Conv2d,)

    def __init__(self, conv, add, relu):
        super().__init__(conv)
        self.add = add
        self.relu = relu

    def forward(self, x1, x2):
        return self.relu(self.add(self[0](x1), x2))
