"""Shape ops that copy: cat/stack and friends."""
from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from .._errors import called_op, tp_name
from .. import _dtype, _views
from .. import _memory_format as _mfmt
from .._shape_churn import host_impl
from ..tensor import _PLAIN_VALUE, HOST_MAX
from ._util import Tensor, cast, dispatch, register, wrap_dim
from .registry import check_no_overlap, write_out

__all__ = ["cat", "stack"]


def _cat_impl(*xs, dim, dt):
    return jnp.concatenate([cast(x, dt) for x in xs], axis=dim)


def _cat_host(*xs, dim, dt):  # (_shape_churn: a growing KV cache meets a new shape at every step)
    if any(type(x) is not np.ndarray or x.dtype != dt for x in xs):
        return None  # a cast: XLA's rounding and overflow rules, not numpy's
    return np.concatenate(xs, axis=dim)


host_impl(_cat_impl, _cat_host)


def _read_together(ts, axis, merge):
    """stack/cat of views not read yet, all of one root at one version and of one structure (``data[i:i+8]``
    for each ``i``): one program reads them all from the root (a gather), none of them is materialised.
    None when they are not such views."""
    t0 = ts[0]
    b, x0 = t0._vbase, t0._x
    if b is None or type(x0) is not _views.Pending or len(ts) < 2 or Tensor._value is not _PLAIN_VALUE:
        return None
    ver, src = t0._ver, x0.src
    clean = -2 - ver[0]
    for t in ts:
        if t._vbase is not b or t._ver is not ver or t._seen != clean or t._x.src is not src:
            return None
    if ts[0]._x.size * len(ts) <= HOST_MAX:  # small: gathered on the host, a host-resident result
        h = _views.host_together(ts, ("stack", axis, merge))
        if h is not None:
            return Tensor._from_host(h, t0._dev)
    fn = _views.read_together(ts, ("stack", axis, merge))
    return None if fn is None else Tensor._wrap(fn(), t0._dev)


def _check_seq(tensors, name):
    if isinstance(tensors, Tensor) or not isinstance(tensors, (list, tuple)):
        raise TypeError(f"{called_op(name)}(): argument 'tensors' (position 1) must be tuple of Tensors, not "
                        f"{type(tensors).__name__}")  # (called_op: an alias's name, ``concat``)
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got {tp_name(t)}")
    if len(tensors) == 0:
        raise RuntimeError(f"{name} expects a non-empty TensorList") if name == "stack" else \
            ValueError(f"torch.{name}(): expected a non-empty list of Tensors")


@register(method=False, aliases=("concat", "concatenate"))
@_mfmt.cat_follows
def cat(tensors, dim=0, *, out=None):
    """Concatenate along an existing dim (legacy 1-D empty tensors are skipped, as in torch)."""
    _check_seq(tensors, "cat")
    shapes = [t._x.shape for t in tensors]  # (the arrays' own tuples: ``Tensor.shape`` builds a torch.Size)
    if type(dim) is not int and not isinstance(dim, Tensor):
        wrap_dim(dim, 1)  # (a tuple or None: torch's parser error, before the tensors' sizes are read)
    for i, s in enumerate(shapes):
        if not s:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be concatenated")
    if out is not None:
        if not _dtype.can_cast(_dtype.result_type(*[_Dim(t.dtype) for t in tensors]), out.dtype):
            raise TypeError(f"torch.cat(): input types can't be cast to the desired output type "
                            f"{_dtype._CAP[out.dtype.name]}")  # (before the sizes, as torch's meta function)
        r = cat(tensors, dim)
        check_no_overlap(out, tensors, r.shape)
        return write_out(out, r, "cat")
    ts = [t for t, s in zip(tensors, shapes) if s != (0,)] or list(tensors[:1])
    ref = ts[0]._x.shape
    d = wrap_dim(dim, len(ref))
    dt0 = ts[0]._x.dtype
    same = True
    for i, t in enumerate(ts):
        x = t._x
        s = x.shape
        if s != ref:
            if len(s) != len(ref):
                raise RuntimeError(f"Tensors must have same number of dimensions: got {len(ref)} and {len(s)}")
            for k in range(len(ref)):
                if k != d and s[k] != ref[k]:
                    raise RuntimeError(f"Sizes of tensors must match except in dimension {d}. Expected size "
                                       f"{ref[k]} but got size {s[k]} for tensor number {i} in the list.")
        if x.dtype != dt0:
            same = False
    if len(ts) != len(tensors):  # (a skipped legacy empty tensor still takes part in the result type, as torch's)
        same = same and all(t._x.dtype == dt0 for t in tensors)
    dt = ts[0].dtype if same else _dtype.result_type(*[_Dim(t.dtype) for t in tensors])
    if len(ts) == len(tensors):
        r = _read_together(ts, d, True)
        if r is not None:
            return r
    return dispatch(_cat_impl, tuple(ts), (("dim", d), ("dt", dt.np)), name="CatBackward0", saves=False)


class _Dim:
    """A stand-in with ndim 1 so cat promotes like torch (all inputs count as dimensioned)."""
    ndim = 1

    def __init__(self, dtype):
        self.dtype = dtype


def _stack_impl(*xs, dim, dt):
    return jnp.stack([cast(x, dt) for x in xs], axis=dim)


@register(method=False, out=True)
@_mfmt.stack_follows
def stack(tensors, dim=0):
    """Stack tensors of equal shape along a new dim."""
    _check_seq(tensors, "stack")
    x0 = tensors[0]._x
    s0, dt0 = x0.shape, x0.dtype
    d = wrap_dim(dim, len(s0) + 1)
    same = True
    for i, t in enumerate(tensors):
        x = t._x
        if x.shape != s0:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got {list(s0)} at "
                               f"entry 0 and {list(x.shape)} at entry {i}")
        if x.dtype != dt0:
            same = False
    dt = tensors[0].dtype if same else _dtype.result_type(*[_Dim(t.dtype) for t in tensors])
    if same:
        r = _read_together(tensors, d, False)
        if r is not None:
            return r
    return dispatch(_stack_impl, tuple(tensors), (("dim", d), ("dt", dt.np)), name="StackBackward0",
                    saves=False)


def _stack_seq(tensors, name):
    if isinstance(tensors, Tensor) or not isinstance(tensors, (list, tuple)):
        raise TypeError(f"{called_op(name)}(): argument 'tensors' (position 1) must be tuple of Tensors, not "
                        f"{type(tensors).__name__}")  # (called_op: an alias's name, ``concat``)
    if len(tensors) == 0:
        raise RuntimeError(f"{name} expects a non-empty TensorList")
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):  # (torch's parser error, not an attribute error of the element later)
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got {tp_name(t)}")
    return list(tensors)


# ---- views with at least n dims (rearrange.py registers them; hstack/vstack/dstack build on them) ----
def _tensors_arg(tensors):
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        return tuple(tensors[0])
    return tuple(tensors)


def _atleast(n):
    def one(t):
        if not isinstance(t, Tensor):
            raise TypeError(f"atleast_{n}d(): argument 'input' must be Tensor, not {type(t).__name__}")
        if t.ndim >= n:
            return t
        sh = tuple(t.shape)
        if n == 1:
            return t.reshape(1)
        if n == 2:
            return t.reshape((1,) + sh if sh else (1, 1))
        new = {0: (1, 1, 1), 1: (1,) + sh + (1,), 2: sh + (1,)}[t.ndim]
        return t.reshape(new)

    def fn(*tensors):
        if len(tensors) == 1 and isinstance(tensors[0], Tensor):
            return one(tensors[0])
        if len(tensors) == 1 and not isinstance(tensors[0], (list, tuple)):  # (torch's parser: no overload takes it)
            why = f"      didn't match because some of the arguments have invalid types: (!{tp_name(tensors[0])}!)\n"
            raise TypeError(f"atleast_{n}d() received an invalid combination of arguments - got "
                            f"({tp_name(tensors[0])}), but expected one of:\n * (Tensor input)\n{why} * (tuple of "
                            f"Tensors tensors)\n{why}")
        items = _tensors_arg(tensors)
        for k, t in enumerate(items):
            if not isinstance(t, Tensor):
                raise TypeError(f"expected Tensor as element {k} in argument 0, but got {tp_name(t)}")
        return tuple(one(t) for t in items)
    fn.__name__ = f"atleast_{n}d"
    fn.__doc__ = (f"View each input with at least {n} dims (one tensor in, one out; otherwise a tuple).\n\n"
                  f"    >>> import torchlike\n    >>> torchlike.atleast_{n}d(torchlike.tensor(1.)).ndim\n    {n}\n    ")
    return fn


atleast_1d, atleast_2d, atleast_3d = _atleast(1), _atleast(2), _atleast(3)


@register(method=False, out=True)
def hstack(tensors):
    """Concatenate horizontally: along dim 0 for 1-D inputs, else dim 1.

    >>> import torchlike
    >>> torchlike.hstack([torchlike.tensor([1]), torchlike.tensor([2, 3])])
    tensor([1, 2, 3])
    """
    ts = [atleast_1d(t) for t in _stack_seq(tensors, "hstack")]
    return cat(ts, 0 if ts[0].ndim == 1 else 1)


@register(method=False, out=True, aliases=("row_stack",))
def vstack(tensors):
    """Concatenate vertically (inputs viewed as at least 2-D), along dim 0.

    >>> import torchlike
    >>> torchlike.vstack([torchlike.tensor([1, 2]), torchlike.tensor([3, 4])]).shape
    torch.Size([2, 2])
    """
    return cat([atleast_2d(t) for t in _stack_seq(tensors, "vstack")], 0)


@register(method=False, out=True)
def dstack(tensors):
    """Concatenate depthwise (inputs viewed as at least 3-D), along dim 2.

    >>> import torchlike
    >>> torchlike.dstack([torchlike.tensor([1, 2]), torchlike.tensor([3, 4])]).shape
    torch.Size([1, 2, 2])
    """
    return cat([atleast_3d(t) for t in _stack_seq(tensors, "dstack")], 2)


@register(method=False, out=True)
def column_stack(tensors):
    """Stack 0-/1-D inputs as columns (others are concatenated along dim 1).

    >>> import torchlike
    >>> torchlike.column_stack([torchlike.tensor([1, 2]), torchlike.tensor([3, 4])]).tolist()
    [[1, 3], [2, 4]]
    """
    ts = _stack_seq(tensors, "column_stack")
    return cat([t.reshape(t.numel(), 1) if t.ndim <= 1 else t for t in ts], 1)
