"""torch._functorch.vmap: the module behind ``torch.vmap``, whose private helpers libraries import and replace.

torchlike's ``torch.vmap`` is JAX's ``vmap`` (batched values are JAX tracers, not torch's C ``BatchedTensor``). The
protocol functions torch's vmap looks up here at each call (``_process_batched_inputs``, ``_create_batched_inputs``,
``_unwrap_batched``) are torch's; when a library replaces one (tensordict does, to batch its containers), ``vmap``
runs the library's functions around ``jax.vmap`` (torchlike/func/_batch_dims.py), and ``_add_batch_dim``/
``_remove_batch_dim`` work inside it. Outside such a vmap they raise NotImplementedError.

>>> import torchlike
>>> import torchlike._functorch.vmap as vmap_src
>>> vmap_src._process_batched_inputs(0, (torchlike.ones(2, 3),), sum)[:2]
(2, [0])
"""
from __future__ import annotations

import sys

from ..tensor import Tensor
from ..func import vmap
from ..func import _batch_dims
from ..utils._pytree import _broadcast_to_and_flatten, tree_flatten, tree_unflatten

__all__ = ["Tensor", "vmap", "tree_flatten", "tree_unflatten", "_broadcast_to_and_flatten", "_get_name"]

_add_batch_dim = _batch_dims.add_batch_dim
_remove_batch_dim = _batch_dims.remove_batch_dim
_maybe_remove_batch_dim = _batch_dims.maybe_remove_batch_dim


def _get_name(func):
    """The name ``vmap``'s error messages give ``func`` (its ``__name__``, else its ``repr``)."""
    return func.__name__ if hasattr(func, "__name__") else repr(func)


def _process_batched_inputs(in_dims, args, func):
    """torch's: ``(batch_size, flat_in_dims, flat_args, args_spec)`` of a vmap call, with its checks."""
    head = f"vmap({_get_name(func)}, in_dims={in_dims}, ...)(<inputs>)"
    if not isinstance(in_dims, (int, tuple)):
        raise ValueError(f"{head}: expected `in_dims` to be int or a (potentially nested) tuple matching the "
                         f"structure of inputs, got: {type(in_dims)}.")
    if len(args) == 0:
        raise ValueError(f"vmap({_get_name(func)})(<inputs>): got no inputs. Maybe you forgot to add inputs, or you "
                         "are trying to vmap over a function with no inputs. The latter is unsupported.")
    flat_args, args_spec = tree_flatten(args)
    flat_in_dims = _broadcast_to_and_flatten(in_dims, args_spec)
    if flat_in_dims is None:
        raise ValueError(f"{head}: in_dims is not compatible with the structure of `inputs`. in_dims has structure "
                         f"{tree_flatten(in_dims)[1]} but inputs has structure {args_spec}.")
    sizes = []
    for i, (arg, in_dim) in enumerate(zip(flat_args, flat_in_dims)):
        if in_dim is None:
            continue
        if not isinstance(in_dim, int):
            raise ValueError(f"{head}: Got in_dim={in_dim} for an input but in_dim must be either an integer "
                             "dimension or None.")
        if not isinstance(arg, Tensor):
            raise ValueError(f"{head}: Got in_dim={in_dim} for an input but the input is of type {type(arg)}. We "
                             "cannot vmap over non-Tensor arguments, please use None as the respective in_dim")
        if not -arg.dim() <= in_dim < arg.dim():
            raise ValueError(f"{head}: Got in_dim={in_dim} for some input, but that input is a Tensor of "
                             f"dimensionality {arg.dim()} so expected in_dim to satisfy "
                             f"-{arg.dim()} <= in_dim < {arg.dim()}.")
        flat_in_dims[i] = in_dim % arg.dim()
        sizes.append(arg.size(flat_in_dims[i]))
    if not sizes:
        raise ValueError("vmap: Expected at least one Tensor to vmap over")
    if any(s != sizes[0] for s in sizes):
        raise ValueError(f"vmap: Expected all tensors to have the same size in the mapped dimension, got sizes "
                         f"{sizes} for the mapped dimension")
    return sizes[0], flat_in_dims, flat_args, args_spec


def _create_batched_inputs(flat_in_dims, flat_args, vmap_level, args_spec):
    """torch's: the inputs with ``_add_batch_dim`` applied where an in_dim is given."""
    batched = [arg if in_dim is None else _add_batch_dim(arg, in_dim, vmap_level)
               for in_dim, arg in zip(flat_in_dims, flat_args)]
    return tree_unflatten(batched, args_spec)


def _unwrap_batched(batched_outputs, out_dims, vmap_level, batch_size, func):
    """torch's: the outputs with their batch dimension moved to ``out_dims``."""
    flat_outputs, output_spec = tree_flatten(batched_outputs)
    if isinstance(batched_outputs, Tensor) and isinstance(out_dims, tuple) and len(out_dims) == 1:
        out_dims = out_dims[0]
    flat_out_dims = _broadcast_to_and_flatten(out_dims, output_spec)
    if flat_out_dims is None:
        raise ValueError(f"vmap({_get_name(func)}, ..., out_dims={out_dims})(<inputs>): out_dims is not compatible "
                         f"with the structure of `outputs`. out_dims has structure {tree_flatten(out_dims)[1]} but "
                         f"outputs has structure {output_spec}.")
    return tree_unflatten([_maybe_remove_batch_dim(_get_name(func), out, vmap_level, batch_size, out_dim)
                           for out, out_dim in zip(flat_outputs, flat_out_dims)], output_spec)


_batch_dims.register_protocol(sys.modules[__name__], {
    "_process_batched_inputs": _process_batched_inputs, "_create_batched_inputs": _create_batched_inputs,
    "_unwrap_batched": _unwrap_batched})
