"""torch.backends.opt_einsum."""
from ._flags import flag_functions

enabled = True
strategy = "auto"

set_flags, flags = flag_functions(globals(), dict(enabled=None, strategy=None))


def is_available() -> bool:
    return True
