"""Storage sharing of ``nn.Parameter(t)`` and ``p.data = t``, as torch's: the parameter holds ``t``'s storage, so
an in-place write through either shows in the other (flat-buffer optimizers, ``p.data = flat[a:b].view_as(p)``).

torchlike keeps one root per family of views (``Tensor._vbase``).  Where ``t`` is a plain root with no autograd
history (``torch.empty(...)`` in every layer's constructor) the parameter becomes the root and ``t`` a ``detach()``
alias of it (:func:`take_storage`), so the parameter is an ordinary leaf and costs nothing more; views made of
``t`` before keep reaching the storage through it (``Tensor._store``).  Any other source (a view, a tensor that
requires grad or has a ``grad_fn``) is aliased the other way: the parameter is a ``detach()`` alias of its root
(torchlike.compile gives such a grad-requiring leaf an input of its own for its gradient, ``compile/_trace.py``).

>>> import torchlike as torch
>>> flat = torch.zeros(4)
>>> p = torch.nn.Parameter(torch.ones(2))
>>> p.data = flat[2:].view_as(p)
>>> _ = flat.fill_(3.); p.tolist()
[3.0, 3.0]
"""
from __future__ import annotations

import weakref

from . import _memory_format as _mfmt
from ._errors import is_tracer
from .tensor import _PARAM_CHAIN, Tensor

__all__ = ["adoptable", "take_storage", "alias_of", "set_data"]

_OLD_DATA = Tensor.data  # (the property: its getter stays)
_LIMIT = [4096]
_LENT: dict = {}  # id(a root take_storage made) -> weakrefs to it and to the tensor it took its storage from


def adoptable(t) -> bool:
    """Whether ``t`` may hand its storage to a new root (and become that root's alias): a plain tensor that is a
    root (a host or lazy tensor settles first), outside autograd, not traced, not sharing a numpy array."""
    if type(t) is not Tensor:
        return False
    x = t._value
    return t._vbase is None and t._grad_fn is None and not t._rg and not t._rereads and not is_tracer(x)


def take_storage(owner, t):
    """Make ``owner`` the root holding ``t``'s storage (its array, device, strides and version counter); ``t``
    becomes a ``detach()`` alias of ``owner``."""
    owner._x = t._x
    owner._dev = t._dev
    owner._vbase = owner._chain = None
    owner._ver = t._ver
    owner._seen = 0
    _mfmt.set_strides(owner, t._st)
    t._vbase = owner
    t._chain = _PARAM_CHAIN
    t._seen = t._ver[0]
    t.__dict__.pop("_st", None)
    _LENT[id(owner)] = (weakref.ref(owner), weakref.ref(t))
    if len(_LENT) > _LIMIT[0]:  # drop the entries of collected roots and sources now and then
        for k in [k for k, (o, s) in _LENT.items() if o() is None or s() is None]:
            del _LENT[k]
        _LIMIT[0] = max(4096, 2 * len(_LENT))


def _release(self):
    """Before root ``self`` takes another storage: the tensor it took its storage from (still alive, still its
    alias) keeps the old storage, under a hidden root of its own (torch's keeps its storage too)."""
    refs = _LENT.pop(id(self), None)
    t = refs[1]() if refs is not None and refs[0]() is self else None
    if t is None or t._vbase is not self:
        return
    if self._vbase is not None:  # self has since lent the storage on (``Buffer(Buffer(t))``): t follows its root
        if self._chain is _PARAM_CHAIN:
            t._vbase = self._vbase
        return
    old = Tensor._wrap(self._x, self._dev)
    old._ver = self._ver
    _mfmt.set_strides(old, self._st)
    t._vbase = old


def alias_of(t):
    """A ``detach()`` alias of ``t`` (of ``t``'s root, where ``t`` is a view): the storage shared, no history."""
    return t.detach()


def set_data(self, new):
    """``self.data = new``: ``self`` (keeping its identity, autograd flags and ``.grad``) holds ``new``'s storage."""
    if not isinstance(new, Tensor):
        raise TypeError(f"Variable data has to be a tensor, but got {type(new).__name__}")
    if new is self:
        return
    x = new._value
    root = new._vbase if new._vbase is not None else new
    _release(self)
    v = self._ver
    if root is self or is_tracer(x) or type(new).detach is not Tensor.detach or type(v) is not type(new._ver):
        # a view of self itself, a traced value, a special subclass, an inference tensor's value or into one
        # (which stays one, with its own counter): self takes the value
        _OLD_DATA.fset(self, new)
        return
    mine = v[0] if len(v) == 1 else v[0] - v[1]
    if adoptable(new):
        take_storage(self, new)
    else:
        d = alias_of(new)
        d._value  # noqa: B018
        for slot in ("_x", "_vbase", "_chain", "_seen", "_ver", "_dev"):
            object.__setattr__(self, slot, getattr(d, slot))
        for k in ("_st", "_multi_view", "_fn_view"):
            self.__dict__.pop(k, None)
    # self's version stays what it was (torch's keeps its own counter; autograd's check of a saved self passes):
    # torchlike's one counter per storage is offset in ver[1], so ``new``'s _version reads the same from now on
    ver = self._ver
    if len(ver) == 1:
        ver.append(0)
    ver[1] = ver[0] - mine


Tensor.data = property(_OLD_DATA.fget, set_data, doc=_OLD_DATA.__doc__)
