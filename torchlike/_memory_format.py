"""torch.memory_format values.  XLA chooses physical layouts itself, so these are accepted everywhere torch
takes them (``.to``, ``.contiguous``, ``clone``, ``*_like``, ``Module.to``) and do not change a tensor's
values or ``stride()`` (the row-major layout, docs/differences.md).  A tensor converted to channels_last
(``.contiguous``/``.to``/``clone``/``empty_like``... with that format) remembers it, so
``is_contiguous(memory_format=...)`` answers as torch's does: True for the format it was converted to, and
for any other tensor what its strides say (``channels_last_contiguous``).

>>> import torchlike as torch
>>> torch.channels_last, torch.randn(1, 2, 3, 3).contiguous(memory_format=torch.channels_last).shape
(torch.channels_last, torch.Size([1, 2, 3, 3]))
"""
from __future__ import annotations

__all__ = ["memory_format", "contiguous_format", "channels_last", "channels_last_3d", "preserve_format",
           "strides_match", "format_strides", "check_rank", "mark", "converted", "is_contiguous", "share_tag"]


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


def format_strides(shape, fmt):
    """The strides of a dense tensor of ``shape`` laid out in ``fmt`` (row-major for contiguous_format)."""
    order = _ORDER.get(fmt.name, tuple(range(len(shape) - 1, -1, -1)))
    strides, acc = [0] * len(shape), 1
    for d in order:
        strides[d] = acc
        acc *= max(shape[d], 1)
    return tuple(strides)


def strides_match(shape, strides, fmt):
    """torch's is_contiguous(memory_format=fmt) of a tensor with these strides: the format's dim order, size-1
    dims ignored (a 4-D / 5-D rank for the channels-last formats)."""
    order = _ORDER.get(fmt.name)
    if order is None:
        order = tuple(range(len(shape) - 1, -1, -1))
    elif len(shape) != len(order):
        return False
    expected = 1
    for d in order:
        if shape[d] != 1:
            if strides[d] != expected:
                return False
            expected *= shape[d]
    return True


def converted(t):
    """The channels-last format tensor ``t`` was converted to, or None (a view, a new object, carries none)."""
    return t.__dict__.get("_mf")


def is_contiguous(t, fmt=None):
    """``Tensor.is_contiguous(memory_format=fmt)`` as torch answers it for ``t``'s strides, or for the
    format ``t`` was converted to (``stride()`` itself stays row-major)."""
    tag = converted(t)
    if tag is not None:
        fmt = fmt if fmt is not None else contiguous_format
        return fmt is tag or strides_match(t.shape, format_strides(t.shape, tag), fmt)
    if fmt is None or fmt is preserve_format:
        fmt = contiguous_format
    return strides_match(t.shape, t.stride(), fmt)


def share_tag(t, new):
    """``t.data = new``: ``t`` takes ``new``'s format tag (or loses its own)."""
    tag = converted(new)
    if tag is not None:
        t.__dict__["_mf"] = tag
    else:
        t.__dict__.pop("_mf", None)


def mark(t, fmt, source=None):
    """``t`` (a fresh result) tagged with the format asked for: ``fmt``, or ``source``'s for preserve_format /
    None (the ``*_like`` default)."""
    if fmt is None or fmt is preserve_format:
        fmt = converted(source) if source is not None else None
    elif fmt is contiguous_format:
        return t
    else:
        check_rank(t.ndim, fmt)
    if fmt is not None:
        t.__dict__["_mf"] = fmt
    return t


def check_rank(ndim, fmt):
    """torch's error for a channels-last format of the wrong rank."""
    need = len(_ORDER.get(fmt.name, ()))
    if need and ndim != need:
        raise RuntimeError(f"required rank {need} tensor to use {fmt.name} format")
