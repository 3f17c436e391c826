"""torch.distributed._functional_collectives: out-of-place collectives that return a new tensor and are
differentiable, the form torch.compile-friendly code (Hugging Face transformers' expert parallelism, diffusers'
context parallelism, litgpt's tensor parallelism) calls.

A group is a ``ProcessGroup``, its ``group_name``, a 1-D ``DeviceMesh``, ``(DeviceMesh, dim)`` or a list of the
ranks of a group made before (the world, ``new_group``, a mesh's dimension; deprecated in torch, with its
FutureWarning).  ``reduceOp`` is a string (``"sum"``, ``"avg"``, ``"max"``, ... in any case).  Each collective
runs on torchlike.distributed's own (JAX) collectives and has finished when it returns: the result is a plain
tensor, which ``wait_tensor`` returns as it is (torch returns an ``AsyncCollectiveTensor`` that waits on first use;
see docs/differences.md).  Gradients are torch's: an all-reduce's is the all-reduce of the output's gradient
(``"sum"`` only), an all-gather's the sum-reduce-scatter of it and the reverse, an all-to-all's the all-to-all
with the split sizes swapped.

>>> import torchlike as torch, torchlike.distributed as dist
>>> import torchlike.distributed._functional_collectives as funcol
>>> dist.init_process_group("gloo", rank=0, world_size=1, init_method="tcp://127.0.0.1:0")
>>> x = torch.ones(2, 3, requires_grad=True)
>>> y = funcol.all_reduce(x * 2, "sum", dist.group.WORLD)
>>> funcol.wait_tensor(y).sum().backward(); x.grad
tensor([[2., 2., 2.],
        [2., 2., 2.]])
>>> funcol.all_gather_single(torch.arange(3.), 0, dist.group.WORLD)
tensor([0., 1., 2.])
>>> dist.destroy_process_group()
"""
from __future__ import annotations

import warnings

from .. import _creation
from .._ops import shape as _shape_ops
from ..autograd.function import Function
from ..compiler import is_compiling
from ..tensor import Tensor
from . import _collectives as _c
from . import _process_group as _pg
from ._reduce_op import ReduceOp
from .device_mesh import DeviceMesh

__all__ = ["AsyncCollectiveTensor", "all_gather_into_tensor_coalesced", "all_gather_single",
           "all_gather_single_autograd", "all_gather_single_coalesced", "all_gather_tensor",
           "all_gather_tensor_autograd", "all_reduce", "all_reduce_coalesced", "all_to_all_single",
           "all_to_all_single_autograd", "broadcast", "permute_tensor", "reduce_scatter_single",
           "reduce_scatter_single_autograd", "reduce_scatter_single_coalesced", "reduce_scatter_tensor",
           "reduce_scatter_tensor_autograd", "reduce_scatter_tensor_coalesced", "wait_tensor"]

_OPS = {"sum": ReduceOp.SUM, "avg": ReduceOp.AVG, "product": ReduceOp.PRODUCT, "min": ReduceOp.MIN,
        "max": ReduceOp.MAX, "band": ReduceOp.BAND, "bor": ReduceOp.BOR, "bxor": ReduceOp.BXOR}


class AsyncCollectiveTensor(Tensor):
    """torch's wrapper of a collective's pending result.  torchlike's collectives have finished when they
    return plain tensors, so none is made by them; code that checks ``isinstance(t, AsyncCollectiveTensor)``
    before ``t.wait()`` (diffusers) takes its plain-tensor branch."""

    def wait(self):
        return self

    def trigger_wait(self):
        return self


def wait_tensor(tensor):
    """Wait for a collective's result: torchlike's have finished, so ``tensor`` itself."""
    return tensor


def _reduce_op(name):
    op = _OPS.get(name.lower()) if isinstance(name, str) else None
    if op is None:
        raise RuntimeError(f"Unrecognized reduce_op: {str(name).lower()}")
    return op


def _resolve(group):
    """The ProcessGroup that ``group`` (any of torch's RANK_TYPES) names."""
    if isinstance(group, _pg.ProcessGroup):
        return group
    if isinstance(group, DeviceMesh):
        if group.ndim != 1:
            raise AssertionError("Only 1D mesh is supported, pass in (DeviceMesh, int) together if mesh > 1D")
        return group.get_group()
    if isinstance(group, tuple):
        if len(group) == 2 and isinstance(group[0], DeviceMesh) and isinstance(group[1], int):
            return group[0].get_group(group[1])
        raise ValueError("Invalid tuple for group must be (DeviceMesh, int). Instead got "
                         f"{tuple(type(g) for g in group[:2])}")
    if isinstance(group, str):
        g = _pg._registered.get(group)
        if g is None:
            raise ValueError(f"Could not resolve the process group registered under the name {group}")
        return g
    if isinstance(group, list):
        if not is_compiling():
            warnings.warn("The combination of ranks + tag as process group identifier has been deprecated. "
                          "Please switch to using ProcessGroup, DeviceMesh, or group name instead.",
                          FutureWarning, stacklevel=3)  # (the line that called the collective, as torch's)
        _pg._need()
        ranks = tuple(sorted(int(r) for r in group))
        g = _pg._registered.get(ranks)
        if g is None:
            if ranks == tuple(range(_pg._state["world"])):
                return _pg.group.WORLD
            raise ValueError(f"Could not resolve the process group of ranks {list(group)}: make it first "
                             "(new_group or a DeviceMesh)")
        return g
    raise ValueError(f"Unsupported group type: {type(group)}, {group}")


def _deprecated(old, new):
    if not is_compiling():
        warnings.warn(f"`torch.distributed._functional_collectives.{old}` is deprecated. "
                      f"Please use `torch.distributed._functional_collectives.{new}` instead.",
                      FutureWarning, stacklevel=3)


# torch records every functional collective's result behind one autograd node type; its name, as torch prints it
_NODE = "GeneratedBackwardFor__c10d_functional__wrap_tensor_autograd_default"


def _node(name, forward, backward):
    return type(_NODE, (Function,), {"forward": staticmethod(forward), "backward": staticmethod(backward),
                                     "__qualname__": _NODE, "__doc__": f"The autograd node of {name}."})


def _all_reduce_fw(ctx, x, op, name, g):
    ctx.op, ctx.name, ctx.g = op, name, g
    out = x.contiguous().clone()
    _c.all_reduce(out, op, g)
    return out


def _all_reduce_bw(ctx, grad):
    if ctx.op != ReduceOp.SUM:
        raise RuntimeError(f"all_reduce backward only supports 'sum' reduction, got '{ctx.name}'")
    return _AllReduce.apply(grad, ReduceOp.SUM, ctx.name, ctx.g), None, None, None


def _broadcast_fw(ctx, x, src, g):
    out = x.contiguous().clone()
    _c.broadcast(out, _pg.get_global_rank(g, src), g)
    return out


def _broadcast_bw(ctx, grad):
    return grad, None, None


def _gather_fw(ctx, x, g):
    ctx.g = g
    n = g.size()
    x = x.contiguous()
    out = _creation.empty((x.shape[0] * n,) + tuple(x.shape[1:]) if x.dim() else (n,), dtype=x.dtype,
                          device=x.device)
    _c.all_gather_single(out, x, g)
    return out


def _gather_bw(ctx, grad):
    return _ReduceScatter.apply(grad, ReduceOp.SUM, "sum", ctx.g), None


def _reduce_scatter_fw(ctx, x, op, name, g):
    ctx.op, ctx.name, ctx.g = op, name, g
    x = x.contiguous()
    out = _creation.empty((x.shape[0] // g.size(),) + tuple(x.shape[1:]), dtype=x.dtype, device=x.device)
    _c.reduce_scatter_single(out, x, op, g)
    return out


def _reduce_scatter_bw(ctx, grad):
    if ctx.op != ReduceOp.SUM:
        raise RuntimeError(f"reduce_scatter_tensor backward only supports 'sum' reduction, got '{ctx.name}'")
    return _AllGather.apply(grad, ctx.g), None, None, None


def _all_to_all_fw(ctx, x, out_sizes, in_sizes, g):
    ctx.sizes, ctx.g = (out_sizes, in_sizes), g
    x = x.contiguous()
    out = _creation.empty((sum(out_sizes),) + tuple(x.shape[1:]), dtype=x.dtype, device=x.device)
    _c.all_to_all_single(out, x, list(out_sizes), list(in_sizes), g)
    return out


def _all_to_all_bw(ctx, grad):
    out_sizes, in_sizes = ctx.sizes
    return _AllToAll.apply(grad, in_sizes, out_sizes, ctx.g), None, None, None


_AllReduce = _node("all_reduce", _all_reduce_fw, _all_reduce_bw)
_Broadcast = _node("broadcast", _broadcast_fw, _broadcast_bw)
_AllGather = _node("all_gather_into_tensor", _gather_fw, _gather_bw)
_ReduceScatter = _node("reduce_scatter_tensor", _reduce_scatter_fw, _reduce_scatter_bw)
_AllToAll = _node("all_to_all_single", _all_to_all_fw, _all_to_all_bw)


def broadcast(self: Tensor, src: int, group, tag: str = ""):
    """Rank ``src`` (its rank in ``group``)'s tensor, on every rank of ``group``; the input is left as it is."""
    return _Broadcast.apply(self, src, _resolve(group))


def all_reduce(self: Tensor, reduceOp: str, group, tag: str = ""):
    """The reduction of ``self`` over ``group``'s ranks, a new tensor (the input is left as it is)."""
    g = _resolve(group)
    return _AllReduce.apply(self, _reduce_op(reduceOp), reduceOp.lower(), g)


def all_gather_single(self: Tensor, gather_dim: int, group, tag: str = ""):
    """Every rank's ``self``, concatenated along ``gather_dim`` in rank order."""
    g = _resolve(group)
    out = _AllGather.apply(self, g)
    if gather_dim != 0:
        out = _shape_ops.cat(out.chunk(g.size(), 0), gather_dim)
    return out


def all_gather_single_autograd(self: Tensor, gather_dim: int, group, tag: str = ""):
    """:func:`all_gather_single` (which is differentiable)."""
    return all_gather_single(self, gather_dim, group, tag)


def reduce_scatter_single(self: Tensor, reduceOp: str, scatter_dim: int, group, tag: str = ""):
    """The reduction over ``group`` of ``self``, cut into ``group.size()`` blocks along ``scatter_dim``: this
    rank's block."""
    g = _resolve(group)
    n = g.size()
    if self.size(scatter_dim) % n != 0:
        raise AssertionError(f"input dimension 0 ({self.size(0)} must be a multiple of group_size {n})")
    op = _reduce_op(reduceOp)
    if scatter_dim != 0:
        self = _shape_ops.cat(self.chunk(n, scatter_dim), 0)
    return _ReduceScatter.apply(self, op, reduceOp.lower(), g)


def reduce_scatter_single_autograd(self: Tensor, reduceOp: str, scatter_dim: int, group, tag: str = ""):
    """:func:`reduce_scatter_single` (which is differentiable)."""
    return reduce_scatter_single(self, reduceOp, scatter_dim, group, tag)


def all_gather_tensor(self: Tensor, gather_dim: int, group, tag: str = ""):
    """Deprecated name of :func:`all_gather_single`."""
    _deprecated("all_gather_tensor", "all_gather_single")
    return all_gather_single(self, gather_dim, group, tag)


def all_gather_tensor_autograd(self: Tensor, gather_dim: int, group, tag: str = ""):
    """Deprecated name of :func:`all_gather_single_autograd`."""
    _deprecated("all_gather_tensor_autograd", "all_gather_single_autograd")
    return all_gather_single(self, gather_dim, group, tag)


def reduce_scatter_tensor(self: Tensor, reduceOp: str, scatter_dim: int, group, tag: str = ""):
    """Deprecated name of :func:`reduce_scatter_single`."""
    _deprecated("reduce_scatter_tensor", "reduce_scatter_single")
    return reduce_scatter_single(self, reduceOp, scatter_dim, group, tag)


def reduce_scatter_tensor_autograd(self: Tensor, reduceOp: str, scatter_dim: int, group, tag: str = ""):
    """Deprecated name of :func:`reduce_scatter_single_autograd`."""
    _deprecated("reduce_scatter_tensor_autograd", "reduce_scatter_single_autograd")
    return reduce_scatter_single(self, reduceOp, scatter_dim, group, tag)


def all_reduce_coalesced(self: list, reduceOp: str, group, tag: str = ""):
    """:func:`all_reduce` of each tensor of the list (the group resolved once, as torch's)."""
    g = _resolve(group)
    return [all_reduce(t, reduceOp, g, tag) for t in self]


def all_gather_single_coalesced(self: list, group, tag: str = ""):
    """:func:`all_gather_single` along dim 0 of each tensor of the list (the group resolved once)."""
    g = _resolve(group)
    return [all_gather_single(t, 0, g, tag) for t in self]


def all_gather_into_tensor_coalesced(self: list, group, tag: str = ""):
    """Deprecated name of :func:`all_gather_single_coalesced`."""
    _deprecated("all_gather_into_tensor_coalesced", "all_gather_single_coalesced")
    return all_gather_single_coalesced(self, group, tag)


def reduce_scatter_single_coalesced(inputs: list, reduceOp: str, scatter_dim: list, group, tag: str = ""):
    """:func:`reduce_scatter_single` of each tensor of ``inputs`` along its ``scatter_dim``."""
    g = _resolve(group)
    n = g.size()
    if len(scatter_dim) != len(inputs):
        raise AssertionError(f"Length of scatter_dim ({len(scatter_dim)}) must equal length of inputs "
                             f"({len(inputs)})")
    for idx, (dim, t) in enumerate(zip(scatter_dim, inputs)):
        if t.size(dim) % n != 0:
            raise AssertionError(f"input dimension {dim} ({t.size(dim)} must be a multiple of group_size {n} "
                                 f"for tensor at index {idx}")
    return [reduce_scatter_single(t, reduceOp, dim, g, tag) for dim, t in zip(scatter_dim, inputs)]


def reduce_scatter_tensor_coalesced(inputs: list, reduceOp: str, scatter_dim: list, group, tag: str = ""):
    """Deprecated name of :func:`reduce_scatter_single_coalesced`."""
    _deprecated("reduce_scatter_tensor_coalesced", "reduce_scatter_single_coalesced")
    return reduce_scatter_single_coalesced(inputs, reduceOp, scatter_dim, group, tag)


def _split_sizes(name, sizes):
    if sizes is not None and not all(isinstance(v, int) for v in sizes):
        raise AssertionError(f"All {name} must be int or SymInt, got {sizes}")


def all_to_all_single(self: Tensor, output_split_sizes, input_split_sizes, group, tag: str = ""):
    """Rows ``input_split_sizes[j]`` of ``self`` (dim 0) go to rank j; the rows received from every rank,
    concatenated in rank order (even blocks when both split lists are None)."""
    _split_sizes("output_split_sizes", output_split_sizes)
    _split_sizes("input_split_sizes", input_split_sizes)
    g = _resolve(group)
    n = g.size()
    if output_split_sizes is None or input_split_sizes is None:
        if not (output_split_sizes is None and input_split_sizes is None):
            raise AssertionError("output_split_sizes and input_split_sizes must either be specified together or "
                                 "both set to None")
        output_split_sizes = input_split_sizes = [self.shape[0] // n] * n
    return _AllToAll.apply(self, tuple(output_split_sizes), tuple(input_split_sizes), g)


def all_to_all_single_autograd(self: Tensor, output_split_sizes, input_split_sizes, group, tag: str = ""):
    """:func:`all_to_all_single` (which is differentiable)."""
    return all_to_all_single(self, output_split_sizes, input_split_sizes, group, tag)


def permute_tensor(self: Tensor, src_dst: list, group, tag: str = ""):
    """Rank m's ``self`` sent to rank ``src_dst[m]`` (ranks in ``group``); what this rank receives.  The split
    sizes count elements as torch's do, so tensors of more than one dimension need one row per element."""
    g = _resolve(group)
    me = g.rank()
    out_sizes, in_sizes = [0] * g.size(), [0] * g.size()
    for src, dst in enumerate(src_dst):
        if src == me:
            in_sizes[dst] = self.numel()
        if dst == me:
            out_sizes[src] = self.numel()
    return all_to_all_single(self, out_sizes, in_sizes, g, tag)
