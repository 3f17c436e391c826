"""torchlike.nn: torch.nn's modules, parameters, functional API, init and utils.

>>> import torchlike as torch
>>> m = torch.nn.Linear(3, 2)
>>> m(torch.zeros(4, 3)).shape
torch.Size([4, 2])
"""
import importlib as _importlib
import warnings as _warnings

from .parameter import Buffer, Parameter, UninitializedBuffer, UninitializedParameter  # noqa: F401
from .modules import *  # noqa: F401,F403
from . import functional  # noqa: F401
from ._from_jax import JaxModule, from_flax, from_jax  # noqa: F401  (torchlike-only: JAX/Flax models as Modules)

for _name in ("init", "utils", "parallel", "attention", "grad", "common_types", "quantized", "intrinsic", "qat"):
    try:
        _importlib.import_module(f"{__name__}.{_name}")
    except ImportError as _e:  # pragma: no cover - partially written tree
        _warnings.warn(f"torchlike.nn: could not import {_name}: {_e!r}", ImportWarning)

try:
    from .parallel import DataParallel  # noqa: F401
except ImportError:  # pragma: no cover
    pass


def factory_kwargs(kwargs):
    """torch.nn.factory_kwargs: the ``device``/``dtype``/``memory_format`` of ``kwargs`` (and of its
    ``factory_kwargs`` entry) as one dict for a factory call; TypeError for any other key or one given twice.

    >>> import torchlike as torch
    >>> torch.nn.factory_kwargs({"dtype": torch.float64, "factory_kwargs": {"device": "cpu"}})
    {'device': 'cpu', 'dtype': torch.float64}
    """
    if kwargs is None:
        return {}
    simple = {"device", "dtype", "memory_format"}
    allowed = simple | {"factory_kwargs"}
    if not kwargs.keys() <= allowed:
        raise TypeError(f"unexpected kwargs {kwargs.keys() - allowed}")
    out = dict(kwargs.get("factory_kwargs", {}))
    for k in simple:
        if k in kwargs:
            if k in out:
                raise TypeError(f"{k} specified twice, in **kwargs and in factory_kwargs")
            out[k] = kwargs[k]
    return out
