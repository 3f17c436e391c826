"""torch.backends.mkldnn (not available under torchlike: the flags are kept but change nothing)."""
from ._flags import flag_functions

VERBOSE_OFF = 0
VERBOSE_ON = 1
VERBOSE_ON_CREATION = 2

enabled = True
deterministic = False
allow_tf32 = None  # what torch's CPU build reports
fp32_precision = "none"

set_flags, flags = flag_functions(
    globals(), dict(enabled=False, deterministic=False, allow_tf32=True, fp32_precision="none"))


def is_available() -> bool:
    return False


def is_built() -> bool:
    return False


def is_acl_available() -> bool:
    return False


class verbose:
    """``with torch.backends.mkldnn.verbose(level):`` — oneDNN's verbose log; nothing to log here."""

    def __init__(self, level):
        self.level = level

    def __enter__(self):
        return None if self.level == VERBOSE_OFF else self

    def __exit__(self, exc_type, exc_val, exc_tb):
        return False
