"""torchlike.testing: ``assert_close`` and ``make_tensor`` as in ``torch.testing``.

>>> import torchlike as torch
>>> torch.testing.assert_close(torch.ones(2), torch.ones(2))
"""
from ._comparison import assert_allclose, assert_close, make_tensor

__all__ = ["assert_close", "assert_allclose", "make_tensor"]
