"""torch.distributed._composable_state: the module -> state registry of the composable APIs (libraries ask
``_get_module_state(module)`` to tell whether a composable API such as fully_shard manages a module)."""
import weakref
from typing import cast

from .. import nn


class _State:
    pass


_module_state_mapping: "weakref.WeakKeyDictionary[nn.Module, weakref.ReferenceType[_State]]" = \
    weakref.WeakKeyDictionary()


def _insert_module_state(module: nn.Module, state: _State) -> None:
    if module in _module_state_mapping:
        raise AssertionError(f"Inserting {module} more than once.")
    _module_state_mapping[module] = weakref.ref(state)


def _get_module_state(module: nn.Module):
    """The ``_State`` of ``module``: the module itself when it is one, the state a composable API registered for
    it, else None."""
    if isinstance(module, _State):
        return cast(_State, module)
    if module in _module_state_mapping:
        state = _module_state_mapping[module]()
        if state is None:
            raise AssertionError("State has already been garbage collected")
        return state
    return None
