"""torch.ao.nn.quantized.dynamic.Linear (``DynamicQuantizedLinear``): a qint8 (or float16) weight; each call
quantizes its input over the input's own range and multiplies in int32, as torch's fbgemm kernel does.

>>> import torchlike
>>> m = torchlike.ao.quantization.quantize_dynamic(torchlike.nn.Sequential(torchlike.nn.Linear(4, 3)))
>>> m[0]
DynamicQuantizedLinear(in_features=4, out_features=3, dtype=torch.qint8, qscheme=torch.per_tensor_affine)
"""
from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from ...... import _dtype
from ......_quantized import linear_dynamic, quantize_per_tensor
from ......_dispatch import dispatch
from ......nn.modules.linear import Linear as _FloatLinear, NonDynamicallyQuantizableLinear
from ...modules import linear as nnq

__all__ = ["Linear"]


def weight_qparams(w):
    """torch's default dynamic weight observer (MinMaxObserver, qint8, per_tensor_symmetric): scale
    ``max(|min|, |max|) / 127.5`` in float32 (at least float32's eps), zero point 0.  (The division on the host:
    XLA would turn it into a multiplication by the reciprocal, an ulp off.)"""
    amax = dispatch(lambda a: jnp.maximum(-jnp.minimum(a.min(), 0), jnp.maximum(a.max(), 0)), (w,), diff=False)
    return max(float(np.float32(amax.item()) / np.float32(127.5)), float(_dtype.finfo(_dtype.float32).eps)), 0


def _linear_fp16(x, w, b):
    return jnp.matmul(x, w.T) + (0 if b is None else b)


class Linear(nnq.Linear):
    """A Linear whose weight is quantized once (qint8, per tensor) and whose input is quantized per call."""

    _version = 4

    def __init__(self, in_features, out_features, bias_=True, dtype=_dtype.qint8):
        super().__init__(in_features, out_features, bias_, dtype=dtype)
        self.version = 4

    def forward(self, x):
        w, b = self._packed_params._packed_params
        if self._packed_params.dtype is _dtype.qint8:
            y = linear_dynamic(x, w, b, reduce_range=self.version is not None and self.version >= 4)
        elif self._packed_params.dtype is _dtype.float16:
            y = dispatch(_linear_fp16, (x.float(), w, b), diff=False)
        else:
            raise RuntimeError("Unsupported dtype on dynamic quantized linear!")
        return y.to(x.dtype)

    def _get_name(self):
        return "DynamicQuantizedLinear"

    def extra_repr(self):
        s = f"in_features={self.in_features}, out_features={self.out_features}, dtype={self._packed_params.dtype}"
        if self._packed_params.dtype is _dtype.qint8:
            s += f", qscheme={self.weight().qscheme()}"
        return s

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs):
        self.version = local_metadata.get("version", None)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, False, missing_keys, unexpected_keys,
                                      error_msgs)

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        """The dynamic quantized version of float Linear ``mod`` (weight observed by its qconfig's dtype)."""
        if type(mod) not in (_FloatLinear, NonDynamicallyQuantizableLinear):
            raise AssertionError("nn.quantized.dynamic.Linear.from_float only works for one of['Linear', "
                                 f"'NonDynamicallyQuantizableLinear'], got {type(mod)}")
        qconfig = getattr(mod, "qconfig", None)
        spec = qconfig.weight() if qconfig is not None and qconfig.weight is not None else None
        dtype = _dtype.qint8 if spec is None else spec.dtype
        if spec is not None and dtype is _dtype.qint8 and spec.qscheme != "per_tensor_symmetric":
            raise NotImplementedError(f"torchlike quantizes Linear weights per tensor only, not {spec.qscheme} "
                                      "(see docs/differences.md)")
        if dtype is _dtype.qint8:
            scale, zp = weight_qparams(mod.weight.detach())
            qweight = quantize_per_tensor(mod.weight.detach().float(), scale, zp, _dtype.qint8)
        elif dtype is _dtype.float16:
            qweight = mod.weight.detach().float()
        else:
            raise AssertionError("The only supported dtypes for dynamic quantized linear are qint8 and float16, "
                                 f"got: {dtype}")
        qlinear = cls(mod.in_features, mod.out_features, dtype=dtype)
        qlinear.set_weight_bias(qweight, mod.bias)
        return qlinear
