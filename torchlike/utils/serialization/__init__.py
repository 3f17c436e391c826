"""torch.utils.serialization: the settings of ``torch.save`` / ``torch.load`` (:mod:`.config`)."""
from . import config  # noqa: F401
