"""Class statements run as in torch's process: torchlike's tensor-like watch (a ``__set_name__`` on the builtin
``classmethod``, which ``type.__new__`` calls from C) puts no frame between a class body and the scope running the
class statement, which libraries read (``overrides``' ``@override``, which tianshou uses, reads the base-class
names from that frame's bytecode), and classmethods stay the builtin's objects, so classes of ``__main__`` holding
them pickle (cloudpickle, for DataLoader workers) as in torch."""
import os
import subprocess
import sys

import pytest

from conftest import run_program, same_printed_lines

PROGRAM = os.path.join(os.path.dirname(__file__), "programs", "class_statements.py")


def test_class_statements_and_classmethods_like_torch():
    """The frame a class body sees, ``@override``, ``type(cm) is classmethod``, pickle and cloudpickle of a
    ``__main__`` class with a classmethod and a staticmethod, and a DataLoader with two workers over it."""
    pytest.importorskip("torch", reason="the comparison runs the program with real torch too")
    pytest.importorskip("cloudpickle", reason="the program sends its classes by value with cloudpickle")
    expected = run_program([PROGRAM], runner=False, timeout=600)
    ours = run_program([PROGRAM], runner=True, timeout=600)
    same_printed_lines(expected, ours, rtol=0)
    assert ours[0] == "class body's caller: ('defining scope', 'defining_scope') True"
    assert ours[-1] == "DataLoader workers 2 [[0.0, 3.0], [12.0, 27.0], [48.0, 75.0]]"
    assert any(line.startswith("cloudpickle: 4 25 classmethod staticmethod") for line in ours)


_WATCH = """
import builtins
import torchlike
from torchlike import _torch_function as tf
print(hasattr(classmethod, "__set_name__"), builtins.__build_class__ is tf._build_class)
if sys.argv[1] == "refused":  # an interpreter whose builtin types take no attribute: the class-statement hook
    tf._watch(False)
    _set = tf._set_classmethod_attr
    def _refuse(name, value):
        if value is not None:
            raise TypeError("cannot set")
        _set(name, value)
    tf._set_classmethod_attr = _refuse
    tf._watch(True)
    print(hasattr(classmethod, "__set_name__"), builtins.__build_class__ is tf._build_class_watching)
class Like:
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return "dispatched " + func.__name__
print(torchlike.ones(2) + Like())
# on for good: nothing left to watch, classmethod and __build_class__ are the builtins again
print(hasattr(classmethod, "__set_name__"), builtins.__build_class__ is tf._build_class)
"""


@pytest.mark.parametrize("how", ["set_name", "refused"])
def test_the_watch_switches_the_protocol_on_then_leaves(how):
    """(In a subprocess: the protocol, once on, stays on for the whole process.)"""
    out = subprocess.run([sys.executable, "-c", "import sys\n" + _WATCH, how], capture_output=True, text=True,
                         timeout=300)
    lines = out.stdout.splitlines()
    want = ["True True"] + (["False True"] if how == "refused" else []) + ["dispatched add", "False True"]
    assert lines == want, out.stderr[-2000:]
