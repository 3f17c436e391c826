"""torch.utils.data._utils.collate (re-exports torchlike.utils.data._collate)."""
from .._collate import *  # noqa: F401,F403
from .._collate import __all__, np_str_obj_array_pattern  # noqa: F401
