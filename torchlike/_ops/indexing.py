"""``Tensor.__getitem__`` / ``__setitem__`` and iteration: index expressions (index_put: index_put.py; reading by an
index tensor: take.py; masked ops: masking.py; nonzero and where: nonzero_where.py).

Indexing follows torch, which differs from numpy in one way: integers are applied as ``select``
*before* advanced indexing, so they never count as advanced indices for numpy's "separated
advanced indices move to the front" rule.  An index expression is therefore split into

* a basic part (ints, slices, None; Ellipsis expanded), applied as a view step ``("index", idx)``;
* an advanced part: integer index arrays for some dims of the basic result (bool masks become their
  ``nonzero`` arrays, computed eagerly with numpy), applied by a jitted gather that takes the arrays
  as dynamic arguments, so new index values never recompile.
"""
from __future__ import annotations

from .._errors import GraphBreak, is_tracer as _is_tracer, torch_warn

import functools
import numbers
import weakref

import jax
import jax.numpy as jnp
import numpy as np

from .. import _dtype, _profiler_state as _prof, _views
from .. import _torch_function
from .._creation import tensor as _tensor
from .._mutation import check_operands, warn_if_expanded
from .._scalar_fit import check_scalar_fits
from ._util import Tensor, cast, dispatch, register
from .host_scalars import set_number, set_scalar_tensor
from .masked_put import masked_put, traced_mask
from .views import view_step
from .._tape import FORWARD_AD

__all__ = ["getitem", "setitem", "concrete_index", "check_index_dtype", "c_type_name"]

_FULL = ("s", None, None, None)


def c_type_name(dt):
    """The C++ type name torch prints for a dtype in some messages ("long int", "float")."""
    return _dtype.C_NAMES.get(dt.name, dt.name)


def _check_fill_value(value, dt):
    """c10's checked scalar conversion (``_scalar_fit.check_scalar_fits``) of a fill value; a tensor's value is
    read unless it is being traced."""
    if isinstance(value, Tensor):
        if _is_tracer(value._value):
            return
        value = value.item()
    check_scalar_fits(value, dt)


def concrete_index(t):
    """The values of index tensor ``t`` as a numpy array, or None while tracing (no eager checks).  A
    host-resident ``t`` (``Tensor._from_host``) is read where it is: not moved to the device and back."""
    if isinstance(t, Tensor):
        h = t._host_array()
        if h is not None:
            return h
        x = t._value
    else:
        x = t
    if _is_tracer(x):
        return None
    return np.asarray(x)


def check_index_dtype(index, name, allow32=True):
    d = index.dtype
    if d is _dtype.int64 or (allow32 and d is _dtype.int32):
        return
    raise RuntimeError(f"{name}(): Expected dtype int32/int64 for index" if allow32 else
                       f"{name}(): Expected dtype int64 for index")


# --- parsing an index expression ---------------------------------------------------------------
def _as_tuple(index):
    """torch's treatSequenceAsTuple: a short list holding slices/None/sequences/tensors is a tuple."""
    if isinstance(index, tuple):
        return index
    # a str is a sequence to torch too: x["key"] is a tuple of one-character strings
    if isinstance(index, (list, str)) and len(index) < 32:
        for e in index:
            if e is None or e is Ellipsis or isinstance(e, (slice, Tensor, list, tuple, np.ndarray, str)):
                torch_warn("Using a non-tuple sequence for multidimensional indexing is deprecated and will be "
                           "changed in pytorch 2.9; use x[tuple(seq)] instead of x[seq]. In pytorch 2.9 this will be "
                           "interpreted as tensor index, x[torch.tensor(seq)], which will result either in an error "
                           "or a different result", "torch/csrc/autograd/python_variable_indexing.cpp:349")
                return tuple(index)
    return (index,)


def _slice_part(v):
    if v is None:
        return None
    if isinstance(v, Tensor):
        return v.__index__()
    if isinstance(v, (numbers.Integral, np.integer)):
        return int(v)
    if hasattr(v, "__index__"):
        return v.__index__()
    raise TypeError("slice indices must be integers or None or have an __index__ method")


def _classify(e, warn_uint8=True):
    """(kind, value) for one index entry: int, slice, none, ellipsis, bool, mask, array."""
    if e is None:
        return "none", None
    if e is Ellipsis:
        return "ellipsis", None
    if isinstance(e, (bool, np.bool_)):
        return "bool", bool(e)
    if isinstance(e, (numbers.Integral, np.integer)):
        return "int", int(e)
    if isinstance(e, slice):
        return "slice", e
    if isinstance(e, Tensor):
        d = e.dtype
        if d is _dtype.bool or d is _dtype.uint8:
            if d is _dtype.uint8 and warn_uint8:
                torch_warn("indexing with dtype torch.uint8 is now deprecated, please use a dtype torch.bool "
                           "instead.", "aten/src/ATen/native/IndexingUtils.h:37")
            if e.ndim == 0:
                v = concrete_index(e)
                if v is None:
                    raise GraphBreak("indexing with a 0-dim bool tensor needs a concrete value")
                return "bool", bool(v)
            return "mask", e
        if d.is_floating_point or d.is_complex or d not in (_dtype.int64, _dtype.int32):
            if e.ndim == 0 and not (d.is_floating_point or d.is_complex):
                return "array", e.to(_dtype.int64)  # torch: an advanced index of shape (), not a select
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
        if e.ndim == 0:
            return "int", e.__index__()
        return "array", e
    if isinstance(e, range):
        e = list(e)
    if isinstance(e, (list, tuple, np.ndarray)):
        try:
            arr = np.asarray(e)
        except Exception:
            raise TypeError("new(): invalid data type") from None
        if arr.dtype.kind in "US":
            raise TypeError("new(): invalid data type 'str'")
        if arr.dtype.kind == "f" and (arr.size or not isinstance(e, np.ndarray)):
            arr = arr.astype(np.int64)  # torch reads a sequence's floats as int64, truncating
        elif arr.dtype.kind == "c":
            raise TypeError("'complex' object cannot be interpreted as an integer")
        if arr.dtype.kind == "b" or (arr.dtype == np.uint8 and isinstance(e, np.ndarray)):
            return ("bool", bool(arr)) if arr.ndim == 0 else ("mask", arr.astype(bool))
        if arr.dtype.kind not in "iu":
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
        return ("int", int(arr)) if arr.ndim == 0 else ("array", arr.astype(np.int64))
    if isinstance(e, str):
        return "str", e  # torch counts the index first, then refuses it (parse_index)
    name = {float: "float", complex: "complex"}.get(type(e), type(e).__name__)
    if isinstance(e, np.generic):
        name = "numpy." + name  # the C type's tp_name
    raise IndexError("only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid "
                     f"indices (got {name})")


def _norm_slice(s, n):
    if s.step is not None and _slice_part(s.step) == 0:
        raise ValueError("slice step cannot be zero")
    step = _slice_part(s.step)
    if step is not None and step < 0:
        raise ValueError("step must be greater than zero")
    start, stop, step = slice(_slice_part(s.start), _slice_part(s.stop), step).indices(n)
    return ("s", start, max(stop, start), step)


def _basic_node(basic):
    """torch's node for a basic index: that of its last non-trivial part (select, slice, unsqueeze)."""
    for b in reversed(basic):
        if b is None:
            return "UnsqueezeBackward0"
        if b != _FULL:
            return "SliceBackward0" if isinstance(b, tuple) else "SelectBackward0"
    return "AliasBackward0"


def parse_index(shape, index, warn_uint8=True):
    """Split ``index`` over a tensor of ``shape`` into (basic, adv, res_shape); ``warn_uint8=False`` where torch
    gives no uint8 deprecation warning (a write it hands to masked_fill_, which refuses the mask).

    basic: tuple for the ("index", basic) view step, or None when it is the identity;
    adv: list of (dim of the basic result, index array (Tensor, numpy or traced jax array));
    res_shape: shape of the basic result.
    """
    entries = [_classify(e, warn_uint8) for e in _as_tuple(index)]
    ndim = len(shape)
    consumed = 0
    n_ell = 0
    for k, v in entries:
        if k in ("int", "slice", "array", "str"):
            consumed += 1
        elif k == "mask":
            consumed += v.ndim
        elif k == "ellipsis":
            n_ell += 1
    if ndim == 0 and len(entries) == 1:
        if entries[0][0] == "int":
            raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` "
                             "in C++ to convert a 0-dim tensor to a number")
        if entries[0][0] == "slice":
            raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    if consumed > ndim:
        raise IndexError(f"too many indices for tensor of dimension {ndim}")
    if any(k == "str" for k, _ in entries):
        raise TypeError("new(): invalid data type 'str'")
    basic, adv, res_shape = [], [], []
    src = 0
    trivial = True
    for pos, (k, v) in enumerate(entries):
        if k == "int":
            n = shape[src] if src < ndim else 0
            if not -n <= v < n:
                raise IndexError(f"index {v} is out of bounds for dimension {pos} with size {n}")
            basic.append(v % n)
            src += 1
            trivial = False
        elif k == "slice":
            n = shape[src]
            s = _norm_slice(v, n)
            res_shape.append(len(range(*s[1:])))
            if s == ("s", 0, n, 1):
                s = _FULL
            else:
                trivial = False
            basic.append(s)
            src += 1
        elif k == "none":
            basic.append(None)
            res_shape.append(1)
            trivial = False
        elif k == "ellipsis":
            # torch: every ellipsis skips (ndim - consumed) dims, as far as there are dims left
            for _ in range(min(ndim - consumed, ndim - src)):
                basic.append(_FULL)
                res_shape.append(shape[src])
                src += 1
        elif k == "bool":
            basic.append(None)
            adv.append((len(res_shape), np.arange(1 if v else 0, dtype=np.int64)))
            res_shape.append(1)
            trivial = False
        elif k == "mask":
            m = concrete_index(v)
            if m is None:
                raise GraphBreak("boolean mask indexing needs concrete values (it has a data-dependent shape)")
            base = len(res_shape)
            for j in range(m.ndim):
                basic.append(_FULL)
                res_shape.append(shape[src + j])
            for j in range(m.ndim):
                if m.shape[j] != shape[src + j]:
                    full = res_shape + list(shape[src + m.ndim:])
                    raise IndexError(f"The shape of the mask {list(m.shape)} at index {j} does not match the shape "
                                     f"of the indexed tensor {full} at index {base + j}")
            for j, nz in enumerate(np.nonzero(m)):
                adv.append((base + j, nz.astype(np.int64)))
            src += m.ndim
        else:  # array
            basic.append(_FULL)
            adv.append((len(res_shape), v))
            res_shape.append(shape[src])
            src += 1
    for n in shape[src:]:
        basic.append(_FULL)
        res_shape.append(n)
    basic = None if trivial else tuple(basic)
    return basic, adv, tuple(res_shape)


def prepare_adv(adv, res_shape):
    """Bounds-check, wrap negatives and broadcast-check advanced index arrays.

    Returns (positions, arrays, broadcast shape of the index arrays)."""
    pos, arrays, shapes = [], [], []
    bounds_errors = False
    for k, (d, a) in enumerate(adv):
        n = res_shape[d]
        v = concrete_index(a)
        if v is None:  # traced: no eager checks possible; wrap negatives inside the trace
            v = a._value if isinstance(a, Tensor) else a
            v = jnp.where(v < 0, v + n, v).astype(jnp.int64)
        else:
            v = v.astype(np.int64, copy=False)
            if v.size <= 256:  # (Python's min/max of a short list beat numpy's reductions' call overhead)
                flat = v.ravel().tolist()
                lo, hi = (min(flat), max(flat)) if flat else (0, -1)  # no index: none out of bounds, even of size 0
            else:
                lo, hi = int(v.min()), int(v.max())
            if lo < -n or hi >= n:
                if len(adv) == 1:
                    _raise_out_of_bounds([(v, n)])
                bounds_errors = True
            if lo < 0 and not bounds_errors:
                v = np.where(v < 0, v + n, v)
        pos.append(d)
        arrays.append(v)
        shapes.append(tuple(v.shape))
    if len(shapes) == 1:
        return tuple(pos), arrays, shapes[0]
    try:
        bshape = np.broadcast_shapes(*shapes)
    except ValueError:
        raise IndexError("shape mismatch: indexing tensors could not be broadcast together with shapes "
                         + ", ".join(str(list(s)) for s in shapes)) from None
    if bounds_errors:
        _raise_out_of_bounds([(np.broadcast_to(v, bshape), res_shape[d]) for d, v in zip(pos, arrays)])
    return tuple(pos), arrays, tuple(bshape)


def _raise_out_of_bounds(checks):
    """torch's index kernel walks the broadcast index element by element, each element's indices in order:
    the first out-of-bounds one met (``checks``: (index array, size) per indexed dimension, broadcast)."""
    bad = np.stack([(v < -n) | (v >= n) for v, n in checks]).reshape(len(checks), -1)
    first = int(np.argmax(bad.any(axis=0)))
    k = int(np.argmax(bad[:, first]))
    v, n = checks[k]
    if n == 0:  # torch's message names neither index nor dimension then
        raise IndexError("index is out of bounds for dimension with size 0")
    raise IndexError(f"index {int(v.reshape(-1)[first])} is out of bounds for dimension {k} with size {n}")


def indexed_shape(shape, pos, bshape):
    """Shape of ``x[key]`` with index arrays at dims ``pos`` (sorted) broadcasting to ``bshape``."""
    rest = [n for i, n in enumerate(shape) if i not in pos]
    if list(pos) == list(range(pos[0], pos[0] + len(pos))):
        return tuple(shape[:pos[0]]) + bshape + tuple(shape[pos[-1] + 1:])
    return bshape + tuple(rest)


def _key(ndim, pos, idx):
    key = [slice(None)] * ndim
    for p, i in zip(pos, idx):
        key[p] = i
    return tuple(key)


def _adv_get_impl(x, *idx, pos):
    return x.at[_key(x.ndim, pos, idx)].get(mode="promise_in_bounds")


@functools.partial(jax.custom_vjp, nondiff_argnums=(3,))
def set_all(x, v, arrays, pos):
    """``x.at[key].set(v)`` (``v`` already of the indexed shape) with torch's gradient: every
    writer of a repeated index receives the gradient of that position, not just the one that won."""
    return x.at[_key(x.ndim, pos, arrays)].set(v, mode="promise_in_bounds")


def _set_all_fwd(x, v, arrays, pos):
    return set_all(x, v, arrays, pos), arrays


def _set_all_bwd(pos, arrays, g):
    key = _key(g.ndim, pos, arrays)
    return (g.at[key].set(jnp.zeros((), g.dtype), mode="promise_in_bounds"),
            g.at[key].get(mode="promise_in_bounds"), tuple(None for _ in arrays))


set_all.defvjp(_set_all_fwd, _set_all_bwd)


def _adv_put_impl(x, v, *idx, pos, accumulate):
    key = _key(x.ndim, pos, idx)
    ref = x.at[key]
    v = cast(v, x.dtype)
    if accumulate:
        if x.dtype == jnp.bool_:
            return ref.max(v, mode="promise_in_bounds")
        return ref.add(v, mode="promise_in_bounds")
    shape = jax.eval_shape(lambda a: a[key], x).shape
    return set_all(x, jnp.broadcast_to(v, shape), tuple(idx), pos)


def _int_part(v):
    if v is None or type(v) is int:
        return v
    if type(v) is Tensor and v.ndim == 0:
        return v.__index__()
    return _slice_part(v)


def _dim0_view(self, step, spec, start, name, shape):
    return _basic_view(self, step, spec, (start,), name, shape)


def _basic_view(self, step, spec, starts, name, shape):
    """The view ``self[step]`` (a normalised basic index, its ``_views.index_spec`` and start positions) of
    ``shape``: lazy where it can be, else read by the start-position program (what ``view_step`` does)."""
    if _prof.SUBCLASSES and type(self) in _prof.SUBCLASSES:  # a __torch_dispatch__ subclass: torch's view calls
        return view_step(self, ("index", step), name=name)
    lazy = self._lazy_view(("index", step), shape, (spec, starts))  # read on first use (or by stack/cat)
    if lazy is not None:
        return lazy
    out = dispatch(_views.dynamic_index, (self, np.array(starts, np.int64)), (("spec", spec),), name=name,
                   saves=False)
    return self._make_view(out, ("index", step))


def _fast_tuple(self, index):
    """``self[index]`` for a tuple of ints, slices of ints (positive steps), None and one Ellipsis (``x[:, -1, :]``,
    ``x[..., None]``): ``parse_index``'s basic index, its node name and result shape built in one pass; None to
    fall back to the general parser (anything else, and every error: that parser raises torch's)."""
    shape = self._x.shape
    nd = len(shape)
    consumed = 0
    for e in index:
        if type(e) is int or type(e) is slice:
            consumed += 1
    if consumed > nd:
        return None
    basic, spec, starts, out = [], [], [], []
    name = "AliasBackward0"
    d = 0
    ell = False
    for e in index:
        t = type(e)
        if t is int:
            n = shape[d]
            if not -n <= e < n:
                return None
            e %= n
            basic.append(e)
            spec.append("i")
            starts.append(e)
            name = "SelectBackward0"
            d += 1
        elif t is slice:
            a, b, st = e.start, e.stop, e.step
            if a is not None and type(a) is not int or b is not None and type(b) is not int or \
                    st is not None and (type(st) is not int or st <= 0):
                return None
            n = shape[d]
            a, b, st = e.indices(n)
            if b < a:
                b = a
            if a == 0 and b == n and st == 1:
                basic.append(_FULL)
                spec.append("f")
                out.append(n)
            else:
                size = (b - a + st - 1) // st
                basic.append(("s", a, b, st))
                spec.append((size, st))
                starts.append(a)
                out.append(size)
                name = "SliceBackward0"
            d += 1
        elif e is None:
            basic.append(None)
            spec.append("n")
            out.append(1)
            name = "UnsqueezeBackward0"
        elif e is Ellipsis and not ell:
            ell = True
            for _ in range(nd - consumed):
                basic.append(_FULL)
                spec.append("f")
                out.append(shape[d])
                d += 1
        else:
            return None
    for n in shape[d:]:
        basic.append(_FULL)
        spec.append("f")
        out.append(n)
    return _basic_view(self, tuple(basic), tuple(spec), tuple(starts), name, tuple(out))


def _fast_basic(self, index, is_int):
    """``self[i]`` / ``self[a:b:c]`` on dim 0 (the common cases), without the general parser; None to
    fall back to it."""
    shape = self._x.shape
    nd = len(shape)
    if not nd:
        return None
    n = shape[0]
    rest = (_FULL,) * (nd - 1)
    if is_int:
        if not -n <= index < n:
            raise IndexError(f"index {index} is out of bounds for dimension 0 with size {n}")
        index %= n
        return _dim0_view(self, (index,) + rest, ("i",) + ("f",) * (nd - 1), index, "SelectBackward0", shape[1:])
    st = index.step
    if st is not None and (type(st) is not int or st <= 0):
        return None
    start, stop, step = slice(_int_part(index.start), _int_part(index.stop), st).indices(n)
    if stop < start:
        stop = start
    if start == 0 and stop == n and step == 1:
        return None
    size = (stop - start + step - 1) // step
    return _dim0_view(self, (("s", start, stop, step),) + rest, ((size, step),) + ("f",) * (nd - 1), start,
                      "SliceBackward0", (size,) + shape[1:])


@register("__getitem__", namespaces=(), promote="none")
def getitem(self, index):
    """``self[index]`` with torch semantics: basic indexing is a view, advanced indexing a copy.

    >>> import torchlike
    >>> a = torchlike.arange(6).reshape(2, 3)
    >>> a[1, ::2]
    tensor([3, 5])
    >>> a[a > 2]
    tensor([3, 4, 5])
    """
    tp = type(index)
    if (tp is slice or tp is int) and FORWARD_AD[0] is None:  # (with a dual level: view_step, which sees duals)
        t = _fast_basic(self, index, tp is int)
        if t is not None:
            return t
    elif (tp is tuple or index is None or index is Ellipsis) and FORWARD_AD[0] is None:
        t = _fast_tuple(self, index if tp is tuple else (index,))
        if t is not None:
            return t
    elif tp is Tensor and index._x.ndim and self._x.ndim:  # ``x[idx]`` by one int64/int32 index tensor:
        d = index.dtype  # parse_index's result without its parsing (one advanced index on dim 0, no basic part)
        if d is _dtype.int64 or d is _dtype.int32:
            pos, arrays, _ = prepare_adv(((0, index),), tuple(self.shape))
            return dispatch(_adv_get_impl, (self, *arrays), (("pos", pos),), name="IndexBackward0", saves=False)
    basic, adv, res_shape = parse_index(tuple(self.shape), index)
    if basic is None and not adv:
        basic = (_FULL,) * self.ndim
    t = view_step(self, ("index", basic), name=_basic_node(basic)) if basic is not None else self
    if not adv:
        return t
    pos, arrays, _ = prepare_adv(adv, res_shape)
    return dispatch(_adv_get_impl, (t, *arrays), (("pos", pos),), name="IndexBackward0", saves=False)


def _strip_leading_ones(v, ndim):
    while v.ndim > ndim and v.shape[0] == 1:
        v = v.reshape(tuple(v.shape[1:]))
    return v


def _value_tensor(value, self):
    if isinstance(value, Tensor):
        return value
    if not isinstance(value, (bool, int, float, complex, np.integer)):
        tp = type(value)
        name = tp.__name__ if tp.__module__ == "builtins" else f"{tp.__module__}.{tp.__name__}"
        raise TypeError(f"can't assign a {name} to a {self.type()}")
    check_scalar_fits(int(value) if isinstance(value, np.integer) else value, self.dtype)
    return _tensor(value, dtype=self.dtype)


@register("__setitem__", namespaces=(), promote="none")
def setitem(self, index, value):
    """``self[index] = value``: basic index -> write through the view; advanced -> index_put."""
    if type(index) is int and FORWARD_AD[0] is None:
        tv = type(value)
        if (tv is float or tv is int) and set_number(self, index, value) or \
                tv is Tensor and set_scalar_tensor(self, index, value):
            return
    one = isinstance(value, (bool, int, float, complex, np.integer)) or isinstance(value, Tensor) and value.numel() == 1
    lone = _lone_mask(index) if one else None
    if traced_mask(lone if one else _lone_mask(index)) and _set_through_traced_mask(self, index, value):
        return
    basic, adv, res_shape = parse_index(tuple(self.shape), index, lone is None or lone.dtype is not _dtype.uint8)
    target = view_step(self, ("index", basic), name=_basic_node(basic)) if basic is not None else self  # (torch's
    # select/slice view, which its errors for a write through it name)
    v = _value_tensor(value, self)
    if v._dev != self._dev:
        v = v.to(self._dev)
    if not adv:
        v = _strip_leading_ones(v, target.ndim)
        if tuple(v.shape) != tuple(target.shape):
            _check_expand(tuple(v.shape), tuple(target.shape))
            v = v.expand(tuple(target.shape))
        target.copy_(v)
        return
    mask = _lone_mask(index) if v.numel() == 1 else None
    if mask is not None and mask.dtype is _dtype.uint8:
        raise RuntimeError("masked_fill_ only supports boolean masks, but got mask with dtype unsigned char")
    warn_if_expanded(target, "index_put_")  # (torch's index_put_, which writes an expanded target anyway)
    if mask is not None:
        warn_if_expanded(target, "masked_fill_")
    else:
        check_operands(target, (v,), "any")
    pos, arrays, bshape = prepare_adv(adv, res_shape)
    if v.dtype is not self.dtype:
        # torch casts Python scalars, and one-element values written through a lone mask (index_put_'s
        # masked_fill path); any other tensor value must already have self's dtype
        if isinstance(value, Tensor) and mask is None:
            _check_put_shape(target, pos, bshape, v)
            raise RuntimeError(f"Index put requires the source and destination dtypes match, got "
                               f"{_dtype._CAP[self.dtype.name]} for the destination and "
                               f"{_dtype._CAP[v.dtype.name]} for the source.")
        v = v.to(self.dtype)
    if _prof.MODES and mask is None:   # a dispatch mode sees torch's index_put_ call
        indices = [None] * (max(pos) + 1)
        for p, a in zip(pos, arrays):
            indices[p] = Tensor._wrap_where(a)

        def put_(t, _indices, vv):
            if _prof.MODES:   # the next mode down sees it too
                return _prof.MODE_INPLACE[0](put_, "index_put_", t, (_indices, vv), {})
            t._inplace_update(_index_put_checked(t, pos, arrays, bshape, vv, False), True)
            return t
        put_(target, indices, v)
        return
    new = _index_put_checked(target, pos, arrays, bshape, v, False)
    target._inplace_update(new, True)


def _set_through_traced_mask(self, index, value):
    """``self[index] = value`` with one traced bool mask beside ints, slices, None and Ellipsis, as one
    ``where`` on the basic-indexed view (masked_put.py); False where that cannot be done without the mask's
    values (the caller then breaks the graph)."""
    idx = index if isinstance(index, tuple) else (index,)
    mask = _lone_mask(index)
    consumed = mask.ndim + sum(1 for e in idx if type(e) is int or isinstance(e, slice))
    plain, base, dims = [], None, 0
    for e in idx:
        if e is mask:
            base = dims
            plain.extend([slice(None)] * mask.ndim)
            dims += mask.ndim
        elif e is None or isinstance(e, slice):
            plain.append(e)
            dims += 1
        elif e is Ellipsis:
            plain.append(e)
            dims += max(self.ndim - consumed, 0)
        elif type(e) is int:
            plain.append(e)
        else:  # (a 0-dim integer tensor: an advanced index)
            return False
    basic, _, _ = parse_index(tuple(self.shape), tuple(plain))
    target = view_step(self, ("index", basic)) if basic is not None else self
    v = _value_tensor(value, self)
    if v._dev != self._dev:
        v = v.to(self._dev)
    new = masked_put(target, mask, base, v)
    if new is None:
        return False
    warn_if_expanded(target, "index_put_")
    target._inplace_update(new, True)
    return True


def _lone_mask(index):
    """The mask when ``index``'s only tensor index is one bool/uint8 mask of at least one dimension (beside
    ints, slices, None and Ellipsis): torch's index_put_ then writes a one-element value with masked_fill_."""
    mask = None
    for e in index if isinstance(index, tuple) else (index,):
        if isinstance(e, Tensor):
            if e.ndim == 0 and e.dtype is not _dtype.bool and e.dtype is not _dtype.uint8:
                continue  # an integer select
            if mask is not None or e.ndim == 0 or (e.dtype is not _dtype.bool and e.dtype is not _dtype.uint8):
                return None
            mask = e
        elif isinstance(e, (list, np.ndarray)) or (e is True or e is False):
            return None
    return mask


def _check_expand(src, dst):
    """torch's expand check (from the last dim backwards) with its message."""
    if len(src) > len(dst):
        raise RuntimeError(f"expand(torch.FloatTensor{{{list(src)}}}, size={list(dst)}): the number of sizes "
                           f"provided ({len(dst)}) must be greater or equal to the number of dimensions in the "
                           f"tensor ({len(src)})")
    for i in range(1, len(src) + 1):
        if src[-i] != dst[-i] and src[-i] != 1:
            raise RuntimeError(f"The expanded size of the tensor ({dst[-i]}) must match the existing size "
                               f"({src[-i]}) at non-singleton dimension {len(dst) - i}.  Target sizes: "
                               f"{list(dst)}.  Tensor sizes: {list(src)}")


def _check_put_shape(x, pos, bshape, values):
    out_shape = indexed_shape(tuple(x.shape), pos, bshape)
    values = _strip_leading_ones(values, len(out_shape))
    try:
        if np.broadcast_shapes(tuple(values.shape), out_shape) != out_shape:
            raise ValueError
    except ValueError:
        raise RuntimeError(f"shape mismatch: value tensor of shape {list(values.shape)} cannot be broadcast to "
                           f"indexing result of shape {list(out_shape)}") from None
    return values


def _index_put_checked(x, pos, arrays, bshape, values, accumulate):
    values = _check_put_shape(x, pos, bshape, values)
    return dispatch(_adv_put_impl, (x, values, *arrays), (("pos", pos), ("accumulate", bool(accumulate))),
                    name="IndexPutBackward0", saves=False)


def _unbind_impl(x):
    return tuple(x[i] for i in range(x.shape[0]))


_UNBIND_ONE_PROGRAM = 64  # up to this many rows, iterating computes all rows in one program


@register("__reversed__", namespaces=(), promote="none")
def tensor_reversed(self):
    """``reversed(tensor)``: as torch, a tensor flipped along dim 0 (not an iterator); a 0-d tensor itself."""
    return self if self.dim() == 0 else self.flip(0)


@register("__iter__", namespaces=(), promote="none")
def tensor_iter(self):
    """``iter(tensor)``: the rows (views), as torch's ``unbind(0)``; short tensors in one program."""
    if type(self) is not Tensor and _torch_function.enabled() or _torch_function.mode_active():
        if self.dim() == 0:  # (a subclass or a TorchFunctionMode sees torch's calls: dim, unbind)
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))
    shape = self._x.shape
    if not shape:
        raise TypeError("iteration over a 0-d tensor")
    n = shape[0]
    rest = (_FULL,) * (len(shape) - 1)
    if n:  # rows read on first use (ints through one host copy: ``for i in ix: data[i:i + 8]``)
        spec = ("i",) + ("f",) * (len(shape) - 1)
        lazy = self._lazy_view(("index", (0,) + rest), shape[1:], (spec, (0,)))
        if lazy is not None:
            rows = [lazy] + [self._lazy_view(("index", (i,) + rest), shape[1:], (spec, (i,))) for i in range(1, n)]
            if 1 < n <= _UNBIND_ONE_PROGRAM:  # the first row read reads them all
                group = [weakref.ref(t) for t in rows]
                for t in rows:
                    t._x.group = group
            return iter(rows)
    x = self._value
    if n > _UNBIND_ONE_PROGRAM or _is_tracer(x):
        spec = ("i",) + ("f",) * (x.ndim - 1)
        return iter([_dim0_view(self, (i,) + rest, spec, i, "UnbindBackward0", shape[1:]) for i in range(n)])
    outs = dispatch(_unbind_impl, (self,), (), name="UnbindBackward0", saves=False)
    return iter([self._make_view(o, ("index", (i,) + rest)) for i, o in enumerate(outs)])

