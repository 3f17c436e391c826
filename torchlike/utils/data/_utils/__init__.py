"""torch.utils.data._utils: the module paths scripts import collate/worker helpers from."""
from . import collate, worker  # noqa: F401
from .worker import MP_STATUS_CHECK_INTERVAL  # noqa: F401
