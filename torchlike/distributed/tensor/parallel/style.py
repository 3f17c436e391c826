"""Tensor-parallel styles (``torch.distributed.tensor.parallel.style``) on torchlike's DTensor.

Parameters become shard-backed DTensors (each rank keeps its ``torch.chunk`` piece: ``Shard(0)`` rows for
column-parallel, ``Shard(1)`` columns for row-parallel, ``Replicate`` for the rest), so ``named_parameters``,
``state_dict``, ``.grad`` (a DTensor with the parameter's placements) and optimizers see what torch's show.
Around the module's forward the local pieces are computed with plain tensors, and the layouts change by the
differentiable collectives of ``_comm`` (Megatron's f/g): a column-parallel input is replicated forward and
its gradient all-reduced; a row-parallel output is all-reduced (or reduce-scattered for sequence parallelism)
forward. Activations between modules are local tensors (torch's ``use_local_output=True``, the default of
Colwise/Rowwise); a style asked for DTensor outputs (``use_local_output=False`` on Colwise/Rowwise) raises.
"""
from __future__ import annotations

from ... import _collectives
from ...._grad_mode import no_grad
from ....nn.parameter import Parameter
from ....tensor import Tensor
from .._dtensor import DTensor
from ..placement_types import Replicate, Shard
from . import _comm
from ....nn import Embedding, Linear

__all__ = ["ColwiseParallel", "ParallelStyle", "PrepareModuleInput", "PrepareModuleInputOutput",
           "PrepareModuleOutput", "RowwiseParallel", "SequenceParallel"]


class ParallelStyle:
    """Base of the styles ``parallelize_module`` applies (``_apply(module, device_mesh)``)."""

    src_data_rank = 0

    def _apply(self, module, device_mesh):
        raise NotImplementedError


class _Params:
    """A module's parameters as shard-backed DTensors, swapped for plain leaves around its forward."""

    def __init__(self, mesh):
        self.mesh, self.entries, self.saved = mesh, [], None  # entries: (name, DTensor, reduce_grad)

    def place(self, module, name, placement, reduce_grad=False, src_rank=0):
        p = module._parameters.get(name)
        if p is None:
            return
        full = p.detach().clone()
        n, r = self.mesh.size(), self.mesh.get_local_rank()
        if n > 1:
            group = self.mesh.get_group()
            ranks = getattr(group, "ranks", None)  # broadcast's src is a global rank
            _collectives.broadcast(full, ranks[src_rank] if ranks else src_rank, group=group)
        local = full.chunk(n, placement.dim)[r].clone() if isinstance(placement, Shard) else full
        d = DTensor._from_shard(local, self.mesh, (placement,), tuple(full.shape), p.requires_grad)
        d.__dict__["_is_param"] = True
        module._parameters[name] = d
        self.entries.append((name, d, reduce_grad))

    def swap_in(self, module, drop=()):
        self.saved = {}
        for name, d, reduce_grad in self.entries:
            leaf = Parameter(Tensor._wrap(d._value, d._dev), requires_grad=d.requires_grad)
            if d.requires_grad:
                leaf.register_post_accumulate_grad_hook(lambda t, d=d, rg=reduce_grad: self._grad(d, t, rg))
            self.saved[name] = leaf
            module._parameters[name] = None if name in drop else leaf
        return self.saved

    def swap_out(self, module):
        for name, d, _ in self.entries:
            module._parameters[name] = d

    def _grad(self, d, leaf, reduce_grad):
        g, leaf.grad = leaf.grad, None
        if g is None:
            return
        g = g.detach()
        if reduce_grad and self.mesh.size() > 1:
            g = g.clone()
            _collectives.all_reduce(g, group=self.mesh.get_group())
        if d._grad is None:
            d._grad = DTensor._from_shard(g, d.device_mesh, d.placements, d.__dict__["_gshape"])
        else:
            with no_grad():
                d._grad._set_value(d._grad._value + g._value)


def _ctx(mesh):
    return mesh.get_group(), mesh.size(), mesh.get_local_rank()


def _local(x):
    return x.to_local() if isinstance(x, DTensor) else x


def _convert(x, src, dst, mesh, reduce_grad=False):
    """Local tensor ``x`` laid out as ``src`` -> laid out as ``dst`` (differentiably)."""
    if not isinstance(x, Tensor) or src is None or dst is None:
        return x
    x = _local(x)
    group, n, rank = _ctx(mesh)
    if n == 1 or src == dst or (isinstance(src, Shard) and isinstance(dst, Shard)
                               and src.dim % x.ndim == dst.dim % x.ndim):
        return x
    if isinstance(src, Shard) and isinstance(dst, Replicate):
        if reduce_grad:
            return _comm.gather_fwd_reduce_scatter_bwd(x, src.dim, group, n, rank)
        return _comm.all_gather_dim(x, src.dim, group, n, rank)
    if isinstance(src, Replicate) and isinstance(dst, Shard):
        return _comm.chunk_dim(x, dst.dim, group, n, rank)
    raise NotImplementedError(f"torchlike's tensor parallelism does not convert {src} to {dst}")


def _check_local(style, use_local_output):
    if not use_local_output:
        raise NotImplementedError(f"{style}(use_local_output=False): torchlike's tensor parallelism hands local "
                                  f"tensors between modules (DTensor activations are not produced)")


def _module_kind(module):
    if isinstance(module, Linear):
        return "linear"
    if isinstance(module, Embedding):
        return "embedding"
    raise NotImplementedError(f"torchlike's tensor-parallel styles support nn.Linear and nn.Embedding, "
                              f"got {type(module).__name__}")


class ColwiseParallel(ParallelStyle):
    """Shard a Linear's output features (weight/bias ``Shard(0)``) or an Embedding's dim (``Shard(1)``).

    >>> ColwiseParallel()
    ColwiseParallel(input_layouts=(Replicate(),), output_layouts=(Shard(dim=-1),), use_local_output=True)
    """

    def __init__(self, *, input_layouts=None, output_layouts=None, use_local_output=True):
        self.input_layouts = (input_layouts or Replicate(),)
        self.output_layouts = (output_layouts or Shard(-1),)
        self.desired_input_layouts = (Replicate(),)
        self.use_local_output = use_local_output

    def __repr__(self):
        return (f"{type(self).__name__}(input_layouts={self.input_layouts}, output_layouts={self.output_layouts}, "
                f"use_local_output={self.use_local_output})")

    def _apply(self, module, device_mesh):
        _check_local(type(self).__name__, self.use_local_output)
        kind = _module_kind(module)
        params = _Params(device_mesh)
        if kind == "linear":
            params.place(module, "weight", Shard(0), src_rank=self.src_data_rank)
            params.place(module, "bias", Shard(0), src_rank=self.src_data_rank)
        else:
            params.place(module, "weight", Shard(1), src_rank=self.src_data_rank)
        src, out_layout = self.input_layouts[0], self.output_layouts[0]

        def pre(mod, args):
            params.swap_in(mod)
            x = args[0]
            if kind == "linear":
                group = device_mesh.get_group()
                x = _local(x)
                if isinstance(src, Replicate):
                    x = _comm.all_reduce_bwd(x, group) if device_mesh.size() > 1 else x
                else:
                    x = _convert(x, src, Replicate(), device_mesh, reduce_grad=True)
            return (x,) + tuple(args[1:])

        def post(mod, args, out):
            params.swap_out(mod)
            if isinstance(out_layout, Shard) and out_layout.dim % out.ndim == out.ndim - 1:
                return out
            return _convert(out, Shard(-1), out_layout, device_mesh)

        module.register_forward_pre_hook(pre)
        module.register_forward_hook(post)
        return module


class RowwiseParallel(ParallelStyle):
    """Shard a Linear's input features (weight ``Shard(1)``, bias ``Replicate``), or an Embedding's vocabulary
    (weight ``Shard(0)``); the partial outputs are all-reduced (``output_layouts=Replicate()``) or
    reduce-scattered (``Shard(d)``).

    >>> RowwiseParallel(output_layouts=Shard(1))
    RowwiseParallel(input_layouts=(Shard(dim=-1),), output_layouts=(Shard(dim=1),), use_local_output=True)
    """

    def __init__(self, *, input_layouts=None, output_layouts=None, use_local_output=True):
        self.input_layouts = (input_layouts or Shard(-1),)
        self.output_layouts = (output_layouts or Replicate(),)
        self.use_local_output = use_local_output

    __repr__ = ColwiseParallel.__repr__

    def _apply(self, module, device_mesh):
        _check_local(type(self).__name__, self.use_local_output)
        if _module_kind(module) == "embedding":
            return self._apply_embedding(module, device_mesh)
        params = _Params(device_mesh)
        out_layout = self.output_layouts[0]
        params.place(module, "weight", Shard(1), src_rank=self.src_data_rank)
        params.place(module, "bias", Replicate(), reduce_grad=isinstance(out_layout, Shard),
                     src_rank=self.src_data_rank)
        src = self.input_layouts[0]
        leaves = {}

        def pre(mod, args):
            leaves.update(params.swap_in(mod, drop=("bias",)))  # the bias is added once, after the reduction
            return (_convert(_local(args[0]), src, Shard(-1), device_mesh),) + tuple(args[1:])

        def post(mod, args, out):
            params.swap_out(mod)
            group, n, _ = _ctx(device_mesh)
            if n > 1:
                if isinstance(out_layout, Replicate):
                    out = _comm.all_reduce_fwd(out, group)
                else:
                    out = _comm.reduce_scatter_dim(out, out_layout.dim, group, n)
            bias = leaves.pop("bias", None)
            return out if bias is None else out + bias

        module.register_forward_pre_hook(pre)
        module.register_forward_hook(post)
        return module


    def _apply_embedding(self, module, device_mesh):
        """Vocabulary-parallel embedding: rank r holds rows [start, end) of the table; ids outside look up row 0
        and are zeroed, then the partial rows are all-reduced (or reduce-scattered to ``Shard(d)``)."""
        params = _Params(device_mesh)
        out_layout = self.output_layouts[0]
        n, r = device_mesh.size(), device_mesh.get_local_rank()
        vocab = module.weight.shape[0]
        step = -(-vocab // n)
        start, end = min(r * step, vocab), min((r + 1) * step, vocab)
        params.place(module, "weight", Shard(0), src_rank=self.src_data_rank)
        src = self.input_layouts[0]
        masks = []

        def pre(mod, args):
            params.swap_in(mod)
            ids = _convert(_local(args[0]), src, Replicate(), device_mesh)
            inside = (ids >= start) & (ids < end)
            masks.append(inside)
            return ((ids - start) * inside,) + tuple(args[1:])

        def post(mod, args, out):
            params.swap_out(mod)
            out = out * masks.pop().unsqueeze(-1).to(out.dtype)
            group, n, _ = _ctx(device_mesh)
            if n == 1:
                return out
            if isinstance(out_layout, Replicate):
                return _comm.all_reduce_fwd(out, group)
            return _comm.reduce_scatter_dim(out, out_layout.dim, group, n)

        module.register_forward_pre_hook(pre)
        module.register_forward_hook(post)
        return module


class SequenceParallel(ParallelStyle):
    """Replicate a norm/dropout-like module's parameters and run it on each rank's slice of the sequence dim
    (``sequence_dim``); the parameters' gradients are summed over ranks.

    >>> SequenceParallel().sequence_sharding
    (Shard(dim=1),)
    """

    def __init__(self, *, sequence_dim=1, use_local_output=False):
        self.sequence_sharding = (Shard(sequence_dim),)
        self.use_local_output = use_local_output

    def _apply(self, module, device_mesh):
        params = _Params(device_mesh)
        for name in list(module._parameters):
            params.place(module, name, Replicate(), reduce_grad=True, src_rank=self.src_data_rank)
        module.register_forward_pre_hook(lambda mod, args: (params.swap_in(mod), tuple(_local(a) for a in args))[1])
        module.register_forward_hook(lambda mod, args, out: params.swap_out(mod))
        return module


class PrepareModuleInput(ParallelStyle):
    """Convert a module's positional (and keyword) inputs from ``input_layouts`` to ``desired_input_layouts``
    before its forward.

    >>> PrepareModuleInput(input_layouts=Shard(1), desired_input_layouts=Replicate()).desired_input_layouts
    (Replicate(),)
    """

    def __init__(self, *, input_layouts=None, desired_input_layouts=None, input_kwarg_layouts=None,
                 desired_input_kwarg_layouts=None, use_local_output=False):
        def tup(x):
            return None if x is None else (tuple(x) if isinstance(x, (tuple, list)) else (x,))
        self.input_layouts, self.desired_input_layouts = tup(input_layouts), tup(desired_input_layouts)
        if (self.input_layouts is None) != (self.desired_input_layouts is None) or (
                self.input_layouts is not None and len(self.input_layouts) != len(self.desired_input_layouts)):
            raise AssertionError("input_layouts and desired_input_layouts should have same length!")
        self.input_kwarg_layouts = input_kwarg_layouts or {}
        self.desired_input_kwarg_layouts = desired_input_kwarg_layouts or {}
        self.use_local_output = use_local_output

    def _prepare(self, args, kwargs, mesh):
        if self.input_layouts is not None:
            args = tuple(_convert(a, s, d, mesh) if i < len(self.input_layouts) else a
                         for i, (a, s, d) in enumerate(zip(args, self.input_layouts + (None,) * len(args),
                                                            self.desired_input_layouts + (None,) * len(args))))
        kwargs = {k: _convert(v, self.input_kwarg_layouts.get(k), self.desired_input_kwarg_layouts.get(k), mesh)
                  for k, v in kwargs.items()}
        return args, kwargs

    def _apply(self, module, device_mesh):
        module.register_forward_pre_hook(lambda mod, args, kwargs: self._prepare(args, kwargs, device_mesh),
                                         with_kwargs=True)
        return module


class PrepareModuleOutput(ParallelStyle):
    """Convert a module's outputs from ``output_layouts`` to ``desired_output_layouts`` after its forward.

    >>> PrepareModuleOutput(output_layouts=Replicate(), desired_output_layouts=Shard(1)).output_layouts
    (Replicate(),)
    """

    def __init__(self, *, output_layouts, desired_output_layouts, use_local_output=True):
        self.output_layouts = tuple(output_layouts) if isinstance(output_layouts, (tuple, list)) else (output_layouts,)
        self.desired_output_layouts = (tuple(desired_output_layouts) if isinstance(desired_output_layouts,
                                                                                   (tuple, list))
                                       else (desired_output_layouts,))
        if len(self.output_layouts) != len(self.desired_output_layouts):
            raise AssertionError("output_layouts and desired_output_layouts should have same length!")
        self.use_local_output = use_local_output

    def _prepare(self, out, mesh):
        if isinstance(out, Tensor):
            return _convert(out, self.output_layouts[0], self.desired_output_layouts[0], mesh)
        return type(out)(_convert(o, s, d, mesh)
                         for o, s, d in zip(out, self.output_layouts, self.desired_output_layouts))

    def _apply(self, module, device_mesh):
        module.register_forward_hook(lambda mod, args, out: self._prepare(out, device_mesh))
        return module


class PrepareModuleInputOutput(ParallelStyle):
    """:class:`PrepareModuleInput` and :class:`PrepareModuleOutput` on one module.

    >>> PrepareModuleInputOutput(input_layouts=Shard(0), desired_input_layouts=Replicate(),
    ...                          output_layouts=Replicate(), desired_output_layouts=Shard(0)).prepare_module_input.input_layouts
    (Shard(dim=0),)
    """

    def __init__(self, *, input_layouts=None, desired_input_layouts=None, input_kwarg_layouts=None,
                 desired_input_kwarg_layouts=None, use_local_input=False, output_layouts, desired_output_layouts,
                 use_local_output=True):
        self.prepare_module_input = PrepareModuleInput(
            input_layouts=input_layouts, desired_input_layouts=desired_input_layouts,
            input_kwarg_layouts=input_kwarg_layouts, desired_input_kwarg_layouts=desired_input_kwarg_layouts,
            use_local_output=use_local_input)
        self.prepare_module_output = PrepareModuleOutput(
            output_layouts=output_layouts, desired_output_layouts=desired_output_layouts,
            use_local_output=use_local_output)

    def _apply(self, module, device_mesh):
        self.prepare_module_input._apply(module, device_mesh)
        self.prepare_module_output._apply(module, device_mesh)
        return module
