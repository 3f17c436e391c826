"""Conversions of ``nn.Module``: ``to``, ``cuda``/``cpu``, ``float``/``double``/``half``..., ``_apply``.

Every conversion goes through ``_apply``, which converts each parameter, gradient and buffer and keeps
parameters' identity.  ``to`` reads its arguments with the parser ``Tensor.to`` uses (``_to_args``).
``nn.Module`` takes these methods from :class:`_ModuleConversions`.

>>> import torchlike as torch
>>> bn = torch.nn.BatchNorm1d(2).double()
>>> bn.weight.dtype, bn.num_batches_tracked.dtype
(torch.float64, torch.int64)
"""
from __future__ import annotations

import warnings

from ..._creation import empty_like
from ..._to_args import parse_to
from ...autograd import grad_mode
from ...tensor import Tensor
from ..parameter import is_lazy
from ._module_state import _ISSUE_URL

__all__: list = []


def _float_only(method):
    """Casts that leave integer/bool tensors alone (Module.float/double/half/bfloat16)."""
    return lambda t: getattr(t, method)() if t.is_floating_point() else t


class _ModuleConversions:
    """The conversion methods of ``nn.Module`` (copied into Module by ``built_from``)."""

    def _apply(self, fn, recurse=True):
        """Replace every parameter, gradient and buffer ``t`` by ``fn(t)``.

        Parameters and their gradients keep their identity (optimizers hold them): the converted value
        is written into the existing object. Buffers are simply replaced.
        """
        if recurse:
            for child in self.children():
                child._apply(fn)
        for param in self._parameters.values():
            if param is not None:
                self._convert_parameter(param, fn)
        for name, buf in list(self._buffers.items()):
            if buf is not None:
                self._buffers[name] = fn(buf)
        return self

    @staticmethod
    def _convert_parameter(param, fn):
        grad = param.grad
        with grad_mode.no_grad():
            converted = fn(param)
        if converted is not param:
            if is_lazy(param):
                # an uninitialised parameter has no data to replace: move its placeholder instead
                param._x, param._dev = converted._value, converted._dev
            else:
                param.data = converted
        if grad is None:
            return
        with grad_mode.no_grad():
            new_grad = fn(grad)
        if new_grad is not grad:
            param._grad = None
            grad.data = new_grad
            param._grad = grad

    def cuda(self, device=None):
        return self._apply(lambda t: t.cuda(device))

    def xpu(self, device=None):
        return self._apply(lambda t: t.to("xpu" if device is None else f"xpu:{device}"))

    def ipu(self, device=None):
        return self

    def mtia(self, device=None):
        return self

    def cpu(self):
        return self._apply(lambda t: t.cpu())

    def type(self, dst_type):
        return self._apply(lambda t: t.type(dst_type))

    def float(self):
        return self._apply(_float_only("float"))

    def double(self):
        return self._apply(_float_only("double"))

    def half(self):
        return self._apply(_float_only("half"))

    def bfloat16(self):
        return self._apply(_float_only("bfloat16"))

    def to_empty(self, *, device, recurse=True):
        """Move to ``device`` without copying values (the new storage is uninitialised)."""
        return self._apply(lambda t: empty_like(t, device=device), recurse=recurse)

    def to(self, *args, **kwargs):
        """Move and/or cast parameters and buffers: ``to(device)``, ``to(dtype)``, ``to(tensor)``...

        Only floating/complex tensors change dtype; integer buffers keep theirs.

        >>> import torchlike as torch
        >>> torch.nn.Linear(2, 2).to(torch.float64).weight.dtype
        torch.float64
        """
        device, dtype, non_blocking, copy, memory_format = parse_to(Tensor, args, kwargs)
        if copy is not None:
            raise RuntimeError(".to() does not accept copy argument")
        if dtype is not None:
            if not (dtype.is_floating_point or dtype.is_complex):
                raise TypeError("nn.Module.to only accepts floating point or complex dtypes, but got desired "
                                f"dtype={dtype}")
            if dtype.is_complex:
                warnings.warn(
                    "Complex modules are a new feature under active development whose design may change, "
                    "and some modules might not work as expected when using complex tensors as parameters or "
                    f"buffers. Please file an issue at {_ISSUE_URL} if a complex module does not work as "
                    "expected.", stacklevel=2)

        def move(t):
            new_dtype = dtype if (t.is_floating_point() or t.is_complex()) else None
            if memory_format is not None and t.dim() in (4, 5):
                return t.to(device, new_dtype, non_blocking, memory_format=memory_format)
            return t.to(device, new_dtype, non_blocking)
        return self._apply(move)

    def share_memory(self):
        return self._apply(lambda t: t.share_memory_())
