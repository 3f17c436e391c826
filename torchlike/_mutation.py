"""Mutation (layer 2): writing a new value into a tensor in place, with autograd and views.

``Tensor._inplace_update(new)`` — what every in-place op ends with — and the recorded re-read of a stale
view live here, above the dispatcher they record through, and are installed on ``Tensor`` (layer 1, which
knows no op) when this module is imported (by ``torchlike/__init__.py``, right after the tensor).

>>> import torchlike
>>> x = torchlike.zeros(3)
>>> v = x[1:]
>>> v.add_(1)
tensor([1., 1.])
>>> x
tensor([0., 1., 1.])
"""
from __future__ import annotations

import math
import re

import numpy as np

from . import _dtype, _grad_mode, _views
from ._errors import torch_warn, warn_at_caller
from ._view_strides import contiguous_strides
from ._dispatch import dispatch
from .tensor import _ALIAS_CHAIN, _DATA_STEP, _DETACH_STEP, _PLAIN_VALUE, Tensor, _seen_mark

__all__ = ["view_of_root", "copy_slices", "alias_op", "write_out", "check_no_overlap", "check_out_overlap", "overlap",
           "on_inplace", "on_inference_write", "check_inplace", "check_operands", "internal_overlap", "warn_if_expanded", "expanded_warning"]

# Hook: callables ``check(self, new)`` run before an in-place write of ``new`` into ``self``. Empty except
# while a torchlike.func transform runs (func pushes its check on entry and pops it on exit), so an in-place
# op outside transforms pays one truth test.
on_inplace = []
# Hook: callables ``check(self, new)`` run before an in-place write into an inference tensor (``self._ver`` an
# InferenceVersion; torchlike._inference installs torch's refusal the first time inference mode is entered). Kept
# apart from on_inplace because it stays installed for the rest of the process: a host write (never into an
# inference tensor) must not be turned off by it.
on_inference_write = []

_state = _grad_mode._state


def _chain_impl(x, chain):
    return _views.apply_chain(x, chain)


def _write_impl(root, new, chain):
    return _views.write_back(root, new, chain)


def _alias_impl(x):
    return x


def view_of_root(root, chain):
    """Re-derive a view of ``root`` (used when a view goes stale after an in-place write)."""
    return dispatch(_chain_impl, (root,), (("chain", chain),), name="AsStridedBackward0", saves=False)


def copy_slices(root, new, chain):
    """The root after writing ``new`` into its view ``chain`` (torch's CopySlices node)."""
    return dispatch(_write_impl, (root, new), (("chain", chain),), name="CopySlices", saves=False)


def alias_op(t):
    """An identity op (``AliasBackward0``): routes a leaf that requires grad into a recorded value."""
    return dispatch(_alias_impl, (t,), (), name="AliasBackward0", saves=False)


def _refresh_recorded(self):
    """Re-read a stale view of a root that is in the autograd graph, recording the read."""
    if "_fn_view" in self.__dict__:  # an autograd.Function's view output whose base was written: its value is
        # re-read, its grad_fn stays the Function's (torch refuses its autograd use then; docs/differences.md)
        self._x = _views.chain_fn(self._chain)(self._vbase._value)
        return
    with _grad_mode.enable_grad():
        fresh = view_of_root(self._vbase, self._chain)
    self._grad_fn, self._oi = fresh._grad_fn, fresh._oi
    self._x = fresh._x


def _inplace_update(self, new, aliased=False):
    """Make ``new`` (a Tensor computed from self) the value of self, in place, with autograd.  ``aliased``: self
    may repeat memory locations (an expanded view), written as torch's fill-like kernels do (each location keeps
    the last value that changed it); otherwise such a write raises torch's internal-overlap error."""
    if new is self:
        return self
    if self._vbase is None:
        if new._vbase is None and new._grad_fn is None and not new._rg and self._grad_fn is None and \
                not self._rg and not on_inplace and type(self._ver) is list and Tensor._value is _PLAIN_VALUE:
            # two device roots without autograd history (``y.add_(x)`` on device tensors): nothing to check,
            # record or write back; what the general path below does for them when dtype and shape agree
            x, s = new._x, self._x
            if x.dtype == s.dtype and x.shape == s.shape:
                self._x = x
                self._ver[0] += 1
                return self
    elif self._chain is _ALIAS_CHAIN and new._chain is _ALIAS_CHAIN and not on_inplace and _host_write(self, new):
        return self
    if on_inplace:
        for check in on_inplace:
            check(self, new)
    if on_inference_write and type(self._ver) is not list:
        for check in on_inference_write:
            check(self, new)
    if _state.enabled:
        self._check_inplace_leaf()
    if new.dtype is not self.dtype:
        if not _dtype.can_cast(new.dtype, self.dtype):
            raise RuntimeError(f"result type {_dtype._CAP[new.dtype.name]} can't be cast to the desired "
                               f"output type {_dtype._CAP[self.dtype.name]}")
        new = new.to(self.dtype)
    if tuple(new.shape) != tuple(self.shape):
        try:
            new = new.expand(self.shape)
        except RuntimeError:
            raise RuntimeError(f"output with shape {list(self.shape)} doesn't match the broadcast shape "
                               f"{list(new.shape)}") from None
    gf = new._grad_fn
    if gf is not None and gf.saved:
        # the op saw self's old (immutable) array, so overwriting self can't corrupt its gradient
        gf.saved = tuple(e for e in gf.saved if e[0]._ver is not self._ver)
    b = self._vbase
    track = _state.enabled and (new._grad_fn is not None or new._rg)
    if b is None:
        self._x = new._value
        self._ver[0] += 1
        if track:
            self._grad_fn, self._oi = new._grad_fn, new._oi
            if new._grad_fn is None:  # new is a leaf that requires grad: route through an identity
                a = alias_op(new)
                self._grad_fn, self._oi = a._grad_fn, a._oi
        return self
    chain = self._chain
    if not aliased and _views.repeats(chain, b._x.shape):
        raise RuntimeError(_INTERNAL)
    root_tracks = b._rg or b._grad_fn is not None
    if chain[0][0] == "alias" or _DETACH_STEP in chain or _DATA_STEP in chain:
        # through detach()/.data (also of a view: ``view.data[i] = v``): never recorded
        self._set_value(new._value, aliased)
        return self
    if _state.enabled and (track or root_tracks):
        r = copy_slices(b, new, chain)
        b._store(r._x)
        b._grad_fn, b._oi = r._grad_fn, r._oi
    else:
        b._store(_views.write_back_fn(chain)(b._value, new._value))
    self._ver[0] += 1
    if not (track or root_tracks):
        self._x = new._value
        self._seen = _seen_mark(b, self._ver[0])
    return self


def _host_write(self, new):
    """Write host tensor ``new`` (an op's result: ``Tensor._from_host``, unwritten) into host tensor ``self`` of
    its dtype and shape, staying on the host: self and its hidden root take ``new``'s array (host arrays are
    never written in place, so sharing it is safe) and self's version moves, as a device write would do.  What
    the general path does besides is moot here: a host tensor has no autograd history, requires no grad and is
    no view (a view, ``detach()`` or ``requires_grad_()`` moves it to the device first), and a host result
    exists only outside tracing, profiling and dispatch modes.  False (nothing done) anywhere else: another
    dtype or shape (a cast or a broadcast), a written or moved tensor, an inference tensor, a subclass."""
    h, x = new._x, self._x
    if type(h) is not np.ndarray or type(x) is not np.ndarray or type(self) is not Tensor:
        return False
    v = self._ver
    if self._seen != -2 - v[0] or new._seen != -2 - new._ver[0] or type(v) is not list or \
            h.dtype is not x.dtype and h.dtype != x.dtype or h.shape != x.shape or new._grad_fn is not None or \
            new._rg or self._rg or self._grad_fn is not None:
        return False
    self._vbase._x = h
    self._x = h
    v[0] += 1
    self._seen = -2 - v[0]
    return True


# --- out=: writing an op's result into the tensor(s) the caller gave -------------------------------------
def _op_name(result):
    """The op's name from its result's backward node (``LinalgVectorNormBackward0`` -> linalg_vector_norm), for
    callers of write_out that don't name their op."""
    node = getattr(result, "grad_fn", None)
    base = re.sub(r"Backward\d*$", "", type(node).__name__) if node is not None else ""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", base).lower() or "out"


def write_out(out, result, name=None):
    """Store ``result`` into the ``out=`` tensor(s) as torch does (cast, resize) and return ``out``.
    ``name``: the op's name for torch's autograd error (derived from ``result``'s node when not given)."""
    if isinstance(out, (tuple, list)):
        if _state.enabled and (any(o.requires_grad for o in out) or
                                            any(r.requires_grad for r in result)):
            raise RuntimeError(f"{name or _op_name(result[0])}(): functions with out=... arguments don't "
                               "support automatic differentiation, but one of the arguments requires grad.")
        for o, r in zip(out, result):
            write_out(o, r, name)
        return out
    if _state.enabled and (out.requires_grad or result.requires_grad):
        raise RuntimeError(f"{name or _op_name(result)}(): functions with out=... arguments don't support automatic "
                           "differentiation, but one of the arguments requires grad.")
    if result.dtype is not out.dtype:
        if not _dtype.can_cast(result.dtype, out.dtype):
            raise RuntimeError(f"result type {_dtype._CAP[result.dtype.name]} can't be cast to the desired "
                               f"output type {_dtype._CAP[out.dtype.name]}")
        result = result.to(out.dtype)
    if tuple(out.shape) == tuple(result.shape):
        out._set_value(result._value)
        return out
    if out.numel():
        torch_warn(f"An output with one or more elements was resized since it had shape {list(out.shape)}, which "
                   f"does not match the required output shape {list(result.shape)}. This behavior is deprecated, "
                   "and in a future PyTorch release outputs will not be resized unless they have zero elements. "
                   "You can explicitly reuse an out tensor t by resizing it, inplace, to zero elements with "
                   "t.resize_(0).", "aten/src/ATen/native/Resize.cpp:30")
    if out._chain is _ALIAS_CHAIN:
        out._settle()  # a host tensor (Tensor._from_host) is no view: a plain tensor, resizable
    if out._vbase is not None:
        if out.requires_grad:
            raise RuntimeError("cannot resize variables that require grad")
        _resize_view(out, result)
        return out
    out._x = result._value
    out._ver[0] += 1
    return out


def _resize_view(out, result):
    """torch's resize of an ``out=`` view: the view becomes contiguous of the result's shape at its storage
    offset, in its base's storage.  Where that fits the storage, it stays a view of the base (both see the
    result); where it needs more, the part inside the storage is written there and the view gets a value of its
    own (torch grows the storage and the two keep sharing that part: see docs/differences.md)."""
    shape = tuple(result.shape)
    stride = contiguous_strides(shape)
    off, n = out.storage_offset(), result.numel()
    cap = out.untyped_storage().nbytes() // out.dtype.itemsize
    with _grad_mode.no_grad():
        if off + n <= cap:
            out.as_strided_(shape, stride, off)
            out.copy_(result)
            return
        if getattr(type(out._vbase), "fixed_size", False):  # numpy's or shared memory: torch cannot grow it
            raise RuntimeError("Trying to resize storage that is not resizable")
        if cap > off:
            out.as_strided_((cap - off,), (1,), off).copy_(result.reshape(-1)[:cap - off])
    out._vbase = out._chain = None
    out._x = result._value
    out._seen = 0
    out._ver[0] += 1


_INTERNAL = ("unsupported operation: more than one element of the written-to tensor refers to a single memory "
             "location. Please clone() the tensor before performing the operation.")
_OVERLAP = ("unsupported operation: some elements of the input tensor and the written-to tensor refer to a single "
            "memory location. Please clone() the tensor before performing the operation.")


def _dense(t):
    """torch's is_non_overlapping_and_dense: the strides, sorted, are those of a contiguous layout."""
    expected = 1
    for st, n in sorted((st, n) for n, st in zip(t.shape, t.stride()) if n != 1):
        if st != expected:
            return False
        expected *= n
    return True


def overlap(a, b):
    """torch's get_overlap_status of two tensors: "full" (the same elements, same layout), "partial" (some
    bytes shared), or None (none shared, or a layout too hard to tell, where torch does not raise either)."""
    if a is b:
        return "full"
    if not (isinstance(a, Tensor) and isinstance(b, Tensor)) or not a.numel() or not b.numel():
        return None
    if (a._vbase if a._vbase is not None else a) is not (b._vbase if b._vbase is not None else b):
        return None
    if not (_dense(a) and _dense(b)):
        return None
    spans = []
    for t in (a, b):
        size = t.dtype.itemsize
        lo = t.storage_offset() * size
        spans.append((lo, lo + t.numel() * size))
    (a0, a1), (b0, b1) = spans
    if (a0, a1) == (b0, b1):
        return "full" if a.stride() == b.stride() and a.dtype.itemsize == b.dtype.itemsize else "partial"
    return "partial" if a0 < b1 and b0 < a1 else None


def internal_overlap(t):
    """torch's ``has_internal_overlap(t) == YES``: some dim of more than one element has stride 0 (an expanded
    view), so one memory location is more than one element.  Looks at strides only for a view through
    ``expand`` or ``as_strided``."""
    if t._vbase is None:
        return False
    for step in t._chain:
        if step[0] == "expand" or step[0] == "as_strided":
            return any(st == 0 and n > 1 for n, st in zip(t.shape, t.stride()))
    return False


def check_inplace(self, args, kwargs, rule):
    """torch's memory-overlap asserts of an in-place op writing ``self``, run before the op as torch's are (so they
    come before its shape and dtype errors).  Every rule raises where self is expanded (``internal_overlap``);
    ``rule`` "partial" (elementwise ops: an operand in ``args``/``kwargs`` may be self's memory exactly, not in
    part), "any" (index and scatter ops: no operand, nor an index in a tuple of them, may share self's memory),
    "internal" (only self).  Where no operand shares self's root this costs one identity test per operand."""
    b = self._vbase
    if b is not None and self._chain is not _ALIAS_CHAIN and internal_overlap(self):  # (a host tensor: no view)
        raise RuntimeError(_INTERNAL)
    if rule != "internal":
        check_operands(self, (*args, *kwargs.values()) if kwargs else args, rule)


def check_operands(self, operands, rule):
    """The operand half of ``check_inplace``: ``rule`` "partial" or "any" between ``self`` and each operand."""
    b = self._vbase
    root = self if b is None else b
    for t in operands:
        if isinstance(t, Tensor):
            if t is root or t._vbase is root:
                st = overlap(self, t)
                if st == "partial" or (st == "full" and rule == "any"):
                    raise RuntimeError(_OVERLAP)
        elif rule == "any" and isinstance(t, (tuple, list)):
            for i in t:
                if isinstance(i, Tensor) and (i is root or i._vbase is root) and overlap(self, i):
                    raise RuntimeError(_OVERLAP)


# torch's deprecation warning of an op that writes an expanded tensor anyway (TensorAdvancedIndexing.cpp's lines)
_EXPANDED = ("Use of {} on expanded tensors is deprecated. Please clone() the tensor before performing this operation. "
             "This also applies to advanced indexing e.g. tensor[{}] = {} (Triggered internally at "
             "/__w/pytorch/pytorch/aten/src/ATen/native/TensorAdvancedIndexing.cpp:{}.)")
_EXPANDED_AT = {"index_fill_": ("mask", "scalar", 1913), "masked_fill_": ("mask", "scalar", 2450),
                "index_put_": ("indices", "tensor", 976)}


def warn_if_expanded(self, op):
    """torch's deprecation warning when in-place op ``op`` (index_fill_, masked_fill_, index_put_) writes an
    expanded ``self``, which those ops do write; returns True (the write may repeat locations)."""
    if self._vbase is not None and internal_overlap(self):
        warn_at_caller(_EXPANDED.format(op, *_EXPANDED_AT[op]))
    return True


def expanded_warning(op):
    """An OpEntry.inplace_overlap check: ``warn_if_expanded(self, op)``."""
    return lambda self, args, kwargs: warn_if_expanded(self, op)


def check_no_overlap(out, inputs, shape, partial=()):
    """torch's ``assert_no_internal_overlap(out)`` and ``assert_no_overlap(out, input)`` for ops whose
    ``out=`` may not alias an input at all (cat, take, masked_select, ...), and ``assert_no_partial_overlap``
    for the ``partial`` ones (gather's index).  ``shape``: the result's; an ``out`` of another shape is
    resized before the write (a view: in its base's storage, contiguous at its offset, where torch checks it)."""
    if tuple(out.shape) != tuple(shape) and out._vbase is not None and out._chain is not _ALIAS_CHAIN:
        n = math.prod(shape)
        if any(_resized_overlap(out, n, t) for t in inputs) or \
                any(_resized_overlap(out, n, t) == "partial" for t in partial):
            raise RuntimeError(_OVERLAP)
        return
    if tuple(out.shape) == tuple(shape) and internal_overlap(out):
        raise RuntimeError(_INTERNAL)
    if any(overlap(out, t) for t in inputs) or any(overlap(out, t) == "partial" for t in partial):
        raise RuntimeError(_OVERLAP)


def _resized_overlap(out, n, t):
    """``overlap(out, t)`` once view ``out`` is resized to ``n`` contiguous elements at its storage offset."""
    if not isinstance(t, Tensor) or not n or not t.numel() or not _dense(t):
        return None
    if out._vbase is not (t._vbase if t._vbase is not None else t):
        return None
    a0 = out.storage_offset() * out.dtype.itemsize
    b0 = t.storage_offset() * t.dtype.itemsize
    a1, b1 = a0 + n * out.dtype.itemsize, b0 + t.numel() * t.dtype.itemsize
    if (a0, a1) == (b0, b1):
        return "full" if t.is_contiguous() and out.dtype.itemsize == t.dtype.itemsize else "partial"
    return "partial" if a0 < b1 and b0 < a1 else None


def check_out_overlap(out, args, rule):
    """The overlap checks of an ``out=`` call through the op table (before the op runs, as torch's):
    an ``out`` with internal overlap (an expanded tensor) always raises; ``rule`` "any": no argument tensor
    may share memory with it; "partial": they may only alias it exactly (elementwise ops)."""
    for o in (out if isinstance(out, (tuple, list)) else (out,)):
        if not isinstance(o, Tensor):
            continue
        if internal_overlap(o):
            raise RuntimeError(_INTERNAL)
        if rule is not None:
            for t in args:
                st = overlap(o, t) if isinstance(t, Tensor) else None
                if st == "partial" or (st == "full" and rule == "any"):
                    raise RuntimeError(_OVERLAP)


# the hooks Tensor exposes for this layer (see tensor.py: "installed by _mutation")
Tensor._inplace_update = _inplace_update
Tensor._alias = alias_op
Tensor._refresh_recorded = _refresh_recorded
