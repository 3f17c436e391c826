"""torchlike._C: the few ``torch._C`` names that pure-Python libraries built on torch reach for.

torch._C is torch's compiled core; torchlike has none. Libraries (torchvision's operator registrations,
tv_tensors, tracing checks) use a handful of its Python-visible names: dispatch-key sets for their
autocast guards, ``_get_tracing_state`` and ``DisableTorchFunctionSubclass``. Those exist here with
torch's behaviour where torchlike has the concept (no tracer: the tracing state is ``None``) and as no-op
guards where it has no dispatcher keys to exclude. Any other name raises a NotImplementedError naming it.

>>> from torchlike._C import DispatchKey, DispatchKeySet
>>> s = DispatchKeySet(DispatchKey.AutocastCPU) | DispatchKeySet(DispatchKey.AutocastCUDA)
>>> s
DispatchKeySet(AutocastCPU, AutocastCUDA)
>>> s.has(DispatchKey.AutocastCPU), s.has(DispatchKey.CPU)
(True, False)
"""
from __future__ import annotations

import sys
import types

from jax._src.interpreters.batching import BatchTracer as _BatchTracer

from ._missing import module_getattr
from ._storage import StorageBase
from ._device import device as _device, get_default_device
from . import library
from ._pybind_enum import PybindEnum
from .tensor import Tensor
from . import _torch_function as _tf
from ._torch_function import (DisableTorchFunction, DisableTorchFunctionSubclass,  # noqa: F401 (torch._C's)
                              disabled_torch_function_impl as _disabled_torch_function_impl)
from ._to_args import parse_to
from .accelerator import current_accelerator as _current_accelerator
from .func._common import in_transform as _in_transform
from .func._batch_dims import add_batch_dim as _add_batch_dim, remove_batch_dim as _remove_batch_dim
from ._random import Generator  # noqa: F401 (torch's class lives in torch._C)
from ._ops.linalg import LinAlgError as _LinAlgError  # (torch.linalg.LinAlgError is torch._C._LinAlgError)
from ._torch_paths import home as _home
from . import _global_settings
from ._grad_mode import set_grad_enabled as _set_grad_mode
from .backends import cudnn as _cudnn

_home(globals(), _LinAlgError)

# torch.Tensor's C base class: libraries test ``isinstance(x, torch._C.TensorBase)`` (``_TensorBase`` before 2.3)
TensorBase = _TensorBase = Tensor

__all__ = ["DispatchKey", "DispatchKeySet", "DisableTorchFunction", "DisableTorchFunctionSubclass",
           "_ExcludeDispatchKeyGuard", "_IncludeDispatchKeyGuard", "_get_tracing_state", "_log_api_usage_once",
           "_log_api_usage_metadata",
           "_dispatch_has_kernel_for_dispatch_key", "_TensorMeta", "PyTorchFileReader",
           "ScriptModule", "ScriptObject", "ScriptFunction", "_nn", "_functorch", "_distributed_rpc", "StorageBase", "Generator", "TensorBase",
           "_are_functorch_transforms_active", "_get_accelerator", "_is_tracing", "_jit_set_profiling_executor",
           "_jit_set_profiling_mode", "_get_graph_executor_optimize", "_set_graph_executor_optimize",
           "_jit_override_can_fuse_on_cpu", "_jit_override_can_fuse_on_gpu", "_jit_can_fuse_on_cpu",
           "_jit_can_fuse_on_gpu", "_jit_set_texpr_fuser_enabled", "_jit_texpr_fuser_enabled", "_set_grad_enabled",
           "_get_cudnn_enabled", "_set_cudnn_enabled", "_get_float32_matmul_precision",
           "_get_deterministic_algorithms"]

# torch's DispatchKey values (torch 2.13), in torch's order; the library-facing subset
_KEYS = {"Undefined": 0, "BackendSelect": 11, "Python": 13, "Functionalize": 15, "Conjugate": 16, "Negative": 17,
         "ZeroTensor": 18, "ADInplaceOrView": 19, "AutogradOther": 20, "AutocastCPU": 24, "AutocastXPU": 27,
         "AutocastMPS": 31, "AutocastCUDA": 32, "PreDispatch": 45, "PythonDispatcher": 46, "CPU": 49, "CUDA": 50,
         "XLA": 52, "MPS": 53, "XPU": 55, "Meta": 64, "AutogradCPU": 134, "AutogradCUDA": 135, "AutogradMeta": 149,
         "Autograd": 150, "CompositeImplicitAutograd": 151, "CompositeExplicitAutograd": 154}
DispatchKey = PybindEnum("DispatchKey", _KEYS)
DispatchKey.__module__ = "torch._C"


class DispatchKeySet:
    """A set of dispatch keys (``|``, ``add``, ``remove``, ``has``), as torch's ``torch._C.DispatchKeySet``."""

    def __init__(self, *keys):
        self._keys = frozenset(k for k in keys if isinstance(k, DispatchKey))

    def __or__(self, other):
        return DispatchKeySet(*(self._keys | other._keys))

    def __sub__(self, other):
        return DispatchKeySet(*(self._keys - other._keys))

    def __and__(self, other):
        return DispatchKeySet(*(self._keys & other._keys))

    def add(self, key):
        return DispatchKeySet(*(self._keys | {key}))

    def remove(self, key):
        return DispatchKeySet(*(self._keys - {key}))

    def has(self, key):
        return key in self._keys

    def __eq__(self, other):
        return isinstance(other, DispatchKeySet) and self._keys == other._keys

    def __hash__(self):
        return hash(self._keys)

    def __repr__(self):
        return "DispatchKeySet(" + ", ".join(k.name for k in sorted(self._keys)) + ")"


DispatchKeySet.__module__ = "torch._C"


class _NoOpGuard:
    """A guard over dispatcher state torchlike does not have: entering and leaving change nothing."""

    def __init__(self, *args, **kwargs):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


class _ExcludeDispatchKeyGuard(_NoOpGuard):
    pass


class _IncludeDispatchKeyGuard(_NoOpGuard):
    pass


for _c in (_ExcludeDispatchKeyGuard, _IncludeDispatchKeyGuard):
    _c.__module__ = "torch._C"


def _is_torch_function_enabled():
    """False inside ``DisableTorchFunctionSubclass`` / ``DisableTorchFunction`` blocks."""
    return not (_tf._state.subclass_off or _tf._state.all_off)


def _is_torch_function_all_disabled():
    """True inside a ``DisableTorchFunction`` block."""
    return bool(_tf._state.all_off)


class Type:
    """TorchScript's type objects (``torch.Type`` and its ``torch.IntType``, ``torch.DeviceObjType``, ...):
    libraries name them in annotations (``str | torch.DeviceObjType``); ``get()`` gives the singleton type,
    printed as TorchScript prints it.  As in torch they have no constructor and are compared, not hashed.

    >>> import torchlike
    >>> t = torchlike.DeviceObjType.get()
    >>> t.kind(), str(t), t == torchlike.DeviceObjType.get()
    ('DeviceObjType', 'Device', True)
    """
    _str = "Type"

    def __init__(self, *args, **kwargs):
        raise TypeError(f"torch._C.{type(self).__name__}: No constructor defined!")

    @classmethod
    def get(cls):
        return object.__new__(cls)

    def kind(self) -> str:
        return type(self).__name__

    def str(self) -> str:
        return self._str

    annotation_str = property(str)
    __str__ = __repr__ = str

    def __eq__(self, other):
        return type(self) is type(other)

    __hash__ = None

    def isSubtypeOf(self, other) -> bool:
        return self == other or isinstance(other, AnyType) or (
            isinstance(other, NumberType) and isinstance(self, (IntType, FloatType, ComplexType)))


# the singleton types torch exposes at top level, each printed as TorchScript prints it
class AnyType(Type): _str = "Any"  # noqa: E701
class BoolType(Type): _str = "bool"  # noqa: E701
class ComplexType(Type): _str = "complex"  # noqa: E701
class DeviceObjType(Type): _str = "Device"  # noqa: E701
class FloatType(Type): _str = "float"  # noqa: E701
class IntType(Type): _str = "int"  # noqa: E701
class NoneType(Type): _str = "NoneType"  # noqa: E701
class NumberType(Type): _str = "number"  # noqa: E701
class PyObjectType(Type): _str = "PyObject"  # noqa: E701
class StreamObjType(Type): _str = "Stream"  # noqa: E701
class StringType(Type): _str = "str"  # noqa: E701
class SymBoolType(Type): _str = "bool"  # noqa: E701
class SymIntType(Type): _str = "int"  # noqa: E701


class TensorType(Type):
    """TorchScript's type of tensors (``torch.TensorType``): ``get()`` gives the unspecialized tensor type,
    printed ``Tensor``.

    >>> import torchlike
    >>> t = torchlike.TensorType.get()
    >>> t.kind(), str(t)
    ('TensorType', 'Tensor')
    """
    _str = "Tensor"

    @classmethod
    def create_from_tensor(cls, tensor):
        return object.__new__(cls)

    def dim(self):
        return None

    def dtype(self):
        return None


_JIT_TYPES = (Type, AnyType, BoolType, ComplexType, DeviceObjType, FloatType, IntType, NoneType, NumberType,
              PyObjectType, StreamObjType, StringType, SymBoolType, SymIntType, TensorType)
for _c in _JIT_TYPES:
    _c.__module__ = "torch"


def _get_default_device() -> str:
    """The type of the default device (``"cpu"`` unless ``torch.set_default_device`` chose another)."""
    return get_default_device().type


def _get_tracing_state():
    """``None``: torchlike has no ``torch.jit.trace`` tracer running."""
    return None


def _is_tracing() -> bool:
    """False: torchlike has no ``torch.jit.trace`` tracer (what ``torch.jit.is_tracing`` calls; asteroid's
    filterbanks test it before every convolution)."""
    return False


# TorchScript executor / fuser knobs scripts flip at start-up (``torch._C._jit_set_profiling_executor(False)``):
# torchlike has no TorchScript executor, so they only keep the value a later query reads back, as torch does
_JIT_FLAGS = {"profiling_executor": True, "profiling_mode": True, "graph_executor_optimize": True,
              "fuse_on_cpu": False, "fuse_on_gpu": False, "texpr_fuser": True}


def _jit_set_profiling_executor(flag: bool) -> bool:
    """Sets the flag and returns its previous value, as torch's does."""
    old, _JIT_FLAGS["profiling_executor"] = _JIT_FLAGS["profiling_executor"], bool(flag)
    return old


def _jit_set_profiling_mode(flag: bool) -> bool:
    """Sets the flag and returns its previous value, as torch's does."""
    old, _JIT_FLAGS["profiling_mode"] = _JIT_FLAGS["profiling_mode"], bool(flag)
    return old


def _get_graph_executor_optimize() -> bool:
    return _JIT_FLAGS["graph_executor_optimize"]


def _set_graph_executor_optimize(flag: bool) -> None:
    _JIT_FLAGS["graph_executor_optimize"] = bool(flag)


def _jit_override_can_fuse_on_cpu(flag: bool) -> None:
    _JIT_FLAGS["fuse_on_cpu"] = bool(flag)


def _jit_override_can_fuse_on_gpu(flag: bool) -> None:
    _JIT_FLAGS["fuse_on_gpu"] = bool(flag)


def _jit_can_fuse_on_cpu() -> bool:
    return _JIT_FLAGS["fuse_on_cpu"]


def _jit_can_fuse_on_gpu() -> bool:
    return _JIT_FLAGS["fuse_on_gpu"]


def _jit_set_texpr_fuser_enabled(flag: bool) -> None:
    _JIT_FLAGS["texpr_fuser"] = bool(flag)


def _jit_texpr_fuser_enabled() -> bool:
    return _JIT_FLAGS["texpr_fuser"]


def _set_grad_enabled(mode: bool) -> None:
    """Sets grad mode, like ``torch.set_grad_enabled`` used as a function."""
    _set_grad_mode(mode)


def _get_cudnn_enabled() -> bool:
    return _cudnn.enabled


def _set_cudnn_enabled(flag: bool) -> None:
    _cudnn.enabled = flag


def _get_float32_matmul_precision() -> str:
    return _global_settings.get_float32_matmul_precision()


def _get_deterministic_algorithms() -> bool:
    return _global_settings.are_deterministic_algorithms_enabled()


def _are_functorch_transforms_active() -> bool:
    """True while a torch.func transform (vmap, grad, vjp, jvp, jacrev, ...) runs the user's function: libraries
    (kornia's blurs, losses and morphology) take their out-of-place, transform-safe path there."""
    return _in_transform()


def _get_accelerator():
    """The accelerator's device type (``device('cuda')`` with a GPU), else ``device('cpu')``, as torch's."""
    return _current_accelerator() or _device("cpu")


def _log_api_usage_once(event: str) -> None:
    """torch logs API usage for its telemetry; torchlike records nothing."""


def _log_api_usage_metadata(event: str, metadata_map: dict) -> None:
    """As :func:`_log_api_usage_once`: nothing is recorded."""


def _dispatch_has_kernel_for_dispatch_key(name, dispatch) -> bool:
    return library._lookup(name) is not None


class _TensorMetaCheck(type):
    def __instancecheck__(cls, obj):
        return isinstance(obj, type) and issubclass(obj, Tensor)


class _TensorMeta(type, metaclass=_TensorMetaCheck):
    """The metaclass of torch's Tensor classes: ``isinstance(torch.Tensor, torch._C._TensorMeta)`` is True (a
    torchlike Tensor class counts, whatever its metaclass)."""


_TensorMeta.__module__ = "torch._C"


class PyTorchFileReader:
    """Reads the records of a ``torch.save`` zip archive by their names inside it (``data.pkl``, ``data/0``,
    ``version``, ...), as ``torch._C.PyTorchFileReader``."""

    def __init__(self, f):
        import zipfile  # lazy: only checkpoint readers need it
        try:
            self._zf = zipfile.ZipFile(f)
        except FileNotFoundError:
            raise RuntimeError(f"open file failed because of errno 2 on fopen: No such file or directory, "
                               f"file path: {f}") from None
        except zipfile.BadZipFile:
            raise RuntimeError("PytorchStreamReader failed reading zip archive: failed finding central "
                               "directory") from None
        names = self._zf.namelist()
        self._prefix = names[0].split("/", 1)[0] + "/" if names else ""
        self._infos = {n[len(self._prefix):]: i for n, i in zip(names, self._zf.infolist())}

    def _info(self, name):
        try:
            return self._infos[name]
        except KeyError:
            raise RuntimeError(f"PytorchStreamReader failed locating file {name}: file not found.") from None

    def get_record(self, name) -> bytes:
        """The bytes of record ``name``."""
        return self._zf.read(self._info(name))

    def has_record(self, name) -> bool:
        return name in self._infos

    def get_all_records(self) -> list:
        return list(self._infos)

    def get_record_size(self, name) -> int:
        return self._info(name).file_size

    def get_record_offset(self, name) -> int:
        """Where record ``name``'s data starts in the file (stored records only, as torch writes them)."""
        info = self._info(name)
        fp = self._zf.fp
        pos = fp.tell()
        try:
            fp.seek(info.header_offset + 26)
            n, m = int.from_bytes(fp.read(2), "little"), int.from_bytes(fp.read(2), "little")
        finally:
            fp.seek(pos)
        return info.header_offset + 30 + n + m

    def serialization_id(self) -> str:
        return self.get_record(".data/serialization_id").decode() if self.has_record(".data/serialization_id") \
            else ""


PyTorchFileReader.__module__ = "torch"


class ScriptObject:
    """TorchScript's custom class instances (``torch._C.ScriptObject``): torchlike has no TorchScript, so no object
    is one; tracers (torch.fx's, torch_geometric's) test module attributes against it."""


class ScriptModule:
    """The compiled TorchScript module class (``torch.ScriptModule``); torchlike compiles no TorchScript, so no
    object is ever of this type (``torch.jit.load`` returns a ``torch.jit.ScriptModule``)."""

    def __init__(self, *args, **kwargs):
        raise RuntimeError("torch.ScriptModule cannot be constructed directly (torchlike has no TorchScript "
                           "compiler; see docs/differences.md)")


class ScriptFunction(ScriptModule):
    """A compiled TorchScript function (``torch.ScriptFunction``); only ``torch.jit.trace`` of a plain function
    makes one (``torchlike.jit._traced_function.TracedFunction``, which calls the Python function)."""


ScriptModule.__module__ = ScriptFunction.__module__ = "torch"


class _ScriptIR:
    def __init__(self, *args, **kwargs):
        raise NotImplementedError(f"torch._C.{type(self).__name__}: torchlike has no TorchScript IR "
                                  "(see docs/differences.md)")


class Graph(_ScriptIR):
    """A TorchScript IR graph (``torch._C.Graph``, with its ``Node`` and ``Value``); torchlike has no TorchScript
    tracer, so none is ever built (``torch.jit._get_trace_graph`` raises); libraries name them in annotations.

    >>> import torchlike
    >>> torchlike._C.Graph.__name__, torchlike._C.Node.__name__, torchlike._C.Value.__name__
    ('Graph', 'Node', 'Value')
    """


class Node(_ScriptIR):
    """A TorchScript IR node (``torch.Node``); never built, as :class:`Graph`."""


class Value(_ScriptIR):
    """A TorchScript IR value (``torch.Value``); never built, as :class:`Graph`."""


Graph.__module__ = Node.__module__ = Value.__module__ = "torch"


def _get_privateuse1_backend_name() -> str:
    """``torch._C._get_privateuse1_backend_name``: no backend is renamed, so torch's default name."""
    return "privateuseone"


def _group_tensors_by_device_and_dtype(tensorlistlist, with_indices=False):
    """``torch._C._group_tensors_by_device_and_dtype``: split parallel tensor lists (the first one all tensors,
    the others of the same length or empty, entries may be None) into ``{(device, dtype): (lists, indices)}``
    keyed by the first list's tensors, the groups in torch's order (the last new key first), each keeping
    the tensors themselves (no copy); ``indices`` is empty unless ``with_indices``.

    >>> import torchlike
    >>> a, b = torchlike.zeros(2), torchlike.zeros(1, dtype=torchlike.float64)
    >>> groups = torchlike._C._group_tensors_by_device_and_dtype([[a, b, a]], True)
    >>> [(k[1], idx) for k, (lists, idx) in groups.items()]
    [(torch.float64, [1]), (torch.float32, [0, 2])]
    """
    if not tensorlistlist:
        raise RuntimeError("Expected !nested_tensorlist.empty() to be true, but got false.  (Could this error "
                           "message be improved?  If so, please report an enhancement request to PyTorch.)")
    first = tensorlistlist[0]
    if any(len(lst) not in (len(first), 0) for lst in tensorlistlist):
        raise RuntimeError(
            "Expected std::all_of( nested_tensorlist.cbegin(), nested_tensorlist.cend(), [&](const auto& "
            "tensorlist) -> bool { return tensorlist.size() == num_tensors || tensorlist.size() == 0; }) to be "
            "true, but got false.  (Could this error message be improved?  If so, please report an enhancement "
            "request to PyTorch.)")
    groups = {}
    for i, t in enumerate(first):
        if t is None:
            raise RuntimeError("Tensors of the first list of nested Tensor lists are supposed to be defined but "
                               f"the {i}-th Tensor is not.")
        key = (t.device, t.dtype)
        if key not in groups:
            groups[key] = ([[] for _ in tensorlistlist], [])
        lists, idx = groups[key]
        for out, lst in zip(lists, tensorlistlist):
            if lst:
                out.append(lst[i])
        if with_indices:
            idx.append(i)
    return dict(reversed(list(groups.items())))


def _parse_to(*args, **kwargs):
    """``torch._C._nn._parse_to``: ``(device, dtype, non_blocking, memory_format)`` of a ``to()`` call."""
    device, dtype, non_blocking, _copy, memory_format = parse_to(Tensor, args, kwargs)
    return device, dtype, non_blocking, memory_format


_functorch = types.ModuleType("torch._C._functorch", "functorch's compiled helpers (the Python-visible subset)")
# torchlike's transforms carry JAX tracers, never torch's legacy BatchedTensor (autograd.grad(is_grads_batched=True)
# and torch._vmap_internals): no tensor is one
def _is_legacy_batchedtensor(tensor) -> bool:
    return False


def _is_batchedtensor(tensor) -> bool:
    """``torch._C._functorch.is_batchedtensor``: whether ``tensor`` is batched by an enclosing ``vmap``."""
    return isinstance(getattr(tensor, "_value", None), _BatchTracer)


def _get_unwrapped(tensor):
    """``torch._C._functorch.get_unwrapped``: the tensor a ``vmap``-batched ``tensor`` wraps, its batch dimension
    physically present where the batching put it; a tensor that wraps nothing is torch's RuntimeError."""
    value = getattr(tensor, "_value", None)
    if isinstance(value, _BatchTracer):
        return Tensor._wrap(value.val)
    raise RuntimeError("No wrappers present!")


_functorch.get_unwrapped = _get_unwrapped
_functorch.is_legacy_batchedtensor = _is_legacy_batchedtensor
_functorch.is_batchedtensor = _is_batchedtensor
_functorch._add_batch_dim, _functorch._remove_batch_dim = _add_batch_dim, _remove_batch_dim
_functorch.__getattr__ = module_getattr("torch._C._functorch")

_nn = types.ModuleType("torch._C._nn", "torch's compiled nn helpers (the Python-visible subset)")
_nn._parse_to = _parse_to
# torch.nn.functional's functions that are torch._C._nn builtins in torch (torch.fx names them, and its generated
# code calls them, as ``torch._C._nn.<name>``): torchlike.fx puts the same function objects here on first use
NN_BUILTINS = {"avg_pool2d": "avg_pool2d", "avg_pool3d": "avg_pool3d", "elu_": "elu_", "gelu": "gelu",
               "hardtanh_": "hardtanh_", "leaky_relu_": "leaky_relu_", "linear": "linear",
               "log_sigmoid": "logsigmoid", "one_hot": "one_hot",
               "scaled_dot_product_attention": "scaled_dot_product_attention", "softplus": "softplus",
               "softshrink": "softshrink"}
_nn.__getattr__ = module_getattr("torch._C._nn")

_distributed_rpc = types.ModuleType("torch._C._distributed_rpc", "torch's RPC bindings (the Python-visible subset)")
_RPC_NOT_SET = ("Current RPC agent is not set! Did you initialize the RPC framework (e.g. by calling "
                "`rpc.init_rpc`)?")


class _PyRRef:
    """``torch._C._distributed_rpc.PyRRef``: a remote reference. There is no RPC agent (``rpc.is_available()`` is
    False), so none can be made, as in torch before ``init_rpc``; libraries test ``isinstance(x, PyRRef)``.

    >>> import torchlike
    >>> isinstance(object(), torchlike._C._distributed_rpc.PyRRef)
    False
    """

    def __init__(self, *args, **kwargs):
        raise RuntimeError(_RPC_NOT_SET)


def _no_rpc_agent_set() -> bool:
    return False


_PyRRef.__module__, _PyRRef.__name__, _PyRRef.__qualname__ = "torch._C._distributed_rpc", "PyRRef", "PyRRef"
_distributed_rpc.PyRRef = _PyRRef
_distributed_rpc._is_current_rpc_agent_set = _no_rpc_agent_set
_distributed_rpc.__getattr__ = module_getattr("torch._C._distributed_rpc")

# importable as modules (``from torch._C._functorch import is_batchedtensor``), as torch's extension submodules
sys.modules[__name__ + "._functorch"] = _functorch
sys.modules[__name__ + "._nn"] = _nn
sys.modules[__name__ + "._distributed_rpc"] = _distributed_rpc

__getattr__ = module_getattr("torch._C")
