"""Views over immutable JAX arrays.

A view is its root tensor plus a chain of view steps, each a hashable tuple ``(kind, *args)``.
Reading a view applies the chain to the root's current array (one cached ``jax.jit`` per chain).
Writing into a view is a functional update of the root: walk the chain forward, then put the new
value back step by step.  Index-like steps put through a scatter at the index map the step induces
on ``arange(root.size)`` (computed once per chain and root shape, with numpy, so it works under a
trace); ``real``/``imag`` put by rebuilding the complex number.  The same index maps give torch's
strides, storage offset and ``is_contiguous``.
"""
from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from . import _jit_cache

__all__ = ["read", "apply_chain", "write_back", "strides_of", "contiguous_strides", "compute_view_strides"]


def _unfold(x, xp, dim, size, step):
    n = (x.shape[dim] - size) // step + 1
    idx = (np.arange(n)[:, None] * step + np.arange(size)[None, :])  # (n, size)
    y = xp.take(x, idx.reshape(-1), axis=dim)
    y = y.reshape(x.shape[:dim] + (n, size) + x.shape[dim + 1:])
    return xp.moveaxis(y, dim + 1, -1)


def _as_strided(x, xp, size, stride, offset):
    idx = np.full(tuple(size), offset, dtype=np.int64)
    for d, (n, s) in enumerate(zip(size, stride)):
        shp = [1] * len(size)
        shp[d] = n
        idx = idx + (np.arange(n) * s).reshape(shp)
    if idx.size and (idx.max() >= x.size or idx.min() < 0):
        raise RuntimeError(f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset {offset} "
                           f"requiring a storage size of {int(idx.max()) + 1} are out of bounds for storage "
                           f"of size {x.size}")
    return xp.reshape(x, (-1,))[idx.reshape(-1)].reshape(tuple(size))


def _index(x, xp, idx):
    key = tuple(slice(*e[1:]) if isinstance(e, tuple) else e for e in idx)
    return x[key]


def read(x, step, xp=jnp):
    """Apply one view step to an array (jnp, or np for index maps)."""
    kind = step[0]
    if kind == "reshape":
        return xp.reshape(x, step[1])
    if kind == "permute":
        return xp.transpose(x, step[1])
    if kind == "index":
        return _index(x, xp, step[1])
    if kind == "expand":
        return xp.broadcast_to(x, step[1])
    if kind == "diagonal":
        return xp.diagonal(x, step[1], step[2], step[3])
    if kind == "unfold":
        return _unfold(x, xp, *step[1:])
    if kind == "as_strided":
        return _as_strided(x, xp, *step[1:])
    if kind == "real":
        return xp.real(x) if xp is jnp else x * 2
    if kind == "imag":
        return xp.imag(x) if xp is jnp else x * 2 + 1
    if kind == "alias":
        return x
    if kind == "view_dtype":
        return lax.bitcast_convert_type(x, step[1]) if xp is jnp else x
    raise AssertionError(kind)


def apply_chain(x, chain):
    for step in chain:
        x = read(x, step)
    return x


_reads = _jit_cache.Cache("view read")
_writes = _jit_cache.Cache("view write")


def chain_fn(chain):
    """A jitted function reading the view ``chain`` from a root array (a bounded cache entry)."""
    e = _reads.get(chain)
    return e if e is not None else _reads.add(chain, jax.jit(functools.partial(apply_chain, chain=chain)))


@functools.lru_cache(maxsize=512)
def index_map(chain, root_shape):
    """For each element of the view, its flat index in the root (numpy int64 array)."""
    idx = np.arange(int(np.prod(root_shape, dtype=np.int64)), dtype=np.int64).reshape(root_shape)
    for step in chain:
        idx = read(idx, step, np)
    return np.array(idx, order="C")  # (ascontiguousarray would turn 0-d into 1-d)


def _put(base, step, new):
    kind = step[0]
    if kind == "real":
        return lax.complex(new.astype(jnp.real(base).dtype), jnp.imag(base))
    if kind == "imag":
        return lax.complex(jnp.real(base), new.astype(jnp.real(base).dtype))
    if kind == "alias":
        return new
    if kind == "view_dtype":
        return lax.bitcast_convert_type(new, base.dtype)
    idx = index_map((step,), tuple(base.shape))
    flat = idx.reshape(-1)
    if step[0] in ("expand", "as_strided") and len(np.unique(flat)) < flat.size:
        raise RuntimeError("unsupported operation: more than one element of the written-to tensor refers to a "
                           "single memory location. Please clone() the tensor before performing the operation.")
    return base.reshape(-1).at[flat].set(new.reshape(-1).astype(base.dtype)).reshape(base.shape)


def write_back(root, new, chain):
    """The root array after writing ``new`` into the view ``chain`` of it (pure; differentiable)."""
    vals = [root]
    for step in chain[:-1]:
        vals.append(read(vals[-1], step))
    cur = new
    for step, base in zip(reversed(chain), reversed(vals)):
        cur = _put(base, step, cur)
    return cur


def write_back_fn(chain):
    e = _writes.get(chain)
    return e if e is not None else _writes.add(chain, jax.jit(functools.partial(write_back, chain=chain)))


def contiguous_strides(shape):
    strides, acc = [], 1
    for n in reversed(shape):
        strides.append(acc)
        acc *= max(n, 1)
    return tuple(reversed(strides))


@functools.lru_cache(maxsize=512)
def strides_of(chain, root_shape):
    """(strides, storage_offset) of the view ``chain`` over a contiguous root of ``root_shape``."""
    idx = index_map(chain, root_shape)
    shape = idx.shape
    if idx.size == 0:
        return contiguous_strides(shape), 0
    offset = int(idx.reshape(-1)[0])
    strides = []
    cs = contiguous_strides(shape)
    for d, n in enumerate(shape):
        if n > 1:
            sl = [0] * len(shape)
            sl[d] = 1
            strides.append(int(idx[tuple(sl)]) - offset)
        else:
            strides.append(cs[d])
    return tuple(strides), offset


def compute_view_strides(oldshape, oldstride, newshape):
    """torch's computeStride: strides that view ``oldshape``/``oldstride`` as ``newshape``, or None."""
    numel = int(np.prod(oldshape, dtype=np.int64))
    if numel == 0:
        return contiguous_strides(newshape)
    if len(oldshape) == 0:
        return (1,) * len(newshape)
    newstride = [0] * len(newshape)
    view_d = len(newshape) - 1
    chunk_base_stride = oldstride[-1]
    tensor_numel = 1
    view_numel = 1
    for tensor_d in range(len(oldshape) - 1, -1, -1):
        tensor_numel *= oldshape[tensor_d]
        if tensor_d == 0 or (oldshape[tensor_d - 1] != 1 and
                             oldstride[tensor_d - 1] != tensor_numel * chunk_base_stride):
            while view_d >= 0 and (view_numel < tensor_numel or newshape[view_d] == 1):
                newstride[view_d] = view_numel * chunk_base_stride
                view_numel *= newshape[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if tensor_d > 0:
                chunk_base_stride = oldstride[tensor_d - 1]
                tensor_numel = 1
                view_numel = 1
    if view_d != -1:
        return None
    return tuple(newstride)
