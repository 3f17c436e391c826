"""The enums torch binds from C++ (pybind11): they print as ``ProfilerActivity.CPU``, where a Python 3.11+
``IntEnum`` prints its number.

>>> from torchlike._pybind_enum import PybindEnum
>>> class Kind(PybindEnum):
...     CPU = 0
>>> str(Kind.CPU), f"{Kind.CPU}", repr(Kind.CPU), int(Kind.CPU)
('Kind.CPU', 'Kind.CPU', '<Kind.CPU: 0>', 0)
"""
import enum

__all__ = ["PybindEnum"]


class PybindEnum(enum.IntEnum):
    """An ``IntEnum`` (code that compares or indexes with it keeps working) printed as pybind11 prints."""

    def __str__(self):
        return f"{type(self).__name__}.{self.name}"

    def __format__(self, spec):  # object's: a format spec is refused, as pybind11 has no __format__
        if spec:
            raise TypeError(f"unsupported format string passed to {type(self).__name__}.__format__")
        return str(self)
