"""torch.distributed.fsdp._common_utils: ``_FSDPState``, the state base of FullyShardedDataParallel (libraries test
``isinstance(module_or_state, _FSDPState)`` to recognise FSDP)."""
from .._composable_state import _State


class _FSDPState(_State):
    pass
