"""Values handed to the SummaryWriter as numpy arrays (torch.utils.tensorboard._convert_np)."""
import numpy as np

from ..._dtype import bfloat16, float16
from ...tensor import Tensor

__all__ = ["make_np"]


def make_np(x):
    """A numpy array of ``x`` (a tensor, an array or a scalar; a scalar becomes a 1-element array).

    >>> import torchlike
    >>> make_np(torchlike.ones(2)).tolist(), make_np(3).tolist()
    ([1.0, 1.0], [3])
    """
    if isinstance(x, np.ndarray):
        return x
    if np.isscalar(x):
        return np.array([x])
    if isinstance(x, Tensor):
        if x.device.type == "meta":  # (torch logs a placeholder for a tensor without data)
            return np.random.randn(1)
        if x.dtype == bfloat16:
            x = x.to(float16)
        return x.detach().cpu().numpy()
    raise NotImplementedError(f"Got {type(x)}, but numpy array or torch tensor are expected.")
