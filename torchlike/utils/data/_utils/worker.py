"""torch.utils.data._utils.worker (re-exports torchlike.utils.data._worker)."""
from .._worker import (MP_STATUS_CHECK_INTERVAL, ExceptionWrapper, WorkerInfo, get_worker_info,  # noqa: F401
                       _generate_state, _IterableDatasetStopIteration, _ResumeIteration, _worker_loop)
