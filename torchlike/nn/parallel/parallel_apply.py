"""``torch.nn.parallel.parallel_apply``: call each replica on its inputs (one device: one after another).

>>> import torchlike as torch
>>> from torchlike.nn.parallel.parallel_apply import parallel_apply
>>> m = torch.nn.Identity()
>>> [t.tolist() for t in parallel_apply([m, m], [torch.tensor([1.]), torch.tensor([2.])])]
[[1.0], [2.0]]
"""
from __future__ import annotations

from ...tensor import Tensor

__all__ = ["get_a_var", "parallel_apply"]


def get_a_var(obj):
    """The first tensor found in ``obj`` (recursing into lists, tuples and dict items), or None."""
    if isinstance(obj, Tensor):
        return obj
    if isinstance(obj, (list, tuple)):
        for o in obj:
            t = get_a_var(o)
            if t is not None:
                return t
    if isinstance(obj, dict):
        for item in obj.items():
            t = get_a_var(item)
            if t is not None:
                return t
    return None


def parallel_apply(modules, inputs, kwargs_tup=None, devices=None):
    """``[modules[i](*inputs[i], **kwargs_tup[i])]``; a non-tuple input is passed as the single argument."""
    if len(modules) != len(inputs):
        raise AssertionError(f"The number of modules {len(modules)} is not equal to the number of inputs {len(inputs)}")
    if kwargs_tup is not None:
        if len(modules) != len(kwargs_tup):
            raise AssertionError(f"The number of modules {len(modules)} is not equal to the number of kwargs "
                                 f"{len(kwargs_tup)}")
    else:
        kwargs_tup = ({},) * len(modules)
    out = []
    for module, inp, kw in zip(modules, inputs, kwargs_tup):
        if not isinstance(inp, (list, tuple)):
            inp = (inp,)
        out.append(module(*inp, **kw))
    return out
