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

import collections
import io
import os
import pickle
import struct
import tempfile
import zipfile

import jax.numpy as jnp
import numpy as np

from . import _dtype, _views
from ._device import canonical, device as _device_cls
from .tensor import Size, Tensor

__all__ = ["save", "load", "add_safe_globals", "get_safe_globals", "clear_safe_globals", "safe_globals",
           "DEFAULT_PROTOCOL"]

DEFAULT_PROTOCOL = 2
_ALIGN = 64

_STORAGE_NAMES = {"float32": "FloatStorage", "float64": "DoubleStorage", "float16": "HalfStorage",
                  "bfloat16": "BFloat16Storage", "int64": "LongStorage", "int32": "IntStorage",
                  "int16": "ShortStorage", "int8": "CharStorage", "uint8": "ByteStorage", "bool": "BoolStorage",
                  "complex64": "ComplexFloatStorage", "complex128": "ComplexDoubleStorage",
                  "uint16": "UInt16Storage", "uint32": "UInt32Storage", "uint64": "UInt64Storage"}
_STORAGE_DTYPES = {v: getattr(_dtype, k) for k, v in _STORAGE_NAMES.items()}


# ---- writing ------------------------------------------------------------------------------------
class _Global:
    """Stands for ``module.name`` in the pickle stream (torch need not be importable)."""

    def __init__(self, module, name):
        self.module, self.name = module, name

    def __call__(self, *a):  # never called: pickle only checks that reduce functions are callable
        raise TypeError(f"{self.module}.{self.name} is a pickle marker")


_REBUILD_TENSOR = _Global("torch._utils", "_rebuild_tensor_v2")
_REBUILD_PARAM = _Global("torch._utils", "_rebuild_parameter")
_ORDERED_DICT = _Global("collections", "OrderedDict")


class _Pickler(pickle._Pickler):
    def __init__(self, file, storages):
        super().__init__(file, protocol=DEFAULT_PROTOCOL)
        self.storages = storages  # id(root) -> (key, root array, dtype)

    def save_global(self, obj, name=None):
        if isinstance(obj, _Global):
            self.write(pickle.GLOBAL + f"{obj.module}\n{obj.name}\n".encode())
            return
        super().save_global(obj, name)

    def persistent_id(self, obj):
        if isinstance(obj, _StorageRef):
            return ("storage", _Global("torch", _STORAGE_NAMES[obj.dtype.name]), obj.key, obj.location,
                    obj.numel)
        return None

    def reducer_override(self, obj):
        if isinstance(obj, Tensor):
            return self._reduce_tensor(obj)
        return NotImplemented

    def save(self, obj, save_persistent_id=True):
        if isinstance(obj, _Global):
            self.save_global(obj)
            return
        if isinstance(obj, _dtype.dtype):
            self.save_global(_Global("torch", obj.name))
            return
        if isinstance(obj, Size):
            self.save_reduce(_Global("torch", "Size"), (tuple(obj),), obj=obj)
            return
        if isinstance(obj, _device_cls):
            args = (obj.type,) if obj.index is None else (obj.type, obj.index)
            self.save_reduce(_Global("torch", "device"), args, obj=obj)
            return
        super().save(obj, save_persistent_id)

    def _reduce_tensor(self, t):
        from .nn.parameter import Parameter
        if t.grad_fn is not None and not isinstance(t, Parameter):
            pass  # torch saves non-leaf tensors' data too (without history)
        root = t._vbase if (t._vbase is not None and not _has_complex_step(t._chain)) else None
        if root is None:
            arr = t._value
            ref = self._storage(t if t._vbase is None else None, arr, t.dtype, t.device)
            stride, offset = _views.contiguous_strides(arr.shape), 0
        else:
            ref = self._storage(root, root._value, root.dtype, t.device)
            stride, offset = t.stride(), t.storage_offset()
            if t.dtype is not root.dtype:  # view(dtype) etc.: store a copy
                ref = self._storage(None, t._value, t.dtype, t.device)
                stride, offset = _views.contiguous_strides(t.shape), 0
        args = (ref, offset, tuple(t.shape), tuple(stride), False, collections.OrderedDict())
        if isinstance(t, Parameter):
            inner = _TensorReduce(args)
            return (_REBUILD_PARAM, (inner, t.requires_grad, collections.OrderedDict()))
        return (_REBUILD_TENSOR, args[:4] + (t.requires_grad if t.is_leaf else False, args[5]))

    def _storage(self, owner, arr, dt, dev):
        key_obj = id(owner) if owner is not None else ("copy", len(self.storages))
        hit = self.storages.get(key_obj)
        if hit is None:
            hit = _StorageRef(str(len(self.storages)), arr, dt, "cpu" if dev.type == "cpu" else str(dev))
            self.storages[key_obj] = hit
            if owner is not None:
                hit.owner = owner  # keep alive so id() stays unique while saving
        return hit


class _TensorReduce:
    def __init__(self, args):
        self.args = args

    def __reduce__(self):
        return (_REBUILD_TENSOR, self.args)


class _StorageRef:
    def __init__(self, key, arr, dtype, location):
        self.key, self.arr, self.dtype, self.location = key, arr, dtype, location
        self.numel = int(np.prod(arr.shape, dtype=np.int64))


def _has_complex_step(chain):
    return any(s[0] in ("real", "imag", "view_dtype") for s in (chain or ()))


def _aligned_writestr(zf, name, data):
    info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
    info.compress_type = zipfile.ZIP_STORED
    header_end = zf.fp.tell() + 30 + len(name.encode())
    pad = (-(header_end + 4)) % _ALIGN
    info.extra = struct.pack("<HH", 0x4246, pad) + b"Z" * pad
    zf.writestr(info, data)


def _write_archive(fileobj, obj, archive_name):
    storages = {}
    buf = io.BytesIO()
    _Pickler(buf, storages).dump(obj)
    with zipfile.ZipFile(fileobj, "w", zipfile.ZIP_STORED) as zf:
        _aligned_writestr(zf, f"{archive_name}/data.pkl", buf.getvalue())
        _aligned_writestr(zf, f"{archive_name}/.format_version", b"1")
        _aligned_writestr(zf, f"{archive_name}/.storage_alignment", b"64")
        _aligned_writestr(zf, f"{archive_name}/byteorder", b"little")
        for ref in sorted(storages.values(), key=lambda r: int(r.key)):
            a = np.ascontiguousarray(np.asarray(ref.arr)).reshape(-1)
            _aligned_writestr(zf, f"{archive_name}/data/{ref.key}", a.astype(a.dtype.newbyteorder("<")).tobytes())
        _aligned_writestr(zf, f"{archive_name}/version", b"3\n")
        _aligned_writestr(zf, f"{archive_name}/.data/serialization_id", b"0" * 40)


def save(obj, f, pickle_module=None, pickle_protocol=DEFAULT_PROTOCOL, _use_new_zipfile_serialization=True,
         _disable_byteorder_record=False):
    """Save ``obj`` in torch's zip format to a path or a binary file object.

    A path is written to a temporary file in the same folder and renamed into place, so a failed save
    never corrupts an existing file.
    """
    if isinstance(f, (str, os.PathLike)):
        path = os.fspath(f)
        folder = os.path.dirname(os.path.abspath(path))
        archive = os.path.splitext(os.path.basename(path))[0] or "archive"
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=folder)
        try:
            with os.fdopen(fd, "wb") as fh:
                _write_archive(fh, obj, archive)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, path)
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise
        return
    if not hasattr(f, "write"):
        raise AttributeError(f"'{type(f).__name__}' object has no attribute 'write'")
    _write_archive(f, obj, "archive")


# ---- reading ------------------------------------------------------------------------------------
_safe_globals: list = []


def add_safe_globals(globals_list):
    """Allow these classes/functions in ``load(weights_only=True)`` files."""
    _safe_globals.extend(globals_list)


def get_safe_globals():
    return list(_safe_globals)


def clear_safe_globals():
    _safe_globals.clear()


class safe_globals:
    """Context manager adding safe globals for the duration of a block."""

    def __init__(self, globals_list):
        self.globals_list = list(globals_list)

    def __enter__(self):
        self.n = len(_safe_globals)
        _safe_globals.extend(self.globals_list)

    def __exit__(self, *a):
        del _safe_globals[self.n:]


def _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad=False, backward_hooks=None,
                       metadata=None):
    root = storage.tensor()
    size, stride = tuple(size), tuple(stride)
    numel = int(np.prod(size, dtype=np.int64))
    if storage_offset == 0 and stride == _views.contiguous_strides(size) and numel == root.numel() \
            and not storage.shared:
        t = Tensor._wrap(root._value.reshape(size), root._dev)
    elif numel == 0:
        t = Tensor._wrap(jnp.zeros(size, root._value.dtype), root._dev)
    else:
        from ._ops.views import view_step
        t = view_step(root, ("as_strided", size, stride, int(storage_offset)))
    if requires_grad:
        t.requires_grad_(True)
    return t


def _rebuild_parameter(data, requires_grad, backward_hooks, *state):
    from .nn.parameter import Parameter
    return Parameter(data, requires_grad)


class _Storage:
    def __init__(self, loader, key, dt, location, numel):
        self.loader, self.key, self.dt, self.location, self.numel = loader, key, dt, location, numel
        self._t = None
        self.shared = False

    def tensor(self):
        if self._t is None:
            raw = self.loader.read(self.key, self.dt, self.numel)
            self._t = Tensor._wrap(raw, self.loader.device_for(self.location))
        else:
            self.shared = True
        return self._t


_ALLOWED = {("collections", "OrderedDict"): collections.OrderedDict,
            ("torch._utils", "_rebuild_tensor_v2"): _rebuild_tensor_v2,
            ("torch._utils", "_rebuild_parameter"): _rebuild_parameter,
            ("torch._utils", "_rebuild_parameter_with_state"): _rebuild_parameter,
            ("torch", "Size"): Size,
            ("torch", "device"): _device_cls,
            ("builtins", "set"): set, ("builtins", "frozenset"): frozenset, ("builtins", "complex"): complex,
            ("builtins", "slice"): slice, ("builtins", "bytearray"): bytearray, ("builtins", "range"): range,
            ("_codecs", "encode"): __import__("codecs").encode}


class _Unpickler(pickle.Unpickler):
    def __init__(self, file, storages, weights_only):
        super().__init__(file, encoding="utf-8")
        self.storages, self.weights_only = storages, weights_only

    def find_class(self, module, name):
        if (module, name) in _ALLOWED:
            return _ALLOWED[(module, name)]
        if module == "torch" and name in _STORAGE_DTYPES:
            return _STORAGE_DTYPES[name]
        if module == "torch" and isinstance(getattr(_dtype, name, None), _dtype.dtype):
            return getattr(_dtype, name)
        if module.startswith("torch") and not module.startswith("torchlike"):
            module = "torchlike" + module[len("torch"):]
            if module == "torchlike.nn.parameter" and name == "Parameter":
                from .nn.parameter import Parameter
                return Parameter
        for g in _safe_globals:
            obj = g[0] if isinstance(g, tuple) else g
            if getattr(obj, "__module__", None) in (module, module.replace("torchlike", "torch", 1)) and \
                    getattr(obj, "__qualname__", getattr(obj, "__name__", None)) == name:
                return obj
        if self.weights_only:
            raise pickle.UnpicklingError(
                f"Weights only load failed. This file can still be loaded, to do so you have two options, do those "
                f"steps only if you trust the source of the checkpoint. \n\t(1) In PyTorch 2.6, we changed the "
                f"default value of the `weights_only` argument in `torch.load` from `False` to `True`. Re-running "
                f"`torch.load` with `weights_only` set to `False` will likely succeed, but it can result in "
                f"arbitrary code execution. Do it only if you got the file from a trusted source.\n\t(2) "
                f"Alternatively, to load with `weights_only=True` please check the recommended steps in the "
                f"following error message.\n\tWeightsUnpickler error: Unsupported global: GLOBAL {module}.{name} "
                f"was not an allowed global by default. Please use `torch.serialization.add_safe_globals([{name}])`"
                f" or the `torch.serialization.safe_globals([{name}])` context manager to allowlist this global "
                f"if you trust this class/function.")
        return super().find_class(module, name)

    def persistent_load(self, pid):
        if not (isinstance(pid, tuple) and pid and pid[0] == "storage"):
            raise pickle.UnpicklingError(f"unsupported persistent id {pid!r}")
        _, dt, key, location, numel = pid
        st = self.storages.get(key)
        if st is None:
            st = self.storages[key] = _Storage(self.loader, key, dt, location, numel)
        return st


class _Loader:
    def __init__(self, zf, prefix, map_location, mmap_path):
        self.zf, self.prefix, self.map_location, self.mmap_path = zf, prefix, map_location, mmap_path

    def read(self, key, dt, numel):
        name = f"{self.prefix}/data/{key}"
        np_dt = np.dtype(dt.np).newbyteorder("<")
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
        return jnp.asarray(arr.astype(np.dtype(dt.np)))

    def device_for(self, location):
        ml = self.map_location
        if callable(ml) and not isinstance(ml, (str, _device_cls)):
            return canonical("cpu")
        if isinstance(ml, dict):
            location = ml.get(location, location)
        elif ml is not None:
            location = str(ml)
        d = canonical(location)
        if d.type == "cuda":
            from . import cuda
            if not cuda.is_available():
                raise RuntimeError("Attempting to deserialize object on a CUDA device but torch.cuda.is_available() "
                                   "is False. If you are running on a CPU-only machine, please use torch.load with "
                                   "map_location=torch.device('cpu') to map your storages to the CPU.")
        return d


def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None, **pickle_load_args):
    """Load an object saved by ``torch.save`` (or ``torchlike.save``).

    ``weights_only=True`` (the default, as in torch) refuses any global outside tensors, containers,
    dtypes/devices/sizes and ``add_safe_globals`` entries — without executing anything.
    """
    if weights_only is None:
        weights_only = os.environ.get("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD", "0") in ("0", "")
    mmap_path = None
    if isinstance(f, (str, os.PathLike)):
        path = os.fspath(f)
        if not os.path.exists(path):
            raise FileNotFoundError(f"[Errno 2] No such file or directory: '{path}'")
        mmap_path = path if mmap else None
        fh = open(path, "rb")
    else:
        if mmap:
            raise ValueError("f must be a file path in order to use the mmap argument")
        fh = f
    try:
        if not zipfile.is_zipfile(fh):
            raise RuntimeError("Invalid magic number; corrupt file? (torchlike reads torch's zip format, saved "
                               "by torch >= 1.6)")
        fh.seek(0)
        with zipfile.ZipFile(fh) as zf:
            names = zf.namelist()
            pkl = next((n for n in names if n.endswith("/data.pkl") and n.count("/") == 1), None)
            if pkl is None:
                raise RuntimeError("PytorchStreamReader failed locating file data.pkl: file not found")
            prefix = pkl.split("/")[0]
            order = zf.read(f"{prefix}/byteorder").decode() if f"{prefix}/byteorder" in names else "little"
            if order != "little":
                raise RuntimeError("torchlike reads little-endian checkpoints only")
            up = _Unpickler(io.BytesIO(zf.read(pkl)), {}, weights_only)
            up.loader = _Loader(zf, prefix, map_location, mmap_path)
            obj = up.load()
    finally:
        if fh is not f:
            fh.close()
    if callable(map_location) and not isinstance(map_location, (str, _device_cls, dict)):
        obj = _apply_map_location(obj, map_location)
    return obj


def _apply_map_location(obj, fn):
    if isinstance(obj, Tensor):
        r = fn(obj, "cpu")
        return obj if r is None else r
    if isinstance(obj, dict):
        return type(obj)((k, _apply_map_location(v, fn)) for k, v in obj.items())
    if isinstance(obj, (list, tuple)) and not hasattr(obj, "_fields"):
        return type(obj)(_apply_map_location(v, fn) for v in obj)
    return obj
