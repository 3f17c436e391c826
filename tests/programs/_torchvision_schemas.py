"""Imported first by the programs that import torchvision (or a library that does: timm, open_clip, vit-pytorch),
so that they run under real torch as well as under ``python -m torchlike run``.

The torchvision wheel on this package index is a CUDA build: its compiled operators (``_C.so``) cannot load
with the CPU-only torch, and torchvision's import then fails where its shape functions name the operators that
library would have defined. ``load_or_define()`` defines those two schemas when the load fails; under torchlike
the load succeeds (torchlike answers torchvision's ``_C`` with its own operators). Keep the returned library
alive for as long as the program runs.
"""
import importlib.util
import os

import torch


def load_or_define():
    """Load torchvision's compiled operators, or define the schemas its import needs; the Library or None."""
    lib_path = os.path.join(os.path.dirname(importlib.util.find_spec("torchvision").origin), "_C.so")
    try:
        torch.ops.load_library(lib_path)
        return None
    except OSError:
        lib = torch.library.Library("torchvision", "DEF")
        lib.define("nms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")
        lib.define("qnms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")
        return lib
