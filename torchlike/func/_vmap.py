"""torch.func.vmap on ``jax.vmap``.

Only the batched Tensor leaves of the inputs become ``jax.vmap`` arguments; unbatched Tensors,
keyword arguments and non-Tensor values are closed over unchanged.  Inside, the user's function sees
Tensors wrapping JAX batch tracers (per-example shapes), so every torchlike op is batched by JAX.
"""
from __future__ import annotations

import functools

import jax

from .. import _random
from ..tensor import Tensor
from . import _batch_dims
from ._common import flatten, inner, spec_repr, unflatten
from ._eager import mark, through

__all__ = ["vmap"]

_RANDOMNESS = ("error", "different", "same")


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """Vectorise ``func`` over a dimension of its inputs (torch.func.vmap / torch.vmap).

    ``in_dims``/``out_dims``: an int, None, or a (nested) tuple matching the inputs/outputs.
    ``randomness``: 'error' (random ops raise), 'same' (one draw shared by the batch) or 'different'.
    ``chunk_size``: map at most this many examples at once.

    >>> import torchlike
    >>> from torchlike.func import vmap
    >>> x, y = torchlike.ones(3, 4), torchlike.arange(4.)
    >>> vmap(torchlike.dot, in_dims=(0, None))(x, y)
    tensor([6., 6., 6.])
    """
    if randomness not in _RANDOMNESS:
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or 'same'. Got {randomness}")
    if chunk_size is not None and (not isinstance(chunk_size, int) or chunk_size <= 0):
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got {chunk_size})")

    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        # a library that replaced torch._functorch.vmap's protocol functions (tensordict) batches its containers
        call = _batch_dims.call if _batch_dims.patched() else _call

        def run(*a, **k):
            return call(func, in_dims, out_dims, randomness, chunk_size, a, k)
        return through(("vmap", repr(in_dims), repr(out_dims), randomness, chunk_size), func, run, args, kwargs)
    return wrapped


def _name(func):
    return getattr(func, "__name__", repr(func))


def _broadcast(dims, arg, out):
    """Append one in_dim per leaf of ``arg``; False on a structure mismatch."""
    if dims is None or isinstance(dims, int) and not isinstance(dims, bool) or not isinstance(
            dims, (tuple, list, dict)):
        out.extend([dims] * len(flatten(arg)[0]))
        return True
    if type(dims) is not type(arg) and not (isinstance(arg, tuple) and type(dims) is tuple):
        return False
    if isinstance(dims, dict):
        if set(dims) != set(arg):
            return False
        return all(_broadcast(dims[k], arg[k], out) for k in arg)
    if len(dims) != len(arg):
        return False
    return all(_broadcast(d, a, out) for d, a in zip(dims, arg))


def _in_dims(func, in_dims, args):
    head = f"vmap({_name(func)}, in_dims={in_dims}, ...)(<inputs>)"
    if not isinstance(in_dims, (int, tuple)) or isinstance(in_dims, bool):
        raise ValueError(f"{head}: expected `in_dims` to be int or a (potentially nested) tuple matching the "
                         f"structure of inputs, got: {type(in_dims)}.")
    if not args:
        raise ValueError(f"vmap({_name(func)})(<inputs>): got no inputs. Maybe you forgot to add inputs, or you "
                         "are trying to vmap over a function with no inputs. The latter is unsupported.")
    dims = []
    if not _broadcast(in_dims, tuple(args), dims):
        raise ValueError(f"{head}: in_dims is not compatible with the structure of `inputs`. in_dims has structure "
                         f"{spec_repr(in_dims)} but inputs has structure {spec_repr(tuple(args))}.")
    leaves, treedef = flatten(tuple(args))
    size = []
    for leaf, d in zip(leaves, dims):
        if d is None:
            continue
        if not isinstance(d, int) or isinstance(d, bool):
            raise ValueError(f"{head}: Got in_dim={d} for an input but in_dim must be either an integer dimension "
                             "or None.")
        if not isinstance(leaf, Tensor):
            raise ValueError(f"{head}: Got in_dim={d} for an input but the input is of type {type(leaf)}. We cannot "
                             "vmap over non-Tensor arguments, please use None as the respective in_dim")
        n = leaf.ndim
        if not -n <= d < n:
            raise ValueError(f"{head}: Got in_dim={d} for some input, but that input is a Tensor of dimensionality "
                             f"{n} so expected in_dim to satisfy -{n} <= in_dim < {n}.")
        size.append(leaf.shape[d])
    if not size:
        raise ValueError("vmap: Expected at least one Tensor to vmap over")
    if any(s != size[0] for s in size):
        raise ValueError(f"vmap: Expected all tensors to have the same size in the mapped dimension, got sizes "
                         f"{size} for the mapped dimension")
    return leaves, treedef, [None if d is None else d % max(leaf.ndim, 1) for leaf, d in zip(leaves, dims)], size[0]


def _out_dims(func, out_dims, outs):
    if not (out_dims is None or isinstance(out_dims, (int, tuple, list, dict))) or isinstance(out_dims, bool):
        raise ValueError(f"vmap({_name(func)}, ..., out_dims={out_dims}): `out_dims` must be an int, None or a python "
                         "collection of ints representing where in the outputs the vmapped dimension should appear.")
    dims = []
    if not _broadcast(out_dims, outs, dims):
        raise ValueError(f"vmap({_name(func)}, ..., out_dims={out_dims})(<inputs>): out_dims is not compatible with "
                         f"the structure of `outputs`. out_dims has structure {spec_repr(out_dims)} but outputs has "
                         f"structure {spec_repr(outs)}.")
    return dims


def _batched_by(x, tracers):
    """True when array ``x`` carries this vmap's batch dimension (is a tracer of its trace)."""
    if not isinstance(x, jax.core.Tracer):
        return False
    tr = getattr(x, "_trace", None)
    return any(getattr(t, "_trace", None) is tr for t in tracers)


def _call(func, in_dims, out_dims, randomness, chunk_size, args, kwargs):
    leaves, treedef, dims, size = _in_dims(func, in_dims, args)
    idx = [i for i, d in enumerate(dims) if d is not None]
    dev = leaves[idx[0]]._dev
    arrays = [leaves[i]._value for i in idx]
    axes = [dims[i] for i in idx]
    gen = _random.default_generator
    keys = None
    if randomness == "different":
        keys = jax.random.split(gen.next_key(), size)
    side = {}

    def pure(key, *arrs):
        new = list(leaves)
        for i, a in zip(idx, arrs):
            new[i] = Tensor._wrap(a, dev)
        saved_key = gen._state._x
        if key is not None:
            gen._state._x = key
        _random.vmap_modes.append(randomness)
        try:
            with inner("vmap") as ctx:
                out = ctx.out = func(*unflatten(treedef, new), **kwargs)
        finally:
            _random.vmap_modes.pop()
            if key is not None:
                gen._state._x = saved_key
        mark(out)
        oleaves, otree = flatten(out)
        odims = _out_dims(func, out_dims, out)
        ret = []
        for j, (o, d) in enumerate(zip(oleaves, odims)):
            if d is None:
                if isinstance(o, Tensor) and _batched_by(o._value, arrs):
                    raise ValueError(f"vmap({_name(func)}, ...): `{_name(func)}` can not return a BatchedTensor "
                                     "when out_dim is None")
                side[j] = o
            elif not isinstance(o, Tensor):
                raise ValueError(f"vmap({_name(func)}, ...): `{_name(func)}` must only return Tensors, got type "
                                 f"{type(o)}. Did you mean to set out_dims= to None for output?")
            else:
                ret.append(o._value)
        side["tree"], side["dims"] = otree, odims
        # batched inputs written in place (x.add_(1), batched BatchNorm running stats): their new values
        # come out too, and are written back to the caller's tensors below, as torch's vmap writes through
        side["written"] = [k for k, (i, a) in enumerate(zip(idx, arrs)) if new[i]._value is not a]
        return ret + [new[idx[k]]._value for k in side["written"]]

    res = _batch_dims.run_vmapped(pure, keys, arrays, axes, size, chunk_size)
    otree, odims = side["tree"], side["dims"]
    nw = len(side["written"])
    if nw:
        res, wrote = list(res[:len(res) - nw]), res[len(res) - nw:]
        for k, v in zip(side["written"], wrote):
            leaves[idx[k]].copy_(Tensor._wrap(v, dev).movedim(0, axes[k]))
    out, it = [], iter(res)
    for j, d in enumerate(odims):
        if d is None:
            out.append(side[j])
            continue
        x = next(it)
        t = Tensor._wrap(x, dev)
        if d != 0:
            t = t.movedim(0, d)
        out.append(t)
    return unflatten(otree, out)
