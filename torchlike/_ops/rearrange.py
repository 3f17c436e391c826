"""Shape ops that copy or rearrange: repeat/tile, flips and rolls, triangles and diagonals,
meshgrid/cartesian products, broadcasting helpers, resize_ and sum_to_size."""
from __future__ import annotations

import itertools
import math
import collections.abc
import numbers
import operator

import jax
import jax.numpy as jnp
import numpy as np

from .. import _dtype
from .. import _memory_format as _mfmt
from .._errors import argument_error, check_alloc, int_arg, torch_warn, tp_name
from ..tensor import _ALIAS_CHAIN, _NUMPY_CHAIN, _SHARED_CHAIN, Size
from ._util import Tensor, cast, dispatch, keyword_shape, register, shape_arg, wrap_dim
from .._creation import empty
from .._shape_churn import host_impl
from .shape import _tensors_arg, atleast_1d, atleast_2d, atleast_3d, stack  # (atleast_*: their home)

__all__ = ["repeat", "tile", "repeat_interleave", "flip", "fliplr", "flipud", "roll", "rot90", "tril", "triu",
           "diag", "diag_embed", "diagflat", "block_diag", "cartesian_prod", "combinations",
           "broadcast_tensors", "broadcast_shapes", "meshgrid", "atleast_1d", "atleast_2d", "atleast_3d"]


# --- repeat / tile / repeat_interleave ---------------------------------------------------------
def _repeat_impl(x, reps):
    x = x.reshape((1,) * (len(reps) - x.ndim) + x.shape)
    return jnp.tile(x, reps)


@register(namespaces=())
def repeat(input, *sizes, repeats=None):
    """Tile the tensor ``sizes`` times along each dim (Tensor.repeat).

    >>> import torchlike
    >>> torchlike.tensor([1, 2]).repeat(2, 2)
    tensor([[1, 2, 1, 2],
            [1, 2, 1, 2]])
    """
    reps = shape_arg(keyword_shape(sizes, repeats, "repeat", "repeats"))
    if len(reps) < input.ndim:
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number of dimensions of "
                           "tensor")
    if any(r < 0 for r in reps):
        shape = (1,) * (len(reps) - input.ndim) + tuple(input.shape)
        raise RuntimeError(f"Trying to create tensor with negative dimension "
                           f"{min(s * r for s, r in zip(shape, reps))}: {[s * r for s, r in zip(shape, reps)]}")
    shape = (1,) * (len(reps) - input.ndim) + tuple(input.shape)
    check_alloc([s * r for s, r in zip(shape, reps)], input.dtype)
    return dispatch(_repeat_impl, (input,), (("reps", reps),), name="RepeatBackward0", saves=False)


@register()
def tile(input, *sizes, dims=None):
    """Like ``repeat`` but ``dims`` may be shorter than ``input.ndim`` (leading ones are implied).

    >>> import torchlike
    >>> torchlike.tile(torchlike.tensor([[1, 2]]), (2,)).shape
    torch.Size([1, 4])
    """
    dims = shape_arg(keyword_shape(sizes, dims, "tile", "dims"))
    if len(dims) < input.ndim:
        dims = (1,) * (input.ndim - len(dims)) + dims
    return repeat(input, dims)


def _take_impl(x, idx, dim):
    return jnp.take(x, idx, axis=dim)


def _index_tensor(idx):
    return Tensor._wrap(jnp.asarray(idx, dtype=jnp.int64))


def _rep_counts(repeats):
    """A numpy int array from ``repeats`` (an int or a 0-d/1-d tensor), with torch's checks."""
    if isinstance(repeats, Tensor):
        if repeats.ndim > 1:
            raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
        if repeats.dtype not in (_dtype.int64, _dtype.int32):  # (the CPU kernel's dispatch, before its check)
            raise NotImplementedError(f"\"repeat_interleave_cpu\" not implemented for "
                                      f"'{_dtype._CAP[repeats.dtype.name]}'")
        r = np.asarray(repeats._value).astype(np.int64).reshape(-1)
    else:
        r = np.asarray([operator.index(repeats)], dtype=np.int64)  # (1.5: torch's parser error, from the wrapper)
    if (r < 0).any():
        raise RuntimeError("repeats can not be negative" if isinstance(repeats, Tensor) else
                           "Repeats must be non-negative")
    return r


@register()
def repeat_interleave(input, repeats=None, dim=None, *, output_size=None):
    """Repeat each element ``repeats`` times (an int, or a tensor of per-element counts).

    ``torch.repeat_interleave(counts)`` alone returns ``arange(len(counts))`` repeated by counts.

    >>> import torchlike
    >>> torchlike.repeat_interleave(torchlike.tensor([1, 2]), 2)
    tensor([1, 1, 2, 2])
    """
    if repeats is None:  # the repeats-only overload
        r = _rep_counts(input)
        check_alloc((int(r.sum()),), 8)
        idx = np.repeat(np.arange(r.size), r)
        if output_size is not None and output_size != idx.size:
            raise RuntimeError("allocated size does not match required size")
        return Tensor._wrap(jnp.asarray(idx, dtype=input.dtype.np), input._dev)
    x = input
    if dim is None:
        x = input.reshape(-1)
        d = 0
    else:
        d = wrap_dim(dim, input.ndim)
    n = x.shape[d] if x.ndim else 1
    if isinstance(repeats, Tensor) and repeats.ndim > 1:  # (the self overload's words; repeats alone: _rep_counts')
        raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
    r = _rep_counts(repeats)
    if r.size == 1:
        r = np.repeat(r, n)
    elif r.size != n:
        raise RuntimeError(f"repeats must have the same size as input along dim, but got repeats.size(0) = "
                           f"{r.size} and input.size({d}) = {n}")
    total = int(r.sum())
    check_alloc(x.shape[:d] + (total,) + x.shape[d + 1:], x.dtype)
    check_alloc((total,), 8)  # the int64 index built first
    idx = np.repeat(np.arange(n), r)
    if output_size is not None and output_size != idx.size:
        raise RuntimeError("allocated size does not match required size")
    if x.ndim == 0:
        x = x.reshape(1)
    return dispatch(_take_impl, (x, _index_tensor(idx)), (("dim", d),), name="IndexSelectBackward0", saves=False)


# --- flips, rolls, rotations -------------------------------------------------------------------
def _flip_impl(x, dims):
    return jnp.flip(x, axis=dims) if dims and x.ndim else x


host_impl(_flip_impl, lambda x, dims: np.array(np.flip(x, axis=dims) if dims and x.ndim else x))  # (exact)


def _dims_list(dims, nd):
    dims = (dims,) if isinstance(dims, numbers.Integral) else tuple(dims)
    out = tuple(wrap_dim(d, nd) for d in dims)
    for i, d in enumerate(out):
        if d in out[:i]:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
    return out


@register(method_varargs=True)
@_mfmt.preserve_follows((0, "input"))
def flip(input, dims):
    """Reverse the order of elements along ``dims`` (a copy, as in torch).

    >>> import torchlike
    >>> torchlike.flip(torchlike.tensor([1, 2, 3]), [0])
    tensor([3, 2, 1])
    """
    if isinstance(dims, (numbers.Integral, Tensor)):  # (the method's lone int is made a list by its wrapper)
        raise TypeError(f"flip(): argument 'dims' must be tuple of ints, not {type(dims).__name__}")
    return dispatch(_flip_impl, (input,), (("dims", _dims_list(dims, input.ndim)),), name="FlipBackward0",
                    saves=False)


@register()
@_mfmt.preserve_follows((0, "input"))
def fliplr(input):
    """Flip dim 1 (needs >= 2 dims)."""
    if input.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return flip(input, (1,))


@register()
@_mfmt.preserve_follows((0, "input"))
def flipud(input):
    """Flip dim 0 (needs >= 1 dim)."""
    if input.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return flip(input, (0,))


def _roll_impl(x, *shifts, dims):
    if dims is None:
        return jnp.roll(x.reshape(-1), shifts[0]).reshape(x.shape)
    for s, d in zip(shifts, dims):
        x = jnp.roll(x, s, axis=d)
    return x


def _int1(v, name):
    """An ``int[1]`` argument as a tuple: torch's parser takes an int, a sequence of them, or a one-element integer
    tensor (a larger or floating one is its TypeError)."""
    if isinstance(v, numbers.Integral):
        return (v,)
    if isinstance(v, Tensor):
        if v.numel() == 1 and not (v.dtype.is_floating_point or v.dtype.is_complex):
            return (int(v.item()),)
        raise argument_error(v, "tuple of ints", name, "roll")
    return tuple(v)


@register()
@_mfmt.preserve_follows((0, "input"), unless=((2, "dims"), None))
def roll(input, shifts, dims=None):
    """Roll elements along ``dims`` by ``shifts`` (flattened when ``dims`` is None).

    >>> import torchlike
    >>> torchlike.roll(torchlike.tensor([1, 2, 3]), 1)
    tensor([3, 1, 2])
    """
    shifts = _int1(shifts, "shifts")
    dims = dims if dims is None else _int1(dims, "dims")
    if not shifts:
        raise RuntimeError("`shifts` required")
    if dims is None:
        if len(shifts) != 1:
            raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:0")
        d = None
    else:
        dl = (dims,) if isinstance(dims, numbers.Integral) else tuple(dims)
        if len(shifts) != len(dl):
            raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dl)}")
        if input.numel() == 0:
            return input.clone()
        if input.ndim == 0:  # torch wraps roll's dims without treating a scalar as 1-D
            raise IndexError(f"Dimension specified as {dl[0]} but tensor has no dimensions")
        d = tuple(wrap_dim(x, input.ndim) for x in dl)
    if input.numel() == 0:
        return input.clone()
    return dispatch(_roll_impl, (input,) + tuple(int_arg(s, "shifts") for s in shifts), (("dims", d),), name="RollBackward0",
                    saves=False)


def _rot90_impl(x, k, dims):
    return jnp.rot90(x, k, axes=dims)


@register()
def rot90(input, k=1, dims=(0, 1)):
    """Rotate by 90 degrees ``k`` times in the plane of ``dims`` (from the first towards the second).

    >>> import torchlike
    >>> torchlike.rot90(torchlike.tensor([[1, 2], [3, 4]]))
    tensor([[2, 4],
            [1, 3]])
    """
    dims = tuple(dims)
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if input.ndim < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {input.ndim}")
    a, b = wrap_dim(dims[0], input.ndim), wrap_dim(dims[1], input.ndim)
    if a == b:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {a} and dim1 = {b}")
    k = int_arg(k, "k") % 4
    r = dispatch(_rot90_impl, (input,), (("k", k), ("dims", (a, b))), name="Rot90Backward0", saves=False)
    if k % 2 or k and _mfmt.SEEN[0] and _mfmt.needs_layout(input):
        # torch: flip (empty_like: the input's layout), then transpose_ of that result for an odd k
        st = list(_mfmt.preserve_strides(input) if _mfmt.needs_layout(input) else
                  _mfmt.format_strides(tuple(input.shape), _mfmt.contiguous_format))
        if k % 2:
            st[a], st[b] = st[b], st[a]
        _mfmt.set_strides(r, st)
    return r


# --- triangles and diagonals -------------------------------------------------------------------
def _tri_impl(x, k, upper):
    m, n = x.shape[-2], x.shape[-1]
    diff = jnp.arange(n)[None, :] - jnp.arange(m)[:, None]
    mask = diff >= k if upper else diff <= k
    return jnp.where(mask, x, jnp.zeros((), x.dtype))


def _tri(name, upper):
    def fn(input, diagonal=0):
        if input.ndim < 2:
            raise RuntimeError(f"{name}: input tensor must have at least 2 dimensions")
        return dispatch(_tri_impl, (input, int_arg(diagonal, "diagonal")), (("upper", upper),), name=name.capitalize() + "Backward0",
                        saves=False)
    fn.__name__ = name
    fn.__doc__ = (f"The {'upper' if upper else 'lower'} triangle of the last two dims (others zeroed).\n\n"
                  f"    >>> import torchlike\n    >>> torchlike.{name}(torchlike.ones(2, 2))\n"
                  f"    tensor([[1., {'1.' if upper else '0.'}],\n            [{'0.' if upper else '1.'}, 1.]])\n    ")
    # (in place, torch writes an expanded tensor: each location keeps the last value written there)
    return register(name, inplace=True, out=True, inplace_overlap="writes")(fn)


tril = _tri("tril", False)
triu = _tri("triu", True)


def _diag_impl(x, k):
    return jnp.diag(x, k)


@register(out=True)
def diag(input, diagonal=0):
    """A 2-D matrix with ``input`` (1-D) on a diagonal, or the diagonal of a 2-D ``input`` (a copy).

    >>> import torchlike
    >>> torchlike.diag(torchlike.tensor([1, 2]))
    tensor([[1, 0],
            [0, 2]])
    """
    if input.ndim not in (1, 2):
        raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {input.ndim}D")
    return dispatch(_diag_impl, (input,), (("k", int_arg(diagonal, "diagonal")),),
                    name="DiagEmbedBackward0" if input.ndim == 1 else "DiagonalBackward0_copy", saves=False)


def _diag_embed_impl(x, offset, d1, d2):
    L = x.shape[-1]
    n = L + abs(offset)
    i = jnp.arange(L)
    out = jnp.zeros(x.shape[:-1] + (n, n), x.dtype)
    out = out.at[..., i + max(-offset, 0), i + max(offset, 0)].set(x)
    return jnp.moveaxis(out, (-2, -1), (d1, d2))


@register()
def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    """Place the last dim of ``input`` on a diagonal of a new (dim1, dim2) plane.

    >>> import torchlike
    >>> torchlike.diag_embed(torchlike.tensor([[1, 2]])).shape
    torch.Size([1, 2, 2])
    """
    nd = input.ndim + 1
    a, b = wrap_dim(dim1, nd), wrap_dim(dim2, nd)
    if a == b:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    x = input.reshape(1) if input.ndim == 0 else input
    return dispatch(_diag_embed_impl, (x,), (("offset", int_arg(offset, "offset")), ("d1", a), ("d2", b)),
                    name="DiagEmbedBackward0", saves=False)


@register()
def diagflat(input, offset=0):
    """A 2-D matrix with the flattened ``input`` on diagonal ``offset``.

    >>> import torchlike
    >>> torchlike.diagflat(torchlike.tensor([[1, 2]])).shape
    torch.Size([2, 2])
    """
    return dispatch(_diag_impl, (input.reshape(-1),), (("k", int_arg(offset, "offset")),), name="DiagEmbedBackward0", saves=False)


def _block_diag_impl(*xs, dt):
    rows = sum(x.shape[0] for x in xs)
    cols = sum(x.shape[1] for x in xs)
    out = jnp.zeros((rows, cols), dt)
    r = c = 0
    for x in xs:
        out = out.at[r:r + x.shape[0], c:c + x.shape[1]].set(cast(x, dt))
        r, c = r + x.shape[0], c + x.shape[1]
    return out


@register(method=False)
def block_diag(*tensors):
    """A block-diagonal matrix from 0-, 1- or 2-D tensors (dtypes promote).

    >>> import torchlike
    >>> torchlike.block_diag(torchlike.tensor([[1]]), torchlike.tensor([2, 3])).shape
    torch.Size([2, 3])
    """
    ts = []
    for i, t in enumerate(tensors):
        if t.ndim > 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer dimensions. Input {i} has "
                               f"{t.ndim} dimensions")
        ts.append(t.reshape(1, 1) if t.ndim == 0 else t.reshape(1, -1) if t.ndim == 1 else t)
    if not ts:
        return empty(1, 0)
    dt = _dtype.result_type(*[_D(t.dtype) for t in ts])
    return dispatch(_block_diag_impl, tuple(ts), (("dt", dt.np),), name="BlockDiagBackward0", saves=False)


class _D:
    ndim = 1

    def __init__(self, dtype):
        self.dtype = dtype


# --- broadcasting, grids, products -------------------------------------------------------------
def broadcast_shapes(*shapes):
    """The shape that all ``shapes`` broadcast to (torch.broadcast_shapes).

    >>> import torchlike
    >>> torchlike.broadcast_shapes((2, 1), (3,))
    torch.Size([2, 3])
    """
    norm = []
    shapes = [(s,) if isinstance(s, (numbers.Integral, np.integer)) else s for s in shapes if s is not None]
    for s in shapes:  # (torch's _refs._broadcast_shapes: all checked before any is read)
        if not isinstance(s, collections.abc.Sequence):
            raise RuntimeError(f"Input shapes should be of type ints, a tuple of ints, or a list of ints, got {s}")
    for s in shapes:
        norm.append(tuple(int(v) for v in s))
    nd = max((len(s) for s in norm), default=0)
    out = [1] * nd
    for k, s in enumerate(norm):  # (from the last dim, as torch._refs._broadcast_shapes, in its words)
        for i in range(-1, -1 - len(s), -1):
            v = s[i]
            if v == out[i] or v == 1:
                continue
            if out[i] == 1:
                if v < 0:
                    raise ValueError("Attempting to broadcast a dimension with negative length!")
                out[i] = v
                continue
            raise RuntimeError(f"Attempting to broadcast a dimension of length {v} at {i}! Mismatching argument at "
                               f"index {k} had {shapes[k]}; but expected shape should be broadcastable to {out}")
    return Size(out)


def broadcast_tensors(*tensors):
    """Expand all tensors to their common broadcast shape (views).

    >>> import torchlike
    >>> [t.shape for t in torchlike.broadcast_tensors(torchlike.ones(2, 1), torchlike.ones(3))]
    [torch.Size([2, 3]), torch.Size([2, 3])]
    """
    ts = _tensors_arg(tensors)
    try:
        shapes = [tuple(t.shape) for t in ts]
    except AttributeError:  # (a list, a number: torch's parser error)
        k = next(k for k, t in enumerate(ts) if not isinstance(t, Tensor))
        raise TypeError(f"expected Tensor as element {k} in argument 0, but got {tp_name(ts[k])}") from None
    try:
        shape = tuple(broadcast_shapes(*shapes))
    except RuntimeError:
        nd = max(len(s) for s in shapes)
        for j in range(1, nd + 1):
            sizes = [(i, s[-j]) for i, s in enumerate(shapes) if len(s) >= j and s[-j] != 1]
            for i, v in sizes[1:]:
                if v != sizes[0][1]:
                    raise RuntimeError(f"The size of tensor a ({sizes[0][1]}) must match the size of tensor b ({v}) "
                                       f"at non-singleton dimension {nd - j}") from None
        raise
    # a tensor already of that shape is returned itself, as torch's expand_outplace does (a distribution's
    # parameters stay the leaves the user passed: ``Normal(mu, 1.0).loc.grad``)
    return tuple(t if s == shape else t.expand(shape) for t, s in zip(ts, shapes))


def meshgrid(*tensors, indexing=None):
    """Coordinate grids from 0-/1-D tensors; ``indexing`` is 'ij' (default) or 'xy' (views).

    >>> import torchlike
    >>> a, b = torchlike.meshgrid(torchlike.arange(2), torchlike.arange(3), indexing="ij")
    >>> a.shape
    torch.Size([2, 3])
    """
    ts = _tensors_arg(tensors)
    if indexing is None:
        torch_warn("torch.meshgrid: in an upcoming release, it will be required to pass the indexing argument.",
                   "aten/src/ATen/native/TensorShape.cpp:4215", once=True)
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f"torch.meshgrid: indexing must be one of \"xy\" or \"ij\", but received: {indexing}")
    if not ts:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    for t in ts:
        if t.ndim > 1:
            raise RuntimeError(f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: {t}")
    for t in ts[1:]:
        if t.dtype is not ts[0].dtype:
            raise RuntimeError("meshgrid expects all tensors to have the same dtype")
        if t.device != ts[0].device:
            raise RuntimeError("meshgrid expects all tensors to have the same device")
    n = len(ts)
    axis = list(range(n))
    if indexing == "xy" and n >= 2:
        axis[0], axis[1] = 1, 0
    sizes = [t.numel() for t in ts]
    shape = [0] * n
    for i in range(n):
        shape[axis[i]] = sizes[i]
    out = []
    for i, t in enumerate(ts):
        v = [1] * n
        v[axis[i]] = -1
        out.append(t.reshape(tuple(v)).expand(tuple(shape)))
    return tuple(out)


@register(method=False)
def cartesian_prod(*tensors):
    """All combinations of elements of 1-D tensors, as rows.

    >>> import torchlike
    >>> torchlike.cartesian_prod(torchlike.tensor([1, 2]), torchlike.tensor([3])).tolist()
    [[1, 3], [2, 3]]
    """
    ts = _tensors_arg(tensors)
    for t in ts:
        if t.ndim != 1:
            raise RuntimeError(f"Expect a 1D vector, but got shape {list(t.shape)}")
    if len(ts) == 1:
        return ts[0]
    grids = meshgrid(*ts, indexing="ij")
    return stack([g.reshape(-1) for g in grids], 1)


@register()
def combinations(input, r=2, with_replacement=False):
    """Length-``r`` combinations of a 1-D tensor's elements, as rows (like itertools).

    >>> import torchlike
    >>> torchlike.combinations(torchlike.tensor([1, 2, 3])).tolist()
    [[1, 2], [1, 3], [2, 3]]
    """
    if input.ndim != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(input.shape)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return Tensor._wrap(jnp.zeros((0,), input.dtype.np), input._dev)
    n = input.shape[0]
    gen = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    idx = np.asarray(list(gen(range(n), r)), dtype=np.int64).reshape(-1, r)
    # (an empty index still goes through the gather, so the empty result is differentiable like torch's)
    return dispatch(_take_impl, (input, _index_tensor(idx)), (("dim", 0),), name="IndexBackward0", saves=False)


# --- resize_ / sum_to_size ---------------------------------------------------------------------
def _resize_impl(x, shape):
    flat = x.reshape(-1)
    n = math.prod(shape)
    if n > flat.size:
        flat = jnp.concatenate([flat, jnp.zeros((n - flat.size,), x.dtype)])
    return flat[:n].reshape(shape)


@register(namespaces=(), promote="none")
def resize_(self, *sizes, size=None, memory_format=None):
    """Resize in place, keeping elements in flat order (new elements are zero here; torch leaves them
    uninitialised).  Only for tensors that own their storage (not views)."""
    shape = shape_arg(keyword_shape(sizes, size, "resize_", "size"))
    for s in shape:
        if s < 0:
            if 0 not in shape:  # (torch multiplies the sizes as unsigned 64-bit numbers first)
                raise RuntimeError("numel: integer multiplication overflow")
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: {list(shape)}")
    if self.requires_grad:
        raise RuntimeError("cannot resize variables that require grad")
    if shape == tuple(self.shape):
        return self
    check_alloc(shape, self.dtype)
    if self._chain is _ALIAS_CHAIN:
        self._settle()  # a host tensor (Tensor._from_host) owns its storage: a plain tensor first
    if self._chain is _NUMPY_CHAIN or self._chain is _SHARED_CHAIN:  # numpy's / shared memory: fixed size
        if math.prod(shape) > self.numel():
            raise RuntimeError("Trying to resize storage that is not resizable")
        x = self._value  # (shrinking: a tensor of its own from here, see docs/differences.md)
        self._vbase = self._chain = None
        self._x = x
        self._seen = 0
    if self._vbase is not None and self._chain[0][0] != "alias":
        if math.prod(shape) > self.numel():
            raise RuntimeError("Trying to resize storage that is not resizable")
        raise RuntimeError("torchlike: resize_ of a view is not supported")
    if self._st is not None:  # torch's storage order (channels-last, ...) is what resize_ keeps in flat order
        self._x = jax.numpy.transpose(self._value, _mfmt.storage_perm(self))
        del self.__dict__["_st"]
    self._x = jax.jit(_resize_impl, static_argnums=1)(self._x, shape)
    self._ver[0] += 1
    if memory_format is not None:
        _mfmt.mark(self, memory_format)
    return self


@register(promote="none")
def resize_as_(input, the_template, memory_format=None):
    """Resize in place to ``the_template``'s shape.

    >>> import torchlike
    >>> torchlike.resize_as_(torchlike.zeros(2), torchlike.ones(1, 3)).shape
    torch.Size([1, 3])
    """
    return resize_(input, tuple(the_template.shape))


def _sum_to_impl(x, dims, lead):
    if dims:  # torch's sum: integral and bool inputs accumulate (and return) in int64
        x = jnp.sum(x, axis=dims, keepdims=True,
                    dtype=np.int64 if jnp.issubdtype(x.dtype, jnp.integer) or x.dtype == np.bool_ else None)
    return x.reshape(x.shape[lead:]) if lead else x


@register(namespaces=(), promote="none")
def sum_to_size(self, *sizes, size=None):
    """Sum dims so the result has shape ``size`` (which must expand to self's shape).

    >>> import torchlike
    >>> torchlike.ones(2, 3).sum_to_size(1, 3)
    tensor([[2., 2., 2.]])
    """
    size = shape_arg(keyword_shape(sizes, size, "sum_to_size", "size"))
    sh = tuple(self.shape)
    lead = len(sh) - len(size)
    ok = lead >= 0 and all(s == t or s == 1 for s, t in zip(size, sh[lead:]))
    if not ok:
        raise RuntimeError(f"size {{{list(size)}}} is not expandable to size {{{list(sh)}}}.")
    dims = tuple(range(lead)) + tuple(lead + i for i, (s, t) in enumerate(zip(size, sh[lead:])) if s == 1 and t != 1)
    if not size:  # torch's sum_to: an empty target shape is a full sum (bool/int become int64)
        return self.sum()
    if not dims:
        return self
    return dispatch(_sum_to_impl, (self,), (("dims", dims), ("lead", lead)), name="SumBackward1", saves=False)


for _f in (broadcast_shapes, broadcast_tensors, meshgrid, atleast_1d, atleast_2d, atleast_3d):
    register(_f.__name__, method=False, promote="none")(_f)
