"""torch.utils._foreach_utils: grouping tensor lists by device and dtype before a foreach update, and which
devices have foreach / fused optimizer kernels (what optimizer libraries check before taking their
``torch._foreach_*`` path).

>>> import torchlike
>>> from torchlike.utils._foreach_utils import _group_tensors_by_device_and_dtype, _has_foreach_support
>>> p = [torchlike.zeros(2), torchlike.zeros(3)]
>>> [idx for _, idx in _group_tensors_by_device_and_dtype([p], with_indices=True).values()]
[[0, 1]]
>>> _has_foreach_support(p, torchlike.device("cpu"))
True
"""
from __future__ import annotations

from .. import _C
from .._grad_mode import no_grad
from ..tensor import Tensor

_foreach_supported_types = [Tensor]


def _get_foreach_kernels_supported_devices() -> list[str]:
    """The device types with foreach kernels (torch's list; "cpu" has the per-tensor fallback)."""
    return ["cuda", "xpu", "mtia", _C._get_privateuse1_backend_name()]


def _get_fused_kernels_supported_devices() -> list[str]:
    """The device types whose optimizers accept ``fused=True`` (torch's list)."""
    return ["mps", "cuda", "xpu", "hpu", "cpu", "mtia", _C._get_privateuse1_backend_name()]


@no_grad()
def _group_tensors_by_device_and_dtype(tensorlistlist, with_indices: bool = False):
    """``{(device, dtype): (tensor lists, indices)}`` of the parallel lists ``tensorlistlist``
    (see ``torch._C._group_tensors_by_device_and_dtype``)."""
    return _C._group_tensors_by_device_and_dtype(tensorlistlist, with_indices)


def _device_has_foreach_support(device) -> bool:
    """Whether ``device`` takes the foreach path (never while scripting: torchlike does not script)."""
    return device.type in _get_foreach_kernels_supported_devices() + ["cpu"]


def _has_foreach_support(tensors, device) -> bool:
    """Whether ``tensors`` (plain Tensors or None, not subclasses) on ``device`` take the foreach path."""
    return _device_has_foreach_support(device) and all(t is None or type(t) in _foreach_supported_types
                                                       for t in tensors)
