"""The nested tensor: one dense tensor holding every component's values, plus the metadata saying where each
component lies in it.

Two layouts, as torch's:

- ``torch.jagged``: ``values`` is the components concatenated along their ragged dimension (which is the
  nested tensor's dimension 1 when made, ``_ragged_idx``), ``offsets`` (``B + 1`` int64) where each starts, and
  ``lengths`` when components leave holes.  The nested tensor's shape is ``(B, *values.shape)`` with the ragged
  entry replaced by a nested int ``jN`` (torch's symbolic size, one per offsets tensor).
- ``torch.strided``: ``values`` is a 1-D buffer of every component's elements, ``_sizes`` their shapes.

Autograd is the values': a nested tensor requires grad, has a ``grad_fn`` and is a leaf as its values do, and its
``grad`` is a nested tensor over the values' gradient, so gradients reach whatever the values were built from.

    >>> import torchlike as torch
    >>> nt = torch.nested.nested_tensor([torch.ones(2, 3), torch.ones(1, 3)], layout=torch.jagged)
    >>> nt.shape, nt.values().shape
    (torch.Size([2, j..., 3]), torch.Size([3, 3]))
"""
from __future__ import annotations

import itertools
import weakref

import numpy as np

import torchlike
from torchlike._tensor_wrapper import NoData
from torchlike.tensor import Size, Tensor

__all__ = ["NestedTensor", "NestedInt", "jagged", "strided_from", "nested_int_for", "OP_HANDLER"]

_COUNTER = itertools.count(1)
OP_HANDLER = [None]  # the ops' dispatcher: ``_ops.dispatch``, filled when ``_ops`` is imported (the package does)
_INTS = {}  # id(offsets or lengths tensor) -> (weakref to it, its NestedInt)


class NestedInt:
    """torch's nested int ``jN``: the symbolic size of a jagged dimension, equal only to itself."""
    __slots__ = ("id",)

    def __init__(self, n):
        self.id = n

    def __repr__(self):
        return f"j{self.id}"

    __str__ = __repr__

    def __eq__(self, other):
        return isinstance(other, NestedInt) and other.id == self.id

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return hash(("j", self.id))

    def __index__(self):
        raise RuntimeError(f"Cannot convert the symbolic size {self!r} of a jagged dimension to an int (torchlike)")


def nested_int_for(t):
    """The nested int of an offsets (or lengths) tensor: a new ``jN`` the first time a tensor is seen."""
    hit = _INTS.get(id(t))
    if hit is not None and hit[0]() is t:
        return hit[1]
    n = NestedInt(next(_COUNTER))
    key = id(t)
    _INTS[key] = (weakref.ref(t, lambda _r, k=key: _INTS.pop(k, None)), n)
    return n


def _norm_dim(dim, ndim):
    if not -ndim <= dim < ndim:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-ndim}, {ndim - 1}], but got {dim})")
    return dim % ndim


class NestedTensor(Tensor):
    """A batch of tensors of different shapes (``torch.nested``'s tensors); see the module docstring."""

    # ---- construction ---------------------------------------------------------------------------
    @classmethod
    def _make(cls, values, layout, *, offsets=None, lengths=None, ragged_idx=1, sizes=None, nint=None):
        t = cls._wrap(NoData((0,), np.dtype(values.dtype.np)), values.device)
        d = t.__dict__
        d["_values"], d["_layout"] = values, layout
        d["_offsets"], d["_lengths"], d["_ragged_idx"], d["_sizes"] = offsets, lengths, ragged_idx, sizes
        if layout is torchlike.jagged and nint is None:
            nint = nested_int_for(lengths if lengths is not None else offsets)
        d["_nint"] = nint
        return t

    def _like(self, values, ragged_idx=None):
        """A nested tensor with ``self``'s structure over new values (of the same layout)."""
        if self._layout is torchlike.jagged:
            return NestedTensor._make(values, self._layout, offsets=self._offsets, lengths=self._lengths,
                                      ragged_idx=self._ragged_idx if ragged_idx is None else ragged_idx,
                                      nint=self._nint)
        return NestedTensor._make(values, self._layout, sizes=self._sizes)

    # ---- metadata -------------------------------------------------------------------------------
    is_nested = True

    @property
    def layout(self):
        return self._layout

    @property
    def dtype(self):
        return self._values.dtype

    @property
    def device(self):
        return self._values.device

    @property
    def is_cuda(self):
        return self._values.is_cuda

    def dim(self):
        if self._layout is torchlike.jagged:
            return self._values.dim() + 1
        return len(self._sizes[0]) + 1 if self._sizes else 1

    ndimension = dim

    @property
    def ndim(self):
        return self.dim()

    def __len__(self):
        if self._layout is not torchlike.jagged:
            raise RuntimeError("Internal error: NestedTensorImpl doesn't support sizes. Please file an issue.")
        return self._batch()

    def _batch(self):
        if self._layout is torchlike.jagged:
            return self._offsets.shape[0] - 1
        return len(self._sizes)

    def _jagged_shape(self):
        s = list(self._values.shape)
        s[self._ragged_idx - 1] = self._nint
        return (self._batch(), *s)

    @property
    def shape(self):
        if self._layout is torchlike.jagged:
            return Size(self._jagged_shape())
        raise RuntimeError("Internal error: NestedTensorImpl doesn't support sizes. Please file an issue.")

    def size(self, dim=None):
        if self._layout is torchlike.jagged:
            s = self._jagged_shape()
            return Size(s) if dim is None else s[_norm_dim(dim, len(s))]
        if dim is None:
            return self.shape
        d = _norm_dim(dim, self.dim())
        if d == 0:
            return self._batch()
        sizes = {s[d - 1] for s in self._sizes}
        if len(sizes) != 1:
            raise RuntimeError(f"Given dimension {dim} is irregular and does not have a size.")
        return sizes.pop()

    def _nested_sizes(self):
        if self._layout is torchlike.jagged:
            r = self._ragged_idx - 1
            base = list(self._values.shape)
            out = []
            for n in self._lens():
                base[r] = n
                out.append(tuple(base))
            return out
        return list(self._sizes)

    def _lens(self):
        if self._lengths is not None:
            return [int(n) for n in self._lengths.tolist()]
        o = self._offsets.tolist()
        return [int(o[i + 1] - o[i]) for i in range(len(o) - 1)]

    def _starts(self):
        return [int(n) for n in self._offsets.tolist()[:-1]]

    def numel(self):
        return sum(int(np.prod(s, dtype=np.int64)) for s in self._nested_sizes())

    def is_contiguous(self, memory_format=None):
        if self._layout is torchlike.jagged:
            return self._lengths is None and self._values.is_contiguous()
        return True

    def element_size(self):
        return self._values.element_size()

    # ---- components -----------------------------------------------------------------------------
    def _components(self):
        v = self._values
        if self._layout is torchlike.jagged:
            r = self._ragged_idx - 1
            return [v.narrow(r, s, n) for s, n in zip(self._starts(), self._lens())]
        out, at = [], 0
        for s in self._sizes:
            n = int(np.prod(s, dtype=np.int64))
            out.append(v.narrow(0, at, n).view(s))
            at += n
        return out

    def unbind(self, dim=0):
        if dim != 0:
            raise RuntimeError("unbind(): only supported for NestedTensor on dim=0")
        return tuple(self._components())

    def values(self):
        return self._values

    def offsets(self):
        if self._layout is not torchlike.jagged:
            raise RuntimeError("Internal error: NestedTensorImpl doesn't support offsets. Please file an issue.")
        return self._offsets

    def lengths(self):
        if self._layout is not torchlike.jagged:
            raise RuntimeError("Internal error: NestedTensorImpl doesn't support lengths. Please file an issue.")
        return self._lengths

    def to_padded_tensor(self, padding, output_size=None):
        """``nt.to_padded_tensor(padding)``: a dense tensor with each component padded to the largest."""
        return to_padded_tensor(self, padding, output_size)

    # ---- autograd (the values') -----------------------------------------------------------------
    @property
    def requires_grad(self):
        return self._values.requires_grad

    @requires_grad.setter
    def requires_grad(self, flag):
        self._values.requires_grad = flag

    def requires_grad_(self, requires_grad=True):
        self._values.requires_grad_(requires_grad)
        return self

    @property
    def grad_fn(self):
        return self._values.grad_fn

    @property
    def is_leaf(self):
        return self._values.is_leaf

    @property
    def grad(self):
        g = self._values.grad
        return None if g is None else self._like(g)

    @grad.setter
    def grad(self, g):
        self._values.grad = None if g is None else g._values

    def retain_grad(self):
        self._values.retain_grad()

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        if gradient is not None and isinstance(gradient, NestedTensor):
            gradient = gradient._values
        self._values.backward(gradient, retain_graph=retain_graph, create_graph=create_graph, inputs=inputs)

    def detach(self):
        return self._like(self._values.detach())

    # ---- printing -------------------------------------------------------------------------------
    def __repr__(self):
        if self._layout is torchlike.jagged:
            parts = [f"size={tuple(self._jagged_shape())}".replace(",)", ")"), f"offsets={self._offsets!r}"]
            if self.grad_fn is not None:
                parts.append(f"grad_fn=<{self.grad_fn.name()} object at {hex(id(self.grad_fn))}>")
            elif self.requires_grad:
                parts.append("requires_grad=True")
            parts.append(f"contiguous={self.is_contiguous()}")
            return f"NestedTensor({', '.join(parts)})"
        rg = self.requires_grad
        comps = []
        for c in self._components():
            c = c.detach()
            if rg:
                c.requires_grad_(True)
            comps.append("  " + repr(c).replace("\n", "\n  "))
        tail = ""
        if self.grad_fn is not None:
            tail = f", grad_fn=<{self.grad_fn.name()}>"
        elif rg:
            tail = ", requires_grad=True"
        body = ",\n".join(comps)
        return f"nested_tensor([\n{body}\n]{tail})" if comps else f"nested_tensor([\n\n]{tail})"

    __str__ = __repr__

    # ---- ops ------------------------------------------------------------------------------------
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return OP_HANDLER[0](func, args, kwargs or {})


def strided_from(components):
    """A ``torch.strided`` nested tensor over ``components`` (its buffer is their concatenation, so autograd
    reaches each component)."""
    flat = [c.reshape(-1) for c in components]
    buf = torchlike.cat(flat) if flat else torchlike.empty(0)
    return NestedTensor._make(buf, torchlike.strided, sizes=[tuple(c.shape) for c in components])


def to_padded_tensor(nt, padding, output_size=None):
    """Every component padded with ``padding`` to the largest size in each dimension (or ``output_size``).

    >>> import torchlike as torch
    >>> nt = torch.nested.nested_tensor([torch.ones(2), torch.ones(1)], layout=torch.jagged)
    >>> torch.nested.to_padded_tensor(nt, 0.0)
    tensor([[1., 1.],
            [1., 0.]])
    """
    if not isinstance(nt, NestedTensor):
        raise RuntimeError("to_padded_tensor(): expected a nested tensor")
    if nt._layout is torchlike.jagged and nt._lengths is not None:
        raise RuntimeError("to_padded_tensor(): not supported for nested tensors with holes")
    comps = nt._components()
    sizes = nt._nested_sizes()
    nd = len(sizes[0]) if sizes else 0
    big = [max(s[d] for s in sizes) for d in range(nd)] if sizes else []
    if output_size is not None and nt._layout is torchlike.jagged:
        # (torch's jagged kernel reads only the ragged dimension's entry, the padded max sequence length)
        r = nt._ragged_idx - 1
        big[r] = max(big[r], int(output_size[nt._ragged_idx]))
        output_size = None
    if output_size is not None:
        output_size = tuple(int(n) for n in output_size)
        if len(output_size) != nd + 1:
            raise RuntimeError("Length of output_size does not match NestedTensor dims. Broadcasting is not "
                               "supported.")
        for d in range(nd):
            if output_size[d + 1] < big[d]:
                raise RuntimeError("Value in output_size is less than NestedTensor padded size. Truncation is "
                                   "not supported.")
        big = list(output_size[1:])
    rows = []
    for c in comps:
        pad = []
        for d in reversed(range(nd)):
            pad += [0, big[d] - c.shape[d]]
        rows.append(torchlike.nn.functional.pad(c, pad, value=padding) if any(pad) else c)
    out = torchlike.stack(rows) if rows else torchlike.empty((0, *big), dtype=nt.dtype)
    if output_size is not None and output_size[0] > out.shape[0]:
        extra = torchlike.full((output_size[0] - out.shape[0], *big), padding, dtype=out.dtype)
        out = torchlike.cat([out, extra])
    return out


jagged = torchlike.jagged
