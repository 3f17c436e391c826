"""``Tensor.untyped_storage()``: the byte storage behind a tensor and its views (torch.UntypedStorage).

torchlike keeps one root buffer per family of views; the storage object describes that root: its size in
bytes, its (stable, synthetic) address and device.  Libraries use these to find tensors that share memory
(tied weights, safetensors' shared-tensor checks).

>>> import torchlike
>>> w = torchlike.zeros(2, 3)
>>> w[1].untyped_storage().nbytes(), w[1].untyped_storage().data_ptr() == w.data_ptr()
(24, True)
"""
from __future__ import annotations

__all__ = ["UntypedStorage"]


class UntypedStorage:
    """The bytes of a tensor's root buffer (read-only description; writes go through tensors)."""

    def __init__(self, *args, **kwargs):
        raise NotImplementedError("constructing torch.UntypedStorage directly is not supported by torchlike; use "
                                  "Tensor.untyped_storage() (see docs/differences.md)")

    @classmethod
    def _of(cls, tensor):
        s = object.__new__(cls)
        s._root = tensor._vbase if tensor._vbase is not None else tensor
        return s

    def nbytes(self) -> int:
        return self._root.numel() * self._root.dtype.itemsize

    def size(self) -> int:
        return self.nbytes()

    __len__ = size

    def element_size(self) -> int:
        return 1

    def data_ptr(self) -> int:
        return self._root.data_ptr()

    @property
    def device(self):
        return self._root.device

    @property
    def is_cuda(self) -> bool:
        return self._root.device.type == "cuda"

    def get_device(self) -> int:
        return self._root.get_device() if hasattr(self._root, "get_device") else -1

    def is_shared(self) -> bool:
        return False

    def is_pinned(self, device="cuda") -> bool:
        return False

    def tolist(self) -> list:
        import numpy as np
        return np.ascontiguousarray(self._root.detach().cpu().numpy()).view(np.uint8).ravel().tolist()

    def __repr__(self):
        return f"torch.storage.UntypedStorage(device={self.device}) of size {self.nbytes()}"
