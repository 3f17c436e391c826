"""Class statements run as in torch's process: torchlike's tensor-like watch (``builtins.classmethod``'s
``__set_name__``) puts no frame between a class body and the scope running the class statement, which libraries
read (``overrides``' ``@override``, which tianshou uses, reads the base-class names from that frame's bytecode),
and classmethods stay classmethods for ``isinstance``/``type``."""
import builtins
import enum
import sys

import subprocess

import pytest

import torchlike  # noqa: F401 - (the watch is installed by importing torchlike)


class Base:
    def m(self):
        return 1


def test_class_body_caller_frame_is_the_defining_scope():
    marker = "defining scope"  # noqa: F841 - read through the frame

    class A:
        seen = sys._getframe(1).f_locals.get("marker")
        code = sys._getframe(1).f_code.co_name

    assert (A.seen, A.code) == ("defining scope", "test_class_body_caller_frame_is_the_defining_scope")


def test_overrides_decorator_finds_the_base_class():
    overrides = pytest.importorskip("overrides", reason="the overrides package reads the class statement's frame")

    class Child(Base):
        @overrides.override
        def m(self):
            return 2

    assert Child().m() == 2
    with pytest.raises(TypeError, match="No super class method found"):
        class Bad(Base):
            @overrides.override
            def other(self):
                return 3


def test_classmethods_stay_classmethods():
    made_before = vars(enum.Enum)["_missing_"]  # made by the builtin before torchlike was imported
    assert isinstance(made_before, classmethod) and isinstance(classmethod(len), type(made_before))
    assert classmethod.__name__ == "classmethod" and classmethod.__module__ == "builtins"
    assert builtins.classmethod is classmethod and issubclass(type(made_before), classmethod)

    class C:
        @classmethod
        def make(cls):
            return cls

    assert C.make() is C and isinstance(vars(C)["make"], classmethod)


_TENSOR_LIKE = """
import torchlike
class Like:
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return 'dispatched ' + func.__name__
print(torchlike.add(torchlike.ones(2), Like()), torchlike.nn.functional.linear(torchlike.ones(2), Like()))
"""


def test_a_tensor_like_class_statement_switches_the_protocol_on():
    """(In a subprocess: the protocol, once on, stays on for the whole process.)"""
    out = subprocess.run([sys.executable, "-c", _TENSOR_LIKE], capture_output=True, text=True, timeout=300)
    assert out.stdout.split() == ["dispatched", "add", "dispatched", "linear"], out.stderr[-2000:]
