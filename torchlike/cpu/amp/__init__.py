"""Legacy ``torch.cpu.amp``: ``autocast`` (device 'cpu', bfloat16 by default) and ``GradScaler`` (device 'cpu').

Both warn as torch's do (FutureWarning: use ``torch.amp.autocast('cpu', ...)`` /
``torch.amp.GradScaler('cpu', ...)``) and then behave exactly like those.

>>> import warnings, torchlike
>>> with warnings.catch_warnings():
...     warnings.simplefilter("ignore")
...     with torchlike.cpu.amp.autocast():
...         y = torchlike.mm(torchlike.ones(2, 2), torchlike.ones(2, 2))
>>> y.dtype
torch.bfloat16
"""
from .autocast_mode import autocast
from .grad_scaler import GradScaler

__all__ = ["autocast", "GradScaler"]
