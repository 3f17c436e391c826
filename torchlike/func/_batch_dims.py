"""torch's batching protocol for containers, on ``jax.vmap``.

torch's ``vmap`` runs ``_process_batched_inputs``, ``_create_batched_inputs`` and ``_unwrap_batched``, globals of
``torch._functorch.vmap`` looked up at each call, and those call ``_add_batch_dim``/``_remove_batch_dim`` on each
tensor. tensordict replaces the three functions so that a TensorDict passed with an ``in_dim`` is batched leaf by
leaf and comes back with its batch size. Here batched values are JAX tracers, which only exist inside
``jax.vmap``, so a replaced protocol runs in three passes over the library's own functions:

1. outside, ``_process_batched_inputs`` and a recording ``_create_batched_inputs`` learn which tensors get a batch
   dimension (in call order);
2. inside ``jax.vmap`` over those tensors, ``_create_batched_inputs`` again hands out the tracers in that order,
   the function runs, and a recording ``_unwrap_batched`` collects the tensors to un-batch, its results shaped as
   torch's are so the containers it builds accept them (they are thrown away);
3. outside, ``_unwrap_batched`` again, its ``_remove_batch_dim`` handing out ``jax.vmap``'s results in that order.

An output that requires grad cannot come out of ``jax.vmap`` onto the eager tape; then the call runs again one example
at a time (as torch's vmap fallback does: the library's functions with ``select``/``stack`` as the batching
primitives), so gradients flow to the parameters and inputs. The library's functions must call ``_add_batch_dim``/``_remove_batch_dim`` in the same order each time (they walk
their containers in key order). ``torchlike._functorch.vmap`` (the module libraries patch) registers itself as
``protocol`` with its own defaults; while none is replaced, ``vmap`` does not take this path.
"""
from __future__ import annotations

import threading

import jax
import jax.numpy as jnp

from .. import _random
from .._ops.shape import stack
from ..tensor import Tensor
from ._common import inner

__all__ = ["add_batch_dim", "remove_batch_dim", "maybe_remove_batch_dim", "is_batched", "patched", "call", "run_vmapped",
           "register_protocol"]

_NAMES = ("_process_batched_inputs", "_create_batched_inputs", "_unwrap_batched")
_protocol = {"module": None, "defaults": {}}
_local = threading.local()
_WHY = "torch.vmap is JAX's vmap here; there is no C BatchedTensor to add or remove a batch dimension of"


def register_protocol(module, defaults):
    """``module`` (torch._functorch.vmap) is where libraries replace the protocol functions ``defaults`` names."""
    _protocol["module"], _protocol["defaults"] = module, dict(defaults)


def patched():
    """True when a library replaced one of ``torch._functorch.vmap``'s protocol functions."""
    mod = _protocol["module"]
    return mod is not None and any(getattr(mod, n, f) is not f for n, f in _protocol["defaults"].items())


def _frames():
    if not hasattr(_local, "frames"):
        _local.frames = []
    return _local.frames


def _frame(level, name):
    for f in reversed(_frames()):
        if f["level"] == level:
            return f
    raise NotImplementedError(f"torch._C._functorch.{name} outside a vmap is not supported in torchlike: {_WHY}")


class _running:
    def __init__(self, frame):
        self.frame = frame

    def __enter__(self):
        _frames().append(self.frame)

    def __exit__(self, *exc):
        _frames().pop()


def add_batch_dim(tensor, in_dim, vmap_level):
    """``torch._C._functorch._add_batch_dim``: ``tensor`` batched over dim ``in_dim`` at vmap level ``vmap_level``.
    Only inside a ``vmap`` whose protocol a library replaced (see the module docstring).

    >>> from torchlike.func._batch_dims import add_batch_dim
    >>> add_batch_dim(object(), 0, 1)
    Traceback (most recent call last):
    NotImplementedError: torch._C._functorch._add_batch_dim outside a vmap is not supported in torchlike: ...
    """
    return _frame(vmap_level, "_add_batch_dim")["add"](tensor, in_dim)


def remove_batch_dim(tensor, vmap_level, batch_size, out_dim):
    """``torch._C._functorch._remove_batch_dim``: ``tensor`` with its level-``vmap_level`` batch dimension moved to
    ``out_dim`` (expanded to ``batch_size`` when it has none). Only inside a ``vmap`` (see the module docstring).

    >>> from torchlike.func._batch_dims import remove_batch_dim
    >>> remove_batch_dim(object(), 1, 3, 0)
    Traceback (most recent call last):
    NotImplementedError: torch._C._functorch._remove_batch_dim outside a vmap is not supported in torchlike: ...
    """
    return _frame(vmap_level, "_remove_batch_dim")["remove"](tensor, out_dim, batch_size)


def is_batched(tensor, vmap_level=None):
    """Whether ``tensor`` carries the batch dimension of the protocol vmap at ``vmap_level`` (the innermost one)."""
    frames = [f for f in _frames() if vmap_level is None or f["level"] == vmap_level]
    return bool(frames) and isinstance(tensor, Tensor) and frames[-1]["batched"](tensor)


def maybe_remove_batch_dim(name, batched_output, vmap_level, batch_size, out_dim):
    """``torch._functorch.vmap._maybe_remove_batch_dim``: ``_remove_batch_dim`` with torch's checks of ``out_dim``."""
    if out_dim is None:
        if isinstance(batched_output, Tensor) and is_batched(batched_output, vmap_level):
            raise ValueError(f"vmap({name}, ...): `{name}` can not return a BatchedTensor when out_dim is None")
        return batched_output
    if not isinstance(batched_output, Tensor):
        raise ValueError(f"vmap({name}, ...): `{name}` must only return Tensors, got type {type(batched_output)}. "
                         "Did you mean to set out_dims= to None for output?")
    return remove_batch_dim(batched_output, vmap_level, batch_size, out_dim)


def _no(*_):
    raise RuntimeError("torchlike vmap: a batch dimension was added or removed out of the protocol's order")


def call(func, in_dims, out_dims, randomness, chunk_size, args, kwargs):
    """``vmap(func, in_dims, out_dims, randomness, chunk_size)(*args, **kwargs)`` through the library-replaced
    protocol functions of ``torch._functorch.vmap`` (the three passes of the module docstring)."""
    mod = _protocol["module"]
    batch_size, flat_in_dims, flat_args, args_spec = mod._process_batched_inputs(in_dims, args, func)
    level = len(_frames()) + 1
    adds = []

    def record_add(t, d):
        adds.append((t, d))
        return t.select(d, 0)

    with _running({"level": level, "add": record_add, "remove": _no, "batched": lambda t: False}):
        mod._create_batched_inputs(flat_in_dims, flat_args, level, args_spec)
    if not adds:
        raise ValueError("vmap: Expected at least one Tensor to vmap over")
    dev = adds[0][0]._dev
    gen = _random.default_generator
    keys = jax.random.split(gen.next_key(), batch_size) if randomness == "different" else None
    side = {}

    def pure(key, *arrs):
        feed, outs = iter(arrs), []

        def replay_add(t, d):
            return Tensor._wrap(next(feed), dev)

        def record_remove(t, d, size):
            if t.requires_grad:
                raise _NeedsGrad
            outs.append(t._value)
            shape = list(t.shape)
            shape.insert(d % (len(shape) + 1), size)
            return Tensor._wrap(jnp.zeros(shape, t._value.dtype), dev)

        def batched(t):
            tr = getattr(t._value, "_trace", None)
            return tr is not None and any(getattr(a, "_trace", None) is tr for a in arrs)

        saved_key = gen._state._x
        if key is not None:
            gen._state._x = key
        _random.vmap_modes.append(randomness)
        try:
            with _running({"level": level, "add": replay_add, "remove": _no, "batched": batched}):
                inputs = mod._create_batched_inputs(flat_in_dims, flat_args, level, args_spec)
            with inner("vmap") as ctx:
                out = ctx.out = func(*inputs, **kwargs)
            with _running({"level": level, "add": _no, "remove": record_remove, "batched": batched}):
                mod._unwrap_batched(out, out_dims, level, batch_size, func)
        finally:
            _random.vmap_modes.pop()
            if key is not None:
                gen._state._x = saved_key
        side["out"] = out
        return outs

    arrays, axes = [t._value for t, _ in adds], [d for _, d in adds]
    try:
        res = run_vmapped(pure, keys, arrays, axes, batch_size, chunk_size)
    except _NeedsGrad:
        return _per_example(mod, func, out_dims, kwargs, level, batch_size, flat_in_dims, flat_args, args_spec)
    results = iter(res)

    def replay_remove(t, d, size):
        return Tensor._wrap(next(results), dev).movedim(0, d)

    with _running({"level": level, "add": _no, "remove": replay_remove, "batched": lambda t: False}):
        return mod._unwrap_batched(side["out"], out_dims, level, batch_size, func)


class _NeedsGrad(Exception):
    """An output requires grad: ``jax.vmap``'s results would leave the eager tape."""


def run_vmapped(pure, keys, arrays, axes, batch_size, chunk_size):
    """``jax.vmap(pure)`` over ``arrays`` (batched along ``axes``; ``keys`` one random key per example or None),
    in slices of ``chunk_size`` examples when it is smaller than ``batch_size``: the list of batched outputs."""
    vf = jax.vmap(pure, in_axes=(None if keys is None else 0,) + tuple(axes), out_axes=0)
    if chunk_size is None or chunk_size >= batch_size:
        res = vf(keys, *arrays)
    else:
        parts = []
        for s in range(0, batch_size, chunk_size):
            sl = [jax.lax.slice_in_dim(a, s, min(s + chunk_size, batch_size), axis=ax) for a, ax in zip(arrays, axes)]
            parts.append(vf(None if keys is None else keys[s:s + chunk_size], *sl))
        res = [jnp.concatenate(p, axis=0) for p in zip(*parts)]
    return res


def _per_example(mod, func, out_dims, kwargs, level, batch_size, flat_in_dims, flat_args, args_spec):
    """The call one example at a time on the eager tape; the un-batched outputs are the examples' stacked."""
    per, out = [], None
    for i in range(batch_size):
        outs = []

        def remove(t, d, size):  # a stand-in of the un-batched shape, for the containers built around it
            outs.append(t)
            at = d % (t.dim() + 1)
            return t.unsqueeze(at).expand(*t.shape[:at], size, *t.shape[at:])

        with _running({"level": level, "add": lambda t, d: t.select(d, i), "remove": _no,
                       "batched": lambda t: False}):
            inputs = mod._create_batched_inputs(flat_in_dims, flat_args, level, args_spec)
        out = func(*inputs, **kwargs)
        with _running({"level": level, "add": _no, "remove": remove, "batched": lambda t: False}):
            mod._unwrap_batched(out, out_dims, level, batch_size, func)
        per.append(outs)
    columns = iter(zip(*per))

    def replay_remove(t, d, size):
        column = next(columns)
        return stack(column, dim=d % (t.dim() + 1))

    with _running({"level": level, "add": _no, "remove": replay_remove, "batched": lambda t: False}):
        return mod._unwrap_batched(out, out_dims, level, batch_size, func)
