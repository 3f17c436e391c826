"""FSDP1 (``FullyShardedDataParallel``) as a module wrapper over the same sharding as ``fully_shard``.

``FSDP(module, auto_wrap_policy=...)`` first wraps the submodules the policy picks (each becomes its own
FSDP unit), then shards the parameters left to it: every rank keeps the ``torch.chunk`` piece of dim 0 of each
parameter (a shard-backed DTensor), gathers the full parameters around its forward and reduce-scatters (averages)
their gradients in backward. ``state_dict()`` follows ``FSDP.state_dict_type``: full tensors under the original
names (the default, as torch), DTensor shards, or local shards.

Differences from torch (docs/differences.md): parameters are sharded one by one on dim 0 rather than
flattened into one ``FlatParameter`` per unit, so ``named_parameters()`` lists the original parameters (with the
``_fsdp_wrapped_module.`` prefixes) as DTensors; every ``ShardingStrategy`` shards (NO_SHARD too) and computes
the same results.
"""
from __future__ import annotations

import contextlib

from ... import _grad_mode
from .. import _collectives
from .._object_collectives import broadcast_object_list
from .._process_group import get_rank, get_world_size, init_process_group, is_initialized
from ..device_mesh import DeviceMesh, init_device_mesh
from ..tensor._dtensor import DTensor
from ...nn import Module
from ...nn.modules._module_state import _IncompatibleKeys
from ._common_utils import _FSDPState
from ._fully_shard import MixedPrecisionPolicy, _State, clip_grad_norm_sharded
from .api import (BackwardPrefetch, CPUOffload, FullOptimStateDictConfig, FullStateDictConfig,  # noqa: F401
                  LocalOptimStateDictConfig, LocalStateDictConfig, MixedPrecision, OptimStateDictConfig,
                  ShardedOptimStateDictConfig, ShardedStateDictConfig, ShardingStrategy, StateDictConfig,
                  StateDictSettings, StateDictType)  # (torch's module imports api's names too: libraries import them here)
from ..checkpoint.state_dict import StateDictOptions, _loadable_optim_state, get_optimizer_state_dict

__all__ = ["FullyShardedDataParallel", "FLAT_PARAM", "FSDP_WRAPPED_MODULE"]

FSDP_WRAPPED_MODULE = "_fsdp_wrapped_module"
FLAT_PARAM = "_flat_param"
_PREFIX = FSDP_WRAPPED_MODULE + "."


def _clean(key):
    return key.replace(_PREFIX, "")


def _recursive_wrap(module, policy, wrap_fn, ignored, only_children):
    """torch's recursive auto-wrap: children first, then ``module`` if the policy takes it; returns (module,
    number of parameters wrapped)."""
    if module in ignored:
        return module, 0
    numel = sum(p.numel() for p in module.parameters() if not isinstance(p, DTensor))
    if not policy(module=module, recurse=True, nonwrapped_numel=numel):
        return module, 0
    wrapped = 0
    for name, child in list(module.named_children()):
        if child in ignored or isinstance(child, FullyShardedDataParallel):
            continue
        new, n = _recursive_wrap(child, policy, wrap_fn, ignored, False)
        if new is not child:
            setattr(module, name, new)
        wrapped += n
    if not only_children:
        decision = policy(module=module, recurse=False, nonwrapped_numel=numel - wrapped)
        if decision:
            return wrap_fn(module, decision if isinstance(decision, dict) else {}), numel
    return module, wrapped


_WRAPPING: list = []  # non-empty while an auto-wrap policy wraps submodules (their units inherit the groups)
_HYBRID = (ShardingStrategy.HYBRID_SHARD, ShardingStrategy._HYBRID_SHARD_ZERO2)


def _shard_mesh(strategy, process_group, device_mesh, manual):
    """``(mesh, replicate_group)``: the 1-d mesh the parameters are sharded over and, for hybrid sharding, the
    group their gradients are averaged over afterwards; with torch's checks (``_init_process_group_state``).

    Hybrid sharding (HSDP) shards within mesh dim 1 and replicates across mesh dim 0: each rank's parameters are
    sharded over its row of the mesh, and gradients, reduce-scattered within the row, are then all-reduced
    (averaged) over its column. Without a mesh, HYBRID_SHARD shards over all ranks (one host: torch's default
    too, where a node's ranks make the shard group)."""
    if process_group is not None and device_mesh is not None:
        raise ValueError("Cannot pass both process_group and device_mesh at the same time. Please just pass only "
                         "one of them.")
    if strategy in _HYBRID:
        if process_group is None and device_mesh is None and manual:
            raise ValueError(f"Manual wrapping with {strategy} requires explicit specification of process group "
                             f"or device_mesh.")
        if device_mesh is None:
            return None, None
        if device_mesh.ndim != 2:
            raise ValueError(f"Expected device_mesh to have ndim=2 but got {device_mesh.ndim}")
        if device_mesh.size(0) == 1:
            return None if device_mesh.size() == get_world_size() else _row(device_mesh), None
        return _row(device_mesh), device_mesh.get_group(0)
    if device_mesh is not None and device_mesh.size(0) != device_mesh.size():
        raise NotImplementedError(f"torchlike's FSDP shards over all ranks: a device mesh of shape "
                                  f"{tuple(device_mesh.shape)} (sharding over its dim 0 only) is not implemented")
    return (device_mesh if device_mesh is None or device_mesh.ndim == 1 else None), None


def _row(mesh):
    """This rank's row of a 2-d mesh (its shard group) as a 1-d DeviceMesh."""
    coord = mesh.get_coordinate()
    names = mesh.mesh_dim_names[1:] if mesh.mesh_dim_names else None
    return DeviceMesh(mesh.device_type, mesh._arr[coord[0]], mesh_dim_names=names, _init_backend=False,
                      _devices=mesh._devices)


def _fsdp_rank(module):
    """This rank's rank in the group ``module``'s (first) FSDP unit shards over: torch's ``rank0_only`` means
    rank 0 of that group (with HSDP, one rank per replica group)."""
    for m in module.modules():
        if isinstance(m, FullyShardedDataParallel):
            return m._torchlike_fsdp.mesh.get_local_rank()
    return get_rank()


class _HybridMesh:
    """What an HSDP unit hands the units its auto-wrap policy makes: its shard mesh and replicate group."""

    def __init__(self, mesh, replicate_group):
        self.mesh, self.replicate_group = mesh, replicate_group


class FullyShardedDataParallel(Module, _FSDPState):
    """Shard ``module``'s parameters over the ranks (FSDP1's wrapper).

    >>> import torchlike
    >>> from torchlike.distributed.fsdp import FullyShardedDataParallel as FSDP
    >>> m = FSDP(torchlike.nn.Linear(4, 2))
    >>> m(torchlike.ones(3, 4)).shape, list(m.state_dict())
    (torch.Size([3, 2]), ['weight', 'bias'])
    """

    def __init__(self, module, process_group=None, sharding_strategy=None, cpu_offload=None, auto_wrap_policy=None,
                 backward_prefetch=None, mixed_precision=None, ignored_modules=None, param_init_fn=None,
                 device_id=None, sync_module_states=False, forward_prefetch=False, limit_all_gathers=True,
                 use_orig_params=False, ignored_states=None, device_mesh=None):
        super().__init__()
        if not is_initialized():
            init_process_group()
        if process_group is not None and getattr(process_group, "ranks", None) not in (None, list(
                range(get_world_size()))):
            raise NotImplementedError("torchlike's FSDP shards over all ranks; a sub-group is not implemented")
        self.sharding_strategy = sharding_strategy or ShardingStrategy.FULL_SHARD
        if isinstance(device_mesh, _HybridMesh):  # a unit made by the auto-wrap policy: its parent's split
            device_mesh, replicate_group = device_mesh.mesh, device_mesh.replicate_group
        else:
            device_mesh, replicate_group = _shard_mesh(self.sharding_strategy, process_group, device_mesh,
                                                       auto_wrap_policy is None and not _WRAPPING)
        self.mixed_precision = mixed_precision
        kw_mesh = _HybridMesh(device_mesh, replicate_group) if self.sharding_strategy in _HYBRID else device_mesh
        ignored = set(ignored_modules or ())
        kwargs = dict(process_group=process_group, sharding_strategy=sharding_strategy, cpu_offload=cpu_offload,
                      backward_prefetch=backward_prefetch, mixed_precision=mixed_precision,
                      ignored_modules=ignored_modules, device_id=device_id, sync_module_states=sync_module_states,
                      forward_prefetch=forward_prefetch, limit_all_gathers=limit_all_gathers,
                      use_orig_params=use_orig_params, device_mesh=kw_mesh)
        if auto_wrap_policy is not None:
            def wrap_fn(m, overrides):
                return FullyShardedDataParallel(m, **{**kwargs, **overrides})
            _WRAPPING.append(True)
            try:
                _recursive_wrap(module, auto_wrap_policy, wrap_fn, ignored, True)
            finally:
                _WRAPPING.pop()
        if sync_module_states:
            for t in list(module.parameters()) + list(module.buffers()):
                if not isinstance(t, DTensor):
                    with _grad_mode.no_grad():
                        _collectives.broadcast(t, 0)
        self._fsdp_wrapped_module = module
        mesh = device_mesh if device_mesh is not None else init_device_mesh("cpu", (get_world_size(),))
        mp = MixedPrecisionPolicy(mixed_precision.param_dtype, mixed_precision.reduce_dtype, None,
                                  mixed_precision.cast_forward_inputs or mixed_precision.cast_root_forward_inputs) \
            if mixed_precision is not None else MixedPrecisionPolicy()
        state = _State(self, mesh, mp, None)
        state.replicate_group = replicate_group
        skip = {id(p) for m in ignored for p in m.parameters()}
        seen = set()
        for _, sub in module.named_modules():
            if isinstance(sub, FullyShardedDataParallel):
                sub.__dict__["_fsdp_root"] = False
            for name, p in list(sub._parameters.items()):
                if p is None or isinstance(p, DTensor) or id(p) in skip or id(p) in seen:
                    continue
                seen.add(id(p))
                state.shard(sub, name, p)
        self.__dict__["_torchlike_fsdp"] = state
        self.__dict__["_fsdp_root"] = True
        self.__dict__["_sd_settings"] = StateDictSettings(StateDictType.FULL_STATE_DICT, FullStateDictConfig(),
                                                          FullOptimStateDictConfig())
        self.register_forward_pre_hook(state.pre_forward, prepend=True)
        self.register_forward_hook(state.post_forward)

    @property
    def module(self):
        """The wrapped module."""
        return self._fsdp_wrapped_module

    def forward(self, *args, **kwargs):
        return self._fsdp_wrapped_module(*args, **kwargs)

    def __getattr__(self, name):
        try:
            return super().__getattr__(name)
        except AttributeError:
            return getattr(self._modules[FSDP_WRAPPED_MODULE], name)

    def __getitem__(self, key):
        return self._fsdp_wrapped_module.__getitem__(key)

    def named_parameters(self, prefix="", recurse=True, remove_duplicate=True):
        """(name, parameter) in torch's order for FSDP1: unit by unit in module order, each unit's managed
        parameters together where its wrapped module starts (torch's order of the units' ``FlatParameter``s,
        so an optimizer over ``parameters()`` numbers its state as torch's does); the names keep the
        ``_fsdp_wrapped_module.`` prefixes."""
        if not recurse:
            return super().named_parameters(prefix=prefix, recurse=False, remove_duplicate=remove_duplicate)
        return self._unit_ordered_parameters(prefix, remove_duplicate)

    def _unit_ordered_parameters(self, prefix, remove_duplicate):
        units = {id(m._fsdp_wrapped_module): m._torchlike_fsdp for m in Module.modules(self)
                 if isinstance(m, FullyShardedDataParallel)}
        names = {}
        for n, p in Module.named_parameters(self, prefix=prefix, remove_duplicate=remove_duplicate):
            names.setdefault(id(p), n)
        unit_params = {k: [owner._parameters[name] for owner, name, _ in st.params] for k, st in units.items()}
        managed = {id(p) for ps in unit_params.values() for p in ps}
        seen = set()
        for _, mod in Module.named_modules(self, prefix=prefix, remove_duplicate=remove_duplicate):
            own = [p for p in mod._parameters.values() if p is not None and id(p) not in managed]
            for p in unit_params.get(id(mod), []) + own:
                if id(p) in seen or id(p) not in names:
                    continue
                if remove_duplicate:
                    seen.add(id(p))
                yield names[id(p)], p

    # ---- gradients ------------------------------------------------------------------------------------------
    @contextlib.contextmanager
    def no_sync(self):
        """Accumulate full gradients locally (no reduce-scatter) inside; the next synced backward reduces them."""
        states = [m._torchlike_fsdp for m in self.modules() if isinstance(m, FullyShardedDataParallel)]
        for s in states:
            s.sync = False
        try:
            yield
        finally:
            for s in states:
                s.sync = True

    def clip_grad_norm_(self, max_norm, norm_type=2.0):
        """Clip the gradients of all ranks' shards by their total norm (computed across ranks); returns it."""
        return clip_grad_norm_sharded([p.grad for p in self.parameters() if p.grad is not None], max_norm,
                                      norm_type)

    # ---- full parameters ------------------------------------------------------------------------------------
    @staticmethod
    @contextlib.contextmanager
    def summon_full_params(module, recurse=True, writeback=True, rank0_only=False, offload_to_cpu=False,
                           with_grads=False):
        """Inside, every FSDP unit of ``module`` holds its full parameters; with ``writeback`` changes made to them
        are written back into the shards on exit."""
        units = [m for m in (module.modules() if recurse else [module]) if isinstance(m, FullyShardedDataParallel)]
        states = [u._torchlike_fsdp for u in units]
        for s in states:
            s.unshard(cast=False)  # full precision, as torch (mixed precision applies to forward only)
        try:
            yield
        finally:
            for s in states:
                if writeback:
                    for owner, name, d in s.params:
                        full = owner._parameters[name]
                        rows = d._value.shape[0]
                        start = min(s.mesh.get_local_rank() * (-(-full.shape[0] // s.mesh.size())),
                                    full.shape[0])
                        d._set_value(full._value[start:start + rows].astype(d._value.dtype))
                s.reshard()

    # ---- state dicts ----------------------------------------------------------------------------------------
    @staticmethod
    @contextlib.contextmanager
    def state_dict_type(module, state_dict_type, state_dict_config=None, optim_state_dict_config=None):
        """Within the context, ``state_dict()`` of the FSDP units of ``module`` returns ``state_dict_type``."""
        prev = FullyShardedDataParallel.set_state_dict_type(module, state_dict_type, state_dict_config,
                                                           optim_state_dict_config)
        try:
            yield
        finally:
            FullyShardedDataParallel.set_state_dict_type(module, prev.state_dict_type, prev.state_dict_config,
                                                         prev.optim_state_dict_config)

    @staticmethod
    def set_state_dict_type(module, state_dict_type, state_dict_config=None, optim_state_dict_config=None):
        """Set the state-dict type of every FSDP unit in ``module``; returns the previous settings."""
        if state_dict_config is None:
            state_dict_config = (FullStateDictConfig() if state_dict_type == StateDictType.FULL_STATE_DICT
                                 else ShardedStateDictConfig())
        if optim_state_dict_config is None:
            optim_state_dict_config = (FullOptimStateDictConfig() if state_dict_type == StateDictType.FULL_STATE_DICT
                                       else ShardedOptimStateDictConfig())
        prev = None
        new = StateDictSettings(state_dict_type, state_dict_config, optim_state_dict_config)
        for m in module.modules():
            if isinstance(m, FullyShardedDataParallel):
                prev = prev or m._sd_settings
                m.__dict__["_sd_settings"] = new
        return prev

    @staticmethod
    def get_state_dict_type(module):
        for m in module.modules():
            if isinstance(m, FullyShardedDataParallel):
                return m._sd_settings
        raise ValueError("No FSDP modules in module")

    def state_dict(self, *args, destination=None, prefix="", keep_vars=False):
        sd = super().state_dict(*args, destination=destination, prefix=prefix, keep_vars=keep_vars)
        if not self.__dict__.get("_fsdp_root", True):
            return sd
        st = self._sd_settings
        out = type(sd)()
        for k, v in sd.items():
            if st.state_dict_type == StateDictType.FULL_STATE_DICT:
                v = v.full_tensor() if isinstance(v, DTensor) else v
            elif st.state_dict_type == StateDictType.LOCAL_STATE_DICT and isinstance(v, DTensor):
                v = v.to_local()
            out[_clean(k)] = v
        if (st.state_dict_type == StateDictType.FULL_STATE_DICT and getattr(st.state_dict_config, "rank0_only", False)
                and _fsdp_rank(self) != 0):
            return type(sd)()
        return out

    def load_state_dict(self, state_dict, strict=True, assign=False):
        """Load a full (or DTensor-sharded) state dict under the original names into the shards."""
        own = super().state_dict(keep_vars=True)
        by_clean = {_clean(k): k for k in own}
        fixed = {}
        for k, v in state_dict.items():
            target = own.get(by_clean.get(k, k))
            if isinstance(target, DTensor) and not isinstance(v, DTensor):
                n = target.device_mesh.size()
                rows = -(-v.shape[0] // n)
                start = min(target.device_mesh.get_local_rank() * rows, v.shape[0])
                with _grad_mode.no_grad():
                    target._set_value(v._value[start:start + target._value.shape[0]].astype(target._value.dtype))
                continue
            if isinstance(v, DTensor) and isinstance(target, DTensor):
                with _grad_mode.no_grad():
                    target._set_value(v._value.astype(target._value.dtype))
                continue
            fixed[by_clean.get(k, k)] = v
        missing = [k for k in own if not isinstance(own[k], DTensor) and k not in fixed]
        if fixed or missing:
            return super().load_state_dict(fixed, strict=strict and not [k for k in fixed if k not in own])
        return _IncompatibleKeys([], [])

    # ---- optimizer state dicts ------------------------------------------------------------------------------
    @staticmethod
    def optim_state_dict(model, optim, optim_state_dict=None, group=None):
        """The optimizer's state keyed by parameter names (full tensors by default)."""
        st = FullyShardedDataParallel.get_state_dict_type(model)
        full = st.state_dict_type == StateDictType.FULL_STATE_DICT
        out = get_optimizer_state_dict(model, optim, options=StateDictOptions(full_state_dict=full))
        if full and getattr(st.optim_state_dict_config, "rank0_only", False) and _fsdp_rank(model) != 0:
            return {}
        return out

    @staticmethod
    def full_optim_state_dict(model, optim, optim_input=None, rank0_only=True, group=None):
        """The full optimizer state (on rank 0 only with ``rank0_only``)."""
        out = get_optimizer_state_dict(model, optim, options=StateDictOptions(full_state_dict=True))
        return {} if rank0_only and _fsdp_rank(model) != 0 else out

    @staticmethod
    def optim_state_dict_to_load(model, optim, optim_state_dict, is_named_optimizer=False, load_directly=False,
                                 group=None):
        """Turn a state dict from ``optim_state_dict`` (names, full or sharded tensors) into what
        ``optim.load_state_dict`` takes on this rank (its parameter numbers, this rank's pieces); with
        ``load_directly`` load it too.

        >>> import torchlike
        >>> from torchlike.distributed.fsdp import FullyShardedDataParallel as FSDP
        >>> m = FSDP(torchlike.nn.Linear(2, 1))
        >>> opt = torchlike.optim.SGD(m.parameters(), lr=0.1)
        >>> osd = FSDP.optim_state_dict(m, opt)
        >>> osd["param_groups"][0]["params"], FSDP.optim_state_dict_to_load(m, opt, osd)["param_groups"][0]["params"]
        (['weight', 'bias'], [0, 1])
        """
        out = _loadable_optim_state(model, optim, optim_state_dict)
        if load_directly:
            optim.load_state_dict(out)
        return out

    @staticmethod
    def shard_full_optim_state_dict(full_optim_state_dict, model, optim_input=None, optim=None):
        """The full optimizer state (every rank holds it) as ``optim.load_state_dict`` takes it on this rank."""
        if optim is None:
            raise NotImplementedError("torchlike's FSDP: pass optim= (optim_input is not implemented)")
        return _loadable_optim_state(model, optim, full_optim_state_dict)

    @staticmethod
    def scatter_full_optim_state_dict(full_optim_state_dict, model, optim_input=None, optim=None, group=None):
        """Like ``shard_full_optim_state_dict`` with the full state on rank 0 only (broadcast to the others)."""
        box = [full_optim_state_dict if get_rank() == 0 else None]
        broadcast_object_list(box, src=0)
        return FullyShardedDataParallel.shard_full_optim_state_dict(box[0], model, optim_input, optim)

