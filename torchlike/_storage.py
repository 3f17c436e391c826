"""``Tensor.untyped_storage()``: the byte storage behind a tensor and its views (torch.UntypedStorage).

torchlike keeps one root buffer per family of views; the storage object describes that root: its size in
bytes, its address (the XLA buffer's, valid while the tensor is unchanged) and device.  Libraries use these to find tensors that share memory
(tied weights, safetensors' shared-tensor checks).

>>> import torchlike
>>> w = torchlike.zeros(2, 3)
>>> w[1].untyped_storage().nbytes(), w[1].untyped_storage().data_ptr() == w.data_ptr()
(24, True)
>>> torchlike.asarray(w.untyped_storage()[:4], dtype=torchlike.uint8).tolist()
[0, 0, 0, 0]
"""
from __future__ import annotations

import warnings
import weakref

from . import _dtype
from ._creation import tensor as _tensor, zeros as _zeros
from ._device import CPU
from ._ops.registry import register

__all__ = ["UntypedStorage", "TypedStorage", "buffer_address", "LEGACY_STORAGES"]

_claims: dict = {}  # buffer address -> weakref to the root tensor whose storage it is


def _pointer(arr):
    """The address of ``arr``'s buffer once its values are written.  XLA dispatches asynchronously: the
    buffer of a result still being computed exists but holds garbage, and a reader of raw memory (ctypes,
    safetensors' ``save_file``) would read it."""
    try:
        return arr.block_until_ready().unsafe_buffer_pointer()
    except Exception:  # tracers, sharded or deleted arrays: no single buffer
        return None


def buffer_address(root) -> int:
    """The address of ``root``'s buffer: real memory (what ctypes readers such as safetensors need), unique per
    storage.  Two roots that happen to hold one immutable XLA array (``copy.deepcopy`` shares it) are distinct
    storages in torch, so the second to ask gets its own copy of the buffer first."""
    ptr = _pointer(root._x)
    if ptr is None or ptr == 0:
        return id(root) * 64
    ref = _claims.get(ptr)
    owner = ref() if ref is not None else None
    if owner is not None and owner is not root and _pointer(owner._x) == ptr:
        root._x = root._x.copy()  # same values, own buffer
        ptr = _pointer(root._x)
    _claims[ptr] = weakref.ref(root)
    if len(_claims) > 4 * 4096:  # drop claims of collected tensors now and then
        for k in [k for k, r in _claims.items() if r() is None]:
            del _claims[k]
    return ptr


class StorageBase:
    """torch._C.StorageBase: the C++ base of ``torch.UntypedStorage`` (``isinstance(s, torch._C.StorageBase)``)."""

    __slots__ = ()


StorageBase.__module__ = "torchlike._C"


class UntypedStorage(StorageBase):
    """Bytes: those of a tensor's root buffer (``Tensor.untyped_storage()``) or of a file mapped with
    :meth:`from_file` (how safetensors' ``safe_open`` reads checkpoints)."""

    def __init__(self, *args, **kwargs):
        raise NotImplementedError("constructing torch.UntypedStorage directly is not supported by torchlike; use "
                                  "Tensor.untyped_storage() or UntypedStorage.from_file (see docs/differences.md)")

    @classmethod
    def _of(cls, tensor):
        s = object.__new__(cls)
        s._root, s._bytes = (tensor._vbase if tensor._vbase is not None else tensor), None
        return s

    @classmethod
    def _of_bytes(cls, arr):
        s = object.__new__(cls)
        s._root, s._bytes = None, arr
        return s

    @classmethod
    def from_file(cls, filename, shared=False, nbytes=0):
        """The first ``nbytes`` bytes of ``filename``, memory-mapped (copy-on-write unless ``shared``)."""
        import numpy as np
        arr = np.memmap(filename, dtype=np.uint8, mode="r+" if shared else "c", shape=(int(nbytes),)) \
            if nbytes else np.memmap(filename, dtype=np.uint8, mode="r+" if shared else "c")
        return cls._of_bytes(arr)

    def _numpy(self):
        import numpy as np
        if self._bytes is not None:
            return self._bytes
        return np.ascontiguousarray(np.asarray(self._root._value)).reshape(-1).view(np.uint8)

    def __array__(self, dtype=None, copy=None):
        arr = self._numpy()
        return arr if dtype is None else arr.astype(dtype)

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return UntypedStorage._of_bytes(self._numpy()[idx])
        return int(self._numpy()[idx])

    def untyped(self):
        return self

    _untyped = untyped

    def nbytes(self) -> int:
        if self._bytes is not None:
            return int(self._bytes.nbytes)
        return self._root.numel() * self._root.dtype.itemsize

    def size(self) -> int:
        return self.nbytes()

    __len__ = size

    def element_size(self) -> int:
        return 1

    def data_ptr(self) -> int:
        if self._bytes is not None:
            return int(self._bytes.ctypes.data)
        return self._root.data_ptr()

    @property
    def device(self):
        return CPU if self._root is None else self._root.device

    @property
    def is_cuda(self) -> bool:
        return self.device.type == "cuda"

    def is_shared(self) -> bool:
        return False

    def is_pinned(self, device="cuda") -> bool:
        return False

    def tolist(self) -> list:
        return self._numpy().tolist()

    def __repr__(self):
        return _storage_str(self, f"torch.storage.UntypedStorage(device={self.device}) of size {self.nbytes()}")


def _storage_str(storage, info):
    """torch's ``str()`` of a storage: each element on a line of its own (each byte of an untyped one), then
    ``[info]``; ``...`` for a meta storage's values."""
    if storage.device.type == "meta":
        return f"...\n[{info}]"
    return " " + "\n ".join(str(v) for v in storage.tolist()) + f"\n[{info}]"


# ---- typed storages (torch.storage.TypedStorage and the legacy torch.FloatStorage & co.) -------------------
_TYPED_WARNING = ("TypedStorage is deprecated. It will be removed in the future and UntypedStorage will be the only "
                  "storage class. This should only matter to you if you are using storages directly.  To access "
                  "UntypedStorage directly, use tensor.untyped_storage() instead of tensor.storage()")
_always_warn_typed_storage_removal = False


def _get_always_warn_typed_storage_removal():
    return _always_warn_typed_storage_removal


def _set_always_warn_typed_storage_removal(always_warn):
    """Warn on every TypedStorage use instead of the first one only (torch's test hook)."""
    global _always_warn_typed_storage_removal
    _always_warn_typed_storage_removal = bool(always_warn)


def _warn_typed_storage_removal(stacklevel=2):
    """torch's deprecation warning for typed storages: once per process, as torch gives it."""
    if _always_warn_typed_storage_removal or not _warn_typed_storage_removal.__dict__.get("has_warned", False):
        warnings.warn(_TYPED_WARNING, UserWarning, stacklevel=stacklevel + 1)
        _warn_typed_storage_removal.__dict__["has_warned"] = True


class TypedStorage:
    """A tensor's storage seen as elements of one dtype (``Tensor.storage()``, ``torch.FloatStorage([1, 2])``).

    >>> import torchlike, warnings
    >>> warnings.simplefilter("ignore")
    >>> s = torchlike.arange(6.0).view(2, 3)[1].storage()
    >>> s.size(), s.dtype, isinstance(s, torchlike.FloatStorage), s[4]
    (6, torch.float32, True, 4.0)
    """

    is_sparse = False

    def __init__(self, *args, dtype=None, device=None, wrap_storage=None, _internal=False):
        if not _internal:
            _warn_typed_storage_removal(stacklevel=2)
        dtype = dtype if dtype is not None else _dtype.get_default_dtype()
        if wrap_storage is not None:
            self._tensor = wrap_storage
        elif not args:
            self._tensor = _zeros(0, dtype=dtype, device=device)
        elif len(args) == 1 and isinstance(args[0], int):
            self._tensor = _zeros(args[0], dtype=dtype, device=device)
        elif len(args) == 1:
            self._tensor = _tensor(list(args[0]), dtype=dtype, device=device)
        else:
            raise TypeError(f"TypedStorage(): Could not parse arguments {args}")
        self.dtype = self._tensor.dtype

    @classmethod
    def _of(cls, t):
        """The storage of ``t``'s root buffer, viewed with ``t``'s dtype."""
        root = t._vbase if t._vbase is not None else t
        return TypedStorage(wrap_storage=root.reshape(-1) if root.ndim != 1 else root, _internal=True)

    @property
    def device(self):
        return self._tensor.device

    @property
    def is_cuda(self) -> bool:
        return self.device.type == "cuda"

    def size(self) -> int:
        return self._tensor.numel()

    __len__ = size

    def element_size(self) -> int:
        return self.dtype.itemsize

    def nbytes(self) -> int:
        return self.size() * self.element_size()

    def data_ptr(self) -> int:
        return self._tensor.data_ptr()

    def untyped(self):
        return UntypedStorage._of(self._tensor)

    _untyped_storage = property(untyped)

    def is_shared(self) -> bool:
        return False

    def is_pinned(self, device="cuda") -> bool:
        return False

    def tolist(self) -> list:
        return self._tensor.tolist()

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return TypedStorage(wrap_storage=self._tensor[idx], _internal=True)
        return self._tensor[idx].item()

    def __setitem__(self, idx, value):
        self._tensor[idx] = value

    def __iter__(self):
        return iter(self.tolist())

    def fill_(self, value):
        self._tensor.fill_(value)
        return self

    def pickle_storage_type(self) -> str:
        return _LEGACY_NAMES[self.dtype.name]

    def type(self, dtype=None, non_blocking=False):
        return "torch." + self.pickle_storage_type() if dtype is None else self._tensor.type(dtype)

    def __repr__(self):
        return _storage_str(self, f"torch.storage.TypedStorage(dtype={self.dtype}, device={self.device}) of size "
                                  f"{self.size()}")


class _LegacyStorageMeta(type):
    def __instancecheck__(cls, instance):
        if type(instance) is TypedStorage:
            return cls.dtype == instance.dtype and instance.device.type == cls._device_type
        return super().__instancecheck__(instance)


class _LegacyStorage(TypedStorage, metaclass=_LegacyStorageMeta):
    """The base of ``torch.FloatStorage`` & co.: calling one makes a TypedStorage of its dtype."""

    _device_type = "cpu"  # (torch.cuda.FloatStorage & co. recognise "cuda" storages: cuda/_legacy_types.py)

    def __new__(cls, *args, **kwargs):
        _warn_typed_storage_removal(stacklevel=2)
        return TypedStorage(*args, dtype=cls.dtype, _internal=True, **kwargs)


_LEGACY_NAMES = {"float32": "FloatStorage", "float64": "DoubleStorage", "float16": "HalfStorage",
                 "bfloat16": "BFloat16Storage", "int64": "LongStorage", "int32": "IntStorage", "int16": "ShortStorage",
                 "int8": "CharStorage", "uint8": "ByteStorage", "bool": "BoolStorage",
                 "complex64": "ComplexFloatStorage", "complex128": "ComplexDoubleStorage"}


def _legacy_classes():
    out = {}
    for dt, name in _LEGACY_NAMES.items():
        out[name] = _LegacyStorageMeta(name, (_LegacyStorage,), {"dtype": getattr(_dtype, dt), "__module__": "torchlike",
                                                                 "__doc__": f"torch.{name}: a TypedStorage of {dt}."})
    return out


LEGACY_STORAGES = _legacy_classes()


# ---- the Tensor's storage methods (method-only entries of the op table) --------------------------------
@register("data_ptr", namespaces=())
def data_ptr(self):
    self._value  # noqa: B018  (a lazy view materialises, with a host scalar's root)
    root = self._vbase if self._vbase is not None else self
    return buffer_address(root) + self.storage_offset() * self.dtype.itemsize


@register("untyped_storage", namespaces=())
def untyped_storage(self):
    self._value  # noqa: B018  (a lazy view materialises, with a host scalar's root)
    return UntypedStorage._of(self)


@register("storage", namespaces=())
def storage(self):
    """The deprecated typed storage (``torch.TypedStorage``) of this tensor, with torch's warning."""
    _warn_typed_storage_removal(stacklevel=2)
    self._value  # noqa: B018  (a lazy view materialises, with a host scalar's root)
    return TypedStorage._of(self)


@register("storage_type", namespaces=())
def storage_type(self):
    """The legacy storage class of this tensor's dtype (``torch.FloatStorage`` for float32)."""
    _warn_typed_storage_removal(stacklevel=2)
    return LEGACY_STORAGES[_LEGACY_NAMES[self.dtype.name]]
