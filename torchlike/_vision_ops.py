"""The ``torch.ops.torchvision`` operators, for torchvision running on torchlike.

torchvision ships its detection operators (``nms``, ``roi_align``, ...) in a compiled torch extension
(``torchvision/_C.so``) that it loads with ``torch.ops.load_library``. torchlike cannot load compiled torch
extensions; when torchvision asks for its own ``_C``, :func:`torchlike.library` registers these operators
instead, under the same names and signatures, so ``torchvision.ops.nms``/``roi_align``/``batched_nms`` and
the models that use them work. ``nms`` and ``roi_align`` (forward and backward) are implemented on the host
(NumPy, following torchvision's CPU kernels); the other operators raise a NotImplementedError that names them.

>>> import torchlike
>>> from torchlike import _vision_ops
>>> _vision_ops.register()
>>> boxes = torchlike.tensor([[0., 0., 10., 10.], [1., 1., 11., 11.], [20., 20., 30., 30.]])
>>> torchlike.ops.torchvision.nms(boxes, torchlike.tensor([0.9, 0.8, 0.7]), 0.5)
tensor([0, 2])
"""
from __future__ import annotations

import math

import numpy as np

__all__ = ["register"]

_registered = False

# operators of torchvision's _C that torchlike does not implement (each raises naming itself)
_MISSING = ("roi_pool", "_roi_pool_backward", "ps_roi_align", "_ps_roi_align_backward", "ps_roi_pool",
            "_ps_roi_pool_backward", "deform_conv2d", "_deform_conv2d_backward", "qnms", "qroi_align",
            "box_iou_rotated")


def _host(t):
    return np.asarray(t.detach()._value)


def _out(a, like=None):
    import torchlike  # lazy: the kernels build tensors; this module is imported only when torchvision loads
    return torchlike.from_numpy(np.ascontiguousarray(a))


def nms(dets, scores, iou_threshold):
    """Greedy non-maximum suppression: indices of the kept boxes, highest score first (int64)."""
    if dets.dim() != 2 or dets.size(1) != 4:
        raise RuntimeError(f"boxes should be a 2d tensor, got {dets.dim()}D" if dets.dim() != 2 else
                           f"boxes should have 4 elements in dimension 1, got {dets.size(1)}")
    if scores.dim() != 1:
        raise RuntimeError(f"scores should be a 1d tensor, got {scores.dim()}D")
    if dets.size(0) != scores.size(0):
        raise RuntimeError("boxes and scores should have same number of elements in dimension 0, got "
                           f"{dets.size(0)} and {scores.size(0)}")
    if dets.dtype != scores.dtype:
        raise RuntimeError("dets should have the same type as scores")
    d, s = _host(dets), _host(scores)
    if d.shape[0] == 0:
        return _out(np.zeros((0,), np.int64))
    x1, y1, x2, y2 = d[:, 0], d[:, 1], d[:, 2], d[:, 3]
    areas = (x2 - x1) * (y2 - y1)
    order = np.argsort(-s, kind="stable")
    suppressed = np.zeros(d.shape[0], bool)
    keep = []
    thr = s.dtype.type(iou_threshold) if s.dtype.kind == "f" else iou_threshold
    for _i, i in enumerate(order):
        if suppressed[i]:
            continue
        keep.append(i)
        rest = order[_i + 1:]
        rest = rest[~suppressed[rest]]
        if rest.size == 0:
            continue
        w = np.maximum(np.minimum(x2[i], x2[rest]) - np.maximum(x1[i], x1[rest]), 0)
        h = np.maximum(np.minimum(y2[i], y2[rest]) - np.maximum(y1[i], y1[rest]), 0)
        inter = w * h
        ovr = inter / (areas[i] + areas[rest] - inter)
        suppressed[rest[ovr > thr]] = True
    return _out(np.asarray(keep, np.int64))


def _axis_weights(start, bin_size, grid, pooled, size, dtype):
    """(pooled, size) matrix: the summed bilinear weights of one ROI's sample points along one axis."""
    out = np.zeros((pooled, size), dtype)
    p = np.arange(pooled, dtype=dtype)[:, None]
    i = np.arange(grid, dtype=dtype)[None, :]
    c = start + p * bin_size + (i + dtype.type(0.5)) * bin_size / dtype.type(grid)  # (pooled, grid)
    valid = (c >= -1.0) & (c <= size)
    c = np.where(c <= 0, dtype.type(0), c)
    low = np.floor(c).astype(np.int64)
    at_end = low >= size - 1
    low = np.where(at_end, size - 1, low)
    high = np.where(at_end, size - 1, low + 1)
    c = np.where(at_end, low.astype(dtype), c)
    lw = c - low
    hw = dtype.type(1) - lw
    rows = np.broadcast_to(np.arange(pooled)[:, None], c.shape)
    np.add.at(out, (rows[valid], low[valid]), hw[valid])
    np.add.at(out, (rows[valid], high[valid]), lw[valid])
    return out


def _roi_geometry(roi, spatial_scale, ph, pw, sampling_ratio, aligned, dtype):
    offset = dtype.type(0.5) if aligned else dtype.type(0)
    sw, sh, ew, eh = (roi[1:] * dtype.type(spatial_scale) - offset)
    rw, rh = ew - sw, eh - sh
    if not aligned:
        rw, rh = max(rw, dtype.type(1)), max(rh, dtype.type(1))
    gh = sampling_ratio if sampling_ratio > 0 else int(math.ceil(rh / ph))
    gw = sampling_ratio if sampling_ratio > 0 else int(math.ceil(rw / pw))
    count = max(gh * gw, 1)
    return sh, sw, rh / dtype.type(ph), rw / dtype.type(pw), gh, gw, count


def roi_align(input, rois, spatial_scale, pooled_height, pooled_width, sampling_ratio, aligned):
    """RoIAlign forward: (K, C, pooled_height, pooled_width) bilinear averages of each box's bins."""
    if rois.dim() != 2 or rois.size(1) != 5:
        raise RuntimeError("rois must have shape as Tensor[K, 5]")
    if input.dtype != rois.dtype:
        raise RuntimeError("Expected tensor for input to have the same type as tensor for rois; but type "
                           f"{input.dtype} does not equal {rois.dtype}")
    x, r = _host(input), _host(rois)
    dtype = x.dtype
    n, c, h, w = x.shape
    out = np.zeros((r.shape[0], c, pooled_height, pooled_width), dtype)
    for k in range(r.shape[0]):
        sh, sw, bh, bw, gh, gw, count = _roi_geometry(r[k], spatial_scale, pooled_height, pooled_width,
                                                      sampling_ratio, aligned, dtype)
        ay = _axis_weights(sh, bh, gh, pooled_height, h, dtype)
        ax = _axis_weights(sw, bw, gw, pooled_width, w, dtype)
        out[k] = np.einsum("ph,chw,qw->cpq", ay, x[int(r[k, 0])], ax) / dtype.type(count)
    return _out(out)


def _roi_align_backward(grad, rois, spatial_scale, pooled_height, pooled_width, batch_size, channels, height,
                        width, sampling_ratio, aligned):
    """RoIAlign backward: the input gradient, each output bin's gradient spread over its sample points."""
    g, r = _host(grad), _host(rois)
    dtype = g.dtype
    out = np.zeros((batch_size, channels, height, width), dtype)
    for k in range(r.shape[0]):
        sh, sw, bh, bw, gh, gw, count = _roi_geometry(r[k], spatial_scale, pooled_height, pooled_width,
                                                      sampling_ratio, aligned, dtype)
        ay = _axis_weights(sh, bh, gh, pooled_height, height, dtype)
        ax = _axis_weights(sw, bw, gw, pooled_width, width, dtype)
        out[int(r[k, 0])] += np.einsum("ph,cpq,qw->chw", ay, g[k], ax) / dtype.type(count)
    return _out(out)


def _cuda_version():
    return -1  # what a CPU build of torchvision answers


def _missing(name):
    def kernel(*args, **kwargs):
        raise NotImplementedError(f"torchvision::{name} is not implemented by torchlike (torchvision's compiled "
                                  "operator); see docs/differences.md")
    kernel.__name__ = name
    return kernel


def register():
    """Define the ``torchvision::*`` operators in :mod:`torchlike.library` (once)."""
    global _registered
    if _registered:
        return
    from .library import CustomOpDef  # lazy: library imports the autograd layer
    for name, fn in (("nms", nms), ("roi_align", roi_align), ("_roi_align_backward", _roi_align_backward),
                     ("_cuda_version", _cuda_version)):
        CustomOpDef("torchvision", name, None, fn)
    for name in _MISSING:
        CustomOpDef("torchvision", name, None, _missing(name))
    _registered = True
