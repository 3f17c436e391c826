"""FSDP2 (``torch.distributed.fsdp.fully_shard``) on torchlike's process groups.

``fully_shard(module)`` replaces each parameter that ``module`` manages (those not already managed by a
nested ``fully_shard``) by a shard-backed :class:`DTensor`: every rank keeps only its ``torch.chunk`` piece of
dim 0 (``Shard(0)`` on a 1-d mesh over the world). Around ``module``'s forward the pieces are all-gathered
into full parameters (one all-gather of all the unit's shards laid end to end, an XLA collective like every
collective of torchlike.distributed); when backward has accumulated a full parameter's gradient, it is reduce-scattered
(average over ranks) into the sharded parameter's ``.grad``, itself a shard-backed DTensor. The optimizer then
updates only the local shards (optimizer state is shard-sized).

Differences from torch (docs/differences.md): the gathered parameters stay referenced by the autograd graph
until backward instead of being freed after forward and re-gathered in backward (``reshard_after_forward``
changes memory, not results, in torch; here it changes neither); prefetching is a no-op; ``CPUOffloadPolicy``
is accepted (everything is on the host already).
"""
from __future__ import annotations

import numpy as np

from ... import _grad_mode
from .. import _collectives
from .._process_group import get_world_size, init_process_group, is_initialized
from .._programs import _host, _on_device, _xp
from ..device_mesh import DeviceMesh, init_device_mesh
from ..tensor._dtensor import DTensor, _shard_axis, _to_shard_backed
from ..tensor.placement_types import Replicate, Shard
from ...nn.parameter import Parameter
from ...nn.utils import clip_grad as _clip_grad
from ...tensor import Tensor

__all__ = ["CPUOffloadPolicy", "FSDPModule", "clip_grad_norm_sharded", "MixedPrecisionPolicy", "OffloadPolicy", "UnshardHandle",
           "fully_shard", "register_fsdp_forward_method"]


class MixedPrecisionPolicy:
    """Dtypes for the gathered parameters (``param_dtype``), the gradient reduction (``reduce_dtype``) and the
    module's outputs (``output_dtype``); ``cast_forward_inputs`` casts floating inputs to ``param_dtype``.

    >>> import torchlike
    >>> MixedPrecisionPolicy(param_dtype=torchlike.bfloat16).param_dtype
    torch.bfloat16
    """

    def __init__(self, param_dtype=None, reduce_dtype=None, output_dtype=None, cast_forward_inputs=True):
        self.param_dtype, self.reduce_dtype, self.output_dtype = param_dtype, reduce_dtype, output_dtype
        self.cast_forward_inputs = cast_forward_inputs

    def __repr__(self):
        return (f"MixedPrecisionPolicy(param_dtype={self.param_dtype}, reduce_dtype={self.reduce_dtype}, "
                f"output_dtype={self.output_dtype}, cast_forward_inputs={self.cast_forward_inputs})")


class OffloadPolicy:
    """No offloading (the default policy)."""


class CPUOffloadPolicy(OffloadPolicy):
    """Keep sharded parameters on the host: accepted as is (torchlike's CPU tensors already live there).

    >>> CPUOffloadPolicy().pin_memory
    True
    """

    def __init__(self, pin_memory=True):
        self.pin_memory = pin_memory


class UnshardHandle:
    """Returned by ``FSDPModule.unshard(async_op=True)``; the gather already happened: ``wait()`` returns."""

    def wait(self):
        return None


class _State:
    """What ``fully_shard`` keeps for one module: its managed parameters and the mesh they are sharded on."""

    def __init__(self, module, mesh, mp, reshard_after_forward):
        self.module, self.mesh, self.mp = module, mesh, mp
        self.reshard_after_forward = reshard_after_forward
        self.params = []  # (owner module, name, sharded DTensor)
        self.unsharded = False
        self.sync = True
        self.pending = {}  # index -> full gradient accumulated without gradient sync
        # HSDP (a 2-d mesh): shard over dim 1, replicate over dim 0 (gradients averaged over it after the
        # reduce-scatter); FSDP1's HYBRID_SHARD sets replicate_group itself over a 1-d row mesh
        self.placements = (Shard(0),) if mesh.ndim == 1 else (Replicate(), Shard(0))
        self.group, self.n, self.r = _shard_axis(mesh, self.placements)
        self.replicate_group = None if mesh.ndim == 1 else mesh.get_group(0)

    # ---- sharding ------------------------------------------------------------------------------------------
    def shard(self, owner, name, p):
        n, r = self.n, self.r
        full = p.detach()
        if full.ndim == 0:
            raise NotImplementedError("torchlike's fully_shard shards dim 0; a 0-dim parameter cannot be sharded")
        rows = -(-full.shape[0] // n)
        local = full[min(r * rows, full.shape[0]):min((r + 1) * rows, full.shape[0])].clone()
        d = DTensor._from_shard(local, self.mesh, self.placements, tuple(full.shape), p.requires_grad)
        d.__dict__["_is_param"] = True
        owner._parameters[name] = d
        self.params.append((owner, name, d))

    # ---- gather for compute, reduce-scatter the gradients ---------------------------------------------------
    def unshard(self, cast=True):
        """Gather the full parameters into the module (in ``param_dtype`` unless ``cast`` is false: FSDP1's
        ``summon_full_params`` gives them in their own dtype)."""
        if self.unsharded:
            return
        self._adopt()
        pd = self.mp.param_dtype if cast else None
        fulls = self._gather_all()
        for i, (owner, name, d) in enumerate(self.params):
            full = fulls[i]
            if pd is not None and full.is_floating_point():
                full = full.to(pd)
            leaf = Parameter(full, requires_grad=d.requires_grad)
            if d.requires_grad and _grad_mode.is_grad_enabled():
                leaf.register_post_accumulate_grad_hook(lambda t, i=i: self._reduce(i, t))
            owner._parameters[name] = leaf
        self.unsharded = True

    def _adopt(self):
        """Take over DTensor parameters assigned in place of the managed ones (``load_state_dict(sd,
        assign=True)`` with ``nn.Parameter(distribute_tensor(...))`` values, as torch's FSDP2 example does):
        they become shard-backed in place, so optimizers made over them stay valid."""
        for i, (owner, name, d) in enumerate(self.params):
            cur = owner._parameters.get(name)
            if cur is d or not isinstance(cur, DTensor):
                continue
            if cur.device_mesh != self.mesh or tuple(cur.placements) != self.placements:
                raise NotImplementedError(f"torchlike's fully_shard: parameter {name!r} was replaced by a DTensor "
                                          f"with placements {cur.placements}; it shards as {self.placements} over {self.mesh}")
            _to_shard_backed(cur)
            cur.__dict__["_is_param"] = True
            self.params[i] = (owner, name, cur)

    def _gather_all(self):
        """The full value of every managed parameter: one all-gather of all shards (padded to equal rows, laid
        end to end) when they share a dtype, else one per parameter."""
        ds = [d for _, _, d in self.params]
        if len({d._value.dtype for d in ds}) != 1 or len(ds) < 2:
            return [d.full_tensor() for d in ds]
        n = self.n
        rows = [-(-d.__dict__["_gshape"][0] // n) for d in ds]
        rests = [tuple(d.__dict__["_gshape"][1:]) for d in ds]
        sizes = [r * int(np.prod(rest, dtype=np.int64)) for r, rest in zip(rows, rests)]
        parts = []
        for d, r in zip(ds, rows):
            x = _host(d._value)  # (packing in numpy on a CPU rank: a new shape compiles nothing)
            parts.append(_xp(x).pad(x, [(0, r - x.shape[0])] + [(0, 0)] * (x.ndim - 1)).reshape(-1))
        packed = _xp(parts[0]).concatenate(parts)
        flat = Tensor._wrap(_on_device(packed), ds[0]._dev)
        out = Tensor._wrap(_on_device(_xp(packed).zeros((n * packed.shape[0],), packed.dtype)), flat._dev)
        _collectives.all_gather_single(out, flat, group=self.group)
        blocks = _host(out._value).reshape(n, -1)
        fulls, off = [], 0
        for d, r, rest, k in zip(ds, rows, rests, sizes):
            piece = blocks[:, off:off + k].reshape((n * r,) + rest)[:d.__dict__["_gshape"][0]]
            fulls.append(Tensor._wrap(_on_device(piece), d._dev))
            off += k
        return fulls

    def reshard(self):
        if not self.unsharded:
            return
        for owner, name, d in self.params:
            owner._parameters[name] = d
        self.unsharded = False

    def _reduce(self, i, leaf):
        g, leaf.grad = leaf.grad, None
        if g is None:
            return
        if i in self.pending:
            g = g + self.pending.pop(i)
        if not self.sync:
            self.pending[i] = g
            return
        _owner, _name, d = self.params[i]
        rd = self.mp.reduce_dtype
        g = g.detach().to(rd if rd is not None else g.dtype)
        n = self.n
        rows = -(-g.shape[0] // n)
        g = _pad0(g, rows * n)
        out = g.new_empty((rows,) + tuple(g.shape[1:]))
        _collectives.reduce_scatter_single(out, g.contiguous(), op=_collectives.ReduceOp.AVG,
                                           group=self.group)
        if self.replicate_group is not None:
            _collectives.all_reduce(out, op=_collectives.ReduceOp.AVG, group=self.replicate_group)
        local_rows = d._value.shape[0]
        piece = out[:local_rows].to(d.dtype)
        if d._grad is None:
            d._grad = DTensor._from_shard(piece, d.device_mesh, d.placements, d.__dict__["_gshape"])
        else:
            d._grad._set_value(d._grad._value + piece._value)

    # ---- module hooks ---------------------------------------------------------------------------------------
    def pre_forward(self, module, args):
        self.unshard()
        pd = self.mp.param_dtype
        if pd is not None and self.mp.cast_forward_inputs:
            return tuple(a.to(pd) if isinstance(a, Tensor) and a.is_floating_point() else a for a in args)
        return None

    def post_forward(self, module, args, output):
        self.reshard()
        od = self.mp.output_dtype
        if od is not None and isinstance(output, Tensor) and output.is_floating_point():
            return output.to(od)
        return None


def _pad0(t, rows):
    """``t`` with zero rows appended on dim 0 up to ``rows`` (a new Tensor; no autograd)."""
    if t.shape[0] == rows:
        return t
    x = _host(t._value)
    return Tensor._wrap(_on_device(_xp(x).pad(x, [(0, rows - x.shape[0])] + [(0, 0)] * (x.ndim - 1))), t._dev)


class FSDPModule:
    """The class ``fully_shard`` mixes into a module's class (``FSDP<Name>``), with FSDP2's module methods.

    >>> import torchlike
    >>> from torchlike.distributed.fsdp import fully_shard, FSDPModule
    >>> m = fully_shard(torchlike.nn.Linear(4, 2))
    >>> type(m).__name__, isinstance(m, FSDPModule), m.weight.placements
    ('FSDPLinear', True, (Shard(dim=0),))
    """

    def _fsdp(self):
        return self.__dict__["_torchlike_fsdp"]

    def reshard(self):
        """Free the gathered parameters: the module holds its shards again."""
        self._fsdp().reshard()

    def unshard(self, async_op=False):
        """Gather the full parameters now (they stay until ``reshard()`` or the end of the next forward)."""
        self._fsdp().unshard()
        return UnshardHandle() if async_op else None

    def set_requires_gradient_sync(self, requires_gradient_sync, *, recurse=True):
        """Without gradient sync, backward accumulates full local gradients; the next synced backward reduces
        them with its own (gradient accumulation over micro-batches)."""
        for m in (self.modules() if recurse else [self]):
            if isinstance(m, FSDPModule):
                m._fsdp().sync = bool(requires_gradient_sync)

    def set_reshard_after_forward(self, reshard_after_forward, recurse=True):
        for m in (self.modules() if recurse else [self]):
            if isinstance(m, FSDPModule):
                m._fsdp().reshard_after_forward = reshard_after_forward

    def set_reshard_after_backward(self, reshard_after_backward, *, recurse=True):
        """Accepted; the gathered parameters are always released after backward here."""

    def set_is_last_backward(self, is_last_backward):
        """Accepted (it only changes when torch frees memory)."""

    def set_modules_to_forward_prefetch(self, modules):
        """Accepted: torchlike gathers each module's parameters when its forward starts (no prefetch)."""

    def set_modules_to_backward_prefetch(self, modules):
        """Accepted: no prefetch (see ``set_modules_to_forward_prefetch``)."""

    def set_requires_all_reduce(self, requires_all_reduce, *, recurse=True):
        """Accepted (only meaningful for HSDP's replicate dimension, which torchlike does not build)."""

    def set_post_optim_event(self, event):
        """Accepted (no CUDA events here)."""

    def set_reduce_scatter_divide_factor(self, factor):
        raise NotImplementedError("torchlike's fully_shard averages gradients over the ranks; a custom divide "
                                  "factor is not implemented")


_CLASSES = {}


def _fsdp_class(cls):
    if issubclass(cls, FSDPModule):
        return cls
    if cls not in _CLASSES:
        _CLASSES[cls] = type(f"FSDP{cls.__name__}", (FSDPModule, cls), {"__module__": cls.__module__})
    return _CLASSES[cls]


def _default_mesh():
    if not is_initialized():
        init_process_group()
    return init_device_mesh("cpu", (get_world_size(),))


def fully_shard(module, *, mesh=None, reshard_after_forward=None, shard_placement_fn=None, mp_policy=None,
                offload_policy=None, ignored_params=None):
    """Shard ``module``'s parameters on dim 0 over ``mesh`` (default: all ranks), FSDP2 style; returns
    ``module``, whose class becomes ``FSDP<Name>`` (also an :class:`FSDPModule`).

    Apply it to the blocks first, then to the root: each call manages the parameters that no nested call
    manages.

    >>> import torchlike
    >>> from torchlike.distributed.fsdp import fully_shard
    >>> net = torchlike.nn.Sequential(torchlike.nn.Linear(3, 4), torchlike.nn.Linear(4, 1))
    >>> _ = fully_shard(net[0]); _ = fully_shard(net)
    >>> net(torchlike.ones(2, 3)).shape, type(net[1].weight).__name__
    (torch.Size([2, 1]), 'DTensor')
    """
    if isinstance(module, (list, tuple)):
        for m in module:
            fully_shard(m, mesh=mesh, reshard_after_forward=reshard_after_forward, mp_policy=mp_policy,
                        offload_policy=offload_policy, ignored_params=ignored_params)
        return module
    if shard_placement_fn is not None:
        raise NotImplementedError("torchlike's fully_shard shards every parameter on dim 0; "
                                  "shard_placement_fn is not implemented")
    mesh = mesh if mesh is not None else _default_mesh()
    if not isinstance(mesh, DeviceMesh):
        raise ValueError(f"fully_shard expects a DeviceMesh but got {mesh}")
    if mesh.ndim not in (1, 2):
        raise ValueError(f"fully_shard expects a 1D or 2D DeviceMesh but got {mesh}")
    if isinstance(module, FSDPModule):
        return module
    state = _State(module, mesh, mp_policy or MixedPrecisionPolicy(), reshard_after_forward)
    ignored = {id(p) for p in (ignored_params or ())}
    seen = set()
    for _, sub in module.named_modules():
        for name, p in list(sub._parameters.items()):
            if p is None or isinstance(p, DTensor) or id(p) in ignored:
                continue
            if id(p) in seen:
                raise NotImplementedError("torchlike's fully_shard does not shard a parameter registered twice "
                                          "(tied weights)")
            seen.add(id(p))
            state.shard(sub, name, p)
    module.__dict__["_torchlike_fsdp"] = state
    module.register_forward_pre_hook(state.pre_forward, prepend=True)
    module.register_forward_hook(state.post_forward)
    module.register_load_state_dict_post_hook(lambda m, keys: state._adopt())
    module.__class__ = _fsdp_class(type(module))
    return module


def register_fsdp_forward_method(module, method_name):
    """Gather ``module``'s parameters around ``module.<method_name>`` as around ``forward``."""
    state = module._fsdp()
    orig = getattr(module, method_name)

    def wrapped(*args, **kwargs):
        state.unshard()
        try:
            return orig(*args, **kwargs)
        finally:
            state.reshard()
    setattr(module, method_name, wrapped)


def clip_grad_norm_sharded(grads, max_norm, norm_type=2.0):
    """Clip ``grads`` (shard-backed DTensors and plain tensors) in place by their total ``norm_type`` norm over
    all ranks (the shards' part is all-reduced; plain gradients count once); returns the total norm."""
    import jax.numpy as jnp  # lazy: only for this reduction
    norm_type = float(norm_type)
    if not grads:
        return Tensor._wrap(jnp.zeros((), jnp.float32))
    dt = grads[0]._value.dtype
    sharded = [g for g in grads if g.__dict__.get("_gshape") is not None]
    plain = [g for g in grads if g.__dict__.get("_gshape") is None]
    inf = norm_type == float("inf")

    def part(gs):
        vals = [jnp.abs(g._value.astype(jnp.float32)).reshape(-1) for g in gs]
        vals = [v for v in vals if v.size]
        if not vals:
            return jnp.float32(0)
        return max(jnp.max(v) for v in vals) if inf else sum(jnp.sum(v ** norm_type) for v in vals)
    total = Tensor._wrap(jnp.asarray(part(sharded), jnp.float32).reshape(1))
    group = _shard_axis(sharded[0].device_mesh, sharded[0].placements)[0] if sharded and \
        sharded[0].__dict__.get("_spec") else None
    # over the shard group only: HSDP's replicas hold the same shards
    _collectives.all_reduce(total, _collectives.ReduceOp.MAX if inf else _collectives.ReduceOp.SUM, group=group)
    acc = total._value[0]
    acc = jnp.maximum(acc, part(plain)) if inf else acc + part(plain)
    norm = acc if inf else acc ** (1.0 / norm_type)
    coef = jnp.minimum(float(max_norm) / (norm + 1e-6), 1.0)
    for g in grads:
        g._set_value((g._value * coef).astype(g._value.dtype))
    return Tensor._wrap(norm.astype(dt))


_clip_grad.sharded_clip.append(clip_grad_norm_sharded)  # nn.utils.clip_grad_norm_ on sharded gradients
