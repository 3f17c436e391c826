"""torchlike.utils: data loading (utils.data), checkpointing, tensorboard, dlpack, benchmark."""
from .._missing import module_getattr
from .._torch_paths import lazy_import

_SUBMODULES = ("data", "checkpoint", "tensorboard", "dlpack", "hooks", "_pytree", "benchmark", "serialization")
_missing = module_getattr("torch.utils")


def __getattr__(name):
    # submodules load on first use (torch.utils.data.DataLoader works after a plain `import torch`)
    if name in _SUBMODULES:
        try:
            return lazy_import(f"{__name__}.{name}")
        except ModuleNotFoundError:
            pass
    return _missing(name)
