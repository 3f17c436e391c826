"""torch.cuda.amp.grad_scaler: the legacy CUDA GradScaler."""
from . import GradScaler

__all__ = ["GradScaler"]
