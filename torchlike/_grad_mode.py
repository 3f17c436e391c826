"""Thread-local grad mode: no_grad, enable_grad, set_grad_enabled, inference_mode."""
from __future__ import annotations

import functools
import inspect
import threading

from ._errors import tp_name

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "inference_mode", "is_grad_enabled",
           "is_inference_mode_enabled", "InferenceVersion", "inference_setup", "inference_used"]


class _State(threading.local):
    def __init__(self):
        self.enabled = True
        # inside a tensor subclass's __torch_dispatch__ (utils/_subclass_dispatch.py): recording is off, as torch's
        # autograd key is below it, while is_grad_enabled() still answers the mode outside
        self.below_autograd = False
        self.inference = False


_state = _State()


class InferenceVersion(list):
    """The version counter (``Tensor._ver``) of an inference tensor: a tensor made inside
    ``inference_mode``, and every view of it, shares one of these.  The type is the mark
    (``is_inference()``); torch keeps no count for them, so ``_version`` raises."""
    __slots__ = ()


# Run (and emptied) the first time inference mode is entered: the layers above install the checks that
# inference tensors need (torchlike/_inference.py), so a program that never enters it pays nothing.
inference_setup = []
# [True] once some thread has entered inference mode: until then making a Tensor skips the thread-local check
inference_used = [False]


def is_grad_enabled() -> bool:
    """Whether operations are being recorded for autograd in this thread."""
    return _state.enabled or _state.below_autograd


def is_inference_mode_enabled() -> bool:
    return _state.inference


class _DecoratorContextManager:
    """A context manager that also works as a decorator (functions and generators)."""

    def __call__(self, func):
        if inspect.isclass(func):
            raise RuntimeError("Decorating classes is not supported")
        if inspect.isgeneratorfunction(func):
            @functools.wraps(func)
            def gen_wrapper(*args, **kwargs):
                gen = func(*args, **kwargs)
                try:
                    with self.clone():
                        response = gen.send(None)
                    while True:
                        try:
                            request = yield response
                        except GeneratorExit:
                            with self.clone():
                                gen.close()
                            raise
                        except BaseException as e:
                            with self.clone():
                                response = gen.throw(e)
                        else:
                            with self.clone():
                                response = gen.send(request)
                except StopIteration as e:  # the generator is done: so is the wrapper, with its return value
                    return e.value
            return gen_wrapper

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with self.clone():
                return func(*args, **kwargs)
        return wrapper

    def clone(self):
        return self.__class__()


class _NoParamDecorator(_DecoratorContextManager):
    """Allows ``@no_grad`` as well as ``@no_grad()``."""

    def __new__(cls, orig_func=None):
        if orig_func is None:
            return super().__new__(cls)
        return cls()(orig_func)


class no_grad(_NoParamDecorator):
    """Disable gradient recording inside the block (or decorated function).

    >>> import torchlike
    >>> x = torchlike.ones(2, requires_grad=True)
    >>> with torchlike.no_grad():
    ...     y = x * 2
    >>> y.requires_grad
    False
    """

    def __init__(self, orig_func=None):
        self.prev = False  # (torch's: an __exit__ without __enter__ turns grad mode off, as it does there)

    def __enter__(self):
        self.prev = _state.enabled
        _state.enabled = False

    def __exit__(self, *exc):
        _state.enabled = self.prev
        return False


class enable_grad(_NoParamDecorator):
    """Enable gradient recording inside the block, even within no_grad."""

    def __enter__(self):
        self.prev = _state.enabled
        _state.enabled = True

    def __exit__(self, *exc):
        _state.enabled = self.prev
        return False


class set_grad_enabled(_DecoratorContextManager):
    """Set grad mode on or off; works as a function, context manager or decorator."""

    def __init__(self, mode: bool):
        if mode is not True and mode is not False:
            raise TypeError(f"set_grad_enabled(): argument 'enabled' (position 1) must be bool, not {tp_name(mode)}")
        self.prev = _state.enabled
        self.mode = bool(mode)
        _state.enabled = self.mode

    def __enter__(self):
        _state.enabled = self.mode

    def __exit__(self, *exc):
        _state.enabled = self.prev
        return False

    def clone(self):
        return self.__class__(self.mode)

    def __repr__(self):
        return f"{type(self).__module__}.{type(self).__qualname__}(mode={self.mode})"


class inference_mode(_DecoratorContextManager):
    """Disable autograd inside the block; tensors made there are inference tensors.

    ``inference_mode(False)`` turns it off again (and grad mode on), as torch's does.

    >>> import torchlike
    >>> with torchlike.inference_mode():
    ...     t = torchlike.ones(2)
    >>> t.is_inference(), t.requires_grad
    (True, False)
    """

    def __init__(self, mode: bool = True):
        self.mode = mode

    def __new__(cls, mode=True):
        if callable(mode) and not isinstance(mode, bool):  # bare decorator
            return cls()(mode)
        return super().__new__(cls)

    def __enter__(self):
        self.prev = (_state.enabled, _state.inference)
        if self.mode and not inference_used[0]:
            inference_used[0] = True
            while inference_setup:
                inference_setup.pop()()
        # (torch's InferenceMode(mode) sets grad mode to ``not mode``, inference_mode(False) included)
        _state.enabled, _state.inference = not self.mode, bool(self.mode)

    def __exit__(self, *exc):
        _state.enabled, _state.inference = self.prev
        return False

    def clone(self):
        return self.__class__(self.mode)


class set_multithreading_enabled(_DecoratorContextManager):
    """Turn multithreaded backwards on or off (torchlike's backward always runs on the calling thread,
    so this only records the setting, as torch does on a build without threads).

    >>> import torchlike as torch
    >>> with torch.autograd.set_multithreading_enabled(False):
    ...     pass
    """

    def __init__(self, mode: bool) -> None:
        self.prev = _state.__dict__.get("multithreading", True)
        self.mode = bool(mode)
        _state.multithreading = self.mode

    def __enter__(self) -> None:
        _state.multithreading = self.mode

    def __exit__(self, *exc) -> None:
        _state.multithreading = self.prev

    def clone(self):
        return self.__class__(self.mode)


class enforce_grad_layout_policy(_DecoratorContextManager):
    """Turn the gradient-layout contract (grad strides follow the parameter's) on or off.

    torchlike's gradients have no strides of their own, so the contract always holds; this records
    the setting only.

    >>> import torchlike as torch
    >>> with torch.autograd.grad_mode.enforce_grad_layout_policy(False):
    ...     pass
    """

    def __init__(self, enable: bool = True) -> None:
        self.prev = _state.__dict__.get("grad_layout_policy", True)
        self.enable = bool(enable)

    def __enter__(self) -> None:
        _state.grad_layout_policy = self.enable

    def __exit__(self, *exc) -> None:
        _state.grad_layout_policy = self.prev

    def clone(self):
        return self.__class__(self.enable)
