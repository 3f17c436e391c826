"""torch.fx.experimental.proxy_tensor: libraries ask ``get_proxy_mode()`` whether make_fx is tracing them to
skip data-dependent work; torchlike never traces with proxy modes, so the answer is always None.  ``make_fx``
(graph capture) is not provided: torchlike captures programs with torchlike.compile / torchlike.export.

>>> get_proxy_mode() is None
True
"""
from __future__ import annotations

__all__ = ["get_proxy_mode", "make_fx"]


def get_proxy_mode():
    """The active ProxyTorchDispatchMode: there never is one in torchlike."""
    return None


def make_fx(f, *args, **kwargs):
    """FX graph capture; not available (see docs/differences.md)."""
    raise NotImplementedError("torch.fx.experimental.proxy_tensor.make_fx is not implemented in torchlike "
                              "(capture programs with torchlike.compile / torchlike.export); see docs/differences.md")
