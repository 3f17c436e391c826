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

import weakref
from ._device import CPU

__all__ = ["UntypedStorage", "buffer_address"]

_claims: dict = {}  # buffer address -> weakref to the root tensor whose storage it is


def _pointer(arr):
    try:
        return arr.unsafe_buffer_pointer()
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


class UntypedStorage:
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
        return np.ascontiguousarray(self._root.detach().cpu().numpy()).reshape(-1).view(np.uint8)

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
        return f"torch.storage.UntypedStorage(device={self.device}) of size {self.nbytes()}"
