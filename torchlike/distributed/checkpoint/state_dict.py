"""``torch.distributed.checkpoint.state_dict``: model and optimizer state dicts keyed by parameter names, for
plain, DDP, FSDP1 and FSDP2 (``fully_shard``) models alike.

Sharded parameters (shard-backed DTensors) stay DTensors by default; ``StateDictOptions(full_state_dict=True)``
all-gathers them into full tensors (every rank must call), and with ``cpu_offload=True`` only rank 0 keeps
them (the other ranks get an empty dict), as torch does.

>>> import torchlike
>>> from torchlike.distributed.checkpoint.state_dict import get_model_state_dict, get_optimizer_state_dict
>>> m = torchlike.nn.Linear(2, 1)
>>> opt = torchlike.optim.SGD(m.parameters(), lr=0.1)
>>> list(get_model_state_dict(m)), get_optimizer_state_dict(m, opt)["param_groups"][0]["params"]
(['weight', 'bias'], ['weight', 'bias'])
"""
from __future__ import annotations

from dataclasses import dataclass

from ... import _grad_mode
from .. import _collectives
from .._process_group import get_rank, is_initialized
from ..tensor._dtensor import DTensor, _shard_axis
from ...nn import Module
from ...nn.modules._module_state import _IncompatibleKeys
from ...tensor import Tensor

__all__ = ["StateDictOptions", "get_model_state_dict", "get_optimizer_state_dict", "get_state_dict",
           "set_model_state_dict", "set_optimizer_state_dict", "set_state_dict"]

_STRIP = ("_fsdp_wrapped_module.", "_checkpoint_wrapped_module.", "_orig_mod.")


@dataclass
class StateDictOptions:
    """How ``get_*_state_dict`` / ``set_*_state_dict`` treat sharded state.

    >>> StateDictOptions(full_state_dict=True).cpu_offload
    False
    """
    full_state_dict: bool = False
    cpu_offload: bool = False
    ignore_frozen_params: bool = False
    keep_submodule_prefixes: bool = True
    strict: bool = True
    broadcast_from_rank0: bool = False
    flatten_optimizer_state_dict: bool = False
    dsd_fqn_modifiers: str = "_fqn_modifiers"


def _fqn(name):
    for s in _STRIP:
        name = name.replace(s, "")
    if name.startswith("module."):  # DDP's wrapper prefix
        name = name[len("module."):]
    return name


def _ddp_inner(model):
    inner = getattr(model, "module", None)
    return inner if type(model).__name__ == "DistributedDataParallel" and isinstance(inner, Module) else model


def _raw_state_dict(model):
    """The model's entries (DTensors where sharded), bypassing FSDP1's own state_dict conversion."""
    return Module.state_dict(model)


def _rank0_only(options):
    return options.full_state_dict and options.cpu_offload and is_initialized() and get_rank() != 0


def _full(v):
    return v.full_tensor() if isinstance(v, DTensor) else v


def get_model_state_dict(model, *, submodules=None, options=None):
    """``model``'s parameters and buffers under their plain names (no ``module.`` / FSDP prefixes)."""
    options = options or StateDictOptions()
    model = _ddp_inner(model)
    frozen = {_fqn(n) for n, p in model.named_parameters() if not p.requires_grad}
    out = {}
    for k, v in _raw_state_dict(model).items():
        k = _fqn(k)
        if options.ignore_frozen_params and k in frozen:
            continue
        out[k] = _full(v) if options.full_state_dict else v
    if submodules:
        names = {id(m): n for n, m in model.named_modules()}
        pre = tuple(_fqn(names[id(m)]) + "." for m in submodules if id(m) in names)
        out = {k: v for k, v in out.items() if k.startswith(pre)}
    return {} if _rank0_only(options) else out


def _named_params(model):
    return {id(p): _fqn(n) for n, p in _ddp_inner(model).named_parameters()}


def _state_value(p, v, full):
    if isinstance(p, DTensor) and isinstance(v, Tensor) and not isinstance(v, DTensor) and v.ndim \
            and p.__dict__.get("_gshape") is not None and tuple(v._value.shape) == tuple(p._value.shape):
        v = DTensor._from_shard(v, p.device_mesh, p.placements, p.__dict__["_gshape"])
    return _full(v) if full else v


def get_optimizer_state_dict(model, optimizers, *, submodules=None, options=None):
    """The optimizers' state keyed by parameter names: ``{"state": {name: {...}}, "param_groups": [...]}``,
    each group's ``params`` a list of names."""
    options = options or StateDictOptions()
    names = _named_params(model)
    opts = optimizers if isinstance(optimizers, (list, tuple)) else [optimizers]
    for opt in opts:
        _init_optim_state(opt)
    state, groups = {}, []
    for opt in opts:
        for group in opt.param_groups:
            for p in group["params"]:
                st = opt.state.get(p)
                if st:
                    state[names[id(p)]] = {k: _state_value(p, v, options.full_state_dict) for k, v in st.items()}
            g = {k: v for k, v in group.items() if k != "params"}
            g["params"] = [names[id(p)] for p in group["params"]]
            groups.append(g)
    if _rank0_only(options):
        return {}
    return {"state": state, "param_groups": groups}


def _init_optim_state(opt):
    """As torch does before reading an optimizer's state: one ``step`` with zero gradients and lr 0 when the
    optimizer has no state yet and no gradients (so a fresh optimizer's state dict has every entry)."""
    if opt.state or any(p.grad is not None for g in opt.param_groups for p in g["params"]):
        return
    import jax.numpy as jnp  # lazy: zero gradients only
    for g in opt.param_groups:
        for p in g["params"]:
            if p.requires_grad:
                if isinstance(p, DTensor) and p.__dict__.get("_gshape") is not None:
                    p._grad = DTensor._from_shard(Tensor._wrap(jnp.zeros_like(p._value), p._dev), p.device_mesh,
                                                  p.placements, p.__dict__["_gshape"])
                else:
                    p.grad = Tensor._wrap(jnp.zeros_like(p._value), p._dev)
    lrs = [g["lr"] for g in opt.param_groups if "lr" in g]
    for g in opt.param_groups:
        if "lr" in g:
            g["lr"] = 0.0
    opt.step()
    for g in opt.param_groups:
        if "lr" in g:
            g["lr"] = lrs.pop(0)
    opt.zero_grad(set_to_none=True)


def get_state_dict(model, optimizers, *, submodules=None, options=None):
    """``(get_model_state_dict(model), get_optimizer_state_dict(model, optimizers))``."""
    return (get_model_state_dict(model, submodules=submodules, options=options),
            get_optimizer_state_dict(model, optimizers, submodules=submodules, options=options))


def _local_piece(target, v):
    """The part of ``v`` (a full tensor or a DTensor) that the sharded ``target`` keeps on this rank."""
    if isinstance(v, DTensor):
        return v.to_local()._value
    _, n, r = _shard_axis(target.device_mesh, target.placements)
    rows = -(-v.shape[0] // n)
    start = min(r * rows, v.shape[0])
    return v._value[start:start + target._value.shape[0]]


def _broadcast_full(sd):
    for v in sd.values():
        if isinstance(v, Tensor) and not isinstance(v, DTensor):
            _collectives.broadcast(v, 0)


def set_model_state_dict(model, model_state_dict, *, options=None):
    """Load ``model_state_dict`` (full tensors or DTensors, plain names) into ``model``, taking each sharded
    parameter's own piece. Returns ``(missing_keys, unexpected_keys)``."""
    options = options or StateDictOptions()
    model = _ddp_inner(model)
    own = _raw_state_dict(model)
    own = {_fqn(k): (k, v) for k, v in Module.state_dict(model, keep_vars=True).items() if k in own}
    if options.broadcast_from_rank0:
        _broadcast_full(model_state_dict)
    unexpected = [k for k in model_state_dict if k not in own]
    missing = [k for k in own if k not in model_state_dict]
    if options.strict and (unexpected or missing):
        raise RuntimeError(f"Error(s) in loading state_dict for {type(model).__name__}: missing keys {missing}, "
                           f"unexpected keys {unexpected}")
    with _grad_mode.no_grad():
        for k, v in model_state_dict.items():
            if k not in own:
                continue
            target = own[k][1]
            if isinstance(target, DTensor) and target.__dict__.get("_gshape") is not None:
                new = _local_piece(target, v).astype(target._value.dtype)
            else:
                new = _full(v)._value.astype(target._value.dtype)
            if target.is_meta:  # a model built on the meta device takes the loaded values' storage (torch assigns)
                target._x, target._dev = new, v._dev
            else:
                target._set_value(new)
    return _IncompatibleKeys(missing, unexpected)


def _optim_piece(p, v):
    """An optimizer state value as ``p``'s optimizer keeps it: this rank's piece when ``p`` is sharded."""
    if isinstance(v, Tensor) and not isinstance(v, DTensor) and isinstance(p, DTensor) \
            and p.__dict__.get("_gshape") is not None and v.ndim and tuple(v.shape) == tuple(p.shape):
        v = Tensor._wrap(_local_piece(p, v), p._dev)
    elif isinstance(v, DTensor):
        v = v.to_local().clone()
    elif isinstance(v, Tensor):
        v = v.clone()
    else:
        return v
    return DTensor._optimizer_state(p, v) if isinstance(p, DTensor) else v  # kept as a DTensor, as torch


def _loadable_optim_state(model, optim, optim_state_dict):
    """``optim_state_dict`` (keyed by parameter names, full or sharded) as ``optim.load_state_dict`` takes it:
    keyed by the optimizer's own parameter numbers, each sharded parameter's state cut to this rank's piece."""
    names = _named_params(model)
    saved_state = optim_state_dict.get("state", {})
    saved_groups = optim_state_dict.get("param_groups", [])
    state, groups, idx = {}, [], 0
    for gi, group in enumerate(optim.param_groups):
        ids = []
        for p in group["params"]:
            st = saved_state.get(names.get(id(p)))
            if st is not None:
                state[idx] = {k: _optim_piece(p, v) for k, v in st.items()}
            ids.append(idx)
            idx += 1
        saved = saved_groups[gi] if gi < len(saved_groups) else group
        g = {k: v for k, v in saved.items() if k != "params"}
        g["params"] = ids
        groups.append(g)
    return {"state": state, "param_groups": groups}


def set_optimizer_state_dict(model, optimizers, optim_state_dict, *, options=None):
    """Load a state dict from ``get_optimizer_state_dict`` (full or sharded) into ``optimizers``."""
    options = options or StateDictOptions()
    names = _named_params(model)
    opts = optimizers if isinstance(optimizers, (list, tuple)) else [optimizers]
    groups = iter(optim_state_dict.get("param_groups", []))
    for opt in opts:
        for group in opt.param_groups:
            saved = next(groups, None)
            if saved is not None:
                group.update({k: v for k, v in saved.items() if k != "params"})
            for p in group["params"]:
                st = optim_state_dict.get("state", {}).get(names[id(p)])
                if st is None:
                    continue
                opt.state[p] = {k: _optim_piece(p, v) for k, v in st.items()}


def set_state_dict(model, optimizers, *, model_state_dict, optim_state_dict, options=None):
    """``set_model_state_dict`` then ``set_optimizer_state_dict``."""
    keys = set_model_state_dict(model, model_state_dict, options=options)
    set_optimizer_state_dict(model, optimizers, optim_state_dict, options=options)
    return keys
