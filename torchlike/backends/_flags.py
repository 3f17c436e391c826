"""The ``set_flags`` / ``flags`` pair every ``torch.backends.<lib>`` module has, over that module's globals."""
from contextlib import contextmanager


def flag_functions(namespace, flags_defaults, ignored=()):
    """``(set_flags, flags)`` for the module whose globals are ``namespace``.

    ``set_flags(*values)`` sets the globals named by ``flags_defaults`` in order (a None value leaves one as it
    is, and so does one in ``ignored``: torch's cudnn ``benchmark_limit`` without CUDA) and returns their
    previous values; ``flags(**values)`` sets them for a ``with`` block, an omitted one taking torch's default
    in ``flags_defaults``.

    >>> from torchlike.backends import cudnn
    >>> with cudnn.flags(enabled=False):
    ...     cudnn.enabled
    False
    >>> cudnn.enabled
    True
    """
    names = tuple(flags_defaults)

    def set_flags(*values):
        orig = tuple(namespace[n] for n in names)
        for name, value in zip(names, values):
            if value is not None and name not in ignored:
                namespace[name] = value
        return orig

    def flags(*args, **kwargs):
        if len(args) > len(names):
            raise TypeError(f"flags() takes from 0 to {len(names)} positional arguments but {len(args)} were given")
        values = dict(flags_defaults)
        values.update(zip(names, args))
        for key, value in kwargs.items():
            if key not in values:
                raise TypeError(f"flags() got an unexpected keyword argument '{key}'")
            values[key] = value
        return _flags_context(set_flags, [values[n] for n in names])

    return set_flags, flags


@contextmanager
def _flags_context(set_flags, values):
    orig = set_flags(*values)
    try:
        yield
    finally:
        set_flags(*orig)
