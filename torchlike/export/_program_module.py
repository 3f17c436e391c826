"""A Module over an exported StableHLO program: its parameters and buffers are the program's state (under their
``state_dict`` names, in plain ``Module`` containers as torch's unlifted ``GraphModule`` has them) and its forward
calls the program with them — so ``parameters()``, ``state_dict()``, ``load_state_dict``, optimizers and backward
work.  ``ExportedProgram.module()`` and ``jit.load`` of a traced module return one."""
from __future__ import annotations

import types

from .._dispatch import dispatch
from ..nn.modules.module import Module
from ..nn.parameter import Parameter
from ..tensor import Tensor


def _call_program(*arrays, exported, n_state):
    return tuple(exported.call(list(arrays[:n_state]), *arrays[n_state:]))


class ProgramModule(Module):
    """``program`` is an ``ExportedProgram``; ``params`` names the state entries that are parameters (the rest
    are buffers)."""

    def __init__(self, program, params=()):
        super().__init__()
        object.__setattr__(self, "_program", program)
        object.__setattr__(self, "_param_names", frozenset(params))
        for name, arr in zip(program.state_names, program._state):
            *path, leaf = name.split(".")
            owner = self
            for p in path:
                if p not in owner._modules:
                    owner.add_module(p, Module())
                owner = owner._modules[p]
            t = Tensor._wrap(arr)
            if name in self._param_names:
                owner.register_parameter(leaf, Parameter(t))
            else:
                owner.register_buffer(leaf, t, persistent=name not in getattr(program, "non_persistent", ()))

    def forward(self, *args):
        state = [self.get_parameter(n) if n in self._param_names else self.get_buffer(n)
                 for n in self._program.state_names]
        outs = dispatch(_call_program, (*state, *args),
                        (("exported", self._program.exported), ("n_state", len(state))), name="ScriptModuleBackward0")
        outs = outs if isinstance(outs, tuple) else (outs,)
        return tuple(outs) if self._program._multi else outs[0]


def _train(self, mode=True):
    raise NotImplementedError("Calling train() is not supported yet.")


def _eval(self):
    raise NotImplementedError("Calling eval() is not supported yet.")


class GraphModule(ProgramModule):
    """What ``ExportedProgram.module()`` returns, as torch's unlifted ``GraphModule``: train/eval mode is fixed
    at export, so ``train()`` and ``eval()`` raise NotImplementedError as torch's do (mlflow, for one, skips
    ``eval()`` on a module loaded from a ``.pt2`` for that reason)."""

    def __init__(self, program, params=()):
        super().__init__(program, params)
        self.train = types.MethodType(_train, self)  # instance attributes, as torch sets them
        self.eval = types.MethodType(_eval, self)

    def forward(self, *args):
        # torch's guards on the inputs' static sizes (instead of JAX's shape-mismatch error from the call)
        names = self._program.arg_names
        for i, (a, aval) in enumerate(zip(args, self._program.exported.in_avals[len(self._program.state_names):])):
            shape = getattr(a, "shape", None)
            if shape is None or len(shape) != len(aval.shape):
                continue
            for d, (got, want) in enumerate(zip(shape, aval.shape)):
                if isinstance(want, int) and got != want:
                    name = names[i] if i < len(names) else f"args[{i}]"
                    raise AssertionError(f"Guard failed: {name}.size()[{d}] == {want}")
        return super().forward(*args)
