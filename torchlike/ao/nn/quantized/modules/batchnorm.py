"""torch.ao.nn.quantized.BatchNorm2d/BatchNorm3d (``QuantizedBatchNorm2d``/``3d``): inference batch norm of a
per-tensor quantized input with the running statistics, its output quantized with the module's ``scale`` and
``zero_point`` (what ``torch.ao.quantization.convert`` swaps in for an observed BatchNorm/BNReLU), bit-equal to
torch's x86 kernel.

>>> import torchlike
>>> from torchlike.ao.nn.quantized import BatchNorm2d
>>> bn = BatchNorm2d(2)
>>> q = torchlike.quantize_per_tensor(torchlike.ones(1, 2, 1, 1), 0.5, 0, torchlike.quint8)
>>> bn(q).int_repr().flatten()
tensor([1, 1], dtype=torch.uint8)
"""
from __future__ import annotations

import numpy as np

from ....._creation import tensor
from ....._quantized import _make, _QTensor, int_repr, per_tensor_affine
from .....nn.modules.batchnorm import _BatchNorm as _FloatBatchNorm
from ..functional import _fma32
from ...intrinsic.modules import fused as nni

__all__ = ["BatchNorm2d", "BatchNorm3d"]

f32 = np.float32
_RANGE = {"quint8": (0, 255), "qint8": (-128, 127), "qint32": (-2 ** 31, 2 ** 31 - 1)}


def _floats(t, n):
    return np.ones(n, f32) if t is None else np.asarray(t.detach().float()._value, f32).reshape(-1)


def batch_norm(input, weight, bias, mean, var, eps, output_scale, output_zero_point, *, ndim, relu=False):
    """``quantized::batch_norm{2d,3d}`` (``_relu`` with ``relu``): per channel ``alpha = w / sqrt(var + eps) *
    (sx / sy)`` and ``beta = (b - mean * w / sqrt(var + eps)) / sy`` in float32 (the scale ratio in float64, as
    ATen's ``compute_fused_params``), then ``rint(fma(alpha, q - zx, beta)) + zy`` clamped to the dtype's range."""
    if not isinstance(input, _QTensor) or input._q[4] is not None:
        raise NotImplementedError("torchlike's quantized batch_norm takes a per-tensor quantized input (see "
                                  "docs/differences.md)")
    if input.dim() != ndim:
        raise RuntimeError(f"Expecting the input tensor of rank {ndim}.")
    qdt, _, sx, zx, _ = input._q
    c = input.shape[1]
    inv = (1.0 / np.sqrt(_floats(var, c) + f32(eps)).astype(f32)).astype(f32)
    w = _floats(weight, c)
    b = np.zeros(c, f32) if bias is None else _floats(bias, c)
    alpha = ((inv * w).astype(f32).astype(np.float64) * (float(sx) / float(output_scale))).astype(f32)
    beta = ((b - (_floats(mean, c) * inv).astype(f32) * w).astype(f32).astype(np.float64)
            / float(output_scale)).astype(f32)
    shape = (1, c) + (1,) * (ndim - 2)
    ints = np.asarray(int_repr(input)._value)
    y = _fma32(alpha.reshape(shape), (ints.astype(np.int64) - zx).astype(f32), beta.reshape(shape))
    out = np.rint(y).astype(np.int64) + int(output_zero_point)
    lo, hi = _RANGE[str(qdt).rpartition(".")[2]]
    out = np.clip(out, int(output_zero_point) if relu else lo, hi).astype(ints.dtype)
    return _make(out, (qdt, per_tensor_affine, float(output_scale), int(output_zero_point), None), input._dev)


class _BatchNorm(_FloatBatchNorm):
    _NDIM = 4

    def __init__(self, num_features, eps=1e-5, momentum=0.1, device=None, dtype=None):
        super().__init__(num_features, eps, momentum, True, True, device=device, dtype=dtype)
        self.register_buffer("scale", tensor(1.0, device=device, dtype=dtype))
        self.register_buffer("zero_point", tensor(0, device=device, dtype=dtype))

    def _get_name(self):
        return "Quantized" + type(self).__name__

    def _check_input_dim(self, input):
        if len(input.shape) != self._NDIM:
            raise ValueError("Input shape must be `(N, C, H, W)`!")

    def forward(self, input):
        return batch_norm(input, self.weight, self.bias, self.running_mean, self.running_var, self.eps,
                          float(self.scale), int(self.zero_point), ndim=self._NDIM)

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        activation_post_process = mod.activation_post_process
        if type(mod) is cls._NNI_BN_RELU_MODULE:
            mod = mod[0]
        scale, zero_point = activation_post_process.calculate_qparams()
        new_mod = cls(mod.num_features, mod.eps)
        new_mod.weight, new_mod.bias = mod.weight, mod.bias
        new_mod.running_mean, new_mod.running_var = mod.running_mean, mod.running_var
        new_mod.scale, new_mod.zero_point = scale, zero_point
        return new_mod

    @classmethod
    def from_reference(cls, bn, output_scale, output_zero_point):
        qbn = cls(bn.num_features, bn.eps, bn.momentum, device=bn.weight.device, dtype=bn.weight.dtype)
        qbn.weight, qbn.bias = bn.weight, bn.bias
        qbn.running_mean, qbn.running_var = bn.running_mean, bn.running_var
        qbn.scale, qbn.zero_point = output_scale, output_zero_point
        return qbn


class BatchNorm2d(_BatchNorm):
    """The quantized version of :class:`~torch.nn.BatchNorm2d` (NCHW input)."""

    _NNI_BN_RELU_MODULE = nni.BNReLU2d
    _NDIM = 4


class BatchNorm3d(_BatchNorm):
    """The quantized version of :class:`~torch.nn.BatchNorm3d` (NCDHW input)."""

    _NNI_BN_RELU_MODULE = nni.BNReLU3d
    _NDIM = 5

