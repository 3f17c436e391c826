"""A tensor-like (not a Tensor; its type overrides ``__torch_function__``, as keras's torch-backend Variable) met
first by one surface: ``argv[1]`` says how its class is made ("class": a class statement; "type": ``type(...)``,
no class statement), ``argv[2]`` the expression evaluated first.  Prints the result, the calls
the override received, or the error."""
import sys

import torch

F = torch.nn.functional
calls = []


def _unwrap(a):
    if isinstance(a, (list, tuple)):
        return type(a)(_unwrap(b) for b in a)
    return a.v if hasattr(a, "v") else a


def _torch_function(cls, func, types, args=(), kwargs=None):
    calls.append(getattr(func, "__name__", "?"))
    return func(*_unwrap(args), **{k: _unwrap(v) for k, v in (kwargs or {}).items()})


if sys.argv[1] == "class":
    class V:
        def __init__(self, v):
            self.v = v
        __torch_function__ = classmethod(_torch_function)
else:
    V = type("V", (), {"__init__": lambda self, v: setattr(self, "v", v),
                       "__torch_function__": classmethod(_torch_function)})

x = torch.arange(6.).reshape(2, 3)
w = V(torch.ones(3) * 2)
try:
    r = eval(sys.argv[2])
    print(type(r).__name__, r.tolist() if isinstance(r, torch.Tensor) else [t.tolist() for t in r], calls)
except Exception as e:
    print(type(e).__name__, str(e).splitlines()[0])
