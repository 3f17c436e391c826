"""nn.Parameter, nn.Buffer and their uninitialised (lazy) forms.

A Parameter is a Tensor subclass that Module registers automatically.  As torch's, ``Parameter(t)`` shares
``t``'s storage (``_param_alias``): an in-place write to either shows in the other.

>>> import torchlike as torch
>>> p = torch.nn.Parameter(torch.ones(2))
>>> p
Parameter containing:
tensor([1., 1.], requires_grad=True)
"""
from __future__ import annotations

import numpy as np

from .._errors import tp_name
from .. import _memory_format as _mfmt
from .._grad_mode import InferenceVersion
from ..tensor import Tensor
from .._torch_function import disabled_torch_function_impl as _disabled_torch_function_impl
from .._creation import empty, from_numpy
from .._errors import is_tracer
from .._param_alias import adoptable, alias_of, take_storage

__all__ = ["Parameter", "UninitializedParameter", "UninitializedBuffer", "Buffer", "is_lazy"]


def _fresh(cls, data, requires_grad):
    """A new leaf of class ``cls`` holding ``data``'s current value (no autograd history)."""
    t = Tensor._wrap(data._value, data._dev)
    if data._st is not None or data._vbase is not None and _mfmt.needs_layout(data):
        _mfmt.set_strides(t, _mfmt.preserve_strides(data))  # (torch's shares data's storage and strides)
    if type(data._ver) is InferenceVersion:  # (torch's shares data's storage: an inference tensor's stays one)
        t._ver = InferenceVersion(t._ver)
    if cls is not Tensor:
        t = t._retype(cls)
    if requires_grad:
        t._as_grad_leaf()
    return t


def _keeps_class(cls):
    """Whether ``Parameter(x)`` of a ``cls`` instance is ``x``'s own class, flagged (torch: any class but Tensor and
    Parameter): a user's subclass, DTensor.  torchlike's private subclasses that stand for plain tensors in torch
    (quantized, lazy, ...) are made Parameters as a Tensor is."""
    if cls is Tensor or issubclass(cls, Parameter):
        return False
    return getattr(cls, "_param_keeps_class", cls.__module__.partition(".")[0] != "torchlike")


class _ParameterMeta(type):
    # isinstance(t, Parameter) is also True for tensors flagged _is_param (as in torch)
    def __instancecheck__(self, instance):
        if self is Parameter and isinstance(instance, Tensor) and getattr(instance, "_is_param", False):
            return True
        return super().__instancecheck__(instance)


class Parameter(Tensor, metaclass=_ParameterMeta):
    """A Tensor that is a module parameter: assigning it to a Module attribute registers it.

    >>> import torchlike as torch
    >>> torch.nn.Parameter(torch.zeros(3)).requires_grad
    True
    """
    __torch_function__ = _disabled_torch_function_impl  # ops see a plain Tensor (as torch's own subclasses)

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            data = empty(0)
        if not isinstance(data, Tensor):  # (torch calls data.detach() on what is not a Tensor)
            raise AttributeError(f"'{tp_name(data)}' object has no attribute 'detach'")
        if cls is Parameter and _keeps_class(type(data)):
            # a tensor subclass (a user's, DTensor) stays itself, flagged as a parameter: torch's rule for
            # subclasses, ``data.detach().requires_grad_(requires_grad)`` with ``_is_param`` set
            t = data.detach()
            if type(t) is not type(data):
                raise RuntimeError(f"Creating a Parameter from an instance of type {type(data).__name__} requires that "
                                   f"detach() returns an instance of the same type, but return type "
                                   f"{type(t).__name__} was found instead. To use the type as a Parameter, please "
                                   f"correct the detach() semantics defined by its __torch_dispatch__() "
                                   f"implementation.")
            t.requires_grad_(requires_grad)
            t.__dict__["_is_param"] = True
            return t
        if adoptable(data):  # (torch.empty(...) in every layer: the parameter becomes the storage's root)
            t = Tensor._wrap(data._x, data._dev)._retype(cls)
            take_storage(t, data)
            if requires_grad:
                t._as_grad_leaf()
            return t
        if type(data).detach is Tensor.detach and not is_tracer(data._value):
            # a view, a tensor with autograd, a Parameter: the parameter is a detach() alias of its storage, as
            # torch's _make_subclass shares it (blitz's weight samplers wrap their layer's parameters so)
            t = alias_of(data)._retype(cls)
            if requires_grad:
                t._as_grad_leaf()
            return t
        return _fresh(cls, data, requires_grad)

    def __init__(self, *args, **kwargs):
        pass

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(self.detach().clone(), self.requires_grad)
        for k, v in self.__dict__.items():
            if not k.startswith("_acc"):
                import copy
                result.__dict__[k] = copy.deepcopy(v, memo)
        memo[id(self)] = result
        return result

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    def __reduce_ex__(self, proto):
        return (_rebuild_parameter, (np.asarray(self._value), str(self._dev), self.requires_grad))

    __hash__ = Tensor.__hash__


def _rebuild_parameter(array, device, requires_grad):
    t = from_numpy(np.array(array))
    if device != "cpu":
        t = t.to(device)
    return Parameter(t, requires_grad)


class _BufferMeta(type):
    def __instancecheck__(self, instance):
        if isinstance(instance, Tensor) and getattr(instance, "_is_buffer", False):
            return True
        return super().__instancecheck__(instance)


class Buffer(Tensor, metaclass=_BufferMeta):
    """A marker: ``module.x = nn.Buffer(t, persistent=True)`` registers a buffer sharing ``t``'s storage (a plain
    tensor, as torch's ``t.detach()``; ``isinstance(b, nn.Buffer)`` by its ``_is_buffer`` flag).

    >>> import torchlike as torch
    >>> m = torch.nn.Module(); m.b = torch.nn.Buffer(torch.ones(1))
    >>> list(m.state_dict())
    ['b']
    """
    __torch_function__ = _disabled_torch_function_impl  # ops see a plain Tensor (as torch's own subclasses)

    def __new__(cls, data=None, *, persistent=True):
        if data is None:
            data = empty(0)
        if not isinstance(data, Tensor):  # (torch calls data.detach() first)
            raise AttributeError(f"'{tp_name(data)}' object has no attribute 'detach'")
        if adoptable(data):  # (the buffer becomes the storage's root, ``data`` its alias: see Parameter)
            t = Tensor._wrap(data._x, data._dev)
            take_storage(t, data)
        else:  # torch's ``data.detach().requires_grad_(data.requires_grad)``: the storage and version shared
            rg = data.requires_grad
            t = data.detach()
            if rg:
                t.requires_grad_(True)
        t.persistent = persistent
        t._is_buffer = True
        return t


class UninitializedTensorMixin:
    """Shared behaviour of lazy parameters/buffers: a placeholder until ``materialize(shape)``."""
    __torch_function__ = _disabled_torch_function_impl  # torchlike's own subclass: ops see a plain Tensor

    def materialize(self, shape, device=None, dtype=None):
        """Give this placeholder real (uninitialised) storage of ``shape`` and become ``cls_to_become``."""
        if device is None:
            device = self.device
        if dtype is None:
            dtype = self.dtype
        if isinstance(shape, int):
            shape = (shape,)
        new = empty(tuple(shape), device=device, dtype=dtype)
        self._x = new._value
        self._dev = new._dev
        self._vbase = self._chain = None  # (its own storage now: no longer an alias of the placeholder's)
        self._ver[0] += 1
        self._seen = self._ver[0]
        self.__class__ = self.cls_to_become

    @property
    def shape(self):
        raise RuntimeError(
            "Can't access the shape of an uninitialized parameter or buffer. This error usually happens "
            "in `load_state_dict` when trying to load an uninitialized parameter into an initialized one. "
            "Call `forward` to initialize the parameters before accessing their attributes.")

    def share_memory_(self):
        raise RuntimeError(
            "Can't share memory on an uninitialized parameter or buffer. Call `forward` to initialize the "
            "parameters before calling `module.share_memory()`.")

    def __repr__(self):
        return f"<{self.__class__.__name__}>"

    def __reduce_ex__(self, proto):
        return (self.__class__, (self.requires_grad,))


def is_lazy(param) -> bool:
    """True if ``param`` is an uninitialised (lazy) parameter or buffer."""
    return isinstance(param, UninitializedTensorMixin)


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    """A parameter whose shape is not known yet (used by lazy modules such as LazyLinear)."""

    cls_to_become = Parameter

    def __new__(cls, requires_grad=True, device=None, dtype=None):
        data = empty(0, device=device, dtype=dtype)
        return _fresh(cls, data, requires_grad)

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(self.requires_grad, self.device, self.dtype)
        memo[id(self)] = result
        return result


class UninitializedBuffer(UninitializedTensorMixin, Tensor):
    """A buffer whose shape is not known yet."""

    cls_to_become = Tensor

    def __new__(cls, requires_grad=False, device=None, dtype=None, persistent=True):
        data = empty(0, device=device, dtype=dtype)
        t = _fresh(cls, data, requires_grad)
        t.persistent = persistent
        t._is_buffer = True
        return t

    def __init__(self, *args, **kwargs):
        pass
