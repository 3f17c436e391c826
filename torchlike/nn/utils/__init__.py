"""torchlike.nn.utils: gradient clipping, parameter/vector conversion, weight/spectral norm,
parametrizations (rnn packing utilities live in ``nn.utils.rnn``).

>>> import torchlike as torch
>>> torch.nn.utils.parameters_to_vector(torch.nn.Linear(1, 1).parameters()).shape
torch.Size([2])
"""
import importlib as _importlib

from . import parametrizations, parametrize  # noqa: F401
from .clip_grad import clip_grad_norm, clip_grad_norm_, clip_grad_value_, clip_grads_with_norm_, get_total_norm  # noqa
from .convert_parameters import parameters_to_vector, vector_to_parameters  # noqa: F401
from .spectral_norm import remove_spectral_norm, spectral_norm  # noqa: F401
from .weight_norm import remove_weight_norm, weight_norm  # noqa: F401
from . import fusion, prune, stateless  # noqa: F401
from .fusion import fuse_conv_bn_eval, fuse_conv_bn_weights, fuse_linear_bn_eval, fuse_linear_bn_weights  # noqa
from .init import skip_init  # noqa: F401
from .memory_format import convert_conv2d_weight_memory_format, convert_conv3d_weight_memory_format  # noqa: F401

try:  # packing utilities (written separately)
    rnn = _importlib.import_module(f"{__name__}.rnn")
except ImportError:  # pragma: no cover
    pass
