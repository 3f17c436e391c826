"""Eager autograd through the torch.func transforms.

In torch, ``vmap(model)(x).sum().backward()`` and ``grad(inner_loss)(w)`` used in an outer loss (MAML)
reach the tensors that require grad: the inputs and the parameters the function closes over. A transform
here is a JAX transform over tracers, which eager autograd cannot see into. So a transform call runs
plainly first, noting whether any input, or any result of the user's function, requires grad; when one
does (and grad mode is on, outside compile and other transforms) the same call runs again as a
``torchlike.compile``d function, whose forward and backward are one recorded autograd node
(compile/_aot.py). Compiled wrappers are kept per transform and function (bound methods by owner and
function, closures by code and cell contents), at most ``CACHE_SIZE``, least recently used out first.
"""
from __future__ import annotations

import collections
import threading

from .. import _random
from .._errors import through_jax
from ..tensor import Tensor
from ._common import eager_autograd, flatten, restoring

__all__ = ["through", "watched", "compiled_for", "mark", "CACHE_SIZE"]

CACHE_SIZE = 16
_cache = collections.OrderedDict()
_local = threading.local()


def mark(tree):
    """Note that a transform call depends on a tensor that requires grad, if ``tree`` holds one."""
    if getattr(_local, "watch", 0) and not getattr(_local, "saw", False):
        for t in flatten(tree)[0]:
            if isinstance(t, Tensor) and t.requires_grad:
                _local.saw = True
                return


def through(key, func, run, args, kwargs):
    """``run(*args, **kwargs)``, made differentiable by eager autograd when it needs to be (see above).

    The call runs once: compiled at once when an input requires grad; else plainly, and when that run finds a
    result requiring grad (a parameter the function closes over), the inputs it wrote in place (vmap writes
    batched BatchNorm statistics back) and the random key state are put back before the compiled run, so
    their updates and draws happen once, as in torch."""
    with restoring():
        return through_jax(_through, key, func, run, args, kwargs)


def _through(key, func, run, args, kwargs):
    if not eager_autograd():
        return run(*args, **kwargs)
    saw, watch = getattr(_local, "saw", False), getattr(_local, "watch", 0)
    _local.saw, _local.watch = False, watch + 1
    before = None
    try:
        mark((args, kwargs))
        needed = _local.saw
        if not needed:
            inputs = [t if t._vbase is None else t._vbase for t in flatten((args, kwargs))[0] if isinstance(t, Tensor)]
            before = [(t, t._value) for t in inputs]
            key_state = _random.default_generator._state
            key_before = key_state._value
            out = run(*args, **kwargs)
            needed = _local.saw
    finally:
        _local.saw, _local.watch = saw, watch
    if not needed:
        return out
    if before is not None:
        for t, v in before:
            if t._value is not v:
                t._set_value(v)
        key_state._set_value(key_before)
    return _compiled((key, _func_key(func)), func, run)(*args, **kwargs)


def watched(thunk, inputs):
    """``(thunk(), needed)``: ``needed`` is True when ``inputs`` or a result of the user's function inside
    ``thunk`` requires grad (grad mode on, outside compile and other transforms); else False."""
    with restoring():
        if not eager_autograd():
            return thunk(), False
        saw, watch = getattr(_local, "saw", False), getattr(_local, "watch", 0)
        _local.saw, _local.watch = False, watch + 1
        try:
            mark(inputs)
            return thunk(), _local.saw
        finally:
            _local.saw, _local.watch = saw, watch


def compiled_for(key, func, run):
    """``run`` as a cached ``torchlike.compile``d function (one eager autograd node per call), keyed by
    ``key`` and the user's function ``func``."""
    return _compiled((key, _func_key(func)), func, run)


def _compiled(key, func, run):
    from ..compile import compile  # lazy: compile (layer 5) is built on the transforms' layer
    hit = _cache.get(key)
    if hit is not None:
        _cache.move_to_end(key)
        return hit[1]
    fn = compile(run)
    _cache[key] = (func, fn)  # func kept alive, so the ids in its key stay its own
    while len(_cache) > CACHE_SIZE:
        _cache.popitem(last=False)
    return fn


def _func_key(func):
    owner = getattr(func, "__self__", None)
    if owner is not None and hasattr(func, "__func__"):
        return ("method", id(owner), func.__func__)
    code = getattr(func, "__code__", None)
    if code is not None:
        cells = tuple(id(c.cell_contents) for c in (func.__closure__ or ()) if _filled(c))
        return ("code", code, cells, id(getattr(func, "__globals__", None)))
    return ("object", id(func))


def _filled(cell):
    try:
        cell.cell_contents
    except ValueError:
        return False
    return True
