"""torch.utils.hooks: the handle every ``register_*_hook`` returns.

>>> import torchlike
>>> h = torchlike.nn.Linear(1, 1).register_forward_hook(lambda m, i, o: None)
>>> type(h).__module__, type(h).__name__
('torchlike.utils.hooks', 'RemovableHandle')
"""
from .._hooks import RemovableHandle
from .._torch_paths import home as _home

__all__ = ["RemovableHandle"]

_home(globals(), RemovableHandle)
