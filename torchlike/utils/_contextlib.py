"""torch.utils._contextlib: the context-manager-that-is-also-a-decorator base torch's grad modes share.

Libraries subclass ``_DecoratorContextManager`` for their own modes (tensordict's ``set_lazy_legacy``): an
instance works in a ``with`` and as a decorator of functions and generators, a fresh ``clone()`` per call.
"""
from .._grad_mode import _DecoratorContextManager, _NoParamDecorator as _NoParamDecoratorContextManager

__all__ = ["_DecoratorContextManager", "_NoParamDecoratorContextManager"]
