"""torch.nn.utils.stateless: call a module with other tensors in place of its parameters and buffers.

>>> import torchlike as torch
>>> m = torch.nn.Linear(1, 1)
>>> functional_call(m, {"weight": torch.ones(1, 1), "bias": torch.zeros(1)}, (torch.tensor([[3.0]]),))
tensor([[3.]])
"""
from __future__ import annotations

import contextlib

__all__ = ["functional_call"]


def _owner(module, name):
    *path, leaf = name.split(".")
    for p in path:
        module = getattr(module, p)
    return module, leaf


@contextlib.contextmanager
def _swapped(module, tensors, tie_weights, strict):
    own = dict(module.named_parameters(remove_duplicate=False))
    own.update(dict(module.named_buffers(remove_duplicate=False)))
    if tie_weights:
        by_id = {}
        for name, t in own.items():
            by_id.setdefault(id(t), []).append(name)
        tensors = dict(tensors)
        for names in by_id.values():
            given = [n for n in names if n in tensors]
            if len(given) > 1 and any(tensors[g] is not tensors[given[0]] for g in given):
                raise ValueError(f"functional_call got multiple values for keys {sorted(given)}, which are tied. "
                                 "Consider using tie_weights=False")
            if given:
                for n in names:
                    tensors.setdefault(n, tensors[given[0]])
    if strict:
        missing = sorted(n for n in own if n not in tensors)  # sorted, as torch's NamedMemberAccessor.check_keys
        unexpected = sorted(n for n in tensors if n not in own)
        if missing or unexpected:
            msgs = []
            if unexpected:
                msgs.append(f"Unexpected key(s): {', '.join(map(repr, unexpected))}.")
            if missing:
                msgs.append(f"Missing key(s): {', '.join(map(repr, missing))}.")
            raise RuntimeError("Error(s) in reparametrizing for {}:\n\t{}".format(
                module._get_name(), "\n\t".join(msgs)))
    saved = []
    try:
        for name, t in tensors.items():
            owner, leaf = _owner(module, name)
            table = "_parameters" if leaf in owner._parameters else "_buffers" if leaf in owner._buffers else None
            if table is None:
                saved.append((owner, leaf, None, owner.__dict__.get(leaf, _MISSING)))
                owner.__dict__[leaf] = t
            else:
                saved.append((owner, leaf, table, getattr(owner, table)[leaf]))
                getattr(owner, table)[leaf] = t
        yield
    finally:
        for owner, leaf, table, old in reversed(saved):
            if table is None:
                if old is _MISSING:
                    owner.__dict__.pop(leaf, None)
                else:
                    owner.__dict__[leaf] = old
            else:
                getattr(owner, table)[leaf] = old


_MISSING = object()


def functional_call(module, parameters_and_buffers, args=None, kwargs=None, *, tie_weights=True, strict=False):
    """``module(*args, **kwargs)`` with ``parameters_and_buffers`` (name -> tensor, or a sequence of such
    dicts) standing in for the module's own; gradients flow to the given tensors."""
    if isinstance(parameters_and_buffers, (list, tuple)):
        merged = {}
        for d in parameters_and_buffers:
            dup = set(merged) & set(d)
            if dup:
                raise ValueError(f"{sorted(dup)} appeared in multiple dictionaries; behavior of functional call "
                                 "is ambiguous")
            merged.update(d)
        parameters_and_buffers = merged
    if kwargs is None:
        kwargs = {}
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    with _swapped(module, parameters_and_buffers, tie_weights, strict):
        return module(*args, **kwargs)
