"""The Tensor's device methods: ``cpu()``, ``cuda()``, ``get_device()``, pinned memory, stream records, and the
array protocols that hand its buffer to another library (``__dlpack__``, ``__jax_array__``, ``jax()``).

They live in a mixin that ``Tensor`` inherits from (layer 1, like ``tensor.py``: it imports only layer 0).

    >>> import torchlike as torch
    >>> t = torch.ones(2)
    >>> t.cpu().device, t.get_device(), t.is_pinned(), type(t.jax()).__name__
    (device(type='cpu'), -1, False, 'ArrayImpl')
"""
from __future__ import annotations

from . import _device, _views
from ._device import _gpus, canonical
from ._errors import as_tensor_methods

__all__ = ["TensorDevices"]


class TensorDevices:
    """Device moves and buffer export of :class:`torchlike.Tensor` (a mixin: no state of its own)."""

    __slots__ = ()

    def cpu(self, *, memory_format=None):
        return self.to("cpu")

    def cuda(self, *args, **kwargs):  # (device=None, non_blocking=False, *, memory_format=None)
        device = args[0] if args else kwargs.get("device")
        try:  # (an int is an accelerator index, as in torch.device(0): torch's error without one)
            return self.to(canonical("cuda" if device is None else device))
        except Exception:
            err = device_move_error("cuda", self, args, kwargs)
            if err is not None:
                raise err from None
            raise

    def pin_memory(self, *args, **kwargs):  # (device=None)
        """A copy in pinned host memory (already pinned: ``self``).  JAX stages host-to-device copies itself,
        so the copy is flagged pinned (``is_pinned()``) and otherwise an ordinary CPU tensor."""
        if not _gpus():
            err = device_move_error("pin_memory", self, args, kwargs, _PIN)
            raise err or RuntimeError("Cannot access accelerator device when none is available.")
        if self.__dict__.get("_pinned"):
            return self
        out = self.clone()
        out.__dict__["_pinned"] = True
        return out

    def is_pinned(self, device=None):
        if device is not None:  # (torch's parser: a device, or a str naming one)
            if not isinstance(device, (str, _device.device)):
                raise TypeError(f"is_pinned(): argument 'device' (position 1) must be torch.device, not "
                                f"{type(device).__name__}")
            canonical(device)
        return bool(self.__dict__.get("_pinned"))

    def get_device(self):
        return -1 if self._dev.type == "cpu" else (self._dev.index or 0)

    def record_stream(self, stream):
        if "Stream" not in type(stream).__name__:  # (torch's parser takes a Stream only)
            raise RuntimeError("unknown parameter type")
        return None

    def __dlpack__(self, stream=None, **kw):
        if self.requires_grad:  # torch refuses too: a consumer would see the data without its graph
            raise BufferError("Can't export tensors that require gradient, use tensor.detach()")
        x = self._value
        _views.forget_host(x)  # (the consumer may write the buffer: a host copy of it would go stale)
        return x.__dlpack__(**({"stream": stream} if stream is not None else {}))

    def __dlpack_device__(self):
        return self._value.__dlpack_device__()

    def __jax_array__(self):
        return self._value

    def jax(self):
        """This tensor's ``jax.Array`` (no copy; JAX arrays are immutable, so a later in-place write to the
        tensor rebinds it and leaves the returned array unchanged)."""
        return self._value


as_tensor_methods(TensorDevices)

# torch's parser signatures of the device moves (``x.cuda()``, ``x.xpu()``, ...) and ``pin_memory``: consulted on
# their failure path (no such device), where torch's parser rejects a wrong-typed argument first
_MOVE = "Tensor self, Device? device=None, bool non_blocking=False, *, MemoryFormat memory_format=None"
_PIN = "Tensor self, Device? device=None"


def device_move_error(name, tensor, args, kwargs, schema=_MOVE):
    """The error torch raises for ``tensor.<name>(*args, **kwargs)`` before its no-such-device one: its parser's
    TypeError for an argument its signature rejects, or the device string's RuntimeError (``x.xpu('x')``); None
    where there is none (the caller raises its own).

    >>> import torchlike as torch
    >>> print(device_move_error("xpu", torch.ones(1), (0, "x"), {}))
    xpu(): argument 'non_blocking' (position 2) must be bool, not str
    """
    from ._ops.signatures import Signature  # lazy: the op table's parser (layer 3), on the failure path only
    err = Signature(name, [schema]).error((tensor,) + tuple(args), kwargs)
    if err is not None:
        return err
    device = args[0] if args else kwargs.get("device")
    if isinstance(device, str):
        canonical(device)  # (raises torch's error for a string naming no device type)
    return None
