"""``torch.distributed.checkpoint.stateful``: the ``Stateful`` protocol (``state_dict``/``load_state_dict``);
``save`` stores such an object's ``state_dict()``, ``load`` hands the loaded values to its ``load_state_dict``.

>>> import torchlike
>>> isinstance(torchlike.nn.Linear(1, 1), Stateful), isinstance({}, Stateful)
(True, False)
"""
from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

__all__ = ["Stateful", "StatefulT"]


@runtime_checkable
class Stateful(Protocol):
    """An object with ``state_dict()`` and ``load_state_dict(state_dict)``."""

    def state_dict(self) -> dict[str, Any]:
        ...

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        ...


StatefulT = Stateful
