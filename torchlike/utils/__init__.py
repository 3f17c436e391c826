"""torchlike.utils: data loading (utils.data), checkpointing, tensorboard, dlpack."""
import importlib

from .._missing import module_getattr

_SUBMODULES = ("data", "checkpoint", "tensorboard", "dlpack", "hooks", "_pytree")
_missing = module_getattr("torch.utils")


def __getattr__(name):
    # submodules load on first use (torch.utils.data.DataLoader works after a plain `import torch`)
    if name in _SUBMODULES:
        try:
            return importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError:
            pass
    return _missing(name)
