"""What ``torch.jit.trace`` returns for a plain function (torch's ``ScriptFunction``): it calls the function, and
``save``/``save_to_buffer`` write it as ``jit.save`` writes a traced module (an exported program whose forward
is the function), so ``jit.load`` gives back a callable module, as torch's ``RecursiveScriptModule``.

>>> import io, warnings, torchlike
>>> with warnings.catch_warnings():
...     warnings.simplefilter("ignore")
...     f = torchlike.jit.trace(lambda x: x * 2 + 1, torchlike.ones(3))
...     f.name, f(torchlike.arange(3.0))
...     buf = io.BytesIO(f.save_to_buffer())
...     torchlike.jit.load(buf)(torchlike.ones(2))
('_lambda', tensor([1., 3., 5.]))
tensor([3., 3.])
"""
from __future__ import annotations

import functools
import re

from .._C import ScriptFunction
from ._archive import write, write_to_buffer
from ..nn.modules.module import Module


class _FunctionModule(Module):
    """A module whose forward is a traced function (what ``jit.save`` exports for it)."""

    def __init__(self, fn):
        super().__init__()
        self._fn = fn

    def forward(self, *args):
        return self._fn(*args)


class TracedFunction(ScriptFunction):
    """A traced plain function: calls it; ``save(f)`` writes it for ``jit.load`` (no deprecation warning, as
    torch's ``ScriptFunction.save``)."""

    def __init__(self, fn, example_inputs):
        self._fn = fn
        self._torchlike_example_inputs = example_inputs
        functools.update_wrapper(self, fn)

    def __call__(self, *args, **kwargs):
        return self._fn(*args, **kwargs)

    @property
    def name(self):
        """The function's name as TorchScript spells it (``<lambda>`` is ``_lambda``)."""
        return re.sub(r"\W", "_", getattr(self._fn, "__name__", "fn")).rstrip("_")

    @property
    def qualified_name(self):
        return f"__torch__.{self.name}"

    def as_module(self):
        """The function as a module carrying the example inputs, for ``jit.save``'s export."""
        m = _FunctionModule(self._fn)
        m._torchlike_example_inputs = self._torchlike_example_inputs
        return m

    def save(self, f, _extra_files=None):
        write(self.as_module(), f, _extra_files)

    def save_to_buffer(self, _extra_files=None):
        return write_to_buffer(self.as_module(), _extra_files)
