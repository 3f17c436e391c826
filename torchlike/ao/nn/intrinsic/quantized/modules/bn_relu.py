"""torch.ao.nn.intrinsic.quantized.BNReLU2d/BNReLU3d: quantized batch norm fused with ReLU (the output clamped
below at its zero point), what ``convert`` makes of an observed ``torch.ao.nn.intrinsic.BNReLU2d``/``3d``.

>>> import torchlike
>>> from torchlike.ao.nn.intrinsic.quantized import BNReLU2d
>>> q = torchlike.quantize_per_tensor(-torchlike.ones(1, 2, 1, 1), 0.5, 4, torchlike.quint8)
>>> BNReLU2d(2)(q).int_repr().flatten()
tensor([0, 0], dtype=torch.uint8)
"""
from ....quantized.modules import batchnorm as _qbn
from ... import modules as _nni

__all__ = ["BNReLU2d", "BNReLU3d"]


class _BNReLU:
    _SHAPE = ""

    def forward(self, input):
        if len(input.shape) != self._NDIM:
            raise ValueError(f"Input shape must be `{self._SHAPE}`!")
        return _qbn.batch_norm(input, self.weight, self.bias, self.running_mean, self.running_var, self.eps,
                               float(self.scale), int(self.zero_point), ndim=self._NDIM, relu=True)

    def _get_name(self):
        return "Quantized" + type(self).__name__

    @classmethod
    def from_reference(cls, bn_relu, output_scale, output_zero_point):
        return super().from_reference(bn_relu[0], output_scale, output_zero_point)


class BNReLU2d(_BNReLU, _qbn.BatchNorm2d):
    """BatchNorm2d and ReLU fused, quantized (the interface of ``torch.ao.nn.quantized.BatchNorm2d``)."""

    _FLOAT_MODULE = _nni.BNReLU2d
    _SHAPE = "(N, C, H, W)"


class BNReLU3d(_BNReLU, _qbn.BatchNorm3d):
    """BatchNorm3d and ReLU fused, quantized (the interface of ``torch.ao.nn.quantized.BatchNorm3d``)."""

    _FLOAT_MODULE = _nni.BNReLU3d
    _SHAPE = "(N, C, D, H, W)"
