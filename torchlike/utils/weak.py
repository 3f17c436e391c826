"""torch.utils.weak: weak references and weak-keyed dictionaries that compare keys by identity.

A Tensor's ``==`` is elementwise and its ``__hash__`` is its id, so ``weakref.WeakKeyDictionary`` cannot hold
tensors as keys reliably; torch's ``WeakIdKeyDictionary`` keys by object identity instead. Same here.

>>> import torchlike
>>> t = torchlike.zeros(2)
>>> d = WeakIdKeyDictionary()
>>> d[t] = "x"
>>> t in d, torchlike.zeros(2) in d, len(d)
(True, False, 1)
>>> del t
>>> len(d)
0
"""
from __future__ import annotations

import weakref
from collections.abc import MutableMapping

from ..tensor import Tensor

__all__ = ["WeakIdRef", "WeakIdKeyDictionary", "WeakTensorKeyDictionary", "TensorWeakRef"]


class WeakIdRef(weakref.ref):
    """A weak reference hashed and compared by the referent's ``id`` (equal while both referents are alive)."""

    __slots__ = ["_id"]

    def __init__(self, key, callback=None) -> None:
        self._id = id(key)
        super().__init__(key, callback)

    def __call__(self):
        return super().__call__()

    def __hash__(self):
        return self._id

    def __eq__(self, other):
        a, b = self(), other()
        return a is b if a is not None and b is not None else self is other


class WeakIdKeyDictionary(MutableMapping):
    """A mapping whose keys are held weakly and compared by identity (``torch.utils.weak.WeakIdKeyDictionary``):
    an entry goes away when its key is collected."""

    def __init__(self, dict=None, ref_type=WeakIdRef) -> None:
        self.data = {}
        self.ref_type = ref_type
        self_ref = weakref.ref(self)

        def remove(k):
            owner = self_ref()
            if owner is not None:
                owner.data.pop(k, None)
        self._remove = remove
        if dict is not None:
            self.update(dict)

    def __getitem__(self, key):
        return self.data[self.ref_type(key)]

    def __setitem__(self, key, value) -> None:
        self.data[self.ref_type(key, self._remove)] = value

    def __delitem__(self, key) -> None:
        del self.data[self.ref_type(key)]

    def __contains__(self, key) -> bool:
        try:
            wr = self.ref_type(key)
        except TypeError:
            return False
        return wr in self.data

    def __len__(self) -> int:
        return sum(1 for wr in list(self.data) if wr() is not None)

    def __iter__(self):
        for wr in list(self.data):
            obj = wr()
            if obj is not None:
                yield obj

    def __repr__(self) -> str:
        return f"<{type(self).__name__} at {id(self):#x}>"

    def get(self, key, default=None):
        return self.data.get(self.ref_type(key), default)

    def keyrefs(self):
        """The weak references to the keys."""
        return list(self.data)

    def copy(self):
        """A new dictionary with the same (weakly held) keys and values."""
        return type(self)({k: v for k, v in self.items()}, ref_type=self.ref_type)

    def __deepcopy__(self, memo):
        from copy import deepcopy
        return type(self)({k: deepcopy(v, memo) for k, v in self.items()}, ref_type=self.ref_type)


WeakTensorKeyDictionary = WeakIdKeyDictionary


class TensorWeakRef:
    """A weak reference to a Tensor (``torch.utils.weak.TensorWeakRef``); calling it gives the Tensor or None."""

    __slots__ = ["ref"]

    def __init__(self, tensor: Tensor) -> None:
        if not isinstance(tensor, Tensor):
            raise AssertionError(f"expected torch.Tensor, got {type(tensor)}.")
        self.ref = weakref.ref(tensor)

    def __call__(self):
        return self.ref()
