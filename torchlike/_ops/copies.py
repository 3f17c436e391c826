"""The ``*_copy`` family, split helpers (hsplit/vsplit/dsplit, unsafe_split), in-place view ops
(``squeeze_``, ``t_`` ...), and a few shape utilities (unravel_index, constant_pad_nd, as_strided_scatter,
view_as_complex/real, gradient, cumulative_trapezoid).

A ``X_copy`` op is ``X`` followed by a copy: same values and gradient, but the result owns its storage.

    >>> import torchlike
    >>> x = torchlike.arange(6.).reshape(2, 3)
    >>> y = torchlike.t_copy(x)
    >>> y._base is None, tuple(y.shape)
    (True, (3, 2))
"""
from __future__ import annotations

import numbers

import jax.numpy as jnp
import numpy as np
from jax import lax

from .. import _dtype, _views
from ._util import Tensor, cast, dispatch, float_dtype_for, register, wrap_dim
from . import views as _v
from .._tape import relabel
from .basic import clone
from .. import _autocast as _amp
from .._creation import tensor
from .pointwise import _float_power, div
from .. import _grad_mode as grad_mode
from .. import return_types
from .sorting import _linspace_np

__all__ = ["hsplit", "vsplit", "dsplit", "unsafe_split", "unsafe_chunk", "unravel_index", "constant_pad_nd",
           "as_strided_scatter", "view_as_complex", "view_as_real", "gradient", "cumulative_trapezoid"]


# --- X_copy -----------------------------------------------------------------------------------------
def _copying(name, view_fn):
    def fn(input, *args, **kwargs):
        r = view_fn(input, *args, **kwargs)
        # torch's node is the view's, suffixed: TBackward0_copy (its child here is the view node itself)
        view_node = type(getattr(r[0] if isinstance(r, tuple) and r else r, "_grad_fn", None)).__name__
        if isinstance(r, tuple):
            return relabel(tuple(clone(t) for t in r), view_node + "_copy", only="CloneBackward0")
        return relabel(clone(r), view_node + "_copy", only="CloneBackward0")
    fn.__name__ = name
    fn.__doc__ = (f"``torch.{name[:-5]}`` followed by a copy (torch.{name}).\n\n    >>> import torchlike\n"
                  f"    >>> torchlike.{name} is not None\n    True\n    ")
    return fn


def _view(input, *shape):
    return _v.view(input, *shape)


def _alias(input):
    return _v.alias_op(input)


for _name, _f in [("view_copy", _view), ("t_copy", _v.t), ("permute_copy", _v.permute),
                  ("transpose_copy", _v.transpose), ("expand_copy", _v.expand), ("squeeze_copy", _v.squeeze),
                  ("unsqueeze_copy", _v.unsqueeze), ("unbind_copy", _v.unbind), ("unfold_copy", _v.unfold),
                  ("alias_copy", _alias), ("as_strided_copy", _v.as_strided), ("diagonal_copy", _v.diagonal),
                  ("split_with_sizes_copy", _v.split_with_sizes), ("split_copy", _v.split),
                  ("detach_copy", lambda t: t.detach())]:
    register(_name, method=False, out=_name not in ("unbind_copy",),
             promote="none")(_copying(_name, _f))


@register(out=True, promote="none")
def narrow_copy(input, dim, start, length):
    """A copy of ``input.narrow(dim, start, length)`` (torch.narrow_copy, with its own checks).

    >>> import torchlike
    >>> torchlike.narrow_copy(torchlike.arange(5), 0, 1, 2).tolist()
    [1, 2]
    """
    nd = input.ndim
    if nd == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    if dim >= nd:
        raise RuntimeError("Expected dim < static_cast<int64_t>(self_sizes.size()) to be true, but got false.  "
                           "(Could this error message be improved?  If so, please report an enhancement request "
                           "to PyTorch.)")
    d = wrap_dim(dim, nd)
    n = input.shape[d]
    start = int(start)
    if not -n <= start <= n:
        raise IndexError(f"start out of range (expected to be in range of [{-n}, {n}], but got {start})")
    if start < 0:
        start += n
    if length < 0 or start + length > n:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({n}).")
    return clone(_v.narrow(input, d, start, length))


# --- hsplit / vsplit / dsplit: views, numpy semantics -------------------------------------------------
def _dir_split(name, input, indices_or_sections, min_dim, dim):
    if input.ndim < min_dim:
        raise RuntimeError(f"torch.{name} requires a tensor with at least {min_dim} dimension, but got a tensor "
                           f"with {input.ndim} dimensions!")
    ios = indices_or_sections
    if not (isinstance(ios, numbers.Integral) or isinstance(ios, (list, tuple)) and
            all(isinstance(i, numbers.Integral) for i in ios)):
        raise TypeError(f"{name}() received an invalid combination of arguments - got (Tensor, {type(ios).__name__}), "
                        "but expected one of:\n * (Tensor input, int sections)\n"
                        " * (Tensor input, tuple of ints indices)\n")
    if isinstance(indices_or_sections, numbers.Integral) and not isinstance(indices_or_sections, bool):
        k = int(indices_or_sections)
        n = input.shape[dim]
        if k == 0 or n % k:
            raise RuntimeError(f"torch.{name} attempted to split along dimension {dim}, but the size of the "
                               f"dimension {n} is not divisible by the split_size {k}!")
    return _v.tensor_split(input, indices_or_sections, dim)


@register()
def hsplit(input, indices_or_sections):
    """Split horizontally: dim 1 (dim 0 for 1-D inputs), numpy semantics (views).

    >>> import torchlike
    >>> [tuple(p.shape) for p in torchlike.hsplit(torchlike.ones(2, 4), 2)]
    [(2, 2), (2, 2)]
    """
    return _dir_split("hsplit", input, indices_or_sections, 1, 1 if input.ndim > 1 else 0)


@register()
def vsplit(input, indices_or_sections):
    """Split vertically (dim 0) a tensor of at least 2 dims (views).

    >>> import torchlike
    >>> len(torchlike.vsplit(torchlike.ones(4, 2), [1, 3]))
    3
    """
    return _dir_split("vsplit", input, indices_or_sections, 2, 0)


@register()
def dsplit(input, indices_or_sections):
    """Split depth-wise (dim 2) a tensor of at least 3 dims (views).

    >>> import torchlike
    >>> len(torchlike.dsplit(torchlike.ones(1, 1, 4), 2))
    2
    """
    return _dir_split("dsplit", input, indices_or_sections, 3, 2)


@register()
def unsafe_split(input, split_size, dim=0):
    """torch.split whose pieces are not tracked as views (here: copies).

    >>> import torchlike
    >>> [p.tolist() for p in torchlike.unsafe_split(torchlike.arange(5), 2)]
    [[0, 1], [2, 3], [4]]
    """
    return relabel(tuple(clone(p) for p in _v.split(input, split_size, dim)), "UnsafeSplitBackward0")


@register()
def unsafe_chunk(input, chunks, dim=0):
    """torch.chunk whose pieces are not tracked as views (here: copies).

    >>> import torchlike
    >>> len(torchlike.unsafe_chunk(torchlike.arange(5), 2))
    2
    """
    return relabel(tuple(clone(p) for p in _v.chunk(input, chunks, dim)), "UnsafeSplitBackward0")


@register()
def unsafe_split_with_sizes(input, split_sizes, dim=0):
    """torch.split_with_sizes whose pieces are copies."""
    return relabel(tuple(clone(p) for p in _v.split_with_sizes(input, split_sizes, dim)),
                   "UnsafeSplitWithSizesBackward0")


# --- unravel_index ----------------------------------------------------------------------------------
def _unravel_impl(idx, shape):
    out = []
    rem = idx
    for n in reversed(shape):
        out.append(jnp.remainder(rem, n) if n else rem * 0)
        rem = jnp.floor_divide(rem, n) if n else rem
    return tuple(reversed(out))


@register(method=False, differentiable=False, promote="none")
def unravel_index(indices, shape):
    """Coordinates of flat ``indices`` in a tensor of ``shape`` (tuple of int64 tensors).

    >>> import torchlike
    >>> torchlike.unravel_index(torchlike.tensor(5), (2, 4))
    (tensor(1), tensor(1))
    """
    if not isinstance(indices, Tensor):
        indices = tensor(indices)
    if indices.dtype.is_floating_point or indices.dtype.is_complex or indices.dtype is _dtype.bool:
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype}")
    shape = (int(shape),) if isinstance(shape, numbers.Integral) else tuple(int(s) for s in shape)
    if any(s < 0 for s in shape):
        raise ValueError("'shape' cannot have negative values, but got " + str(tuple(shape)))
    idx = indices.to(_dtype.int64)
    return dispatch(_unravel_impl, (idx,), (("shape", shape),), diff=False)


# --- padding / scatter --------------------------------------------------------------------------------
@register(method=False)
def constant_pad_nd(input, pad, value=0):
    """Pad the last dims with a constant (torch.constant_pad_nd; negative pads crop).

    >>> import torchlike
    >>> torchlike.constant_pad_nd(torchlike.tensor([1, 2]), (1, 0), 7).tolist()
    [7, 1, 2]
    """
    from ..nn.functional import pad as _pad  # lazy: nn.functional sits in the nn package (layer 5), whose __init__ would run
    return _pad(input, tuple(pad), mode="constant", value=value)


def _ass_impl(x, src, size, stride, offset):
    idx = _views.index_map((("as_strided", size, stride, offset),), tuple(x.shape)).reshape(-1)
    flat = x.reshape(-1)
    real = flat.at[idx].set(src.reshape(-1).astype(x.dtype))
    if not jnp.issubdtype(flat.dtype, jnp.inexact):
        return real.reshape(x.shape)
    # torch's backward (as_strided_scatter_backward) gives ``input`` the gradient AT the written
    # positions and ``src`` the gradient gathered there; reproduce it with stop_gradient terms.
    pos = jnp.zeros(flat.shape, flat.dtype).at[idx].set(1)
    xm = flat * pos
    sa = jnp.zeros(flat.shape, flat.dtype).at[idx].add(src.reshape(-1).astype(x.dtype))
    sg = lax.stop_gradient
    return (sg(real) + (xm - sg(xm)) + (sa - sg(sa))).reshape(x.shape)


@register()
def as_strided_scatter(input, src, size, stride, storage_offset=None):
    """A copy of ``input`` with ``src`` written into its ``as_strided(size, stride, offset)`` view.

    >>> import torchlike
    >>> torchlike.as_strided_scatter(torchlike.zeros(4), torchlike.ones(2), (2,), (2,)).tolist()
    [1.0, 0.0, 1.0, 0.0]
    """
    size = tuple(int(s) for s in size)
    stride = tuple(int(s) for s in stride)
    off = 0 if storage_offset is None else int(storage_offset)
    if tuple(src.shape) != size:
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = "
                           f"{list(src.shape)}, slice size = {list(size)}")
    x = input.contiguous() if input._vbase is not None else input
    return dispatch(_ass_impl, (x, src), (("size", size), ("stride", stride), ("offset", off)),
                    name="AsStridedScatterBackward0", saves=False)


# --- complex views ----------------------------------------------------------------------------------
def _v2c_impl(x):
    return lax.complex(x[..., 0], x[..., 1])


def _v2r_impl(x):
    return jnp.stack([jnp.real(x), jnp.imag(x)], axis=-1)


@register(method=False, promote="none")
@_amp.fp32
def view_as_complex(input):
    """A complex tensor from a float tensor whose last dim is (real, imag).

    >>> import torchlike
    >>> torchlike.view_as_complex(torchlike.tensor([[1., 2.]]))
    tensor([1.+2.j])
    """
    if input.dtype not in (_dtype.float32, _dtype.float64, _dtype.float16):
        raise RuntimeError(f"view_as_complex is only supported for float, double and half tensors, but got a "
                           f"tensor of scalar type: {_dtype._CAP[input.dtype.name]}")
    if input.ndim == 0 or input.shape[-1] != 2:
        raise RuntimeError("Tensor must have a last dimension of size 2")
    return dispatch(_v2c_impl, (input,), (), name="ViewAsComplexBackward0", saves=False)


@register(method=False, promote="none")
def view_as_real(input):
    """A float tensor with a trailing (real, imag) dim from a complex tensor.

    >>> import torchlike
    >>> torchlike.view_as_real(torchlike.tensor([1+2j]))
    tensor([[1., 2.]])
    """
    if not input.dtype.is_complex:
        raise RuntimeError("view_as_real is only supported for complex tensors")
    return dispatch(_v2r_impl, (input,), (), name="ViewAsRealBackward0", saves=False)


# --- Tensor-only extras -----------------------------------------------------------------------------
def _chalf(self, memory_format=None):
    """Cast to complex32 (stored as complex64 here)."""
    return self.to(_dtype.complex32)


def _rdiv(self, other):
    if not isinstance(self, Tensor):
        raise TypeError(f"descriptor '__rdiv__' requires a 'Tensor' object but received a '{type(self).__name__}'")
    return div(other, self)


def _float_power_(self, exponent):
    """In-place float_power; ``self`` must already be float64 (complex128 for complex results)."""
    r = _float_power(self, exponent)
    if r.dtype is not self.dtype:
        raise RuntimeError(f"the base given to float_power_ has dtype {_dtype._CAP[self.dtype.name]} but the "
                           f"operation's result requires dtype {_dtype._CAP[r.dtype.name]}")
    return self._inplace_update(r)


Tensor.chalf = _chalf
Tensor.__rdiv__ = _rdiv
Tensor.float_power_ = _float_power_


# --- in-place view ops: the tensor itself takes the new shape ------------------------------------
def _check_leaf(self):
    if grad_mode.is_grad_enabled() and self._grad_fn is None and self._rg:
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")


def _rebind(self, v, keep_storage=False):
    """Make ``self`` take over ``v``, a view of ``self`` (its shape, strides and autograd history).

    A root whose strides must change (t_, transpose_, as_strided_) keeps its old array as a hidden
    storage root and becomes a view of it; squeeze_/unsqueeze_ simply reshape a root's array.  Views
    made of ``self`` before the call keep reading ``self``'s (new) value.
    """
    val = v._value
    self._ver[0] += 1  # torch counts a metadata change as a write
    if self._vbase is None and keep_storage:
        root = Tensor._wrap(self._x, self._dev)
        root._ver = self._ver
        root._grad_fn, root._oi = self._grad_fn, self._oi
        self._vbase = root
    elif self._vbase is None:
        self._x = val
        if v._grad_fn is not None:
            self._grad_fn, self._oi = v._grad_fn, v._oi
        return self
    self._chain = v._chain
    self._x = val
    self._seen = self._ver[0]
    if v._grad_fn is not None:
        self._grad_fn, self._oi = v._grad_fn, v._oi
    return self


def _squeeze_(self, dim=None):
    """In-place squeeze: this tensor's own shape changes."""
    _check_leaf(self)
    return _rebind(self, _v.squeeze(self, dim))


def _unsqueeze_(self, dim):
    """In-place unsqueeze: this tensor's own shape changes."""
    _check_leaf(self)
    return _rebind(self, _v.unsqueeze(self, dim))


def _t_(self):
    """In-place t(): this tensor becomes its transpose."""
    _check_leaf(self)
    return _rebind(self, _v.t(self), True)


def _transpose_(self, dim0, dim1):
    """In-place transpose: this tensor becomes its transpose."""
    _check_leaf(self)
    return _rebind(self, _v.transpose(self, dim0, dim1), True)


def _as_strided_(self, size, stride, storage_offset=None):
    """In-place as_strided: this tensor becomes the strided view of its storage."""
    _check_leaf(self)
    return _rebind(self, _v.as_strided(self, size, stride, storage_offset), True)


Tensor.squeeze_ = _squeeze_
Tensor.unsqueeze_ = _unsqueeze_
Tensor.t_ = _t_
Tensor.transpose_ = _transpose_
Tensor.swapdims_ = _transpose_
Tensor.swapaxes_ = _transpose_
Tensor.as_strided_ = _as_strided_


# --- gradient / cumulative_trapezoid ------------------------------------------------------------------
def _grad_uniform(y, h, dim, edge_order):
    n = y.shape[dim]
    take = lambda a, b: lax.slice_in_dim(y, a, b, axis=dim)  # noqa: E731
    mid = (take(2, n) - take(0, n - 2)) / (2 * h)
    if edge_order == 1:
        first = (take(1, 2) - take(0, 1)) / h
        last = (take(n - 1, n) - take(n - 2, n - 1)) / h
    else:
        first = (-1.5 * take(0, 1) + 2 * take(1, 2) - 0.5 * take(2, 3)) / h
        last = (0.5 * take(n - 3, n - 2) - 2 * take(n - 2, n - 1) + 1.5 * take(n - 1, n)) / h
    return jnp.concatenate([first, mid, last], axis=dim)


def _grad_coords(y, x, dim, edge_order):
    n = y.shape[dim]
    shape = [1] * y.ndim
    shape[dim] = -1
    dx = jnp.diff(x).reshape([1] * dim + [n - 1] + [1] * (y.ndim - dim - 1)) if y.ndim else jnp.diff(x)
    take = lambda a, b: lax.slice_in_dim(y, a, b, axis=dim)  # noqa: E731
    tdx = lambda a, b: lax.slice_in_dim(dx, a, b, axis=dim)  # noqa: E731
    h1, h2 = tdx(0, n - 2), tdx(1, n - 1)
    a = -h2 / (h1 * (h1 + h2))
    b = (h2 - h1) / (h1 * h2)
    c = h1 / (h2 * (h1 + h2))
    mid = a * take(0, n - 2) + b * take(1, n - 1) + c * take(2, n)
    if edge_order == 1:
        first = (take(1, 2) - take(0, 1)) / tdx(0, 1)
        last = (take(n - 1, n) - take(n - 2, n - 1)) / tdx(n - 2, n - 1)
    else:
        d1, d2 = tdx(0, 1), tdx(1, 2)
        first = (-(2 * d1 + d2) / (d1 * (d1 + d2)) * take(0, 1) + (d1 + d2) / (d1 * d2) * take(1, 2)
                 - d1 / (d2 * (d1 + d2)) * take(2, 3))
        d1, d2 = tdx(n - 3, n - 2), tdx(n - 2, n - 1)
        last = (d2 / (d1 * (d1 + d2)) * take(n - 3, n - 2) - (d2 + d1) / (d1 * d2) * take(n - 2, n - 1)
                + (2 * d2 + d1) / (d2 * (d1 + d2)) * take(n - 1, n))
    return jnp.concatenate([first, mid, last], axis=dim)


def _gradient_impl(y, *spacings, dims, kinds, edge_order, dt):
    y = cast(y, dt)
    out = []
    for d, kind, s in zip(dims, kinds, spacings):
        if kind == "coords":
            out.append(_grad_coords(y, cast(s, dt), d, edge_order))
        else:
            out.append(_grad_uniform(y, cast(s, dt), d, edge_order))
    return tuple(out)


@register(method=False, promote="float")
def gradient(input, *, spacing=1, dim=None, edge_order=1):
    """Central-difference estimate of the gradient along each of ``dim`` (torch.gradient).

    ``spacing`` is a scalar, one scalar per dim, or one coordinate tensor per dim.

    >>> import torchlike
    >>> torchlike.gradient(torchlike.tensor([1., 4., 9., 16.]))
    (tensor([3., 4., 6., 7.]),)
    """
    nd = input.ndim
    if dim is None:
        dims = tuple(range(nd))
    elif isinstance(dim, numbers.Integral):
        dims = (wrap_dim(dim, nd),)
    else:
        dims = tuple(wrap_dim(d, nd) for d in dim)
    if len(set(dims)) != len(dims):
        raise RuntimeError(f"dim {dims[0]} appears multiple times in the list of dims")
    if spacing is None:
        spacing = 1
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    if isinstance(spacing, (list, tuple)):
        sp = list(spacing)
        if len(sp) != len(dims):
            raise RuntimeError(f"torch.gradient expected spacing to be unspecified, a scalar or it's spacing and "
                               f"dim arguments to have the same length, but got a spacing argument of length "
                               f"{len(sp)} and a dim argument of length {len(dims)}.")
    else:
        sp = [spacing] * len(dims)
    for d in dims:
        if input.shape[d] < edge_order + 1:
            raise RuntimeError("torch.gradient expected each dimension size to be at least edge_order+1")
    kinds, args = [], []
    dt = float_dtype_for(input.dtype)
    for d, s in zip(dims, sp):
        if isinstance(s, Tensor) and s.ndim == 1:
            if s.shape[0] != input.shape[d]:
                raise RuntimeError(f"torch.gradient expected each tensor to be on the same device and to have "
                                   f"the same size as the corresponding dimension of input, got {s.shape[0]} "
                                   f"and {input.shape[d]}")
            kinds.append("coords")
            dt = _dtype.promote_types(dt, float_dtype_for(s.dtype)) if not s.dtype.is_complex else dt
        else:
            kinds.append("scalar")
            if isinstance(s, Tensor):
                s = s.item()
        args.append(s)
    return dispatch(_gradient_impl, (input, *args), (("dims", dims), ("kinds", tuple(kinds)),
                                                     ("edge_order", int(edge_order)), ("dt", dt.np)),
                    name="GradientBackward0")


def _cumtrapz_impl(y, x, dx, dim, has_x):
    n = y.shape[dim]
    lo, hi = lax.slice_in_dim(y, 0, n - 1, axis=dim), lax.slice_in_dim(y, 1, n, axis=dim)
    if has_x:
        d = jnp.diff(x, axis=dim if x.ndim == y.ndim else -1)
        if x.ndim == 1 and y.ndim > 1:
            shape = [1] * y.ndim
            shape[dim] = d.shape[0]
            d = d.reshape(shape)
        return jnp.cumsum(d * (lo + hi) / 2, axis=dim)
    return jnp.cumsum(dx * (lo + hi) / 2, axis=dim)


@register(method=False, promote="float")
def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    """Cumulative trapezoid rule along ``dim`` (one element shorter than ``y`` there).

    >>> import torchlike
    >>> torchlike.cumulative_trapezoid(torchlike.tensor([1., 2., 3.]))
    tensor([1.5000, 4.0000])
    """
    d = wrap_dim(dim, y.ndim)
    if isinstance(x, (int, float)) and not isinstance(x, bool):
        dx, x = x, None
    if x is not None and dx is not None:
        raise TypeError("cumulative_trapezoid() received an invalid combination of arguments")
    y2 = y if (y.dtype.is_floating_point or y.dtype.is_complex) else y.to(_dtype.get_default_dtype())
    if y.shape[d] == 0:
        return y2.narrow(d, 0, 0) * 1
    return dispatch(_cumtrapz_impl, (y2, x if x is not None else 0.0),
                    (("dx", 1.0 if dx is None else float(dx)), ("dim", d), ("has_x", x is not None)),
                    name="CumulativeTrapezoidBackward0")



# --- histogramdd --------------------------------------------------------------------------------------
def _hdd_impl(x, w, *edges, density, has_w):
    dt = x.dtype
    n, D = x.shape
    flat = jnp.zeros((n,), jnp.int64)
    inside = jnp.ones((n,), bool)
    nbs = []
    for d, e in enumerate(edges):
        nb = e.shape[0] - 1
        col = x[:, d]
        inside = inside & (col >= e[0]) & (col <= e[-1])
        pos = jnp.clip(jnp.searchsorted(e, col, side="right") - 1, 0, nb - 1)  # the last edge is inclusive
        flat = flat * nb + pos
        nbs.append(nb)
    wt = jnp.where(inside, cast(w, dt) if has_w else jnp.ones((n,), dt), 0)
    hist = jnp.zeros((int(np.prod(nbs)),), dt).at[flat].add(wt).reshape(tuple(nbs))
    if density:
        vol = jnp.ones((), dt)
        for d, e in enumerate(edges):
            shp = [1] * D
            shp[d] = -1
            vol = vol * jnp.diff(e).reshape(shp)
        hist = hist / (jnp.sum(hist) * vol)
    return hist


@register(method=False, differentiable=False, promote="none")
def histogramdd(input, bins, *, range=None, weight=None, density=False):
    """Multi-dimensional histogram of the rows of ``input`` (shape ``(..., D)``): (hist, bin_edges).

    ``bins`` is an int, one int per dim, or one edge tensor per dim; ``range`` is
    ``[lo0, hi0, lo1, hi1, ...]`` (default: each column's min and max).

    >>> import torchlike
    >>> torchlike.histogramdd(torchlike.tensor([[0., 1.], [1., 2.]]), bins=2).hist
    tensor([[1., 0.],
            [0., 1.]])
    """
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f'"histogramdd" not implemented for \'{_dtype._CAP[input.dtype.name]}\'')
    if input.ndim < 2:
        raise RuntimeError(f"torch.histogramdd: input tensor should have at least 2 dimensions, but got "
                           f"{input.ndim}")
    D = input.shape[-1]
    x = input.reshape(-1, D)
    w = None if weight is None else weight.reshape(-1)
    if isinstance(bins, numbers.Integral):
        bins = [int(bins)] * D
    bins = list(bins)
    if len(bins) != D:
        raise RuntimeError(f"torch.histogramdd: expected {D} sequences of bin edges for each dimension, but got "
                           f"{len(bins)}")
    edges = []
    data = np.asarray(x.detach()._value) if any(not isinstance(b, Tensor) for b in bins) else None
    for d, b in enumerate(bins):
        if isinstance(b, Tensor):
            edges.append(b)
            continue
        if int(b) <= 0:
            raise RuntimeError(f"torch.histogramdd: expected bin counts to be positive, but got {b} for dimension {d}")
        if range is not None:
            lo, hi = float(range[2 * d]), float(range[2 * d + 1])
            if lo > hi:
                raise RuntimeError(f"torch.histogramdd: expected leftmost_edge to be less than or equal to "
                                   f"rightmost_edge, but got leftmost_edge {lo} > rightmost_edge {hi}")
        elif data.shape[0]:
            lo, hi = float(data[:, d].min()), float(data[:, d].max())
        else:
            lo, hi = 0.0, 0.0
        if lo == hi:  # torch widens a degenerate range by 1/2 on each side
            lo, hi = lo - 0.5, hi + 0.5
        e = _linspace_np(lo, hi, int(b) + 1, input.dtype.np)
        edges.append(Tensor._wrap(jnp.asarray(e), input._dev))
    hist = dispatch(_hdd_impl, (x, w if w is not None else 0.0, *edges),
                    (("density", bool(density)), ("has_w", w is not None)), diff=False)
    return return_types.make("histogramdd", ("hist", "bin_edges"))(hist, tuple(edges))
