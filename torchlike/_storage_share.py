"""Storage shared by a tensor made of another: ``nn.Parameter(t)`` and ``p.data = t``.

In torch both make a second handle on ``t``'s storage: an in-place write through either is seen by the other.
torchlike's tensors are handles on immutable arrays, and two handles share storage when one is an alias (a
``detach()`` view) of the other's root.  The new handle stays a root -- a parameter, which every step reads and
writes and ``torch.compile`` lifts as a program input, keeps a root's paths -- and ``t`` becomes its alias,
where ``t`` is its storage's only handle: a root that nothing views, or the only view of a root that nothing
else holds (``nn.Parameter(torch.randn(3, 4))``, ``nn.Parameter(torch.zeros(4).reshape(1, 4))``, ``w = ...;
self.w = nn.Parameter(w)``, ``p.data = z``), with no autograd history.  Otherwise (a slice of a flat buffer that
other slices view, ``nn.Parameter(other.weight.data)``) the new handle holds a copy (docs/differences.md).

>>> import torchlike as torch
>>> t = torch.zeros(2)
>>> p = torch.nn.Parameter(t)
>>> _ = t.add_(1)
>>> p
Parameter containing:
tensor([1., 1.], requires_grad=True)
"""
from __future__ import annotations

import sys

from . import _memory_format as _mfmt
from ._errors import is_tracer
from .tensor import _ALIAS_CHAIN, _DETACH_CHAIN, Tensor

__all__ = ["plain_source", "sole_handle", "hand_over", "set_data"]

PLAIN_TYPES = {Tensor}  # (and nn.Parameter, which adds itself)

# sys.getrefcount of a root's version list that only the root holds (its slot and getrefcount's argument);
# every view and alias of the root holds the same list.  And of a root that only its one view holds.
_ONLY_THE_ROOT = 2
_ONLY_THE_VIEW = 2


def plain_source(t):
    """Whether ``t`` can share its storage with a new handle (a plain, concrete tensor); a host tensor is settled."""
    if type(t) not in PLAIN_TYPES or is_tracer(t._x):
        return False
    if t._chain is _ALIAS_CHAIN:  # (a host tensor: a plain device tensor of the same value first)
        t._settle()
    return not is_tracer(t._value)


def sole_handle(t):
    """Whether ``t`` is the only handle on its storage, with no autograd history: a root that nothing views, or the
    only view of a root that nothing else holds (``torch.randn(4).reshape(2, 2)``)."""
    if t._rg or t._grad_fn is not None or t._rereads:
        return False
    if t._vbase is None:
        return t._chain is None and sys.getrefcount(t._ver) <= _ONLY_THE_ROOT
    if sys.getrefcount(t._vbase) > _ONLY_THE_VIEW or sys.getrefcount(t._ver) > _ONLY_THE_ROOT + 1:
        return False
    r = t._vbase
    return r._vbase is None and r._chain is None and not r._rg and r._grad_fn is None and not r._rereads


def hand_over(t, root, source_version):
    """Make ``t`` an alias of ``root`` (which now holds ``t``'s value), if ``t`` is the only handle on its storage
    (``sole_handle``); False where it is not.  ``source_version``: both count ``t``'s versions on (torch's
    Parameter shares its data's counter); else ``root``'s (``p.data = t`` keeps p's)."""
    if not sole_handle(t):
        return False
    if source_version:
        root._ver = t._ver
    t._x = root._x
    t._vbase = root
    t._chain = _DETACH_CHAIN
    t._ver = root._ver
    t._seen = root._ver[0]
    return True


def set_data(self, new):
    """``self.data = new`` (a Tensor): self takes new's value; where new is its storage's only handle, new then
    becomes an alias of self, so that the two share storage as torch's ``set_data`` makes them."""
    if new is self:
        return
    shared = plain_source(new) and not is_tracer(self._x) and new._vbase is not self
    strides = new.stride() if new._vbase is not None or new._st is not None else None  # (before self changes:
    x = new._value  # new may be a view of self)
    self._x = x
    self._dev = new._dev
    self._vbase = self._chain = None
    self._seen = 0  # (no longer a lazy or host view: a host tensor's -2 would read a device array as one)
    v = self._ver  # (an inference tensor's stays one: torch still refuses its in-place writes)
    self._ver = type(v)([v[0] if len(v) == 1 else v[0] - v[1]])
    _mfmt.set_strides(self, strides)  # (torch shares the new data's strides: its channels-last tag here)
    if shared:
        hand_over(new, self, source_version=False)
