"""``torch.nn.utils._expanded_weights``: per-sample gradients through ExpandedWeight parameters (see
``expanded_weights_impl``)."""
from .expanded_weights_impl import ExpandedWeight

__all__ = ["ExpandedWeight"]
