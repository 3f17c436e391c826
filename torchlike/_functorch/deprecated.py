"""torch._functorch.deprecated: the transforms the ``functorch`` package exports (torch.func's, by their old names)."""
from __future__ import annotations

from ..func import functionalize, grad, grad_and_value, hessian, jacfwd, jacrev, jvp, vjp, vmap
from .make_functional import make_functional, make_functional_with_buffers
from .._torch_paths import missing_function as _missing_function

__all__ = ["functionalize", "grad", "grad_and_value", "hessian", "jacfwd", "jacrev", "jvp", "vjp", "vmap",
           "make_functional", "make_functional_with_buffers"]

_missing_function(globals(), "combine_state_for_ensemble", "use torch.func.stack_module_state")
