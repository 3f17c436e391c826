"""Modules as functions of their state: functional_call, stack_module_state,
replace_all_batch_norm_modules_."""
from __future__ import annotations

__all__ = ["functional_call", "stack_module_state", "replace_all_batch_norm_modules_"]


def _merge(dicts):
    if isinstance(dicts, dict):
        return dict(dicts)
    if isinstance(dicts, (tuple, list)) and all(isinstance(d, dict) for d in dicts):
        seen, dup = set(), []
        for d in dicts:
            for k in d:
                if k in seen and k not in dup:
                    dup.append(k)
                seen.add(k)
        if dup:
            raise ValueError(f"{dup} appeared in multiple dictionaries; behavior of functional call is ambiguous")
        out = {}
        for d in dicts:
            out.update(d)
        return out
    raise ValueError(f"Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of dicts, but got "
                     f"{type(dicts)}")


def _state_names(module):
    """name -> tensor for every parameter and buffer, tied entries listed under each of their names."""
    out = {}
    for prefix, mod in module.named_modules(remove_duplicate=False):
        for table in (mod._parameters, mod._buffers):
            for n, t in table.items():
                if t is not None:
                    out[f"{prefix}.{n}" if prefix else n] = t
    return out


def _locate(module, name):
    *path, attr = name.split(".")
    mod = module
    for p in path:
        mod = mod._modules.get(p) if hasattr(mod, "_modules") else None
        if mod is None:
            return None, attr
    return mod, attr


def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *, tie_weights=True, strict=False):
    """Call ``module`` with its parameters and buffers replaced by the given tensors (torch.func.functional_call).

    >>> import torchlike
    >>> from torchlike.func import functional_call
    >>> m = torchlike.nn.Linear(2, 1, bias=False)
    >>> functional_call(m, {"weight": torchlike.ones(1, 2)}, (torchlike.tensor([[1., 2.]]),))
    tensor([[3.]])
    """
    values = _merge(parameter_and_buffer_dicts)
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    kwargs = {} if kwargs is None else kwargs
    names = _state_names(module)
    if tie_weights:
        groups = {}
        for n, t in names.items():
            groups.setdefault(id(t), []).append(n)
        for group in groups.values():
            given = [n for n in group if n in values]
            if len(group) < 2 or not given:
                continue
            if len({id(values[n]) for n in given}) > 1:
                raise ValueError(f"functional_call got multiple values for keys {sorted(given)}, which are tied. "
                                 "Consider using tie_weights=False")
            for n in group:
                values.setdefault(n, values[given[0]])
    if strict:
        missing = sorted(n for n in names if n not in values)  # sorted, as torch's NamedMemberAccessor.check_keys
        unexpected = sorted(k for k in values if k not in names)
        if missing or unexpected:
            msg = f"Error(s) in reparametrizing for {type(module).__name__}:"
            if unexpected:
                msg += "\n\tUnexpected key(s): " + ", ".join(f"'{k}'" for k in unexpected) + "."
            if missing:
                msg += "\n\tMissing key(s): " + ", ".join(f"'{k}'" for k in missing) + "."
            raise RuntimeError(msg)
    swapped = []
    try:
        for name, value in values.items():
            mod, attr = _locate(module, name)
            if mod is None:
                continue
            for table in (mod._parameters, mod._buffers):
                if attr in table:
                    swapped.append((table, attr, table[attr]))
                    table[attr] = value
                    break
        return module(*args, **kwargs)
    finally:
        for table, attr, old in reversed(swapped):
            table[attr] = old


def stack_module_state(models):
    """Stack the parameters and buffers of same-class ``models`` along a new leading dim: ``(params, buffers)``.

    >>> import torchlike
    >>> from torchlike.func import stack_module_state
    >>> params, buffers = stack_module_state([torchlike.nn.Linear(3, 2) for _ in range(4)])
    >>> params["weight"].shape
    torch.Size([4, 2, 3])
    """
    from .. import stack  # lazy: torch.stack as the facade has it (install's surface, sparse fallback included)
    models = list(models)
    if not models:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if not (all(m.training for m in models) or not any(m.training for m in models)):
        raise RuntimeError("stack_module_state: Expected all models to have the same training/eval mode.")
    first = type(models[0])
    if not all(type(m) is first for m in models):
        raise RuntimeError(f"stack_module_state: Expected all models to be of the same class, got: "
                           f"{[type(m) for m in models]}")

    def stacked(tensors, name):
        rg = [t.requires_grad for t in tensors]
        if any(rg) and not all(rg):
            raise RuntimeError(f"Expected {name} from each model to have the same .requires_grad")
        out = stack([t.detach() for t in tensors])
        return out.requires_grad_() if all(rg) else out

    per = [dict(m.named_parameters()) for m in models]
    params = {k: stacked([p[k] for p in per], k) for k in per[0]}
    per = [dict(m.named_buffers()) for m in models]
    buffers = {k: stacked([b[k] for b in per], k) for k in per[0]}
    return params, buffers


def replace_all_batch_norm_modules_(root):
    """Make every BatchNorm under ``root`` stop tracking running stats (for use under vmap); returns ``root``.

    >>> import torchlike
    >>> from torchlike.func import replace_all_batch_norm_modules_
    >>> bn = replace_all_batch_norm_modules_(torchlike.nn.BatchNorm1d(3))
    >>> bn.running_mean is None, bn.track_running_stats
    (True, False)
    """
    from ..nn.modules.normalization import _BatchNorm  # lazy: nn (layer 5) is above func (layer 4)
    for m in root.modules():
        if isinstance(m, _BatchNorm):
            m.running_mean = None
            m.running_var = None
            m.num_batches_tracked = None
            m.track_running_stats = False
    return root

