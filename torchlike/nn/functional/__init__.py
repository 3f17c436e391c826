"""torchlike.nn.functional: torch.nn.functional.  Each family lives in a submodule; all are
re-exported here.

>>> import torchlike as torch
>>> import torchlike.nn.functional as F
>>> F.relu(torch.tensor([-1.0, 2.0]))
tensor([0., 2.])
"""
import sys as _sys

from ..._ops import registry as _registry
from ..._torch_function import (handle_torch_function, has_torch_function,  # noqa: F401 (torch's F re-exports
                                has_torch_function_unary, has_torch_function_variadic)  # the protocol helpers)
from .._loader import star_import as _star_import

__all__: list = []

# the family files declare their functions in the op table's "nn.functional" namespace: install (below) puts
# them here, as it puts torch.X in torchlike; the star import brings the families' other public names
_star_import(__name__, [
    # nn core helper
    "_activation", "_loss", "_margin_loss", "_linear", "_dropout", "_embedding", "_misc", "_ctc",
    # layers helper
    "_conv", "_pooling", "_adaptive_pooling", "_norm", "_rnn", "_attention", "_vision", "_embeddingbag", "_linear_ce",
], globals(), __all__, skip=lambda name: _registry.declares("nn.functional", name))
_registry.install({"nn.functional": _sys.modules[__name__]})

# torch's F names outside its families: the grid_sample mode tables, its argument assertion, and the dispatcher of
# functions with a boolean argument (torch._jit_internal's, re-exported by torch's F)
from ..._jit_internal import boolean_dispatch  # noqa: E402,F401
from ._vision import GRID_SAMPLE_INTERPOLATION_MODES, GRID_SAMPLE_PADDING_MODES  # noqa: E402,F401


def assert_int_or_pair(arg, arg_name, message):
    """AssertionError ``message.format(arg_name)`` unless ``arg`` is an int or has two elements."""
    if not (isinstance(arg, int) or len(arg) == 2):
        raise AssertionError(message.format(arg_name))
