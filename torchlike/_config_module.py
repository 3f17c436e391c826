"""Settings modules (torch's ``torch.utils._config_module``): a module whose attributes are settings, with
``patch(...)`` to change some for a ``with`` block, and settings grouped under a dotted prefix
(``torch._inductor.config.triton.cudagraphs``) as attribute namespaces.

>>> import sys, types
>>> m = types.ModuleType("demo_config"); m.__class__ = SettingsModule; m.debug = False
>>> with m.patch(debug=True):
...     m.debug
True
>>> m.debug
False
"""
from __future__ import annotations

import contextlib
import types

__all__ = ["SettingsModule", "SubConfig"]


class _Patching:
    @contextlib.contextmanager
    def patch(self, arg=None, value=None, **changes):
        """Set ``changes`` (or ``{arg: value}``, or the dict ``arg``) for the ``with`` block, then restore."""
        if isinstance(arg, dict):
            changes.update(arg)
        elif arg is not None:
            changes[arg] = value
        before = {k: _get(self, k) for k in changes}
        for k, v in changes.items():
            _set(self, k, v)
        try:
            yield
        finally:
            for k, v in before.items():
                _set(self, k, v)


def _get(obj, dotted):
    for part in dotted.split("."):
        obj = getattr(obj, part)
    return obj


def _set(obj, dotted, value):
    *path, last = dotted.split(".")
    for part in path:
        obj = getattr(obj, part)
    setattr(obj, last, value)


class SettingsModule(_Patching, types.ModuleType):
    """The class a settings module takes (``sys.modules[__name__].__class__ = SettingsModule``)."""

    def __getattr__(self, name):
        # torch's ConfigModule text: "torch._inductor.config.nope does not exist"
        own = vars(self).get("__name__", "")
        raise AttributeError(f"{own.replace('torchlike', 'torch', 1)}.{name} does not exist")


class SubConfig(_Patching, types.SimpleNamespace):
    """A group of settings under one prefix (``config.triton``)."""
