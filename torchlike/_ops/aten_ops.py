"""Table entries that torch exposes only as ``torch.ops.aten`` operators (no ``torch.X`` function):
``_softmax_backward_data``, ``_batch_norm_with_update``, ``_upsample_bilinear2d_aa`` and
``max_pool2d_with_indices_backward``.

They are declared with ``namespaces=("aten",)``; :data:`ATEN` receives them at install time and
``torchlike.ops.aten`` looks names up there first.

    >>> import torchlike as torch
    >>> y = torch.tensor([0.25, 0.75])
    >>> torch.ops.aten._softmax_backward_data(torch.tensor([1.0, 0.0]), y, 0, torch.float32).tolist()
    [0.1875, -0.1875]
"""
from __future__ import annotations

import types

import jax.numpy as jnp

from .._creation import empty
from .._dtype import to_dtype, uint8
from ._util import dispatch, register
from .native_norms import native_batch_norm
from .resample import upsample_aa

__all__ = ["ATEN"]

ATEN = types.SimpleNamespace()  # the "aten" namespace of the op table (see torchlike.library._OpNamespace)


def _softmax_backward_impl(grad, out, *, dim, dtype):
    g = grad.astype(jnp.float32) if grad.dtype in (jnp.float16, jnp.bfloat16) else grad
    o = out.astype(g.dtype)
    r = o * (g - jnp.sum(g * o, axis=dim, keepdims=True))
    return r.astype(dtype)


@register(namespaces=("aten",), method=False)
def _softmax_backward_data(grad_output, output, dim, input_dtype):
    """The gradient of ``softmax`` from its output: ``output * (grad - sum(grad * output, dim))`` in
    ``input_dtype``.

    >>> import torchlike as torch
    >>> torch.ops.aten._softmax_backward_data(torch.ones(2), torch.tensor([0.5, 0.5]), 0, torch.float32).tolist()
    [0.0, 0.0]
    """
    d = int(dim)
    nd = max(grad_output.ndim, 1)
    if not -nd <= d < nd:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-nd}, {nd - 1}], but got {d})")
    return dispatch(_softmax_backward_impl, (grad_output, output),
                    (("dim", d % nd if grad_output.ndim else None), ("dtype", to_dtype(input_dtype).np)),
                    name="SoftmaxBackwardDataBackward0")


@register(namespaces=("aten",), method=False)
def _batch_norm_with_update(input, weight, bias, running_mean, running_var, momentum, eps):
    """Training-mode batch norm that updates the running statistics in place; returns
    ``(output, save_mean, save_invstd, reserve)`` (``reserve`` is an empty uint8 tensor on CPU).

    >>> import torchlike as torch
    >>> rm, rv = torch.zeros(1), torch.ones(1)
    >>> out, m, s, r = torch.ops.aten._batch_norm_with_update(torch.tensor([[1.0], [3.0]]), None, None, rm, rv,
    ...                                                       0.5, 0.0)
    >>> m.tolist(), rm.tolist(), rv.tolist(), r.shape
    ([2.0], [1.0], [1.5], torch.Size([0]))
    """
    out, mean, invstd = native_batch_norm(input, weight, bias, running_mean, running_var, True, momentum, eps)
    return out, mean, invstd, empty(0, dtype=uint8)


@register(namespaces=("aten",), method=False)
def _upsample_bilinear2d_aa(input, output_size, align_corners, *args, scales_h=None, scales_w=None,
                            scale_factors=None):
    """Anti-aliased bilinear resize of a 4-D input, torch's two overloads: ``(input, output_size, align_corners,
    scales_h=None, scales_w=None)`` and ``.vec`` ``(input, output_size, align_corners, scale_factors)``.

    >>> import torchlike as torch
    >>> torch.ops.aten._upsample_bilinear2d_aa(torch.ones(1, 1, 4, 4), [2, 2], False).tolist()
    [[[[1.0, 1.0], [1.0, 1.0]]]]
    """
    if len(args) == 1 and (args[0] is None or isinstance(args[0], (list, tuple))):
        scale_factors = args[0]
    elif args:
        scales_h, scales_w = (tuple(args) + (None,))[:2]
    if scale_factors is not None:
        scales = tuple(float(s) for s in scale_factors)
        if output_size is None:
            output_size = [int(float(n) * s) for n, s in zip(input.shape[2:], scales)]
    else:
        scales = (scales_h, scales_w)
    return upsample_aa(input, tuple(int(s) for s in output_size), bool(align_corners), scales)


def _max_pool2d_backward_impl(grad, x, idx):
    plane = x.shape[:-2]
    g = grad.reshape(plane + (-1,))
    i = idx.reshape(plane + (-1,)).astype(jnp.int64)
    out = jnp.zeros(plane + (x.shape[-2] * x.shape[-1],), grad.dtype)
    flat_out = out.reshape(-1, out.shape[-1])
    rows = jnp.arange(flat_out.shape[0])[:, None]
    flat_out = flat_out.at[rows, i.reshape(flat_out.shape[0], -1)].add(g.reshape(flat_out.shape[0], -1))
    return flat_out.reshape(x.shape)  # ``self`` gives only the shape: its gradient is zero, as torch's


@register(namespaces=("aten",), method=False)
def max_pool2d_with_indices_backward(grad_output, self, kernel_size, stride, padding, dilation, ceil_mode, indices):
    """The gradient of ``max_pool2d``: each output gradient added at the input position its index names (flat
    over H*W, per plane).

    >>> import torchlike as torch
    >>> x = torch.tensor([[[1., 4.], [3., 2.]]])
    >>> y, i = torch.nn.functional.max_pool2d(x, 2, return_indices=True)
    >>> torch.ops.aten.max_pool2d_with_indices_backward(torch.ones(1, 1, 1), x, [2, 2], [2, 2], [0, 0], [1, 1],
    ...                                                 False, i).tolist()
    [[[0.0, 1.0], [0.0, 0.0]]]
    """
    return dispatch(_max_pool2d_backward_impl, (grad_output, self, indices), (),
                    name="MaxPool2DWithIndicesBackwardBackward0")
