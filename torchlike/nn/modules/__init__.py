"""All nn module classes.  Each family lives in its own file; the list below star-imports them."""
from .._loader import star_import as _star_import

__all__: list = []

_star_import(__name__, [
    # core (nn core helper)
    "module", "container", "linear", "activation", "loss", "dropout", "sparse", "flatten", "lazy",
    # heavy layers (layers helper)
    "conv", "pooling", "normalization", "batchnorm", "instancenorm", "rnn", "transformer",
    "activation_attn", "padding", "upsampling", "fold", "pixelshuffle", "channelshuffle", "distance",
    "adaptive", "embedding_bag", "lazy_conv", "linear_cross_entropy",
], globals(), __all__)
from . import utils  # noqa: E402,F401  (torch.nn.modules.utils is an attribute in torch too)
