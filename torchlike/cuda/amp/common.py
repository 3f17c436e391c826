"""torch.cuda.amp.common."""
from importlib.util import find_spec


def amp_definitely_not_available():
    """True when neither a GPU nor torch_xla is there (as torch's)."""
    from .. import is_available
    return not (is_available() or find_spec("torch_xla"))
