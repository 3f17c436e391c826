"""torch.ao.quantization.observer: modules that watch the tensors flowing through them and choose quantization
parameters (scale, zero point) for them.  torch's observers are Python over tensor ops; these follow them op for op,
so their qparams are torch's.

>>> import torchlike
>>> from torchlike.ao.quantization.observer import MinMaxObserver
>>> obs = MinMaxObserver()
>>> _ = obs(torchlike.tensor([-1.0, 3.0]))
>>> obs.calculate_qparams()
(tensor([0.0157]), tensor([64], dtype=torch.int32))
"""
from __future__ import annotations

import warnings
from functools import partial

import numpy as np

from ... import _dtype
from ..._creation import ones, ones_like, tensor, zeros, zeros_like
from ..._creation_ranges import arange, linspace
from ..._ops.sorting import bucketize
from ..._quantized import per_channel_affine, per_channel_affine_float_qparams, per_channel_symmetric, \
    per_tensor_affine, per_tensor_symmetric
from ..._missing import module_getattr
from ...nn.modules.module import Module

__all__ = ["ObserverBase", "UniformQuantizationObserverBase", "MinMaxObserver", "MovingAverageMinMaxObserver",
           "PerChannelMinMaxObserver", "MovingAveragePerChannelMinMaxObserver", "HistogramObserver",
           "PlaceholderObserver", "NoopObserver", "default_observer", "default_weight_observer",
           "default_per_channel_weight_observer", "default_histogram_observer", "default_placeholder_observer",
           "default_dynamic_quant_observer", "default_float_qparams_observer", "default_debug_observer",
           "weight_observer_range_neg_127_to_127", "per_channel_weight_observer_range_neg_127_to_127",
           "get_observer_state_dict", "load_observer_state_dict", "calculate_qmin_qmax"]


class _PartialWrapper:
    """What ``Observer.with_args(...)`` returns: a constructor with some keyword arguments bound (torch's)."""

    def __init__(self, p):
        self.p = p
        self.callable_args = {}

    def __call__(self, *args, **keywords):
        for arg_name in self.callable_args:
            if arg_name not in keywords:
                keywords = {**keywords, arg_name: self.callable_args[arg_name]()}
        return self.p(*args, **keywords)

    def __repr__(self):
        return self.p.__repr__() + self.callable_args.__repr__()

    def with_args(self, **kwargs):
        return _with_args(self, **kwargs)

    def with_callable_args(self, **kwargs):
        result = _PartialWrapper(p=self.p)
        result.callable_args = {**self.callable_args, **kwargs}
        return result


def _with_args(cls_or_self, **kwargs):
    return _PartialWrapper(partial(cls_or_self, **kwargs))


def _with_callable_args(cls_or_self, **kwargs):
    return _PartialWrapper(partial(cls_or_self)).with_callable_args(**kwargs)


_EPS = float(np.finfo(np.float32).eps)


def calculate_qmin_qmax(quant_min, quant_max, has_customized_qrange, dtype, reduce_range):
    """The integer range an observer quantizes to (torch.ao.quantization.utils.calculate_qmin_qmax)."""
    if has_customized_qrange:
        if reduce_range:
            quant_min, quant_max = quant_min // 2, quant_max // 2
        return quant_min, quant_max
    if dtype in (_dtype.qint8, _dtype.int8):
        return (-64, 63) if reduce_range else (-128, 127)
    if dtype in (_dtype.quint8, _dtype.uint8):
        return (0, 127) if reduce_range else (0, 255)
    if dtype in (_dtype.qint32, _dtype.int32):
        return -1 * (2 ** 31), (2 ** 31) - 1
    if dtype is _dtype.int16:
        return -(2 ** 15), 2 ** 15 - 1
    return 0, 15


class ObserverBase(Module):
    """Base of the observers: ``forward`` records statistics, ``calculate_qparams`` turns them into qparams."""

    def __init__(self, dtype, is_dynamic=False):
        super().__init__()
        self.dtype = dtype
        self.is_dynamic = is_dynamic

    def forward(self, x):
        raise NotImplementedError

    def calculate_qparams(self, **kwargs):
        raise NotImplementedError

    with_args = classmethod(_with_args)
    with_callable_args = classmethod(_with_callable_args)


_PER_TENSOR = (per_tensor_affine, per_tensor_symmetric)
_PER_CHANNEL = (per_channel_affine, per_channel_symmetric, per_channel_affine_float_qparams)


class UniformQuantizationObserverBase(ObserverBase):
    """The observers that map a float range ``[min_val, max_val]`` to an integer range uniformly."""

    _version = 3

    def __init__(self, dtype=_dtype.quint8, qscheme=per_tensor_affine, reduce_range=False, quant_min=None,
                 quant_max=None, factory_kwargs=None, eps=_EPS, is_dynamic=False, **kwargs):
        super().__init__(dtype=dtype, is_dynamic=is_dynamic, **kwargs)
        self.qscheme = qscheme
        if reduce_range:
            warnings.warn("Please use quant_min and quant_max to specify the range for observers.                     "
                          "reduce_range will be deprecated in a future release of PyTorch.", stacklevel=2)
        self.reduce_range = reduce_range
        self.register_buffer("eps", tensor([eps]))
        if self.qscheme not in _PER_TENSOR + _PER_CHANNEL:
            raise AssertionError("Default Observer only works for per_tensor_affine, per_tensor_symmetric, "
                                 "per_channel_affine, per_channel_symmetric and per_channel_float_qparams "
                                 "quantization scheme")
        self.has_customized_qrange = quant_min is not None and quant_max is not None
        if self.has_customized_qrange:
            if not quant_min <= 0 <= quant_max:
                raise AssertionError("Used-specified quantization range must include 0.")
            if quant_min >= quant_max:
                raise AssertionError("qmin must be strictly less than qmax for user-specified quantization range.")
        self.quant_min, self.quant_max = calculate_qmin_qmax(quant_min, quant_max, self.has_customized_qrange,
                                                             self.dtype, self.reduce_range)

    def _calculate_qparams(self, min_val, max_val):
        """torch's scale and zero point for the range ``[min_val, max_val]`` (tensors, per tensor or channel)."""
        if min_val.numel() == 0 or max_val.numel() == 0 or (min_val.dim() == 0 and float(min_val) == float("inf")
                                                             and float(max_val) == float("-inf")):
            warnings.warn("must run observer before calling calculate_qparams. Returning default values.",
                          stacklevel=2)
            return tensor([1.0]), tensor([0])
        quant_min, quant_max = self.quant_min, self.quant_max
        min_val_neg = min_val.minimum(zeros_like(min_val))
        max_val_pos = max_val.maximum(zeros_like(max_val))
        scale = ones(min_val_neg.size(), dtype=_dtype.float32)
        zero_point = zeros(min_val_neg.size(), dtype=_dtype.int64)
        if self.qscheme in (per_tensor_symmetric, per_channel_symmetric):
            max_val_pos = (-min_val_neg).maximum(max_val_pos)
            scale = max_val_pos / (float(quant_max - quant_min) / 2)
            scale = scale.maximum(self.eps)
            if self.dtype in (_dtype.quint8, _dtype.uint8):
                zero_point = zero_point.new_full(zero_point.size(), (quant_min + quant_max) // 2
                                                 if self.has_customized_qrange else 128)
        elif self.qscheme is per_channel_affine_float_qparams:
            scale = (max_val - min_val) / float(quant_max - quant_min)
            scale = scale.where(scale > self.eps, ones_like(scale))
            zero_point = -1 * min_val / scale
        else:
            scale = (max_val_pos - min_val_neg) / float(quant_max - quant_min)
            scale = scale.maximum(self.eps)
            zero_point = quant_min - (min_val_neg / scale).round().to(_dtype.int32)
            zero_point = zero_point.clamp(quant_min, quant_max)
        if len(scale.shape) == 0:
            scale = tensor([float(scale)], dtype=scale.dtype)
        if len(zero_point.shape) == 0:
            zero_point = tensor([int(zero_point)], dtype=zero_point.dtype)
        return scale, zero_point

    def reset_min_max_vals(self):
        raise NotImplementedError("Cannot reset min/max values in the given observer.")


class MinMaxObserver(UniformQuantizationObserverBase):
    """Qparams from the running minimum and maximum of everything observed."""

    def __init__(self, dtype=_dtype.quint8, qscheme=per_tensor_affine, reduce_range=False, quant_min=None,
                 quant_max=None, factory_kwargs=None, eps=_EPS, is_dynamic=False, **kwargs):
        if qscheme not in _PER_TENSOR:
            raise NotImplementedError("MinMaxObserver's qscheme only support torch.per_tensor_symmetric                "
                                      "     and torch.per_tensor_affine.")
        super().__init__(dtype=dtype, qscheme=qscheme, reduce_range=reduce_range, quant_min=quant_min,
                         quant_max=quant_max, factory_kwargs=factory_kwargs, eps=eps, is_dynamic=is_dynamic, **kwargs)
        self.register_buffer("min_val", tensor(float("inf")))
        self.register_buffer("max_val", tensor(float("-inf")))
        if self.qscheme is per_tensor_symmetric and self.reduce_range and self.dtype is _dtype.quint8:
            raise NotImplementedError("Cannot reduce range for symmetric                                        "
                                      "quantization for quint8")

    def forward(self, x_orig):
        if x_orig.numel() == 0:
            return x_orig
        x = x_orig.detach().to(self.min_val.dtype)
        min_val_cur, max_val_cur = x.aminmax()
        self.min_val.copy_(min_val_cur.minimum(self.min_val))
        self.max_val.copy_(max_val_cur.maximum(self.max_val))
        return x_orig

    def calculate_qparams(self):
        return self._calculate_qparams(self.min_val, self.max_val)

    def extra_repr(self):
        return f"min_val={self.min_val}, max_val={self.max_val}"

    def reset_min_max_vals(self):
        self.min_val.copy_(tensor(float("inf")))
        self.max_val.copy_(tensor(float("-inf")))


class MovingAverageMinMaxObserver(MinMaxObserver):
    """Qparams from exponential moving averages (``averaging_constant``) of each batch's minimum and maximum."""

    def __init__(self, averaging_constant=0.01, dtype=_dtype.quint8, qscheme=per_tensor_affine, reduce_range=False,
                 quant_min=None, quant_max=None, eps=_EPS, is_dynamic=False, **kwargs):
        if qscheme not in _PER_TENSOR:
            raise NotImplementedError("MovingAverageMinMaxObserver's qscheme only support                 "
                                      "torch.per_tensor_symmetric and torch.per_tensor_affine.                 "
                                      f"but got: {qscheme}")
        self.averaging_constant = averaging_constant
        super().__init__(dtype=dtype, qscheme=qscheme, reduce_range=reduce_range, quant_min=quant_min,
                         quant_max=quant_max, eps=eps, is_dynamic=is_dynamic, **kwargs)

    def forward(self, x_orig):
        if x_orig.numel() == 0:
            return x_orig
        x = x_orig.detach().to(self.min_val.dtype)
        min_val, max_val = self.min_val, self.max_val
        if float(min_val) == float("inf") and float(max_val) == float("-inf"):
            min_val, max_val = x.aminmax()
        else:
            min_val_cur, max_val_cur = x.aminmax()
            min_val = min_val + self.averaging_constant * (min_val_cur - min_val)
            max_val = max_val + self.averaging_constant * (max_val_cur - max_val)
        self.min_val.copy_(min_val)
        self.max_val.copy_(max_val)
        return x_orig


class PerChannelMinMaxObserver(UniformQuantizationObserverBase):
    """Qparams per index along ``ch_axis`` from the running minima and maxima (a weight's output channels)."""

    def __init__(self, ch_axis=0, dtype=_dtype.quint8, qscheme=per_channel_affine, reduce_range=False,
                 quant_min=None, quant_max=None, factory_kwargs=None, eps=_EPS, is_dynamic=False, **kwargs):
        if qscheme not in _PER_CHANNEL:
            raise NotImplementedError("PerChannelMinMaxObserver's qscheme only support                     "
                                      "torch.per_channel_symmetric, torch.per_channel_affine and "
                                      "torch.per_channel_affine_float_qparams.")
        if is_dynamic:
            raise NotImplementedError("PerChannelMinMaxObserver doesn't support dynamic quantization")
        super().__init__(dtype=dtype, qscheme=qscheme, reduce_range=reduce_range, quant_min=quant_min,
                         quant_max=quant_max, factory_kwargs=factory_kwargs, eps=eps, is_dynamic=is_dynamic, **kwargs)
        self.ch_axis = ch_axis
        self.register_buffer("min_val", tensor([]))
        self.register_buffer("max_val", tensor([]))
        if self.qscheme is per_channel_symmetric and self.reduce_range and self.dtype is _dtype.quint8:
            raise NotImplementedError("Cannot reduce range for symmetric quantization for quint8")

    def forward(self, x_orig):
        return self._forward(x_orig)

    def _minmax(self, y):
        return y.aminmax(dim=1)

    def _forward(self, x_orig):
        if x_orig.numel() == 0:
            return x_orig
        x = x_orig.detach()
        axes = list(range(x.dim()))
        axes[self.ch_axis], axes[0] = 0, self.ch_axis
        y = x.permute(axes).to(self.min_val.dtype).flatten(start_dim=1)
        min_val, max_val = self.min_val, self.max_val
        if min_val.numel() == 0 or max_val.numel() == 0:
            min_val, max_val = y.aminmax(dim=1)
        else:
            min_val, max_val = self._update(y, min_val, max_val)
        self.min_val = min_val.detach().clone()
        self.max_val = max_val.detach().clone()
        return x_orig

    def _update(self, y, min_val, max_val):
        min_val_cur, max_val_cur = y.aminmax(dim=1)
        return min_val_cur.minimum(min_val), max_val_cur.maximum(max_val)

    def calculate_qparams(self):
        return self._calculate_qparams(self.min_val, self.max_val)

    def extra_repr(self):
        return f"min_val={self.min_val}, max_val={self.max_val}"

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs):
        version = local_metadata.get("version")
        names = ("min_vals", "max_vals") if version is not None and version < 3 else ("min_val", "max_val")
        for name, attr in zip(names, ("min_val", "max_val")):
            key = prefix + name
            if key in state_dict:
                setattr(self, attr, zeros(state_dict[key].shape))
            elif strict:
                missing_keys.append(key)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, False, missing_keys, unexpected_keys,
                                      error_msgs)

    def reset_min_max_vals(self):
        self.min_val = tensor([])
        self.max_val = tensor([])


class MovingAveragePerChannelMinMaxObserver(PerChannelMinMaxObserver):
    """Per-channel qparams from moving averages of each batch's per-channel minima and maxima."""

    def __init__(self, averaging_constant=0.01, ch_axis=0, dtype=_dtype.quint8, qscheme=per_channel_affine,
                 reduce_range=False, quant_min=None, quant_max=None, eps=_EPS, is_dynamic=False, **kwargs):
        if qscheme not in _PER_CHANNEL:
            raise NotImplementedError("MovingAveragePerChannelMinMaxObserver's qscheme only support                "
                                      "     torch.per_channel_symmetric, torch.per_channel_affine and "
                                      "torch.per_channel_affine_float_qparams.")
        super().__init__(ch_axis=ch_axis, dtype=dtype, qscheme=qscheme, reduce_range=reduce_range,
                         quant_min=quant_min, quant_max=quant_max, eps=eps, is_dynamic=is_dynamic, **kwargs)
        self.averaging_constant = averaging_constant

    def _update(self, y, min_val, max_val):
        min_val_cur, max_val_cur = y.aminmax(dim=1)
        return (min_val + self.averaging_constant * (min_val_cur - min_val),
                max_val + self.averaging_constant * (max_val_cur - max_val))


class HistogramObserver(UniformQuantizationObserverBase):
    """Qparams that minimise the quantization error of a histogram (``bins``) of everything observed: torch's
    search over the histogram's clipped ranges, op for op."""

    def __init__(self, bins=2048, dtype=_dtype.quint8, qscheme=per_tensor_affine, reduce_range=False, quant_min=None,
                 quant_max=None, factory_kwargs=None, eps=_EPS, is_dynamic=False, **kwargs):
        if qscheme not in _PER_TENSOR:
            raise NotImplementedError("HistogramObserver's qscheme only support torch.per_tensor_symmetric         "
                                      "            and torch.per_tensor_affine.")
        if is_dynamic:
            raise NotImplementedError("HistogramObserver doesn't support dynamic quantization")
        super().__init__(dtype=dtype, qscheme=qscheme, reduce_range=reduce_range, quant_min=quant_min,
                         quant_max=quant_max, factory_kwargs=factory_kwargs, eps=eps, is_dynamic=is_dynamic, **kwargs)
        self.bins = bins
        self.register_buffer("histogram", zeros(self.bins))
        self.register_buffer("min_val", tensor(float("inf")))
        self.register_buffer("max_val", tensor(float("-inf")))
        self.dst_nbins = 2 ** (32 if dtype in (_dtype.qint32, _dtype.int32) else 8)
        self.upsample_rate = 16

    def _get_norm(self, delta_begin, delta_end, density):
        norm = (delta_end * delta_end * delta_end - delta_begin * delta_begin * delta_begin) / 3
        return density * norm

    def _compute_quantization_error(self, next_start_bin, next_end_bin):
        bin_width = (self.max_val.item() - self.min_val.item()) / self.bins
        dst_bin_width = bin_width * (next_end_bin - next_start_bin + 1) / self.dst_nbins
        if dst_bin_width == 0.0:
            return 0.0
        src_bin = arange(self.bins)
        src_bin_begin = (src_bin - next_start_bin) * bin_width
        src_bin_end = src_bin_begin + bin_width
        dst_bin_of_begin = src_bin_begin.div(dst_bin_width, rounding_mode="floor").clamp(0, self.dst_nbins - 1)
        dst_bin_of_begin_center = (dst_bin_of_begin + 0.5) * dst_bin_width
        dst_bin_of_end = src_bin_end.div(dst_bin_width, rounding_mode="floor").clamp(0, self.dst_nbins - 1)
        density = self.histogram / bin_width
        norm = zeros(self.bins)
        delta_begin = src_bin_begin - dst_bin_of_begin_center
        delta_end = dst_bin_width / 2
        norm += self._get_norm(delta_begin, ones(self.bins) * delta_end, density)
        norm += (dst_bin_of_end - dst_bin_of_begin - 1) * self._get_norm(tensor(-dst_bin_width / 2),
                                                                          tensor(dst_bin_width / 2), density)
        dst_bin_of_end_center = dst_bin_of_end * dst_bin_width + dst_bin_width / 2
        delta_begin = -dst_bin_width / 2
        delta_end = src_bin_end - dst_bin_of_end_center
        norm += self._get_norm(tensor(delta_begin), delta_end, density)
        return norm.sum().item()

    def _non_linear_param_search(self):
        if self.histogram.size()[0] != self.bins:
            raise AssertionError("bins mismatch")
        bin_width = (self.max_val - self.min_val) / self.bins
        total = self.histogram.sum().item()
        # (torch compares float32 elements of the cumulative sum with Python floats rounded to float32: the same
        # comparisons on the host)
        c_sum = np.asarray(self.histogram.cumsum(dim=0).numpy(), np.float32)
        stepsize, alpha, beta = 1e-5, 0.0, 1.0
        start_bin, end_bin = 0, self.bins - 1
        norm_min = float("inf")
        while alpha < beta:
            next_alpha, next_beta = alpha + stepsize, beta - stepsize
            left, right = start_bin, end_bin
            lo, hi = np.float32(next_alpha * total), np.float32(next_beta * total)
            while left < end_bin and c_sum[left] < lo:
                left = left + 1
            while right > start_bin and c_sum[right] > hi:
                right = right - 1
            next_start_bin, next_end_bin = start_bin, end_bin
            if left - start_bin > end_bin - right:
                next_start_bin, alpha = left, next_alpha
            else:
                next_end_bin, beta = right, next_beta
            if next_start_bin == start_bin and next_end_bin == end_bin:
                continue
            norm = self._compute_quantization_error(next_start_bin, next_end_bin)
            if norm > norm_min:
                break
            norm_min = norm
            start_bin, end_bin = next_start_bin, next_end_bin
        return self.min_val + bin_width * start_bin, self.min_val + bin_width * (end_bin + 1)

    def _upscale_histogram(self, histogram, orig_min, orig_max, update_min, update_max):
        histogram = histogram.repeat_interleave(self.upsample_rate) / self.upsample_rate
        bin_size = (orig_max - orig_min) / (self.bins * self.upsample_rate)
        mid_points_histogram = linspace(orig_min, orig_max, self.bins * self.upsample_rate + 1)[:-1] + 0.5 * bin_size
        boundaries_new_histogram = linspace(update_min, update_max, self.bins + 1)
        bucket_assignments = bucketize(mid_points_histogram, boundaries_new_histogram, right=True) - 1
        bucket_assignments = bucket_assignments.clamp(0, self.bins - 1)
        return bucket_assignments.bincount(weights=histogram, minlength=self.bins)

    def _combine_histograms(self, orig_hist, orig_min, orig_max, update_hist, update_min, update_max):
        if bool(update_min == orig_min) and bool(update_max == orig_max):
            return orig_hist + update_hist
        if bool(orig_min == orig_max):
            bin_value = orig_hist.sum()
            transformed = orig_min.histc(bins=self.bins, min=update_min, max=update_max) * bin_value
            return transformed + update_hist
        transformed = self._upscale_histogram(orig_hist, orig_min, orig_max, update_min, update_max)
        return update_hist + transformed

    def reset_histogram(self, x, min_val, max_val):
        self.min_val.copy_(min_val)
        self.max_val.copy_(max_val)
        self.histogram.copy_(x.histc(self.bins, min=min_val.item(), max=max_val.item()))

    def forward(self, x_orig):
        if x_orig.numel() == 0:
            return x_orig
        x = x_orig.detach()
        x_min, x_max = x.aminmax()
        if float(x_min) == float("-inf") or float(x_max) == float("inf"):
            warnings.warn("torch.inf detected in input tensor, ignoring input", stacklevel=2)
            x = x[x.abs() != float("inf")]
            if x.numel() == 0:
                return x_orig
            x_min, x_max = x.aminmax()
        current_min, current_max = self.min_val, self.max_val
        if float(current_min) == float("inf") or float(current_max) == float("-inf"):
            self.reset_histogram(x, x_min, x_max)
            return x_orig
        new_min, new_max = current_min.minimum(x_min).detach(), current_max.maximum(x_max).detach()
        update_histogram = x.histc(self.bins, min=new_min.item(), max=new_max.item())
        if bool(new_min == current_min) and bool(new_max == current_max):
            self.histogram.copy_(self.histogram + update_histogram)
        else:
            combined = self._combine_histograms(self.histogram, current_min, current_max, update_histogram,
                                                new_min, new_max)
            self.histogram.copy_(combined)
            self.min_val.copy_(new_min)
            self.max_val.copy_(new_max)
        return x_orig

    def calculate_qparams(self):
        if float(self.min_val) == float("inf") and float(self.max_val) == float("-inf"):
            warnings.warn("must run observer before calling calculate_qparams.                                    "
                          "Returning default scale and zero point ", stacklevel=2)
            return tensor([1.0]), tensor([0])
        if self.bins != len(self.histogram):
            raise AssertionError("The number of bins in histogram should be equal to the number of bins supplied "
                                 "while making this observer")
        new_min, new_max = self._non_linear_param_search()
        return self._calculate_qparams(new_min, new_max)

    def extra_repr(self):
        return f"min_val={self.min_val}, max_val={self.max_val}"


class PlaceholderObserver(ObserverBase):
    """Observes nothing; records the dtype (and scheme) a tensor is to be quantized to (dynamic quantization)."""

    def __init__(self, dtype=_dtype.float32, custom_op_name="", compute_dtype=None, quant_min=None, quant_max=None,
                 qscheme=None, eps=None, is_dynamic=False):
        super().__init__(dtype=dtype, is_dynamic=is_dynamic)
        if qscheme is None:
            qscheme = per_tensor_affine
        if eps is None:
            eps = _EPS
        self.dtype, self.qscheme, self.quant_min, self.quant_max = dtype, qscheme, quant_min, quant_max
        self.eps, self.custom_op = eps, custom_op_name

    def forward(self, x):
        return x

    def extra_repr(self):
        return f"dtype={self.dtype}, is_dynamic={self.is_dynamic}"

    def calculate_qparams(self):
        raise Exception("calculate_qparams should not be called for PlaceholderObserver")  # noqa: TRY002


class NoopObserver(ObserverBase):
    """Observes nothing (the float16 weights' observer)."""

    def __init__(self, dtype=_dtype.float16, custom_op_name=""):
        super().__init__(dtype=dtype)
        self.dtype, self.custom_op = dtype, custom_op_name

    def forward(self, x):
        return x

    def calculate_qparams(self):
        raise Exception("calculate_qparams should not be called for NoopObserver")  # noqa: TRY002


default_observer = MinMaxObserver.with_args(quant_min=0, quant_max=127)
default_placeholder_observer = PlaceholderObserver
default_debug_observer = None  # (RecordingObserver: not modelled)
default_weight_observer = MinMaxObserver.with_args(dtype=_dtype.qint8, qscheme=per_tensor_symmetric)
weight_observer_range_neg_127_to_127 = MinMaxObserver.with_args(dtype=_dtype.qint8, qscheme=per_tensor_symmetric,
                                                                 quant_min=-127, quant_max=127, eps=2 ** -12)
default_histogram_observer = HistogramObserver.with_args(quant_min=0, quant_max=127)
default_per_channel_weight_observer = PerChannelMinMaxObserver.with_args(dtype=_dtype.qint8,
                                                                         qscheme=per_channel_symmetric)
per_channel_weight_observer_range_neg_127_to_127 = PerChannelMinMaxObserver.with_args(
    dtype=_dtype.qint8, qscheme=per_channel_symmetric, quant_min=-127, quant_max=127, eps=2 ** -12)
default_dynamic_quant_observer = PlaceholderObserver.with_args(dtype=_dtype.quint8, quant_min=0, quant_max=255,
                                                               is_dynamic=True)
default_float_qparams_observer = PerChannelMinMaxObserver.with_args(dtype=_dtype.quint8,
                                                                    qscheme=per_channel_affine_float_qparams,
                                                                    ch_axis=0)


def get_observer_state_dict(mod):
    """The entries of ``mod.state_dict()`` that belong to observers and fake quantizers."""
    from collections import OrderedDict
    return OrderedDict((k, v) for k, v in mod.state_dict().items()
                       if "activation_post_process" in k or "observer" in k)


def load_observer_state_dict(mod, obs_dict):
    """Load observer state (from ``get_observer_state_dict``) into the observers of ``mod``."""
    missing, unexpected = [], []
    for name, module in mod.named_modules():
        prefix = name + "."
        if isinstance(module, ObserverBase):
            module._load_from_state_dict(obs_dict, prefix, {}, False, missing, unexpected, [])
    for k in missing:
        if "observer" in k or "activation_post_process" in k:
            raise Exception(f"Missing keys for observer {k} in state_dict")  # noqa: TRY002


__getattr__ = module_getattr("torch.ao.quantization.observer")
