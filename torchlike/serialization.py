"""torch.save / torch.load in PyTorch's own zip format, readable and writable without torch.

A file is a zip archive ``<name>/data.pkl`` (a protocol-2 pickle whose tensors refer to storages by
persistent id) plus one uncompressed, 64-byte-aligned record ``<name>/data/<key>`` of little-endian
bytes per storage.  Views that share a root share one storage record, as in torch.

>>> import io, torchlike
>>> buf = io.BytesIO()
>>> torchlike.save({"w": torchlike.arange(3)}, buf)
>>> _ = buf.seek(0)
>>> torchlike.load(buf)["w"]
tensor([0, 1, 2])
"""
from __future__ import annotations

import _compat_pickle
import collections
import errno
import io
import os
import pickle
import struct
import sys
import tempfile
import types
import warnings
import zipfile
from typing import Any, Callable, Dict, Union

import jax.numpy as jnp
import numpy as np

from . import _dtype, _views, _weights_only
from ._device import canonical, device as _device_cls, host_to_jax
from ._tensor_pickling import with_bits
from ._layout import strided as _strided
from . import _memory_format as _mfmt
from .tensor import Size, Tensor
from .nn.parameter import Parameter, is_lazy
from ._ops.views import view_step
from . import cuda
from ._legacy_serialization import legacy_load
from .sparse._serialization import reduce_sparse
from ._storage import TypedStorage, UntypedStorage
from ._quantized import _QTensor, qscheme, rebuild_qtensor
from .types import FileLike  # noqa: F401 - torch.serialization names it
from .utils.serialization import config as _config
from . import _serialization_registry as _registry
from ._serialization_registry import _package_registry  # noqa: F401 - (torch's list; libraries read it)
from ._serialization_registry import (  # noqa: F401 - torch.serialization's public API
    INT_SIZE, IS_WINDOWS, LONG_SIZE, MAGIC_NUMBER, MAP_PRIVATE, MAP_SHARED, PROTOCOL_VERSION, SHORT_SIZE,
    STORAGE_KEY_SEPARATOR, LoadEndianness, SourceChangeWarning, StorageType, check_module_version_greater_or_equal,
    default_restore_location, get_crc32_options, get_default_load_endianness, get_default_mmap_options,
    location_tag, mkdtemp, normalize_storage_type, register_package, set_crc32_options, set_default_load_endianness,
    set_default_mmap_options, skip_data, storage_to_tensor_type, validate_cuda_device, validate_hpu_device)

__all__ = ["save", "load", "add_safe_globals", "get_safe_globals", "clear_safe_globals", "safe_globals",
           "get_unsafe_globals_in_checkpoint", "DEFAULT_PROTOCOL"]

DEFAULT_PROTOCOL = 2
# torch.serialization's type aliases (pyro's param store imports MAP_LOCATION)
MAP_LOCATION = Union[Callable[[Any, str], Any], _device_cls, str, Dict[str, str], None]
STORAGE = Union[TypedStorage, UntypedStorage]

_STORAGE_NAMES = {"float32": "FloatStorage", "float64": "DoubleStorage", "float16": "HalfStorage",
                  "bfloat16": "BFloat16Storage", "int64": "LongStorage", "int32": "IntStorage",
                  "int16": "ShortStorage", "int8": "CharStorage", "uint8": "ByteStorage", "bool": "BoolStorage",
                  "complex64": "ComplexFloatStorage", "complex128": "ComplexDoubleStorage",
                  "uint16": "UInt16Storage", "uint32": "UInt32Storage", "uint64": "UInt64Storage",
                  "qint8": "QInt8Storage", "quint8": "QUInt8Storage", "qint32": "QInt32Storage"}
_STORAGE_DTYPES = {v: getattr(_dtype, k) for k, v in _STORAGE_NAMES.items()}
# a quantized tensor's storage holds its integer representation, read as such (_rebuild_qtensor wraps it)
_STORAGE_DTYPES.update(QInt8Storage=_dtype.int8, QUInt8Storage=_dtype.uint8, QInt32Storage=_dtype.int32)


# ---- writing ------------------------------------------------------------------------------------
class _Global:
    """Stands for ``module.name`` in the pickle stream (torch need not be importable)."""

    def __init__(self, module, name):
        self.module, self.name = module, name

    def __call__(self, *a):  # never called: pickle only checks that reduce functions are callable
        raise TypeError(f"{self.module}.{self.name} is a pickle marker")


_REBUILD_TENSOR = _Global("torch._utils", "_rebuild_tensor_v2")
_REBUILD_FROM_TYPE = _Global("torch._tensor", "_rebuild_from_type_v2")
_REBUILD_PARAM = _Global("torch._utils", "_rebuild_parameter")
_REBUILD_QTENSOR = _Global("torch._utils", "_rebuild_qtensor")
_ORDERED_DICT = _Global("collections", "OrderedDict")


class _Pickler(pickle._Pickler):
    def __init__(self, file, storages):
        super().__init__(file, protocol=DEFAULT_PROTOCOL)
        self.storages = storages  # id(root) -> (key, root array, dtype)
        self.view_dtypes = {}  # id(root) -> the dtype its data was first saved as (torch refuses a second one)

    def save_global(self, obj, name=None):
        if isinstance(obj, _Global):
            self.write(pickle.GLOBAL + f"{obj.module}\n{obj.name}\n".encode())
            return
        module = _torch_module_of(obj, name)
        if module is not None:
            self.write(pickle.GLOBAL + f"{module}\n{name or obj.__qualname__}\n".encode())
            self.memoize(obj)
            return
        super().save_global(obj, name)

    def persistent_id(self, obj):
        if isinstance(obj, TypedStorage):  # ``torch.save(t.storage())``: the storage record of t's root
            obj = self._root_storage(obj._tensor)
        elif isinstance(obj, UntypedStorage) and obj._root is not None:
            ref = self._root_storage(obj._root)
            return ("storage", _Global("torch.storage", "UntypedStorage"), ref.key, ref.location,
                    ref.numel * ref.dtype.itemsize)
        if isinstance(obj, _StorageRef):
            return ("storage", _Global("torch", _STORAGE_NAMES[obj.dtype.name]), obj.key, obj.location,
                    obj.numel)
        return None

    def _root_storage(self, t):
        root = t._vbase if t._vbase is not None else t
        return self._storage(root, root._value, root.dtype, root.device)

    def reducer_override(self, obj):
        if isinstance(obj, _QTensor):
            return self._reduce_qtensor(obj)
        if isinstance(obj, Tensor) and not _is_lazy(obj):
            if obj.is_nested:  # (torch pickles them by _rebuild_njt / nested sizes: not written here)
                raise RuntimeError("torchlike cannot save nested tensors (torch.nested); save nt.values() and "
                                   "nt.offsets() instead (see docs/differences.md)")
            if obj.layout is not _strided:  # sparse: torch's _rebuild_sparse_tensor(layout, (indices, values, ...))
                return reduce_sparse(obj, _Global)
            return self._reduce_tensor(obj)
        return NotImplemented

    def save(self, obj, save_persistent_id=True):
        if isinstance(obj, _Global):
            self.save_global(obj)
            return
        if isinstance(obj, (types.FunctionType, types.BuiltinFunctionType)) and _torch_module_of(obj) is not None:
            memoized = self.memo.get(id(obj))
            if memoized is not None:
                self.write(self.get(memoized[0]))
            else:
                self.save_global(obj)  # pickle's function dispatch would bypass our save_global
            return
        if isinstance(obj, (_dtype.dtype, qscheme)):
            self.save_global(_Global("torch", obj.name))
            return
        if isinstance(obj, Size):
            self.save_reduce(_Global("torch", "Size"), (tuple(obj),), obj=obj)
            return
        if isinstance(obj, _device_cls):
            args = (obj.type,) if obj.index is None else (obj.type, obj.index)
            self.save_reduce(_Global("torch", "device"), args, obj=obj)
            return
        if isinstance(obj, (types.FunctionType, type)):  # pickled by reference, through pickle's own dispatch
            try:
                super().save(obj, save_persistent_id)
            except pickle.PicklingError:
                try:  # torch pickles with the C pickler: its error (AttributeError "Can't pickle local object ...")
                    pickle.dumps(obj, protocol=DEFAULT_PROTOCOL)
                except Exception as c_error:  # noqa: BLE001
                    raise c_error from None
                raise
            return
        super().save(obj, save_persistent_id)

    def _reduce_tensor(self, t):
        base = t._vbase if t._vbase is not None else t
        if self.view_dtypes.setdefault(id(base), (base, t.dtype))[1] is not t.dtype:  # (x, view_as_real(x))
            raise RuntimeError("Cannot save multiple tensors or storages that view the same data as different types")
        if t.grad_fn is not None and not isinstance(t, Parameter):
            pass  # torch saves non-leaf tensors' data too (without history)
        root = t._vbase if (t._vbase is not None and not _has_complex_step(t._chain)) else None
        if root is None:
            arr = t._value
            ref = self._storage(t if t._vbase is None else None, _in_storage_order(t, arr), t.dtype, t.device)
            stride, offset = (t.stride() if t._vbase is None else _views.contiguous_strides(arr.shape)), 0
        else:
            ref = self._storage(root, _in_storage_order(root, root._value), root.dtype, t.device)
            stride, offset = t.stride(), t.storage_offset()
            if t.dtype is not root.dtype:  # view(dtype) etc.: store a copy
                ref = self._storage(None, t._value, t.dtype, t.device)
                stride, offset = _views.contiguous_strides(t.shape), 0
        args = (ref, offset, tuple(t.shape), tuple(stride), False, collections.OrderedDict())
        if isinstance(t, Parameter):
            inner = _TensorReduce(args)
            return (_REBUILD_PARAM, (inner, t.requires_grad, collections.OrderedDict()))
        args = args[:4] + (t.requires_grad, args[5])
        conj, neg = _views.conj_neg_bits(t) if root is not None else (False, False)
        if conj or neg:  # torch's conjugate/negative bits travel as metadata (a copy holds the values as read)
            args += ({k: True for k, bit in (("conj", conj), ("neg", neg)) if bit},)
        cls = type(t)
        if cls is not Tensor and cls.__module__.partition(".")[0] not in ("torchlike", "torch"):  # a user's subclass: torch's
            return (_REBUILD_FROM_TYPE, (_REBUILD_TENSOR, cls, args, dict(vars(t))))  # Tensor.__reduce_ex__
        return (_REBUILD_TENSOR, args)

    def _reduce_qtensor(self, t):
        """torch's ``_rebuild_qtensor(storage, offset, size, stride, quantizer_params, requires_grad, hooks)``."""
        dt, scheme, scale, zp, axis = t._q
        if dt.name not in _STORAGE_NAMES:
            raise NotImplementedError(f"torchlike cannot save torch.{dt.name} tensors (torch packs them; see "
                                      "docs/differences.md)")
        ref = self._storage(None, t._x, dt, t.device)
        params = (scheme, scale, zp) if axis is None else (scheme, scale, zp, axis)
        return (_REBUILD_QTENSOR, (ref, 0, tuple(t.shape), _views.contiguous_strides(t.shape), params, False,
                                   collections.OrderedDict()))

    def _storage(self, owner, arr, dt, dev):
        key_obj = id(owner) if owner is not None else ("copy", len(self.storages))
        hit = self.storages.get(key_obj)
        if hit is None:
            hit = _StorageRef(str(len(self.storages)), arr, dt, "cpu" if dev.type == "cpu" else str(dev))
            self.storages[key_obj] = hit
            if owner is not None:
                hit.owner = owner  # keep alive so id() stays unique while saving
        return hit


def _torch_module_of(obj, name=None):
    """torch's module path for a torchlike class/function (pickles name torch's globals), else None.

    A private module (``torchlike.nn.functional._activation``) is replaced by the nearest public
    package that exports the same object (``torch.nn.functional``).
    """
    module = getattr(obj, "__module__", None)
    qual = name or getattr(obj, "__qualname__", None)
    if not isinstance(module, str) or not (module == "torchlike" or module.startswith("torchlike.")) \
            or not qual or "." in qual:
        return None
    import sys
    parts = module.split(".")
    while any(p.startswith("_") for p in parts[1:]) and len(parts) > 1:
        parts.pop()
        mod = sys.modules.get(".".join(parts))
        if mod is not None and getattr(mod, qual, None) is obj and not any(p.startswith("_") for p in parts[1:]):
            break
    return "torch" + ".".join(parts)[len("torchlike"):]


class _TensorReduce:
    def __init__(self, args):
        self.args = args

    def __reduce__(self):
        return (_REBUILD_TENSOR, self.args)


class _StorageRef:
    def __init__(self, key, arr, dtype, location):
        self.key, self.arr, self.dtype, self.location = key, arr, dtype, location
        self.numel = int(np.prod(arr.shape, dtype=np.int64))


def _is_lazy(t):
    return is_lazy(t)


def _has_complex_step(chain):
    return any(s[0] in ("real", "imag", "view_dtype", "as_real", "as_complex") for s in (chain or ()))


def _aligned_writestr(zf, name, data):
    info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
    info.compress_type = zipfile.ZIP_STORED
    header_end = zf.fp.tell() + 30 + len(name.encode())
    pad = (-(header_end + 4)) % _config.save.storage_alignment
    info.extra = struct.pack("<HH", 0x4246, pad) + b"Z" * pad
    zf.writestr(info, data)


def _write_archive(fileobj, obj, archive_name):
    storages = {}
    buf = io.BytesIO()
    _Pickler(buf, storages).dump(obj)
    with zipfile.ZipFile(fileobj, "w", zipfile.ZIP_STORED) as zf:
        _aligned_writestr(zf, f"{archive_name}/data.pkl", buf.getvalue())
        _aligned_writestr(zf, f"{archive_name}/.format_version", b"1")
        _aligned_writestr(zf, f"{archive_name}/.storage_alignment", str(_config.save.storage_alignment).encode())
        _aligned_writestr(zf, f"{archive_name}/byteorder", b"little")
        for ref in sorted(storages.values(), key=lambda r: int(r.key)):
            if _registry._serialization_tls.skip_data:  # the record's space, left zero
                a = np.zeros(ref.numel, np.dtype(ref.dtype.np))
            else:
                a = np.ascontiguousarray(np.asarray(ref.arr)).reshape(-1)
            _aligned_writestr(zf, f"{archive_name}/data/{ref.key}", a.astype(a.dtype.newbyteorder("<")).tobytes())
        _aligned_writestr(zf, f"{archive_name}/version", b"3\n")
        _aligned_writestr(zf, f"{archive_name}/.data/serialization_id", b"0" * 40)


def write_atomically(path, write):
    """Call ``write(fh)`` on a temporary file beside ``path`` and rename it into place, so a failed write
    never corrupts an existing file (used by save, export.save and jit.save)."""
    name = os.fspath(path)
    if isinstance(name, bytes):
        name = os.fsdecode(name)
    if not name:  # (torch's PyTorchStreamWriter's checks, in its words)
        raise RuntimeError("[enforce fail at inline_container.cc:720] . invalid file name: ")
    parent = os.path.dirname(name)
    if parent and not os.path.exists(parent):
        raise RuntimeError(f"Parent directory {parent} does not exist.")
    if os.path.isdir(name):
        raise RuntimeError(f"[enforce fail at inline_container.cc:747] . open file failed with strerror: "
                           f"{os.strerror(errno.EISDIR)}")
    folder = os.path.dirname(os.path.abspath(name))
    try:
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=folder)
    except OSError as e:
        raise RuntimeError(f"[enforce fail at inline_container.cc:747] . open file failed with strerror: "
                           f"{e.strerror}") from None
    try:
        with os.fdopen(fd, "wb") as fh:
            write(fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def save(obj, f, pickle_module=None, pickle_protocol=DEFAULT_PROTOCOL, _use_new_zipfile_serialization=True,
         _disable_byteorder_record=False):
    """Save ``obj`` in torch's zip format to a path or a binary file object.

    A path is written to a temporary file in the same folder and renamed into place, so a failed save
    never corrupts an existing file.
    """
    if isinstance(f, (str, os.PathLike)):
        path = os.fspath(f)
        archive = os.path.splitext(os.path.basename(path))[0] or "archive"
        write_atomically(path, lambda fh: _write_archive(fh, obj, archive))
        return
    if not hasattr(f, "write"):
        raise AttributeError("expected 'f' to be string, path, or a file-like object with a 'write' attribute")
    _write_archive(f, obj, "archive")


# ---- reading ------------------------------------------------------------------------------------
def add_safe_globals(safe_globals):
    """Mark classes/functions (or ``(obj, "module.qualname")`` pairs) as safe for ``load(weights_only=True)``.

    >>> import collections, torchlike
    >>> torchlike.serialization.add_safe_globals([collections.Counter])
    >>> collections.Counter in torchlike.serialization.get_safe_globals()
    True
    >>> torchlike.serialization.clear_safe_globals()
    """
    _weights_only.add_safe_globals(safe_globals)


def get_safe_globals():
    """The user-added globals that are safe for ``weights_only`` load (see ``add_safe_globals``)."""
    return _weights_only.get_safe_globals()


def clear_safe_globals():
    """Forget every global added with ``add_safe_globals`` (see ``add_safe_globals``)."""
    _weights_only.clear_safe_globals()


class safe_globals(_weights_only.safe_globals_context):
    """Context manager allowing these globals in ``load(weights_only=True)`` inside the block.

    >>> import io, torchlike
    >>> buf = io.BytesIO(); torchlike.save({1j}, buf); _ = buf.seek(0)
    >>> with torchlike.serialization.safe_globals([]):
    ...     torchlike.load(buf)
    {1j}
    """


def get_unsafe_globals_in_checkpoint(f):
    """The GLOBALs of a ``save`` file that ``weights_only`` load would refuse (read statically)."""
    with _open_read(f) as fh:
        if not zipfile.is_zipfile(fh):
            raise ValueError("Expected input to be a checkpoint returned by torch.save")
        fh.seek(0)
        with zipfile.ZipFile(fh) as zf:
            found = _weights_only.globals_in_pickle(zf.read(_data_pkl_name(zf)))
    safe = set(_weights_only.default_allowed_globals()) | set(_weights_only.user_allowed_globals())
    return list(found - safe)


TENSOR_TYPE_NAMES = ("FloatTensor", "DoubleTensor", "HalfTensor", "BFloat16Tensor", "LongTensor", "IntTensor",
                     "ShortTensor", "CharTensor", "ByteTensor", "BoolTensor")


def storage_types():
    """torch's storage class names -> torchlike dtype (``torch.FloatStorage`` -> float32)."""
    return dict(_STORAGE_DTYPES, UntypedStorage=_dtype.uint8)


def _get_layout(name):
    return name  # torchlike's layouts are their names (Tensor.layout == "torch.strided")


def _rebuild_tensor(storage, storage_offset, size, stride):
    return storage.view(storage_offset, tuple(size), tuple(stride))


def _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad=False, backward_hooks=None,
                       metadata=None):
    t = _rebuild_tensor(storage, storage_offset, size, stride)
    if metadata:  # torch's ``set_tensor_metadata``: the bits of a saved conjugate/negative view
        t = with_bits(t, bool(metadata.get("conj")), bool(metadata.get("neg")))
    if requires_grad:
        t.requires_grad_(True)
    return t


def _rebuild_qtensor(storage, storage_offset, size, stride, quantizer_params, requires_grad=False,
                     backward_hooks=None):
    """A quantized tensor over ``storage`` (its integer representation); ``quantizer_params`` are
    ``(qscheme, scale, zero_point)`` or, per channel, ``(qscheme, scales, zero_points, axis)``."""
    ints = _rebuild_tensor(storage, storage_offset, size, stride)
    return rebuild_qtensor(ints, quantizer_params)


def _rebuild_parameter(data, requires_grad, backward_hooks, *state):
    p = Parameter(data, requires_grad)
    if state and isinstance(state[0], dict):
        p.__dict__.update(state[0])
    return p


_rebuild_parameter_with_state = _rebuild_parameter


def _rebuild_device_tensor_from_numpy(data, dtype, device, requires_grad):
    t = Tensor._wrap(jnp.asarray(np.asarray(data)).astype(dtype.np), canonical(device))
    return t.requires_grad_(requires_grad) if requires_grad else t


def _rebuild_device_tensor_from_cpu_tensor(data, dtype, device, requires_grad):
    t = data.to(dtype=dtype)
    return t.requires_grad_(requires_grad) if requires_grad else t


def _rebuild_from_type_v2(func, new_type, args, state):
    ret = func(*args)
    if type(ret) is not new_type:
        ret = ret._as_subclass_shared(new_type)  # (a loaded leaf stays a leaf)
    setstate = getattr(type(ret), "__setstate__", None)
    if setstate is not None and setstate is not getattr(Tensor, "__setstate__", None):
        ret.__setstate__(state)
    elif isinstance(state, tuple) and len(state) == 2:
        ret.__dict__.update(state[0] or {})
        for k, v in (state[1] or {}).items():
            setattr(ret, k, v)
    elif state:
        ret.__dict__.update(state)
    return ret


class _Storage:
    """One saved storage; tensors over it are views of a single root so that writes are shared.

    The root is the first tensor built over the storage when that tensor covers it contiguously from
    offset 0; otherwise a hidden flat tensor holding all of it.
    """

    def __init__(self, read, key, dt, device, numel):
        self.read, self.key, self.dt, self.device, self.numel = read, key, dt, device, numel
        self.root = None

    def view(self, offset, size, stride):
        numel = int(np.prod(size, dtype=np.int64))
        full = offset == 0 and stride == _views.contiguous_strides(size) and numel == self.numel
        permuted = not full and offset == 0 and numel == self.numel and len(size) > 1 and \
            _mfmt.non_overlapping_and_dense(size, stride)  # (a channels-last tensor's storage, ...)
        if self.root is None:
            # the storage's bytes are arranged on the host (numpy) and cross to the device once: a reshape
            # or transpose of the device array would compile a program for every new shape in the file
            raw = self.read(self.key, self.dt, self.numel)
            if full:
                self.root = Tensor._wrap(host_to_jax(raw.reshape(size), copy=False), self.device)
                return self.root
            if permuted:
                perm = sorted(range(len(size)), key=lambda d: (-stride[d], -size[d]))
                x = np.ascontiguousarray(np.transpose(raw.reshape(tuple(size[d] for d in perm)), np.argsort(perm)))
                self.root = _mfmt.set_strides(Tensor._wrap(host_to_jax(x, copy=False), self.device), stride)
                return self.root
            self.root = Tensor._wrap(host_to_jax(raw, copy=False), self.device)
        if numel == 0:
            return Tensor._wrap(host_to_jax(np.zeros(size, self.dt.np), copy=False), self.device)
        return view_step(self.root, ("as_strided", size, stride, int(offset)))


def _in_storage_order(root, arr):
    """The value of ``root`` (array ``arr``) in the order of torch's storage for its strides (channels-last:
    channels innermost; see _memory_format)."""
    perm = _mfmt.storage_perm(root)
    return arr if perm is None else jnp.transpose(arr, perm)


def _storage_dtype(storage_type):
    return storage_type if isinstance(storage_type, _dtype.dtype) else _dtype.uint8


class _Unpickler(pickle.Unpickler):
    """``weights_only=False``: any global, torch's names resolved to torchlike's objects."""

    def __init__(self, file, persistent_load, **kwargs):
        kwargs.setdefault("encoding", "utf-8")
        super().__init__(file, **kwargs)
        self._pload = persistent_load

    def find_class(self, module, name):
        if (module, name) in _compat_pickle.NAME_MAPPING:
            module, name = _compat_pickle.NAME_MAPPING[(module, name)]
        elif module in _compat_pickle.IMPORT_MAPPING:
            module = _compat_pickle.IMPORT_MAPPING[module]
        defaults = _weights_only.default_allowed_globals()
        if f"{module}.{name}" in defaults:
            return defaults[f"{module}.{name}"]
        if module == "torch" or module.startswith("torch."):
            module = "torchlike" + module[len("torch"):]
        return super().find_class(module, name)

    def persistent_load(self, pid):
        return self._pload(pid)


def _unpickle(data_file, persistent_load, weights_only, pickle_load_args):
    if weights_only:
        up = _weights_only.Unpickler(data_file, encoding=pickle_load_args.get("encoding", "utf-8"),
                                     persistent_load=persistent_load)
        try:
            return up.load()
        except pickle.UnpicklingError as e:
            raise pickle.UnpicklingError(_weights_only.wo_message(str(e))) from None
    return _Unpickler(data_file, persistent_load, **pickle_load_args).load()


def _data_pkl_name(zf):
    pkl = next((n for n in zf.namelist() if n.endswith("/data.pkl") and n.count("/") == 1), None)
    if pkl is None:
        raise RuntimeError("PytorchStreamReader failed locating file data.pkl: file not found")
    return pkl


class _Loader:
    def __init__(self, zf, prefix, map_location, mmap_path, order="<"):
        self.zf, self.prefix, self.map_location, self.mmap_path = zf, prefix, map_location, mmap_path
        self.order = order
        self.storages = {}

    def persistent_load(self, pid):
        if not (isinstance(pid, tuple) and pid and _weights_only._ascii(pid[0]) == "storage"):
            raise pickle.UnpicklingError(f"unsupported persistent id {pid!r}")
        _, storage_type, key, location, numel = pid
        st = self.storages.get(key)
        if st is None:
            dev = _device_for(self.map_location, _weights_only._ascii(location))
            st = self.storages[key] = _Storage(self.read, key, _storage_dtype(storage_type), dev, numel)
        return st

    def read(self, key, dt, numel):
        name = f"{self.prefix}/data/{key}"
        np_dt = np.dtype(dt.np).newbyteorder(self.order)
        if _registry._serialization_tls.skip_data:  # torch.serialization.skip_data: the bytes are not read
            return np.zeros(numel, np.dtype(dt.np))
        if self.mmap_path is not None:
            info = self.zf.getinfo(name)
            with open(self.mmap_path, "rb") as fh:
                fh.seek(info.header_offset)
                hdr = fh.read(30)
                n, m = struct.unpack("<HH", hdr[26:30])
            arr = np.memmap(self.mmap_path, dtype=np_dt, mode="r", offset=info.header_offset + 30 + n + m,
                            shape=(numel,))
        else:
            arr = np.frombuffer(self.zf.read(name), dtype=np_dt, count=numel)
        return arr.astype(np.dtype(dt.np))  # (a copy: the array is the storage's own, _Storage.view moves it)


def _device_for(ml, location):
    """Where a storage saved at ``location`` goes under ``map_location``."""
    if callable(ml) and not isinstance(ml, (str, _device_cls)):
        return canonical("cpu")
    if isinstance(ml, dict):
        location = ml.get(location, location)
    elif ml is not None:
        location = str(ml)
    try:
        d = canonical(location)
    except RuntimeError:  # (torch's restore functions know no such tag)
        raise RuntimeError(f"don't know how to restore data location of torch.storage.UntypedStorage (tagged with "
                           f"{location})") from None
    if d.type == "cuda":
        if not cuda.is_available():
            raise RuntimeError("Attempting to deserialize object on a CUDA device but torch.cuda.is_available() "
                               "is False. If you are running on a CPU-only machine, please use torch.load with "
                               "map_location=torch.device('cpu') to map your storages to the CPU.")
    return d


def _byteorder(zf, prefix, names):
    """The checkpoint's byte order: its ``byteorder`` record, else torch's fallback
    (``set_default_load_endianness``: None reads little-endian, NATIVE the machine's order)."""
    if f"{prefix}/byteorder" in names:
        order = zf.read(f"{prefix}/byteorder")
        if order not in (b"little", b"big"):
            raise ValueError("Unknown endianness type: " + order.decode())
        return order.decode()
    fallback = _config.load.endianness
    if fallback is None or fallback is LoadEndianness.LITTLE:
        return "little"
    if fallback is LoadEndianness.BIG:
        return "big"
    if fallback is LoadEndianness.NATIVE:
        return sys.byteorder
    raise ValueError("Invalid load endianness type")


class _open_read:
    def __init__(self, f):
        self.f = f

    def __enter__(self):
        if isinstance(self.f, (str, os.PathLike)):
            path = os.fspath(self.f)
            if not os.path.exists(path):
                raise FileNotFoundError(f"[Errno 2] No such file or directory: '{path}'")
            self.fh = open(path, "rb")
        else:
            self.fh = self.f
            try:  # (torch's _check_seekable: its words after Python's)
                self.f.seek(self.f.tell())
            except (io.UnsupportedOperation, AttributeError) as e:
                if "seek" in str(e) or "tell" in str(e):
                    raise type(e)(f"{e}. You can only torch.load from a file that is seekable. Please pre-load the "
                                  f"data into a buffer like io.BytesIO and try to load from it instead.") from None
                raise
        return self.fh

    def __exit__(self, *exc):
        if self.fh is not self.f:
            self.fh.close()


_TORCHSCRIPT_WEIGHTS_ONLY = (
    "Cannot use ``weights_only=True`` with TorchScript archives passed to ``torch.load``. In PyTorch 2.6, we "
    "changed the default value of the `weights_only` argument in `torch.load` from `False` to `True`. Re-running "
    "`torch.load` with `weights_only` set to `False` will likely succeed, but it can result in arbitrary code "
    "execution. Do it only if you got the file from a trusted source.")


def zip_read_error(size):
    """torch's error for ``size`` bytes its zip reader (miniz) cannot open: under 22 bytes (an end-of-central-
    directory record) "not a ZIP archive", else "failed finding central directory" (a truncated checkpoint)."""
    why = "not a ZIP archive" if size < 22 else "failed finding central directory"
    return RuntimeError(f"PytorchStreamReader failed reading zip archive: {why}. This is an internal miniz error. If "
                        "you are seeing this error, there is a high likelihood that your checkpoint file is corrupted. "
                        "This can happen if the checkpoint was not saved properly, was transferred incorrectly, or the "
                        "file was modified after saving.")


def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None, **pickle_load_args):
    """Load an object saved by ``torch.save`` (or ``torchlike.save``), zip or legacy (pre-1.6) format.

    ``weights_only=True`` (the default, as in torch) refuses any global outside tensors, containers,
    dtypes/devices/sizes and ``add_safe_globals`` entries — without executing anything.
    """
    true_values = ("1", "y", "yes", "true")
    force_wo = os.getenv("TORCH_FORCE_WEIGHTS_ONLY_LOAD", "0").lower() in true_values
    force_no_wo = os.getenv("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD", "0").lower() in true_values
    if force_wo and force_no_wo:
        raise RuntimeError("Only one of `TORCH_FORCE_WEIGHTS_ONLY_LOAD` or `TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD` "
                           "should be set, but both were set.")
    if force_wo:
        weights_only = True
    elif weights_only is None:
        weights_only = not force_no_wo and pickle_module is None
    if weights_only and pickle_module is not None:
        raise RuntimeError("Can not safely load weights when explicit pickle_module is specified")
    if pickle_load_args and weights_only:
        warnings.warn("pickle_load_args only works if `weights_only=False`.")
        pickle_load_args = {}
    if mmap is None:
        mmap = _config.load.mmap
    if not isinstance(f, (str, os.PathLike)) and mmap:
        raise ValueError("f must be a file path in order to use the mmap argument")
    with _open_read(f) as fh:
        if zipfile.is_zipfile(fh):
            fh.seek(0)
            with zipfile.ZipFile(fh) as zf:
                if any(n.endswith("/constants.pkl") for n in zf.namelist()):  # torch's _is_torchscript_zip
                    if weights_only:
                        raise RuntimeError(_TORCHSCRIPT_WEIGHTS_ONLY)
                    warnings.warn("'torch.load' received a zip file that looks like a TorchScript archive dispatching "
                                  "to 'torch.jit.load' (call 'torch.jit.load' directly to silence this warning)",
                                  UserWarning)
                    from . import jit  # lazy: torch.jit is an entry point above serialization (it saves with it)
                    fh.seek(0)
                    return jit.load(f if isinstance(f, (str, os.PathLike)) else io.BytesIO(fh.read()),
                                    map_location=map_location)
                pkl = _data_pkl_name(zf)
                prefix = pkl.split("/")[0]
                names = zf.namelist()
                order = _byteorder(zf, prefix, names)
                loader = _Loader(zf, prefix, map_location, os.fspath(f) if mmap else None,
                                 "<" if order == "little" else ">")
                obj = _unpickle(io.BytesIO(zf.read(pkl)), loader.persistent_load, weights_only, pickle_load_args)
                obj = _storages_as_typed(obj)  # (reads the archive: inside the with)
        else:
            fh.seek(0)
            if fh.read(4) == b"PK\x03\x04":  # torch's _is_zipfile: a zip that its reader cannot open (truncated)
                raise zip_read_error(fh.seek(0, 2))
            if mmap:
                f_name = "" if not isinstance(f, str) else f"{f}, "
                raise RuntimeError("mmap can only be used with files saved with `torch.save("
                                   f"{f_name}_use_new_zipfile_serialization=True), please torch.save your "
                                   "checkpoint with this option in order to use mmap.")
            fh.seek(0)
            obj = legacy_load(fh, lambda loc: _device_for(map_location, loc), weights_only, pickle_load_args)
    if callable(map_location) and not isinstance(map_location, (str, _device_cls, dict)):
        obj = _apply_map_location(obj, map_location)
    return obj


def _storages_as_typed(obj):
    """A storage record unpickled outside a tensor (``torch.save(t.storage())``, or one in a container) loads
    as torch's ``TypedStorage`` (uint8 for an untyped one), sharing memory with tensors over the same record."""
    if isinstance(obj, _Storage):
        return TypedStorage(wrap_storage=obj.view(0, (obj.numel,), (1,)), _internal=True)
    if type(obj) in (list, tuple, dict, collections.OrderedDict):
        if isinstance(obj, dict):
            if not any(isinstance(v, (_Storage, list, tuple, dict)) for v in obj.values()):
                return obj
            new = type(obj)((k, _storages_as_typed(v)) for k, v in obj.items())
            if type(obj) is collections.OrderedDict:  # (a state_dict's _metadata: the modules' versions)
                new.__dict__.update(vars(obj))
            return new
        if not any(isinstance(v, (_Storage, list, tuple, dict)) for v in obj):
            return obj
        return type(obj)(_storages_as_typed(v) for v in obj)
    return obj


def _apply_map_location(obj, fn):
    if isinstance(obj, Tensor):
        r = fn(obj, "cpu")
        return obj if r is None else r
    if isinstance(obj, dict):
        new = type(obj)((k, _apply_map_location(v, fn)) for k, v in obj.items())
        if hasattr(obj, "__dict__"):  # (a state_dict's _metadata: the modules' versions, kept as torch keeps it)
            new.__dict__.update(vars(obj))
        return new
    if isinstance(obj, (list, tuple)) and not hasattr(obj, "_fields"):
        return type(obj)(_apply_map_location(v, fn) for v in obj)
    return obj
