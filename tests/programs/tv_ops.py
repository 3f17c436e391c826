"""torchvision.ops on both sides: box utilities (pure Python), nms/batched_nms and roi_align (forward and input
gradient). Where torchvision's compiled operators are loaded (torchlike answers them with its own kernels) the
program calls them; where they are not (a CUDA-built torchvision on CPU-only torch) it computes the same values
with torchvision's pure-Python roi_align and a greedy NMS written with torch ops — so the printed lines compare
torchlike's kernels with torch-computed references."""
import importlib.util
import os

import numpy as np
import torch


def _ops_for_cpu_torch():
    lib_path = os.path.join(os.path.dirname(importlib.util.find_spec("torchvision").origin), "_C.so")
    try:
        torch.ops.load_library(lib_path)
        return None
    except OSError:  # see tv_resnet_train.py
        lib = torch.library.Library("torchvision", "DEF")
        lib.define("nms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")
        lib.define("qnms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")
        return lib


_LIB = _ops_for_cpu_torch()

import torchvision  # noqa: E402
from torchvision import ops  # noqa: E402
from torchvision.ops.roi_align import _roi_align  # noqa: E402

HAS_OPS = torchvision.extension._has_ops()


def greedy_nms(boxes, scores, thr):
    order = torch.sort(scores, descending=True, stable=True).indices.tolist()
    iou = ops.box_iou(boxes, boxes)
    keep, dead = [], set()
    for i in order:
        if i in dead:
            continue
        keep.append(i)
        dead.update(j for j in order if iou[i, j] > thr)
    return keep


rng = np.random.default_rng(0)
xy = rng.uniform(0, 40, (30, 2)).astype(np.float32)
wh = rng.uniform(2, 20, (30, 2)).astype(np.float32)
boxes = torch.from_numpy(np.concatenate([xy, xy + wh], 1))
scores = torch.from_numpy(rng.uniform(0, 1, 30).astype(np.float32))
idxs = torch.from_numpy(rng.integers(0, 3, 30))

print("box_area", [round(v, 3) for v in ops.box_area(boxes)[:4].tolist()])
print("box_iou", round(float(ops.box_iou(boxes, boxes).sum()), 4))
print("generalized_box_iou", round(float(ops.generalized_box_iou(boxes[:5], boxes[5:10]).sum()), 4))
print("box_convert", [round(v, 3) for v in ops.box_convert(boxes[:2], "xyxy", "cxcywh").flatten().tolist()])
print("clip", round(float(ops.clip_boxes_to_image(boxes, (32, 36)).sum()), 3))
print("remove_small", ops.remove_small_boxes(boxes, 10.0).tolist())
for thr in (0.1, 0.3, 0.7):
    keep = ops.nms(boxes, scores, thr).tolist() if HAS_OPS else greedy_nms(boxes, scores, thr)
    print("nms", thr, keep)
if HAS_OPS:
    kept = ops.batched_nms(boxes, scores, idxs, 0.3).tolist()
else:
    off = boxes + (idxs.to(boxes.dtype) * (boxes.max() + 1))[:, None]
    kept = greedy_nms(off, scores, 0.3)
print("batched_nms", kept)

feat = torch.from_numpy(rng.standard_normal((2, 3, 12, 14)).astype(np.float32))
rois = torch.tensor([[0, 1.0, 1.5, 9.0, 10.0], [1, 0.0, 0.0, 13.0, 11.0], [0, 4.2, 3.3, 6.1, 5.0],
                     [1, 0.5, 1.0, 12.0, 10.5]])
# boxes inside the feature map: there torchvision's pure-Python roi_align agrees with its C++ kernel (outside,
# the C++ kernel drops samples beyond the border and the Python one does not); fixed sampling ratios (the
# Python version's adaptive ratio is very slow)
for scale, ph, pw, ratio, aligned in [(1.0, 3, 3, 2, False), (0.5, 2, 4, 1, True), (1.0, 4, 2, 3, False),
                                      (0.75, 5, 5, 2, True)]:
    x = feat.clone().requires_grad_(True)
    if HAS_OPS:
        out = ops.roi_align(x, rois, (ph, pw), scale, ratio, aligned)
    else:
        out = _roi_align(x, rois, scale, ph, pw, ratio, aligned)
    (out * torch.linspace(-1, 1, out.numel()).reshape(out.shape)).sum().backward()
    out = out.detach()
    print("roi_align", (scale, ph, pw, ratio, aligned), tuple(out.shape), round(float(out.sum()), 4),
          [round(v, 4) for v in out.flatten()[:3].tolist()], "grad", round(float(x.grad.abs().sum()), 4),
          [round(v, 4) for v in x.grad[1, 2, 3, 2:6].tolist()])
