"""``Tensor._make_wrapper_subclass`` (a mixin of ``Tensor``, layer 1: imports layer 0 only): tensors of a subclass
with its own ``__torch_dispatch__`` that carry metadata and no storage, and the registration of such classes
(``_profiler_state.SUBCLASSES``), after which their instances' ops go to ``__torch_dispatch__``
(torchlike/utils/_subclass_dispatch.py)."""
from __future__ import annotations

import numpy as np

from . import _dtype, _views
from . import _profiler_state as _prof
from ._device import CPU, canonical

__all__ = ["TensorWrapper", "NoData", "note_dispatch"]

_MSG = ("torchlike: a tensor made by torch.Tensor._make_wrapper_subclass holds no data of its own; this reads its "
        "values without going through its __torch_dispatch__ (see docs/differences.md)")


class NoData:
    """What a wrapper subclass instance holds instead of an array: its shape and dtype; reading values raises."""
    __slots__ = ("shape", "dtype", "ndim", "size")

    def __init__(self, shape, np_dtype):
        self.shape, self.dtype, self.ndim = shape, np_dtype, len(shape)
        n = 1
        for s in shape:
            n *= s
        self.size = n

    def __array__(self, *args, **kwargs):
        raise RuntimeError(_MSG)

    def __jax_array__(self):
        raise RuntimeError(_MSG)

    def __getattr__(self, name):
        raise RuntimeError(_MSG)


def note_dispatch(cls):
    """Route the ops on ``cls``'s instances to its ``__torch_dispatch__`` from now on, if it defines one."""
    if cls not in _prof.SUBCLASSES and getattr(cls, "__torch_dispatch__", None) is not None:
        if _prof.SUBCLASS_HANDLER[0] is None:
            _prof.SUBCLASS_LOADER[0]()  # (torch.utils._python_dispatch, on first use)
        _prof.SUBCLASSES.add(cls)
        _prof.SUBCLASS_HANDLER[0].register(cls)


class TensorWrapper:
    @staticmethod
    def _make_wrapper_subclass(cls, size, strides=None, storage_offset=None, memory_format=None, dtype=None,
                               layout=None, device=None, pin_memory=False, requires_grad=False,
                               dispatch_sizes_strides_policy=None, dispatch_device=False, dispatch_layout=False,
                               _extra_dispatch_keys=None, storage_size=None):
        """``torch.Tensor._make_wrapper_subclass``: a tensor of type ``cls`` with metadata only (``size``,
        ``strides``, ``dtype``, ``device``, ``requires_grad``) and no storage; every op on it goes to
        ``cls.__torch_dispatch__``, which computes with what it wraps.

        >>> import torchlike
        >>> class Meta(torchlike.Tensor):
        ...     @classmethod
        ...     def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
        ...         return NotImplemented
        >>> w = torchlike.Tensor._make_wrapper_subclass(Meta, (2, 3), dtype=torchlike.float16)
        >>> w.shape, w.dtype, w.stride()
        (torch.Size([2, 3]), torch.float16, (3, 1))
        """
        dt = _dtype.get_default_dtype() if dtype is None else _dtype.to_dtype(dtype)
        shape = tuple(int(n) for n in size)
        t = cls._wrap(NoData(shape, np.dtype(dt.np)), CPU if device is None else canonical(device))
        t._rereads = True  # (no lazy view of it: each view goes to __torch_dispatch__)
        if strides is not None:
            st = tuple(int(n) for n in strides)
            if st != _views.contiguous_strides(shape):
                t._st = st
        if requires_grad:
            t._as_grad_leaf()
        note_dispatch(cls)
        return t
