"""Helpers of torch.ao.nn.quantized's modules: quantizing a float weight with its observer's qparams, and the
output ``scale``/``zero_point`` entries of their state dicts."""
from __future__ import annotations

from ..... import _dtype
from ....._creation import tensor
from ....._quantized import per_channel_affine, per_channel_symmetric, per_tensor_affine, per_tensor_symmetric, \
    quantize_per_channel, quantize_per_tensor

__all__ = ["_quantize_weight", "save_qparams", "load_qparams"]


def _quantize_weight(float_wt, observer):
    """``float_wt`` quantized to qint8 with the scale(s) and zero point(s) ``observer`` chose (torch's)."""
    wt_scale, wt_zp = observer.calculate_qparams()
    if observer.qscheme in (per_tensor_symmetric, per_tensor_affine):
        return quantize_per_tensor(float_wt, float(wt_scale), int(wt_zp), _dtype.qint8)
    if observer.qscheme in (per_channel_symmetric, per_channel_affine):
        return quantize_per_channel(float_wt, wt_scale.to(_dtype.float64), wt_zp.to(_dtype.int64), observer.ch_axis,
                                    _dtype.qint8)
    raise ValueError(f"Unexpected qscheme {observer.qscheme}")


def save_qparams(module, destination, prefix):
    """Write ``module``'s output ``scale`` and ``zero_point`` into a state dict, as torch's quantized modules do."""
    destination[prefix + "scale"] = tensor(module.scale)
    destination[prefix + "zero_point"] = tensor(module.zero_point)


def load_qparams(module, state_dict, prefix):
    """Take ``scale`` and ``zero_point`` out of a state dict into ``module`` (a float and an int, as torch's)."""
    module.scale = float(state_dict.pop(prefix + "scale"))
    module.zero_point = int(state_dict.pop(prefix + "zero_point"))
