"""torchlike.optim: torch.optim's optimizers and LR schedulers on JAX (one jitted update per group per step).

>>> import torchlike as torch
>>> p = torch.tensor([1.0, -1.0], requires_grad=True)
>>> opt = torch.optim.Adam([p], lr=0.1)
>>> p.grad = torch.tensor([1.0, -1.0]); opt.step()
>>> p
tensor([ 0.9000, -0.9000], requires_grad=True)
"""
from .optimizer import Optimizer, register_optimizer_step_post_hook, register_optimizer_step_pre_hook  # noqa
from .adadelta_adagrad import Adadelta, Adagrad  # noqa: F401
from .adafactor import Adafactor  # noqa: F401
from .adam import Adam, AdamW  # noqa: F401
from .adamax import Adamax, NAdam, RAdam  # noqa: F401
from .asgd import ASGD  # noqa: F401
from .lbfgs import LBFGS  # noqa: F401
from .muon import Muon  # noqa: F401
from .rmsprop import RMSprop, Rprop  # noqa: F401
from .sgd import SGD  # noqa: F401
from .sparse_adam import SparseAdam  # noqa: F401
from . import lr_scheduler, swa_utils  # noqa: F401
from .optax_bridge import OptaxOptimizer, from_optax  # noqa: F401
from . import optimizer as _optimizer  # noqa: E402
from .._torch_paths import home as _home, mirror as _mirror  # noqa: E402
import sys as _sys  # noqa: E402

# torch's paths: Adafactor and Muon say torch.optim; the others have a module each
_home(globals(), Adafactor, Muon)
_mirror(_sys.modules[__name__], {"adadelta": [Adadelta], "adagrad": [Adagrad], "adamw": [AdamW], "nadam": [NAdam],
                                 "radam": [RAdam], "rprop": [Rprop]})

# torch's functional optimizer kernels (torch.optim.adam.adam(params, grads, exp_avgs, ...)): torchlike's
# optimizers run one fused jitted update per group instead
from .._torch_paths import missing_function as _missing_function  # noqa: E402

for _mod in ("adadelta", "adagrad", "adam", "adamax", "adamw", "asgd", "nadam", "radam", "rmsprop", "rprop", "sgd"):
    _missing_function(vars(_sys.modules[f"{__name__}.{_mod}"]), _mod, "functional optimizer kernels; use the "
                      "optimizer classes")
# the type aliases each of torch's optimizer modules imports from torch.optim.optimizer
for _mod, _names in {"adadelta": (), "adagrad": ("DeviceDict",), "adam": ("DeviceDict", "DeviceDtypeDict"),
                     "adamax": (), "adamw": (), "asgd": (), "lbfgs": (), "nadam": (), "radam": (), "rmsprop": (),
                     "rprop": (), "sgd": ("DeviceDict",), "sparse_adam": ()}.items():
    for _name in ("ParamsT",) + _names:
        setattr(_sys.modules[f"{__name__}.{_mod}"], _name, getattr(_optimizer, _name))
_missing_function(globals(), "swap_in_optimizer_params_and_state", "swapping optimizer parameters and state")

__all__ = ["ASGD", "Adadelta", "Adafactor", "Adagrad", "Adam", "AdamW", "Adamax", "LBFGS", "Muon", "NAdam",
           "Optimizer", "RAdam", "RMSprop", "Rprop", "SGD", "SparseAdam", "lr_scheduler", "swa_utils",
           "OptaxOptimizer", "from_optax"]
