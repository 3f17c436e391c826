"""``torch.nested``: batches of tensors of different lengths, as one tensor.

``layout=torch.jagged`` (the layout torch develops) packs the components along their ragged dimension into one
dense ``values`` tensor with ``offsets``; ``layout=torch.strided`` (the default) keeps each component's shape.
Pointwise ops, ``linear``, ``softmax``, ``layer_norm``, ``matmul``, ``transpose`` and
``scaled_dot_product_attention`` run on them, with autograd reaching the values (see ``_ops``).

    >>> import torchlike as torch
    >>> nt = torch.nested.nested_tensor([torch.arange(3.), torch.arange(2.)], layout=torch.jagged)
    >>> nt
    NestedTensor(size=(2, j...), offsets=tensor([0, 3, 5]), contiguous=True)
    >>> (nt * 2).to_padded_tensor(-1.0)
    tensor([[ 0.,  2.,  4.],
            [ 0.,  2., -1.]])
"""
from __future__ import annotations

from typing import Optional, Union  # noqa: F401  (torch.nested's own names, as its annotations import them)

import torchlike
from torchlike import SymInt, Tensor, _errors  # noqa: F401
from torchlike import nn as _nn

from . import _ops  # noqa: F401  (the op handlers)
from ._tensor import NestedInt, NestedTensor, strided_from, to_padded_tensor

__all__ = ["nested_tensor", "as_nested_tensor", "nested_tensor_from_jagged", "narrow", "to_padded_tensor",
           "masked_select", "NestedTensor", "NestedInt"]

DType, Device, F = torchlike.dtype, torchlike.device, _nn.functional  # (torch.nested's aliases)

_PROTOTYPE = ("The PyTorch API of nested tensors is in prototype stage and will change in the near future. We "
              "recommend specifying layout=torch.jagged when constructing a nested tensor, as this layout receives "
              "active development, has better operator coverage, and works with torch.compile.")


def _prototype_warning():
    """torch's TORCH_WARN_ONCE when a strided nested tensor is made (also inside ``as_nested_tensor`` of a list
    with the jagged layout, which goes through one)."""
    _errors.torch_warn(_PROTOTYPE, "aten/src/ATen/NestedTensorImpl.cpp:177", once=True)


def _check_layout(layout):
    if layout is None:
        return torchlike.strided
    if layout is not torchlike.strided and layout is not torchlike.jagged:
        raise RuntimeError(f"Specified layout is unsupported for nested tensors: {layout}")
    return layout


def _from_components(comps, layout, what):
    """Components (already tensors of the wanted dtype/device) as a nested tensor of ``layout``."""
    if layout is torchlike.strided:
        if comps:
            nd = comps[0].dim()
            for i, c in enumerate(comps):
                if c.dim() != nd:
                    raise RuntimeError(f"All Tensors given to {what} must have the same dimension. Found "
                                       f"dimension {c.dim()} for Tensor at index {i} and dimension {nd} for Tensor "
                                       f"at index 0.")
        _prototype_warning()
        return strided_from(comps)
    if not comps:
        raise RuntimeError("Cannot construct a nested tensor from an empty tensor list")
    nd = comps[0].dim()
    if nd == 0:
        raise RuntimeError("Cannot construct a nested tensor from a list of zero-dim tensors")
    if any(c.dim() != nd for c in comps):
        raise RuntimeError("When constructing a nested tensor, all tensors in list must have the same dim")
    differ = [d for d in range(nd) if len({c.shape[d] for c in comps}) > 1]
    if len(differ) > 1:
        raise RuntimeError("Cannot represent given tensor list as a nested tensor with the jagged layout. Note "
                           "that the jagged layout only allows for a single ragged dimension. For example: (B, *, "
                           "D_0, D_1, ..., D_N), with ragged * dim.")
    r = differ[0] if differ else 0
    lens = [c.shape[r] for c in comps]
    offs = [0]
    for n in lens:
        offs.append(offs[-1] + n)
    offsets = torchlike.tensor(offs, dtype=torchlike.int64, device=comps[0].device)
    values = torchlike.cat(comps, r)
    return NestedTensor._make(values, torchlike.jagged, offsets=offsets, ragged_idx=r + 1)


def _to_tensors(tensor_list, dtype, device):
    out = []
    for t in tensor_list:
        if isinstance(t, torchlike.Tensor):
            out.append(t.to(dtype=dtype or t.dtype, device=device or t.device))
        else:
            out.append(torchlike.tensor(t, dtype=dtype, device=device))
    if dtype is None and out:  # (components of mixed dtypes take the promoted one, as torch's)
        common = out[0].dtype
        for t in out[1:]:
            common = torchlike.promote_types(common, t.dtype)
        out = [t.to(common) for t in out]
    return out


def nested_tensor(tensor_list, *, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False):
    """A nested tensor (a new leaf, no autograd history) from a list of tensors or of nested number lists.

    >>> import torchlike as torch
    >>> a, b = torch.ones(2, 3), torch.zeros(1, 3)
    >>> nt = torch.nested.nested_tensor([a, b], layout=torch.jagged, requires_grad=True)
    >>> nt.is_leaf, nt.size(0), nt.size(2), nt.values().shape
    (True, 2, 3, torch.Size([3, 3]))
    """
    layout = _check_layout(layout)
    if isinstance(tensor_list, torchlike.Tensor) or not isinstance(tensor_list, (list, tuple)):
        if isinstance(tensor_list, torchlike.Tensor) and not isinstance(tensor_list, NestedTensor):
            tensor_list = list(tensor_list.unbind(0))
        else:
            raise TypeError("Only lists (List[Tensor] and List[List...[Scalar]]) are accepted in nested_tensor")
    comps = [c.detach() for c in _to_tensors(tensor_list, dtype, device)]
    nt = _from_components(comps, layout, "nested_tensor")
    nt = NestedTensor._make(nt._values.detach().clone(), layout, offsets=nt._offsets, ragged_idx=nt._ragged_idx,
                            sizes=nt._sizes, nint=nt._nint)
    if requires_grad:
        nt._values.requires_grad_(True)
    return nt


def as_nested_tensor(ts, dtype=None, device=None, layout=None):
    """A nested tensor from a list of tensors (or a dense tensor's first dimension), keeping autograd history:
    gradients flow back to the tensors given.

    >>> import torchlike as torch
    >>> a = torch.ones(2, 2, requires_grad=True)
    >>> nt = torch.nested.as_nested_tensor([a, torch.ones(3, 2)], layout=torch.jagged)
    >>> nt.to_padded_tensor(0.0).sum().backward()
    >>> a.grad
    tensor([[1., 1.],
            [1., 1.]])
    """
    layout = _check_layout(layout)
    is_list = isinstance(ts, (list, tuple)) and all(isinstance(t, torchlike.Tensor) for t in ts)
    if not isinstance(ts, torchlike.Tensor) and not is_list:
        raise TypeError("as_nested_tensor(): Expected first argument to be a tensor or a list / tuple of tensors ")
    if isinstance(ts, torchlike.Tensor) and ts.dim() < 2:
        raise RuntimeError("as_nested_tensor(): Expected tensor argument to have dim() > 1")
    if isinstance(ts, NestedTensor):
        if ts._layout is not layout:
            raise RuntimeError("as_nested_tensor(): Converting between nested tensor layouts is not supported")
        return ts._like(ts._values.to(device=device, dtype=dtype))
    if isinstance(ts, torchlike.Tensor):
        ts = list(ts.unbind(0))
    else:
        _prototype_warning()
    comps = [t.to(dtype=dtype or t.dtype, device=device or t.device) for t in ts]
    return _from_components(comps, layout, "as_nested_tensor")


def nested_tensor_from_jagged(values, offsets=None, lengths=None, jagged_dim=None, min_seqlen=None,
                              max_seqlen=None):
    """A jagged nested tensor over a view of ``values`` (no copy) split by ``offsets`` (or ``lengths``) along
    ``jagged_dim`` (1 by default).

    >>> import torchlike as torch
    >>> v = torch.arange(10.).reshape(5, 2)
    >>> nt = torch.nested.nested_tensor_from_jagged(v, torch.tensor([0, 2, 5]))
    >>> nt.shape[0], nt.values().data_ptr() == v.data_ptr(), [c.shape[0] for c in nt.unbind()]
    (2, True, [2, 3])
    """
    if offsets is None:
        if lengths is None:
            raise RuntimeError("nested_tensor_from_jagged(): At least one of offsets or lengths is required.")
        offsets = torchlike.cat([torchlike.zeros(1, dtype=lengths.dtype, device=lengths.device),
                                 lengths.cumsum(0)])
        lengths = None
    if jagged_dim is None:
        jagged_dim = 1
    if jagged_dim < 1:
        raise ValueError("Expected jagged_dim >=1")
    # (a view of ``values``, as torch's: gradients reach it)
    return NestedTensor._make(values.view(values.shape), torchlike.jagged, offsets=offsets, lengths=lengths,
                              ragged_idx=jagged_dim)


def narrow(tensor, dim, start, length, layout=torchlike.strided):
    """A nested tensor of ``tensor``'s rows narrowed along ``dim`` from ``start`` (an int or a per-row tensor)
    for ``length``; with ``layout=torch.jagged`` a view of ``tensor``.

    >>> import torchlike as torch
    >>> x = torch.arange(12.).reshape(3, 4)
    >>> nt = torch.nested.narrow(x, 1, torch.tensor([0, 1, 2]), torch.tensor([2, 3, 1]), layout=torch.jagged)
    >>> [c.tolist() for c in nt.unbind()]
    [[0.0, 1.0], [5.0, 6.0, 7.0], [10.0]]
    """
    if not isinstance(start, (int, torchlike.Tensor)):
        raise RuntimeError("start must be an integer or a tensor")
    if not isinstance(length, (int, torchlike.Tensor)):
        raise RuntimeError("length must be an integer or a tensor")
    if layout is torchlike.strided:
        if isinstance(start, torchlike.Tensor) or isinstance(length, torchlike.Tensor):
            raise RuntimeError("start and length must be integers for the strided layout NT impl")
        if dim != 0:
            raise RuntimeError(f"narrow(): only dim=0 supported for nested tensors, but got: {dim}")
        return _from_components(list(tensor.unbind(0))[start:start + length], layout, "narrow")
    if layout is not torchlike.jagged:
        raise RuntimeError("narrow(): only strided and jagged layouts are supported")
    if dim != 1:
        raise RuntimeError("jagged layout only supports dim=1")
    b = tensor.shape[0]
    start = start if isinstance(start, torchlike.Tensor) else torchlike.full((b,), start, dtype=torchlike.int64)
    length = length if isinstance(length, torchlike.Tensor) else torchlike.full((b,), length, dtype=torchlike.int64)
    row = tensor.shape[1]
    values = tensor.reshape(b * row, *tensor.shape[2:])
    starts = start + torchlike.arange(b) * row
    offsets = torchlike.cat([starts, starts[-1:] + length[-1:]])
    return NestedTensor._make(values, torchlike.jagged, offsets=offsets, lengths=length, ragged_idx=1)


def masked_select(tensor, mask):
    """The elements of each row of ``tensor`` where ``mask`` is True, as a jagged nested tensor (one component
    per row of the first dimension).

    >>> import torchlike as torch
    >>> x = torch.tensor([[1., 2., 3.], [4., 5., 6.]])
    >>> nt = torch.nested.masked_select(x, torch.tensor([[True, False, True], [False, False, True]]))
    >>> nt.values(), nt.offsets()
    (tensor([1., 3., 6.]), tensor([0, 2, 3]))
    """
    if tensor.shape != mask.shape:
        tensor, mask = torchlike.broadcast_tensors(tensor, mask)
    if tensor.dim() < 2:
        raise RuntimeError("torch.nested.masked_select requires tensor.dim() >= 2 (the first dimension is the "
                           "batch)")
    values = tensor[mask]
    lens = mask.reshape(mask.shape[0], -1).sum(1)
    offsets = torchlike.cat([torchlike.zeros(1, dtype=torchlike.int64), lens.cumsum(0)])
    return NestedTensor._make(values, torchlike.jagged, offsets=offsets, ragged_idx=1)
