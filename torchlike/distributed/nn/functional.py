"""torch.distributed.nn.functional: out-of-place collectives recorded on the autograd graph.

Each one is an ``autograd.Function`` whose backward is the adjoint collective, as in torch: ``all_reduce``'s is an
``all_reduce`` of the gradients, ``broadcast``'s a ``reduce`` to the source, ``gather``'s a ``scatter``, ...

>>> import torchlike as torch, torchlike.distributed as dist
>>> from torchlike.distributed.nn import functional as F
>>> dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
>>> x = torch.ones(2, requires_grad=True)
>>> (F.all_reduce(x * 3) ** 2).sum().backward()
>>> x.grad
tensor([18., 18.])
>>> dist.destroy_process_group()
"""
from __future__ import annotations

import warnings

from ... import _creation
from ...autograd.function import Function
from ...compiler import is_compiling
from .. import _collectives as dist
from .._process_group import get_rank, get_world_size, group
from .._reduce_op import ReduceOp

__all__ = ["all_gather", "all_reduce", "all_to_all", "all_to_all_single", "broadcast", "gather", "reduce",
           "reduce_scatter", "scatter"]


def _not_under_compile(name, suggestion=None):
    if is_compiling():
        msg = f"torch.distributed.nn.functional.{name} is not supported under torch.compile."
        raise RuntimeError(msg + (f" Use {suggestion} instead." if suggestion else ""))


def _deprecated(name, suggestion):
    warnings.warn(f"torch.distributed.nn.functional.{name} is deprecated, use {suggestion} instead.",
                  category=FutureWarning, stacklevel=3)


_FC = "torch.distributed._functional_collectives."


def broadcast(tensor, src, group=group.WORLD):
    """Broadcasts ``tensor`` from rank ``src``; returns the received tensor (the input is left as it is)."""
    _not_under_compile("broadcast", _FC + "broadcast")
    _deprecated("broadcast", _FC + "broadcast")
    return _Broadcast.apply(src, group, tensor)


def gather(tensor, dst=0, group=group.WORLD):
    """Gathers ``tensor`` from every rank on ``dst``; returns a tuple of one tensor per rank."""
    _not_under_compile("gather")
    return _Gather.apply(dst, group, tensor)


def scatter(tensors, src=0, group=group.WORLD):
    """Scatters the list ``tensors`` of rank ``src``, one tensor to each rank; returns this rank's."""
    _not_under_compile("scatter")
    return _Scatter.apply(src, group, *tensors)


def reduce(tensor, dst, op=ReduceOp.SUM, group=group.WORLD):
    """Reduces ``tensor`` across ranks onto ``dst``; returns the reduction there."""
    _not_under_compile("reduce")
    return _Reduce.apply(dst, op, group, tensor)


def reduce_scatter(output, input_list, op=ReduceOp.SUM, group=group.WORLD):
    """Reduces ``input_list`` across ranks, rank i receiving the reduction of the i-th tensors in ``output``."""
    _not_under_compile("reduce_scatter", _FC + "reduce_scatter_single")
    _deprecated("reduce_scatter", _FC + "reduce_scatter_single")
    return _Reduce_Scatter.apply(op, group, output, *input_list)


def all_gather(tensor, group=group.WORLD):
    """Gathers ``tensor`` from every rank on every rank; returns a tuple of one tensor per rank."""
    _not_under_compile("all_gather", _FC + "all_gather_single")
    _deprecated("all_gather", _FC + "all_gather_single")
    return _AllGather.apply(group, tensor)


def all_to_all(output_tensor_list, input_tensor_list, group=group.WORLD):
    """Sends the i-th tensor of ``input_tensor_list`` to rank i; returns the tensors received, one per rank."""
    _not_under_compile("all_to_all")
    return _AlltoAll.apply(group, output_tensor_list, *input_tensor_list)


def all_to_all_single(output, input, output_split_sizes=None, input_split_sizes=None, group=group.WORLD):
    """``all_to_all`` of the dim-0 splits of one tensor into ``output``; returns ``output``."""
    _not_under_compile("all_to_all_single", _FC + "all_to_all_single")
    _deprecated("all_to_all_single", _FC + "all_to_all_single")
    return _AlltoAllSingle.apply(group, output, output_split_sizes, input_split_sizes, input)


def all_reduce(tensor, op=ReduceOp.SUM, group=group.WORLD):
    """Reduces ``tensor`` across ranks; returns the reduction (the input is left as it is)."""
    _not_under_compile("all_reduce", _FC + "all_reduce")
    _deprecated("all_reduce", _FC + "all_reduce")
    return _AllReduce.apply(op, group, tensor)


class _Broadcast(Function):
    @staticmethod
    def forward(ctx, src, group, tensor):
        ctx.src, ctx.group, ctx.rank = src, group, get_rank(group=group)
        tensor = tensor.clone()
        dist.broadcast(tensor, src, group=group)
        return tensor

    @staticmethod
    def backward(ctx, grad_output):
        gx = _Reduce.apply(ctx.src, ReduceOp.SUM, ctx.group, grad_output)
        if ctx.src != ctx.rank:
            gx.zero_()
        return None, None, gx


class _Gather(Function):
    @staticmethod
    def forward(ctx, dst, group, tensor):
        ctx.dst, ctx.group = dst, group
        tensor_list = [_creation.zeros_like(tensor) for _ in range(get_world_size(group=group))]
        tensor = tensor.contiguous()
        dist.gather(tensor, tensor_list if get_rank(group=group) == dst else None, dst, group=group)
        return tuple(tensor_list)

    @staticmethod
    def backward(ctx, *grad_outputs):
        return None, None, _Scatter.apply(ctx.dst, ctx.group, *grad_outputs)


class _Scatter(Function):
    @staticmethod
    def forward(ctx, src, group, *tensors):
        ctx.src, ctx.group = src, group
        if not all(t.size() == tensors[0].size() for t in tensors):
            raise AssertionError
        output = _creation.zeros_like(tensors[0])
        dist.scatter(output, list(tensors) if get_rank(group=group) == src else None, src, group=group)
        return output

    @staticmethod
    def backward(ctx, grad_output):
        return (None, None) + _Gather.apply(ctx.src, ctx.group, grad_output)


class _Reduce(Function):
    @staticmethod
    def forward(ctx, src, op, group, tensor):
        ctx.src, ctx.group = src, group
        tensor = tensor.clone()
        dist.reduce(tensor, src, op=op, group=group)
        return tensor

    @staticmethod
    def backward(ctx, grad_output):
        return None, None, None, _Broadcast.apply(ctx.src, ctx.group, grad_output)


class _Reduce_Scatter(Function):  # torch's name (grad_fn is _Reduce_ScatterBackward)
    @staticmethod
    def forward(ctx, op, group, tensor, *input_tensor_list):
        ctx.group = group
        tensor = tensor.contiguous()
        dist.reduce_scatter(tensor, [t.contiguous() for t in input_tensor_list], op=op, group=group)
        return tensor

    @staticmethod
    def backward(ctx, grad_output):
        return (None, None, None) + _AllGather.apply(ctx.group, grad_output)


class _AllGather(Function):
    @staticmethod
    def forward(ctx, group, tensor):
        tensor = tensor.contiguous()
        ctx.group = group
        out_tensor_list = [_creation.empty_like(tensor) for _ in range(get_world_size(group=group))]
        dist.all_gather(out_tensor_list, tensor, group=group)
        return tuple(out_tensor_list)

    @staticmethod
    def backward(ctx, *grad_outputs):
        # each rank's gradient is the sum over ranks of their gradient for its slot (torch's gloo path)
        gxs = _AlltoAll.apply(ctx.group, [_creation.empty_like(g) for g in grad_outputs], *grad_outputs)
        gx = gxs[0]
        for g in gxs[1:]:
            gx = gx + g
        return None, gx


class _AlltoAll(Function):
    @staticmethod
    def forward(ctx, group, out_tensor_list, *tensors):
        ctx.group = group
        ctx.input_tensor_size_list = [tensors[i].size() for i in range(get_world_size(group=group))]
        dist.all_to_all(out_tensor_list, [t.contiguous() for t in tensors], group=group)
        return tuple(out_tensor_list)

    @staticmethod
    def backward(ctx, *grad_outputs):
        g = grad_outputs[0]
        tensor_list = [_creation.empty(size, device=g.device, dtype=g.dtype) for size in ctx.input_tensor_size_list]
        return (None, None) + _AlltoAll.apply(ctx.group, tensor_list, *grad_outputs)


class _AlltoAllSingle(Function):
    @staticmethod
    def forward(ctx, group, output, output_split_sizes, input_split_sizes, input):
        ctx.group, ctx.input_size = group, input.size()
        ctx.output_split_sizes, ctx.input_split_sizes = input_split_sizes, output_split_sizes
        dist.all_to_all_single(output, input, output_split_sizes=output_split_sizes,
                               input_split_sizes=input_split_sizes, group=group)
        return output

    @staticmethod
    def backward(ctx, grad_output):
        tensor = _creation.empty(ctx.input_size, device=grad_output.device, dtype=grad_output.dtype)
        return (None, None, None, None, _AlltoAllSingle.apply(ctx.group, tensor, ctx.output_split_sizes,
                                                              ctx.input_split_sizes, grad_output.contiguous()))


class _AllReduce(Function):
    @staticmethod
    def forward(ctx, op, group, tensor):
        ctx.group, ctx.op = group, op
        tensor = tensor.contiguous().clone()
        dist.all_reduce(tensor, op=op, group=group)
        return tensor

    @staticmethod
    def backward(ctx, grad_output):
        return None, None, _AllReduce.apply(ctx.op, ctx.group, grad_output)
