"""torchlike.signal: signal-processing helpers (torch.signal); currently the ``windows`` module.

    >>> import torchlike
    >>> torchlike.signal.windows.hann(4, sym=False)
    tensor([0.0000, 0.5000, 1.0000, 0.5000])
"""
from . import windows  # noqa: F401

__all__ = ["windows"]
