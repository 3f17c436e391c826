"""``torch.distributed.checkpoint``: the state-dict helpers (``state_dict`` submodule). The distributed
checkpoint files (``save``/``load``, storage readers and writers) are not implemented: save the full state
dict from rank 0 with ``torch.save`` instead (see docs/distributed.md).

>>> from torchlike.distributed.checkpoint import state_dict
>>> state_dict.StateDictOptions().full_state_dict
False
"""
from __future__ import annotations

from ..._missing import module_getattr
from . import state_dict

__all__ = ["state_dict"]

__getattr__ = module_getattr("torch.distributed.checkpoint")
