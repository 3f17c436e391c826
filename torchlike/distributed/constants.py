"""``torch.distributed.constants``: the default process-group timeouts.

>>> from torchlike.distributed.constants import default_pg_timeout
>>> default_pg_timeout
datetime.timedelta(seconds=1800)
"""
from datetime import timedelta

__all__ = ["default_pg_nccl_timeout", "default_pg_timeout"]

# torch's defaults: 30 minutes for every backend; NCCL's own default is left to NCCL (None)
_DEFAULT_PG_TIMEOUT = timedelta(minutes=30)
default_pg_timeout = _DEFAULT_PG_TIMEOUT
default_pg_nccl_timeout = None
