"""``torch.distributed.algorithms.join``: the context manager for uneven inputs across ranks.

torchlike runs one process per rank; in a world of one (or without an initialized process group) every rank
joins at once, so ``Join`` only runs the joinables' hooks: on exit each hook's ``post_hook(True)``.

>>> from torchlike.distributed.algorithms.join import Join, Joinable, JoinHook
>>> class Model(Joinable):
...     def __init__(self):
...         super().__init__()
...     def join_hook(self, **kwargs):
...         return JoinHook()
...     @property
...     def join_device(self):
...         return None
...     @property
...     def join_process_group(self):
...         return None
>>> with Join([Model()]):
...     pass
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from typing import NamedTuple

__all__ = ["Join", "JoinHook", "Joinable"]


class JoinHook:
    """What a joinable does while others still run (``main_hook``) and once all have joined (``post_hook``)."""

    def main_hook(self) -> None:
        """Called once per iteration in which the joined rank shadows the others' collectives."""

    def post_hook(self, is_last_joiner: bool) -> None:
        """Called once every rank has joined."""


class _JoinConfig(NamedTuple):
    enable: bool
    throw_on_early_termination: bool
    is_first_joinable: bool

    @staticmethod
    def construct_disabled_join_config():
        return _JoinConfig(enable=False, throw_on_early_termination=False, is_first_joinable=False)


class Joinable(ABC):
    """A class (model, optimizer) that takes part in a ``Join`` context."""

    @abstractmethod
    def __init__(self):
        super().__init__()
        self._join_config = _JoinConfig.construct_disabled_join_config()

    @abstractmethod
    def join_hook(self, **kwargs) -> JoinHook:
        """The hook this joinable runs under ``Join``."""

    @property
    @abstractmethod
    def join_device(self):
        """The device ``Join`` communicates on."""

    @property
    @abstractmethod
    def join_process_group(self):
        """The process group ``Join`` communicates in."""


class Join:
    """Context manager letting ranks with fewer inputs shadow the others' collectives until all finish."""

    def __init__(self, joinables, enable: bool = True, throw_on_early_termination: bool = False, **kwargs):
        if len(joinables) == 0:
            raise ValueError("The join context manager requires at least one joinable")
        self._joinables = joinables
        self._join_hooks = [j.join_hook(**kwargs) for j in self._joinables]
        self._enable = enable
        self._throw_on_early_termination = throw_on_early_termination
        self._set_joinable_configs()

    def _set_joinable_configs(self):
        is_first = True
        for joinable in self._joinables:
            joinable._join_config = _JoinConfig(enable=self._enable,
                                                throw_on_early_termination=self._throw_on_early_termination,
                                                is_first_joinable=is_first)
            is_first = False

    def __enter__(self):
        return None

    def __exit__(self, exc_type, exc_value, traceback):
        if not self._enable or exc_type:
            return
        # every rank of this process's world has joined: the post-hooks run with this rank as the last joiner
        for hook in self._join_hooks:
            hook.post_hook(True)

    @staticmethod
    def notify_join_context(joinable: Joinable):
        """Called by a joinable before its per-iteration collectives; None outside a world of several ranks."""
        assert hasattr(joinable, "_join_config"), \
            f"Check that the {type(joinable)} constructor calls the ``Joinable`` constructor"
        return None
