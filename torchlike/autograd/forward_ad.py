"""torch.autograd.forward_ad: forward-mode AD through dual tensors, on ``jax.jvp``.

Inside ``dual_level()``, ``make_dual(x, t)`` gives a tensor carrying the tangent ``t``; every op on it computes
its result's tangent with ``jax.jvp`` of the op's own JAX function (the dispatcher asks this module through
``_tape.FORWARD_AD``), views take the same view of the tangent, and an in-place op gives its tensor the
result's tangent. ``unpack_dual(y)`` returns ``(primal, tangent)``. Leaving the level drops every tangent, as
in torch; one level at a time (torch: "Nested forward mode AD is not supported at the moment").

>>> import torchlike
>>> import torchlike.autograd.forward_ad as fwAD
>>> x = torchlike.tensor([1.0, 2.0])
>>> with fwAD.dual_level():
...     y = fwAD.make_dual(x, torchlike.ones(2)) ** 2
...     fwAD.unpack_dual(y).tangent
tensor([2., 4.])
"""
from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp

from .. import _mutation, _views
from .._tape import FORWARD_AD
from .._ops.views import _view_step
from ..tensor import Tensor

__all__ = ["UnpackedDualTensor", "enter_dual_level", "exit_dual_level", "make_dual", "unpack_dual", "dual_level"]


class UnpackedDualTensor(NamedTuple):
    """What ``unpack_dual`` returns: ``(primal, tangent)``."""

    primal: object
    tangent: object


_KEY = "_fw_tangent"  # a dual tensor's instance attribute: (the level's token, the tangent Tensor)
_level: list = []  # the entered level's token (an object of its own: a later level never sees stale tangents)


def _tangent_of(t):
    entry = t.__dict__.get(_KEY)
    return entry[1] if entry is not None and _level and entry[0] is _level[0] else None


def _give(t, tangent):
    t.__dict__[_KEY] = (_level[0], tangent)


class _Propagate:
    """What the dispatcher and view_step call while a level is entered."""

    @staticmethod
    def op(f, statics, args, arrays, outs):
        pos = [i for i, a in enumerate(args) if isinstance(a, Tensor) and _tangent_of(a) is not None]
        if not pos:
            return
        # (each tensor's own value: a lazy view's slot may hold its root, read inside a fused program)
        full = [a._value if isinstance(a, Tensor) else x for a, x in zip(args, arrays)]
        kw = dict(statics)

        def at(*xs):
            vals = list(full)
            for i, x in zip(pos, xs):
                vals[i] = x
            return f(*vals, **kw)
        primals = tuple(full[i] for i in pos)
        tangents = tuple(jnp.asarray(_tangent_of(args[i])._value, full[i].dtype) for i in pos)
        _, t_out = jax.jvp(at, primals, tangents)
        for o, t in zip(outs, t_out if isinstance(t_out, (tuple, list)) else (t_out,)):
            if o._x.dtype.kind in "fcV":
                _give(o, Tensor._wrap(t, o._dev))

    tangent_of = staticmethod(_tangent_of)

    @staticmethod
    def view(t, step, out):
        tangent = _tangent_of(t)
        if tangent is not None:
            _give(out, _view_step(tangent, step, None))
        return out


def _inplace(self, new):
    """An in-place op: its tensor takes the result's tangent; written through a view, the view's root takes the
    tangent written into the same view of its own (zeros where it had none), as torch's base and view share."""
    tangent = _tangent_of(new)
    if tangent is None:
        return
    _give(self, tangent)
    root, chain = self._vbase, self._chain
    if root is not None and chain and all(type(step) is tuple for step in chain):
        old = _tangent_of(root)
        base = old._value if old is not None else jnp.zeros(tuple(root.shape), tangent._value.dtype)
        _give(root, Tensor._wrap(_views.write_back(base, tangent._value.astype(base.dtype), chain), root._dev))


def enter_dual_level():
    """Enter the (single) dual level; returns its index, 0."""
    if _level:
        raise RuntimeError("Nested forward mode AD is not supported at the moment")
    _level.append(object())
    FORWARD_AD[0] = _Propagate
    _mutation.on_inplace.append(_inplace)
    return 0


def exit_dual_level(*, level=None):
    """Leave the dual level: every tangent made inside is dropped."""
    if not _level:
        raise RuntimeError("Trying to exit a forward AD level that was not the last one that was created. This "
                           "is not supported.")
    _level.pop()
    FORWARD_AD[0] = None
    if _inplace in _mutation.on_inplace:
        _mutation.on_inplace.remove(_inplace)


def make_dual(tensor, tangent, *, level=None):
    """A view of ``tensor`` that carries ``tangent`` (same shape) inside the entered dual level."""
    if not _level:
        raise RuntimeError("Trying to create a dual Tensor for forward AD but no level exists, make sure to "
                           "enter_dual_level() first.")
    if not (tensor.dtype.is_floating_point or tensor.dtype.is_complex):
        raise ValueError(f"Expected primal to be floating point or complex, but got: {tensor.dtype}")
    if not (tangent.dtype.is_floating_point or tangent.dtype.is_complex):
        raise ValueError(f"Expected tangent to be floating point or complex, but got: {tangent.dtype}")
    if tuple(tangent.shape) != tuple(tensor.shape):
        raise RuntimeError(f"Trying to set a forward gradient that has a different size than that of the original "
                           f"Tensor, this is not supported. Tensor is of size {list(tensor.shape)} while the given "
                           f"forward gradient is of size {list(tangent.shape)}.")
    dual = tensor.view_as(tensor)
    _give(dual, tangent if tangent.dtype is tensor.dtype else tangent.to(tensor.dtype))  # (the tangent itself, as torch)
    return dual


def unpack_dual(tensor, *, level=None):
    """``(primal, tangent)`` of ``tensor`` at the entered level; the tangent is None for a plain tensor."""
    if not isinstance(tensor, Tensor):
        return UnpackedDualTensor(tensor, None)
    tangent = _tangent_of(tensor)
    if tangent is None:
        return UnpackedDualTensor(tensor, None)
    primal = tensor.view_as(tensor)
    primal.__dict__.pop(_KEY, None)  # (a view of the primal without the tangent)
    return UnpackedDualTensor(primal, tangent)


class dual_level:
    """Context manager for a forward-AD dual level: ``with dual_level(): ...``."""

    def __enter__(self):
        return enter_dual_level()

    def __exit__(self, *exc):
        exit_dual_level()
        return False
