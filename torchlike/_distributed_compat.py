"""Names that libraries import from ``torch.distributed.*`` at import time but torchlike.distributed does not
define (yet).  The drop-in runner adds them to the modules it resolves, only where the module lacks them, so
that ``import transformers`` works; using one raises a NotImplementedError that names it.

Kept apart from torchlike/distributed (owned by the distributed work): delete entries as that package
grows the real objects.
"""
from __future__ import annotations

__all__ = ["fill", "known"]

# public module -> names (classes are placeholders that cannot be constructed; functions raise when called)
_NAMES = {
    "torch.distributed": {"init_device_mesh": "function"},
    "torch.distributed.tensor._utils": {"compute_local_shape_and_global_offset": "function"},
    "torch.distributed.tensor.placement_types": {"_StridedShard": "class"},
    "torch.distributed.checkpoint.hf_storage": {"HuggingFaceStorageReader": "class",
                                                "HuggingFaceStorageWriter": "class"},
    "torch.distributed.checkpoint.default_planner": {"DefaultLoadPlanner": "class"},
    "torch.distributed.checkpoint._consolidate_hf_safetensors": {"consolidate_safetensors_files": "function"},
    # ignite's checkpoint handler imports it to recognise a sharded optimizer
    "torch.distributed.optim": {"ZeroRedundancyOptimizer": "class"},
}


def _message(qualname):
    return f"{qualname} is not implemented in torchlike (see docs/differences.md)"


# the modules that re-export another's names: one placeholder object serves both (as one class does in torch)
_SAME = {}
_made = {}


def _placeholder(module, name, kind):
    key = (_SAME.get(module, module), name)
    if key not in _made:
        _made[key] = _make_placeholder(module, name, kind)
    return _made[key]


def _make_placeholder(module, name, kind):
    qual = f"{module}.{name}"
    if kind == "class":
        def __init__(self, *args, **kwargs):
            raise NotImplementedError(_message(qual))
        return type(name, (), {"__init__": __init__, "__module__": module, "__doc__": _message(qual)})

    def fn(*args, **kwargs):
        raise NotImplementedError(_message(qual))
    fn.__name__ = fn.__qualname__ = name
    fn.__module__ = module
    return fn


def fill(public_name, module) -> None:
    """Give ``module`` (resolved for ``public_name``) the placeholder names it lacks."""
    for name, kind in _NAMES.get(public_name, {}).items():
        if name not in vars(module):
            try:
                getattr(module, name)
                continue
            except AttributeError:
                pass
            setattr(module, name, _placeholder(public_name, name, kind))


def known(public_name) -> bool:
    """True for the modules this table fills (the runner may stub them even below a missing package)."""
    return public_name in _NAMES
