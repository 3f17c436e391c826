"""torch.serialization's storage-location registry, settings and helpers: ``register_package`` with the
built-in taggers/deserializers (cpu, cuda, mps, meta, privateuse1, hpu, xpu, mtia), ``location_tag``,
``default_restore_location``, ``normalize_storage_type``, ``storage_to_tensor_type``,
``check_module_version_greater_or_equal``, ``validate_cuda_device``, the load/save settings
(``torch.utils.serialization.config``: crc32, default load byte order, default mmap flags), ``skip_data``,
``StorageType``, ``LoadEndianness``, ``SourceChangeWarning``, ``mkdtemp`` and torch's format constants.
``torchlike.serialization`` re-exports them under torch's names.

>>> import torchlike
>>> from torchlike import serialization as s
>>> s.location_tag(torchlike.zeros(2).untyped_storage()), s.normalize_storage_type(torchlike.FloatStorage).__name__
('cpu', 'FloatStorage')
"""
from __future__ import annotations

import contextlib
import functools
import importlib
import mmap as _mmap
import re
import shutil
import sys
import tempfile
import threading
import warnings
from enum import Enum

from . import _dtype, cuda
from ._creation import empty
from ._device import device as _device_cls
from ._storage import LEGACY_STORAGES, TypedStorage, UntypedStorage
from .tensor import Tensor
from .utils.serialization import config

__all__ = ["SourceChangeWarning", "mkdtemp", "register_package", "check_module_version_greater_or_equal",
           "validate_cuda_device", "validate_hpu_device", "location_tag", "default_restore_location",
           "normalize_storage_type", "storage_to_tensor_type", "StorageType", "LoadEndianness",
           "get_crc32_options", "set_crc32_options", "get_default_load_endianness", "set_default_load_endianness",
           "get_default_mmap_options", "set_default_mmap_options", "skip_data"]

MAGIC_NUMBER = 0x1950A86A20F9469CFC6C
PROTOCOL_VERSION = 1001
STORAGE_KEY_SEPARATOR = ","
LONG_SIZE, INT_SIZE, SHORT_SIZE = 4, 4, 2  # (torch's: struct's standard sizes of '=l', '=i', '=h')
IS_WINDOWS = sys.platform == "win32"
MAP_SHARED, MAP_PRIVATE = (None, None) if IS_WINDOWS else (_mmap.MAP_SHARED, _mmap.MAP_PRIVATE)


class SourceChangeWarning(Warning):
    """Warned by torch when a pickled module's source changed since it was saved."""


class LoadEndianness(Enum):
    """The byte order ``torch.load`` assumes for a checkpoint without a ``byteorder`` record."""
    NATIVE = 1
    LITTLE = 2
    BIG = 3


@contextlib.contextmanager
def mkdtemp():
    """A temporary directory for the ``with`` block, removed afterwards."""
    path = tempfile.mkdtemp()
    try:
        yield path
    finally:
        shutil.rmtree(path)


# ---- the storage-location registry ------------------------------------------------------------------------
_TORCH_DEVICE_MODULES = ("cuda", "mps", "xpu", "mtia")  # the backends torch (CPU build) has a module for


def _typename(obj):
    t = type(obj)
    return t.__qualname__ if t.__module__ in ("", "builtins") else f"{t.__module__}.{t.__qualname__}"


def _validate_device(location, backend_name):
    """The device ``location`` names, checked as torch checks it before restoring a storage there."""
    if backend_name not in _TORCH_DEVICE_MODULES:
        raise RuntimeError(f"The {backend_name.upper()} device module is not registered. If you are running on a "
                           "CPU-only machine, please use torch.load with map_location=torch.device('cpu') to map "
                           "your storages to the CPU.")
    if backend_name == "cuda":
        dev = _device_cls(location)
        if dev.type != "cuda":
            raise ValueError(f"Expected a cuda device, but got: {location}")
        index = dev.index if dev.index is not None else cuda.current_device() if cuda.is_available() else 0
        available, count = cuda.is_available(), cuda.device_count()
    else:  # mps / xpu / mtia: never available under torchlike (JAX runs on the CPU or CUDA)
        dev = _device_cls(location)
        index, available, count = dev.index or 0, False, 0
    if not available:
        raise RuntimeError(f"Attempting to deserialize object on a {backend_name.upper()} device but "
                           f"torch.{backend_name}.is_available() is False. If you are running on a CPU-only machine, "
                           "please use torch.load with map_location=torch.device('cpu') to map your storages to the "
                           "CPU.")
    if index >= count:
        raise RuntimeError(f"Attempting to deserialize object on {backend_name.upper()} device {index} but "
                           f"torch.{backend_name}.device_count() is {count}. Please use torch.load with map_location "
                           "to map your storages to an existing device.")
    return _device_cls(backend_name, index)


def validate_cuda_device(location):
    """The CUDA device index ``location`` names (RuntimeError when CUDA is not available)."""
    return _validate_device(location, "cuda").index


def validate_hpu_device(location):
    """The HPU device index ``location`` names (torchlike, as torch's CPU build, has no HPU module)."""
    return _validate_device(location, "hpu").index


def _moved(obj, dev):
    """``obj`` (a storage or tensor) on ``dev``."""
    if isinstance(obj, Tensor):
        return obj.to(device=dev)
    if isinstance(obj, TypedStorage):
        return TypedStorage(wrap_storage=obj._tensor.to(device=dev), _internal=True)
    if isinstance(obj, UntypedStorage) and obj._root is not None:
        return UntypedStorage._of(obj._root.to(device=dev))
    return obj.to(device=dev)


def _cpu_tag(obj):
    if obj.device.type == "cpu":
        return "cpu"


def _cpu_deserialize(obj, location):
    if location == "cpu":
        return obj


def _mps_tag(obj):
    if obj.device.type == "mps":
        return "mps"


def _mps_deserialize(obj, location):
    if location.startswith("mps"):
        raise RuntimeError("torch.UntypedStorage(): Storage device not recognized: mps")


def _meta_tag(obj):
    if obj.device.type == "meta":
        return "meta"


def _meta_deserialize(obj, location):
    if location == "meta":
        return UntypedStorage._of(empty(obj.nbytes(), dtype=_dtype.uint8, device="meta"))


def _backend_tag(backend_name, obj):
    if obj.device.type == backend_name:
        return backend_name if obj.device.index is None else f"{backend_name}:{obj.device.index}"


def _deserialize(backend_name, obj, location):
    if location == backend_name or re.match(f"{backend_name}(:|[0-9]+)", location):
        return _moved(obj, _validate_device(location, backend_name))


_package_registry = [(10, _cpu_tag, _cpu_deserialize)]
for _priority, _name in ((20, "cuda"), (23, "privateuse1"), (24, "hpu"), (25, "xpu"), (26, "mtia")):
    _package_registry.append((_priority, functools.partial(_backend_tag, _name),
                              functools.partial(_deserialize, _name)))
_package_registry += [(21, _mps_tag, _mps_deserialize), (22, _meta_tag, _meta_deserialize)]
_package_registry.sort(key=lambda e: e[0])


def register_package(priority, tagger, deserializer):
    """Register ``tagger(storage) -> location | None`` (used at save time) and ``deserializer(storage, location)
    -> storage | None`` (load time), tried in ``priority`` order (lower first) by :func:`location_tag` and
    :func:`default_restore_location`.

    >>> import torchlike
    >>> torchlike.serialization.register_package(9, lambda s: None, lambda s, loc: s if loc == "mine" else None)
    >>> s = torchlike.zeros(1).untyped_storage()
    >>> torchlike.serialization.default_restore_location(s, "mine") is s
    True
    """
    _package_registry.append((priority, tagger, deserializer))
    _package_registry.sort(key=lambda e: e[0])


def location_tag(storage):
    """The location string a storage is saved with (``'cpu'``, ``'cuda:0'``, ``'meta'``, ...)."""
    for _, tagger, _ in _package_registry:
        location = tagger(storage)
        if location:
            return location
    raise RuntimeError("don't know how to determine data location of " + _typename(storage))


def default_restore_location(storage, location):
    """``storage`` restored at ``location`` by the first registered deserializer that accepts it."""
    for _, _, fn in _package_registry:
        result = fn(storage, location)
        if result is not None:
            return result
    raise RuntimeError(f"don't know how to restore data location of {_typename(storage)} (tagged with {location})")


# ---- storage types --------------------------------------------------------------------------------------
_STORAGE_CLASSES = {"UntypedStorage": UntypedStorage, "TypedStorage": TypedStorage, **LEGACY_STORAGES}


def normalize_storage_type(storage_type):
    """The ``torch.<name>`` storage class of the same name as ``storage_type``."""
    try:
        return _STORAGE_CLASSES[storage_type.__name__]
    except KeyError:
        raise AttributeError(f"module 'torch' has no attribute '{storage_type.__name__}'") from None


def storage_to_tensor_type(storage):
    """The legacy tensor class named after ``storage``'s class (``FloatStorage`` -> ``FloatTensor``)."""
    storage_type = type(storage)
    module = importlib.import_module(storage_type.__module__)
    return getattr(module, storage_type.__name__.replace("Storage", "Tensor"))


class StorageType:
    """A pickled storage class name (``'FloatStorage'``) seen as its dtype (``torch.load``'s record)."""

    def __init__(self, name):
        cls = _STORAGE_CLASSES.get(name)
        if cls is None or cls in (UntypedStorage, TypedStorage):
            raise KeyError(name)
        self._dtype = cls.dtype

    @property
    def dtype(self):
        return self._dtype

    def __str__(self):
        return f"StorageType(dtype={self.dtype})"


def check_module_version_greater_or_equal(module, req_version_tuple, error_if_malformed=True):
    """Whether ``module.__version__`` (split at dots, each field cast to the type of the required one) is at
    least ``req_version_tuple``; a version that cannot be compared raises RuntimeError (or, without
    ``error_if_malformed``, warns and answers True)."""
    try:
        fields = module.__version__.split(".")
        have = tuple(type(req)(fields[i]) for i, req in enumerate(req_version_tuple))
        return have >= req_version_tuple
    except Exception as e:
        message = (f"'{module.__name__}' module version string is malformed '{module.__version__}' and cannot be "
                   f"compared with tuple {str(req_version_tuple)}")
        if error_if_malformed:
            raise RuntimeError(message) from e
        warnings.warn(message + ", but continuing assuming that requirement is met", stacklevel=2)
        return True


# ---- settings (torch.utils.serialization.config) ------------------------------------------------------------
def get_crc32_options() -> bool:
    """Whether ``torch.save`` writes each record's CRC-32 (torchlike's zip writer always does)."""
    return config.save.compute_crc32


def set_crc32_options(compute_crc32: bool):
    """Record whether ``torch.save`` should write CRC-32s (torchlike's files always carry them: a reader that
    checks them accepts either)."""
    config.save.compute_crc32 = compute_crc32


def get_default_load_endianness():
    """The byte order ``torch.load`` assumes when a checkpoint has no ``byteorder`` record (None: native)."""
    return config.load.endianness


def set_default_load_endianness(endianness):
    """Set the byte order assumed for checkpoints without a ``byteorder`` record (a LoadEndianness or None)."""
    if not isinstance(endianness, LoadEndianness) and endianness is not None:
        raise TypeError("Invalid argument type in function set_default_load_endianness")
    config.load.endianness = endianness


def get_default_mmap_options():
    """The flags ``torch.load(mmap=True)`` maps files with (``mmap.MAP_PRIVATE`` by default)."""
    return config.load.mmap_flags


class set_default_mmap_options:
    """Set the flags ``torch.load(mmap=True)`` maps files with (``mmap.MAP_PRIVATE`` or ``mmap.MAP_SHARED``),
    as a call or for a ``with`` block."""

    def __init__(self, flags: int) -> None:
        if IS_WINDOWS:
            raise RuntimeError("Changing the default mmap options is currently not supported for Windows")
        if flags != MAP_PRIVATE and flags != MAP_SHARED:
            raise ValueError("Invalid argument in function set_default_mmap_options, expected mmap.MAP_PRIVATE or "
                             f"mmap.MAP_SHARED, but got {flags}")
        self.prev = config.load.mmap_flags
        config.load.mmap_flags = flags

    def __enter__(self) -> None:
        pass

    def __exit__(self, exc_type, exc_value, traceback) -> None:
        config.load.mmap_flags = self.prev


class _SerializationLocal(threading.local):
    def __init__(self):
        super().__init__()
        self.map_location = None
        self.skip_data = False
        self.materialize_fake_tensors = False


_serialization_tls = _SerializationLocal()


class skip_data:
    """Inside the block ``torch.save`` writes each storage's record as zeros and ``torch.load`` reads no
    storage bytes (tensors come back zero-filled, with the checkpoint's shapes and dtypes).

    >>> import io, torchlike
    >>> buf = io.BytesIO()
    >>> with torchlike.serialization.skip_data():
    ...     torchlike.save(torchlike.ones(2), buf)
    >>> torchlike.load(io.BytesIO(buf.getvalue()))
    tensor([0., 0.])
    """

    def __init__(self, materialize_fake_tensors: bool = False):
        self.materialize_fake_tensors = materialize_fake_tensors

    def __enter__(self):
        self._old = (_serialization_tls.skip_data, _serialization_tls.materialize_fake_tensors)
        _serialization_tls.skip_data = True
        _serialization_tls.materialize_fake_tensors = self.materialize_fake_tensors

    def __exit__(self, type, value, tb):
        _serialization_tls.skip_data, _serialization_tls.materialize_fake_tensors = self._old
