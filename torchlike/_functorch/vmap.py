"""torch._functorch.vmap: the module behind ``torch.vmap``, whose private helpers libraries import.

torchlike's ``torch.vmap`` is JAX's ``vmap`` (batched values are JAX tracers, not torch's C ``BatchedTensor``), so
torch's batching primitives (``_add_batch_dim``, ``_remove_batch_dim``, ``_maybe_remove_batch_dim``) have nothing to
act on: they raise NotImplementedError naming themselves. The pytree helpers are torchlike's. Replacing this module's
``_process_batched_inputs``/``_create_batched_inputs``/``_unwrap_batched`` (as tensordict does to batch its
containers) does not change ``torch.vmap``; see docs/differences.md.
"""
from __future__ import annotations

from ..tensor import Tensor
from ..func import vmap
from ..utils._pytree import _broadcast_to_and_flatten, tree_flatten, tree_unflatten
from .._torch_paths import missing_function as _missing_function

__all__ = ["Tensor", "vmap", "tree_flatten", "tree_unflatten", "_broadcast_to_and_flatten", "_get_name"]


def _get_name(func):
    """The name ``vmap``'s error messages give ``func`` (its ``__name__``, else its ``repr``)."""
    return func.__name__ if hasattr(func, "__name__") else repr(func)


_WHY = "torch.vmap is JAX's vmap here; there is no C BatchedTensor to add or remove a batch dimension of"
for _name in ("_add_batch_dim", "_remove_batch_dim", "_maybe_remove_batch_dim", "_process_batched_inputs",
              "_create_batched_inputs", "_unwrap_batched"):
    _missing_function(globals(), _name, _WHY)
