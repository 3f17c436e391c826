"""torch.memory_format values and torch's stride rules for them.

The data of a tensor is always a logical (row-major) ``jax.Array``; its *layout* is metadata.  A root tensor
whose storage torch would lay out in another order (channels-last, or the permuted order an op's output takes
from its input) holds torch's strides in ``_st`` (None, the class default, means row-major); views measure
their strides over that layout (``_views.strides_of``).  So ``stride()``, ``is_contiguous(memory_format=)``,
``view`` legality, ``storage_offset`` and saved files follow torch, while XLA still picks physical layouts.

The rules reproduced: ``empty_like``/``clone`` with preserve_format (the exact strides of a dense tensor, else
``infer_dense_strides``), TensorIterator's output layout (its fast set-ups, then ``reorder_dimensions``),
``suggest_memory_format`` (what convolution, batch norm, pooling and interpolation follow).

>>> import torchlike as torch
>>> x = torch.randn(2, 3, 4, 5).to(memory_format=torch.channels_last)
>>> x.stride(), x.is_contiguous(), x.permute(0, 2, 3, 1).is_contiguous()
((60, 1, 15, 3), False, True)
"""
from __future__ import annotations

import functools

from . import _views
from ._errors import pass_through_file

__all__ = ["memory_format", "contiguous_format", "channels_last", "channels_last_3d", "preserve_format",
           "strides_match", "format_strides", "check_rank", "mark", "is_contiguous", "set_strides",
           "preserve_strides", "dense_strides_like", "numpy_strides", "non_overlapping_and_dense", "iter_strides", "pointwise", "suggest",
           "follow_input", "needs_layout", "storage_perm"]


class memory_format:
    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return "torch." + self.name

    def __reduce__(self):
        return (_by_name, (self.name,))


def _by_name(name):
    return globals()[name]


contiguous_format = memory_format("contiguous_format")
channels_last = memory_format("channels_last")
channels_last_3d = memory_format("channels_last_3d")
preserve_format = memory_format("preserve_format")

# the dims from the fastest-varying one out, per format (torch's channels-last contiguity checks)
_ORDER = {"channels_last": (1, 3, 2, 0), "channels_last_3d": (1, 4, 3, 2, 0)}


def _row_major(shape):
    strides, acc = [0] * len(shape), 1
    for d in range(len(shape) - 1, -1, -1):
        strides[d] = acc
        acc *= max(shape[d], 1)
    return tuple(strides)


def format_strides(shape, fmt):
    """The strides torch gives a dense tensor of ``shape`` in ``fmt`` (row-major for contiguous_format; the
    channels-last ones multiply sizes as they are, so a 0-size dim zeroes the strides outside it, as torch's)."""
    order = _ORDER.get(fmt.name)
    if order is None:
        return _row_major(shape)
    strides, acc = [0] * len(shape), 1
    for d in order:
        strides[d] = acc
        acc *= shape[d]
    return tuple(strides)


def strides_match(shape, strides, fmt):
    """torch's is_contiguous(memory_format=fmt) of a tensor with these strides: the format's dim order, size-1
    dims ignored (a 4-D / 5-D rank for the channels-last formats)."""
    order = _ORDER.get(fmt.name)
    if order is None:
        if 0 in shape:  # (torch: an empty tensor is contiguous; the channels-last checks have no such case)
            return True
        order = range(len(shape) - 1, -1, -1)
    elif len(shape) != len(order):
        return False
    expected = 1
    for d in order:
        n = shape[d]
        if n != 1:
            if strides[d] != expected:
                return False
            expected *= n
    return True


def is_contiguous(t, fmt=None):
    """``Tensor.is_contiguous(memory_format=fmt)`` as torch answers it from ``t``'s strides."""
    if fmt is None or fmt is preserve_format:
        fmt = contiguous_format
    return strides_match(tuple(t.shape), t.stride(), fmt)


def set_strides(t, strides):
    """Give ``t`` (a fresh result: a root, or a host tensor, which becomes one) torch's ``strides`` (row-major
    ones are the default)."""
    if strides is None or tuple(strides) == _row_major(tuple(t._x.shape)):
        t.__dict__.pop("_st", None)
        return t
    if t._vbase is not None:
        if t._chain is not _views.HOST_CHAIN:
            return t
        t._settle()
    t._st = tuple(strides)
    SEEN[0] = True
    return t


def check_rank(ndim, fmt):
    """torch's error for a channels-last format of the wrong rank."""
    need = len(_ORDER.get(fmt.name, ()))
    if need and ndim != need:
        raise RuntimeError(f"required rank {need} tensor to use {fmt.name} format")


def non_overlapping_and_dense(shape, strides):
    """torch's ``is_non_overlapping_and_dense``."""
    if 0 in shape:
        return True
    if len(shape) == 1:
        return shape[0] < 2 or strides[0] == 1
    dims = sorted((d for d in range(len(shape)) if shape[d] >= 2), key=lambda d: strides[d])
    need = 1
    for d in dims:
        if strides[d] != need:
            return False
        need *= shape[d]
    return True


def _sorted_dims(shape, operand_strides, skip_size1=False):
    """torch's insertion sort of dims (fastest first) by the operands' strides (TensorIterator's
    ``reorder_dimensions``, ``infer_dense_strides``): a 0 stride is ambiguous, equal strides put the smaller
    size first, the first operand that decides wins."""
    nd = len(shape)
    perm = list(range(nd - 1, -1, -1))

    def should_swap(d0, d1):
        for st in operand_strides:
            s0, s1 = st[d0], st[d1]
            if s0 == 0 or s1 == 0:
                continue
            if s0 < s1:
                return -1
            if s0 > s1:
                return 1
            if shape[d0] > shape[d1]:
                return 1
        return 0

    for i in range(1, nd):
        d1 = i
        for d0 in range(i - 1, -1, -1):
            c = should_swap(perm[d0], perm[d1])
            if c > 0:
                perm[d0], perm[d1] = perm[d1], perm[d0]
                d1 = d0
            elif c < 0:
                break
    return perm


def _dense_from(shape, perm, skip_size1):
    strides, acc = [0] * len(shape), 1
    for d in perm:
        strides[d] = acc
        if not skip_size1 or shape[d] > 1:
            acc *= shape[d]
    return tuple(strides)


def preserve_strides(t):
    """The strides of ``empty_like(t)`` (preserve_format): ``t``'s own when it is non-overlapping and dense,
    else the dense strides in ``t``'s stride order (torch's ``infer_dense_strides``)."""
    return dense_strides_like(tuple(t.shape), t.stride())


def dense_strides_like(shape, st):
    """The strides torch gives a preserve-format copy of a tensor of ``shape`` and strides ``st``: ``st`` where
    non-overlapping and dense, else dense strides in ``st``'s order (``infer_dense_strides``).

    >>> dense_strides_like((3, 2), (1, 6))  # (a column slice of a transposed array: kept in column order)
    (1, 3)
    """
    if non_overlapping_and_dense(shape, st):
        return tuple(st)
    return _dense_from(shape, _sorted_dims(shape, (st,)), True)


def numpy_strides(arr):
    """A numpy array's strides in elements, as torch counts them (numpy's are in bytes)."""
    n = arr.dtype.itemsize
    return tuple(s // n for s in arr.strides)


def mark(t, fmt, source=None):
    """``t`` (a fresh result) given the layout asked for: ``fmt``, or ``source``'s for preserve_format / None
    (the ``*_like`` default)."""
    if fmt is None or fmt is preserve_format:
        if source is not None and needs_layout(source):
            set_strides(t, preserve_strides(source))
        return t
    if fmt is contiguous_format:
        return set_strides(t, None)
    check_rank(t.ndim, fmt)
    return set_strides(t, format_strides(tuple(t.shape), fmt))


_REORDERING = frozenset(("permute", "as_strided", "diagonal", "unfold"))
# whether any tensor so far got strides in other than row-major order (a root given torch's strides, a view
# step of _REORDERING): until then every elementwise result is row-major, and its ops skip the layout look
SEEN = [False]


def needs_layout(t):
    """Whether ``t``'s strides may be in other than row-major order (a root with torch's strides, a view with a
    reordering step or of such a root): the cheap test before any stride is computed."""
    b = t._vbase
    if b is None:
        return t._st is not None
    if b._st is not None:
        return True
    chain = t._chain
    if chain is _views.HOST_CHAIN:
        return False
    for step in chain:
        if step[0] in _REORDERING:
            return True
    return 0 in t._x.shape  # (an empty view: TensorIterator orders 0-size dims by their sizes)


def iter_strides(shape, operands):
    """The strides of TensorIterator's output of ``shape`` for ``operands`` ((shape, strides) pairs, inputs in
    order; a Python number is ``((), ())``), or None for row-major."""
    nd = len(shape)
    if all(s == shape for s, _ in operands):  # the fast set-ups (compute_fast_setup_type)
        if all(strides_match(shape, st, contiguous_format) for _, st in operands):
            return None
        if nd == 4 and all(strides_match(shape, st, channels_last) for _, st in operands):
            return format_strides(shape, channels_last)
        first = operands[0][1]
        if all(non_overlapping_and_dense(shape, st) and st == first for _, st in operands):
            return first
    if nd <= 1:
        return None
    full = []
    for s, st in operands:
        k = nd - len(s)
        full.append(tuple(0 if d < k or (s[d - k] == 1 and shape[d] != 1) else st[d - k] for d in range(nd)))
    perm = _sorted_dims(shape, full)
    if perm == list(range(nd - 1, -1, -1)):
        return None
    return _dense_from(shape, perm, False)


def pointwise(out, args, sliced=False):
    """Give ``out`` (a fresh result of an elementwise op on ``args``) TensorIterator's output layout, when an
    argument's layout is not row-major (the caller's test: ``needs_layout``).  ``sliced``: the op reads views of
    ``args`` of ``out``'s shape (glu's halves, diff's shifted slices), which keep the arguments' strides."""
    shape = tuple(out.shape)
    ops = []
    for a in args:
        if hasattr(a, "_vbase"):
            if sliced and a.ndim != len(shape):
                return out
            ops.append((shape if sliced else tuple(a.shape), a.stride()))
        elif a is not None:
            ops.append(((), ()))
    st = iter_strides(shape, ops)
    return out if st is None else set_strides(out, st)


def _like_channels_last(shape, strides, order):
    """torch's ``is_channels_last_strides_2d_s4`` / ``_3d_s5``."""
    if strides[1] == 0:
        return False
    low = 0
    for d in order:
        if shape[d] == 0 or strides[d] < low:
            return False
        if d == 0 and low == strides[1]:
            return False
        low = strides[d]
        if shape[d] > 1:
            low *= shape[d]
    return True


def suggest(t):
    """torch's ``Tensor.suggest_memory_format()``."""
    if not needs_layout(t):
        return contiguous_format
    return _suggest(tuple(t.shape), t.stride())


def _suggest(shape, st):
    if len(shape) == 4 and _like_channels_last(shape, st, _ORDER["channels_last"]):
        return channels_last
    if len(shape) == 5 and _like_channels_last(shape, st, _ORDER["channels_last_3d"]):
        return channels_last_3d
    return contiguous_format


def follow_input(out, *inputs):
    """``out`` (a fresh 4-D/5-D result of convolution, batch norm, pooling, interpolation) in the channels-last
    format the first of ``inputs`` suggesting one suggests, as torch's CPU kernels allocate it."""
    for t in inputs:
        if t is not None and t._vbase is None and t._st is None:
            continue
        if t is not None:
            fmt = suggest(t)
            if fmt is not contiguous_format and out.ndim == len(_ORDER[fmt.name]):
                return set_strides(out, format_strides(tuple(out.shape), fmt))
    return out


def storage_perm(t):
    """For a root with torch's strides, the dims from outermost to innermost of its storage (``t``'s value
    transposed by it is the storage in order), else None."""
    st = t._st
    if st is None:
        return None
    shape = t._x.shape
    return tuple(sorted(range(len(st)), key=lambda d: (-st[d], -shape[d] if shape[d] > 1 else 0)))


def _after(relayout, unless=None):
    """Decorator running ``relayout(result, args, kwargs)`` after the op, once some tensor in the process has a
    non-row-major layout (``SEEN``); before that the op's result is returned as it is.  An ``out=`` tensor keeps
    its own strides.  ``unless``: ((position, name), value), an argument value for which the kernel allocates
    a row-major result (pad's mode "circular", roll's dims None: the flattened input), or a predicate
    ``unless(args, kwargs)`` saying so (conv3d's fallback kernel)."""
    def deco(fn):
        @functools.wraps(fn)
        def follows(*args, **kwargs):
            r = fn(*args, **kwargs)
            if not SEEN[0] or kwargs.get("out") is not None:
                return r
            if unless is not None and (unless(args, kwargs) if callable(unless) else
                                       _operands((unless[0],), args, kwargs)[0] == unless[1]):
                return r
            return relayout(r, args, kwargs)
        follows.__code__ = follows.__code__.replace(co_filename=_WRAPPER_FILE)
        return follows
    return deco


# the wrapper's frame sits between a user's call and the op: a name warnings' stacklevel counting skips, so
# F.mse_loss's broadcast warning still names the user's line
_WRAPPER_FILE = pass_through_file(__file__, "memory format wrapper")


def _each(r, fn):
    """``fn`` (which relays a fresh result out in place) applied to the result ``r``, or to each tensor of a
    tuple result (values and indices, mantissa and exponent)."""
    for o in (r if isinstance(r, tuple) else (r,)):
        if hasattr(o, "_vbase"):
            fn(o)
    return r


def _operands(params, args, kwargs):
    """The arguments named by ``params`` ((position, name) pairs), None where not given."""
    return [args[pos] if pos < len(args) else kwargs.get(name) for pos, name in params]


def channels_last_follows(*params, unless=None):
    """Decorator for an op whose CPU kernel allocates its output in the channels-last format its input (or
    weight) suggests (convolution, batch norm, pooling, interpolation, pad, pixel shuffle): ``params`` are
    (position, name) pairs of those arguments (``unless``: see ``_after``).  Costs one look at each when none
    has a layout."""
    def relayout(r, args, kwargs):
        ins = [t for t in _operands(params, args, kwargs) if hasattr(t, "_vbase") and needs_layout(t)]
        if not ins:
            return r
        return _each(r, lambda o: follow_input(o, *ins))
    return _after(relayout, unless)


def pointwise_follows(*params, numbers=True, sliced=False):
    """Decorator for an elementwise op not declared through ``_ops._util.unary``/``binary`` (gelu, dropout,
    clamp, where, lerp, addcmul, frexp, ...): its result(s) take TensorIterator's layout of the ``params``
    ((position, name) pairs).  ``sliced``: the op reads same-rank slices of them (glu, diff; see ``pointwise``)."""
    def relayout(r, args, kwargs):
        ins = _operands(params, args, kwargs)
        if not numbers:  # (clamp's Scalar bounds are no operands of its TensorIterator)
            ins = [t for t in ins if hasattr(t, "_vbase")]
        if any(hasattr(t, "_vbase") and needs_layout(t) for t in ins):
            # (an argument returned as it is, dropout's in eval mode or in place, keeps its strides)
            return _each(r, lambda o: o if any(o is t for t in ins) else pointwise(o, ins, sliced))
        return r
    return _after(relayout)


def preserve_follows(*params, unless=None):
    """Decorator for an op whose kernel allocates its result(s) as ``empty_like(input)`` does (sort, argsort,
    flip, roll, slice_scatter's clone): ``input``'s strides where it is non-overlapping and dense, else dense in
    their order (``preserve_strides``).  ``params``: the (position, name) of ``input`` (``unless``: see
    ``_after``)."""
    def relayout(r, args, kwargs):
        t = _operands(params, args, kwargs)[0]
        if not (hasattr(t, "_vbase") and needs_layout(t)):
            return r
        shape, st = tuple(t.shape), preserve_strides(t)
        return _each(r, lambda o: set_strides(o, st) if o is not t and tuple(o.shape) == shape else o)
    return _after(relayout, unless)


def _cat_format(layouts):
    """torch's ``cat_compute_output_memory_format`` over the inputs' (shape, strides): the format all suggest,
    else contiguous_format."""
    fmt = None
    for shape, st in layouts:
        f = _suggest(shape, st)
        if f is contiguous_format or fmt is not None and f is not fmt:
            return contiguous_format
        fmt = f
    return fmt


def _cat_relayout(r, args, kwargs):
    if not hasattr(r, "_vbase"):
        return r
    tensors = args[0] if args else kwargs["tensors"]
    if not any(needs_layout(t) for t in tensors):
        return r
    fmt = _cat_format([(tuple(t.shape), t.stride()) for t in tensors])
    if fmt is contiguous_format or r.ndim != len(_ORDER[fmt.name]):
        return r
    return set_strides(r, format_strides(tuple(r.shape), fmt))


cat_follows = _after(_cat_relayout)
cat_follows.__doc__ = """Decorator for ``cat``: torch allocates its result in the memory format every input suggests
(``compute_output_memory_format``), else row-major."""


def _stack_relayout(r, args, kwargs):
    tensors = args[0] if args else kwargs["tensors"]
    if not hasattr(r, "_vbase") or not any(needs_layout(t) for t in tensors):
        return r
    nd = tensors[0].ndim
    dim = args[1] if len(args) > 1 else kwargs.get("dim", 0)
    dim = dim + nd + 1 if dim < 0 else dim
    if dim < nd:  # torch: cat(tensors, dim).view(stacked shape): dim splits in two
        layouts = [(tuple(t.shape), t.stride()) for t in tensors]
        shape = list(layouts[0][0])
        shape[dim] *= len(tensors)
    else:  # torch: cat of the inputs unsqueezed at the end
        layouts = [(tuple(t.shape) + (1,), t.stride() + (1,)) for t in tensors]
        shape = list(layouts[0][0])
        shape[dim] = len(tensors)
    fmt = _cat_format(layouts)
    if fmt is contiguous_format or len(shape) != len(_ORDER[fmt.name]):
        return r
    st = format_strides(tuple(shape), fmt)
    if dim < nd:
        st = st[:dim] + (st[dim] * tensors[0].shape[dim],) + st[dim:]
    return set_strides(r, st)


stack_follows = _after(_stack_relayout)
stack_follows.__doc__ = """Decorator for ``stack``: torch's ``cat`` along ``dim`` viewed with the new dim (the inputs
unsqueezed at the end for the last dim), so the result is laid out as that ``cat``'s (``cat_follows``)."""
