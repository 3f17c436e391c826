"""Class statements and classmethods in a program that imports torch: what a class body sees of the scope running
its class statement (``overrides``' ``@override`` reads that frame's bytecode for the base classes), what
classmethods and staticmethods are, and how classes of ``__main__`` holding them travel to DataLoader workers
(cloudpickle, plain pickle).  One fact per line; run under torch and under ``python -m torchlike run``."""
import builtins
import enum
import io
import pickle
import sys

import torch
from torch.utils.data import DataLoader, Dataset


def defining_scope():
    marker = "defining scope"  # noqa: F841 - read through the frame

    class A:
        seen = sys._getframe(1).f_locals.get("marker")
        code = sys._getframe(1).f_code.co_name

    return A.seen, A.code


class A0:
    caller = sys._getframe(1).f_code.co_name if sys._getframe(1) is not None else None


print("class body's caller:", defining_scope(), A0.caller == sys._getframe(0).f_code.co_name)

try:
    import overrides
except ImportError:  # the facts below need it; the program still runs
    overrides = None
if overrides is not None:
    class Base:
        def m(self):
            return 1

    class Child(Base):
        @overrides.override
        def m(self):
            return 2

    print("@override:", Child().m())
    try:
        class Bad(Base):
            @overrides.override
            def other(self):
                return 3
    except TypeError as e:
        print("@override without a base method:", e)


class Sized(Dataset):
    scale = 3

    def __init__(self, n):
        self.n = n

    @classmethod
    def of(cls, n):
        return cls(n)

    @staticmethod
    def square(i):
        return i * i

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return torch.tensor([self.square(i) * type(self).scale], dtype=torch.float32)


class Colour(enum.Enum):
    RED = 1

    @classmethod
    def _missing_(cls, value):
        return cls.RED


cm, sm = vars(Sized)["of"], vars(Sized)["square"]
made_before = vars(enum.Enum)["_missing_"]
print("types:", type(cm) is classmethod, type(sm) is staticmethod, type(made_before) is classmethod,
      isinstance(cm, classmethod), isinstance(made_before, classmethod), builtins.classmethod is classmethod,
      classmethod.__module__, classmethod.__name__, type(classmethod(len)) is type(made_before))
print("made by type():", type(vars(type("T", (), {"f": classmethod(len)}))["f"]).__name__, Colour(5))
for obj in (cm, sm, Sized):
    try:
        print("pickle:", type(pickle.loads(pickle.dumps(obj))).__name__)
    except Exception as e:
        print("pickle:", type(e).__name__, e)
try:
    import cloudpickle
except ImportError:
    cloudpickle = None
if cloudpickle is not None:
    buf = io.BytesIO()
    cloudpickle.dump((Sized, cm, sm), buf)
    S2, cm2, sm2 = pickle.loads(buf.getvalue())
    print("cloudpickle:", S2.of(4).n, S2.square(5), type(cm2).__name__, type(sm2).__name__, cm2.__func__(S2, 2).n)

if __name__ == "__main__":
    for workers in (0, 2):
        loader = DataLoader(Sized.of(6), batch_size=2, num_workers=workers)
        print("DataLoader workers", workers, [b.flatten().tolist() for b in loader])
