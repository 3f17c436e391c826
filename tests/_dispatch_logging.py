"""The logging ``TorchDispatchMode`` the dispatch tests share: run a program under it in torch and in torchlike and
compare the aten calls each shows (``str(func)``, optionally with the arguments summarised)."""


def summary(a):
    """An argument as the logs compare it: a tensor by shape and dtype, sequences element-wise, device/dtype/layout/
    memory-format objects by their ``str``, anything else as is."""
    if hasattr(a, "shape") and hasattr(a, "dtype") and not isinstance(a, (int, float)):
        return ("T", tuple(a.shape), str(a.dtype).split(".")[-1])
    if isinstance(a, (list, tuple)):
        return [summary(x) for x in a]
    if str(type(a).__name__) in ("device", "layout", "dtype", "memory_format"):
        return str(a)
    return a


def log_mode(base, with_args=False):
    """A subclass of ``base`` (torch's or torchlike's ``TorchDispatchMode``) recording each aten call it sees in
    ``self.ops``: ``str(func)``, or with ``with_args`` ``(str(func), args, kwargs)`` summarised by ``summary``;
    every call runs unchanged.

    >>> from torchlike.utils._python_dispatch import TorchDispatchMode
    >>> import torchlike
    >>> with log_mode(TorchDispatchMode)() as m:
    ...     _ = torchlike.ones(2) + 1
    >>> m.ops[-1]
    'aten.add.Tensor'
    """
    class Log(base):
        def __init__(self):
            super().__init__()
            self.ops = []

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            kw = kwargs or {}
            self.ops.append((str(func), summary(list(args)), {k: summary(v) for k, v in kw.items()})
                            if with_args else str(func))
            return func(*args, **kw)
    return Log
