"""Tensor methods take no ``out=`` (torch's never do: ``x.add(y, out=z)`` is a TypeError), while the namespace
functions keep theirs; every public method torch and torchlike share is walked."""
import inspect
import warnings

import numpy as np
import pytest
import torch

import torchlike
from torchlike._missing import MissingAPI
from conftest import raises_like_torch, same_as_torch

# methods torchlike does not implement (each raises MissingAPI naming docs/differences.md), whatever the arguments
# methods torchlike lacks raise its NotImplementedError, after torch's argument errors (an ``out=`` among them):
# none left whose signature is unknown (signatures.missing_method)
NOT_IMPLEMENTED = set()

_F = np.array([[0.5, 1.5, 2.0], [0.25, 3.0, 1.25], [1.0, 0.75, 2.5]], np.float32)
_I = np.array([[0, 1, 2], [1, 0, 2], [2, 1, 0]])
_B = np.array([[True, False, True]] * 3)


def _self(m, kind):
    return m.tensor({"f": _F, "i": _I, "b": _B}[kind])


# argument lists tried in turn, in torch, until a call without out= succeeds: the out= call then differs from a
# working call only by out=
_CANDIDATES = (lambda m: (), lambda m: (_self(m, "f"),), lambda m: (0,), lambda m: (1.0,),
               lambda m: (0, _self(m, "i")), lambda m: (_self(m, "b"),), lambda m: (_self(m, "i"),),
               lambda m: (_self(m, "f"), _self(m, "f")), lambda m: (_self(m, "b"), 1.0),
               lambda m: (0, _self(m, "i"), _self(m, "f")), lambda m: ((3, 3),), lambda m: (2, 1), lambda m: (0, 1))


def _shared_methods():
    return sorted(n for n in dir(torch.Tensor) if not n.startswith("_") and callable(getattr(torch.Tensor, n, None))
                  and callable(getattr(torchlike.Tensor, n, None)))


def _plausible(name):
    """(self kind, candidate) of the first call torch accepts without out=, and its result; None if none does."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for kind in "fib":
            for c in _CANDIDATES:
                try:
                    r = getattr(_self(torch, kind), name)(*c(torch))
                except Exception:  # noqa: BLE001 - not a fitting argument list: try the next
                    continue
                return kind, c, r
    return None


def test_every_shared_method_rejects_out_like_torch():
    names = _shared_methods()
    assert len(names) > 500
    checked = 0
    for name in names:
        found = _plausible(name)
        kind, args = (found[0], found[1]) if found else ("f", _CANDIDATES[0])
        r = found[2] if found else None
        shape, dtype = (tuple(r.shape), str(r.dtype).split(".")[1]) if isinstance(r, torch.Tensor) else ((3,), "float32")

        def call(m, name=name, kind=kind, args=args, shape=shape, dtype=dtype):
            return getattr(_self(m, kind), name)(*args(m), out=m.empty(shape, dtype=getattr(m, dtype)))
        if name in NOT_IMPLEMENTED:
            with pytest.raises(MissingAPI):
                call(torchlike)
            continue
        # torch's words name the method ("sin() got an unexpected keyword argument 'out'", "TensorBase.sin() takes
        # no keyword arguments", "eq() received an invalid combination of arguments - got (Tensor, out=Tensor)")
        e = raises_like_torch(call, match=rf"^((Tensor|TensorBase)\.)?{name}\(\) ", quiet=True)
        if found:
            assert "'out'" in str(e) or "out=" in str(e) or "keyword" in str(e), (name, e)
        checked += 1
    assert checked > 500


def test_no_tensor_method_signature_has_out():
    """The static side: no public Tensor method declares an ``out`` parameter (the op table's methods are the
    declared functions themselves, their namespace functions' out= is install's wrapper)."""
    with_out = []
    for name in dir(torchlike.Tensor):
        f = getattr(torchlike.Tensor, name)
        if name.startswith("_") or not callable(f):
            continue
        try:
            params = inspect.signature(f).parameters
        except (TypeError, ValueError):
            continue
        if "out" in params:
            with_out.append(name)
    assert with_out == []


# the ops whose out= has torch's own checks (registry's out_form) and torch.norm's positional out: the namespace
# function still writes into out, the method takes torch's Tensor.norm arguments (dtype fourth)
@pytest.mark.parametrize("fn", [
    lambda m: (lambda o: (m.take(m.tensor([[1., 2.], [3., 4.]]), m.tensor([0, 3]), out=o), o))(m.empty(2)),
    lambda m: (lambda o: (m.masked_select(m.tensor([1., 2., 3.]), m.tensor([True, False, True]), out=o), o))(m.empty(0)),
    lambda m: (lambda o: (m.gather(m.tensor([[1., 2.], [3., 4.]]), 1, m.tensor([[1], [0]]), out=o), o))(m.empty(2, 1)),
    lambda m: (lambda o: (m.softmax(m.tensor([1., 2.]), 0, out=o), o))(m.empty(2)),
    lambda m: (lambda o: (m.log_softmax(m.tensor([1., 2.]), 0, out=o), o))(m.empty(2)),
    lambda m: (lambda o: (m.multinomial(m.tensor([0., 1.]), 2, True, out=o), o))(m.empty(2, dtype=m.int64)),
    lambda m: (lambda o: (m.frexp(m.tensor([8., 3.]), out=o), o))((m.empty(2), m.empty(2, dtype=m.int32))),
    lambda m: (lambda o: (m.aminmax(m.tensor([[3, 1], [0, 5]]), dim=0, out=o), o))(
        (m.empty(2, dtype=m.int64), m.empty(2, dtype=m.int64))),
    lambda m: (lambda o: (m.norm(m.tensor([3., 4.]), 2, None, False, o), o))(m.empty(())),
    lambda m: m.tensor([3., 4.]).norm(2, None, False, m.float64),
    lambda m: m.tensor([3., 4.]).norm(p=1, dtype=m.float64),
])
def test_namespace_out_still_writes(fn):
    same_as_torch(fn, grad=False)


@pytest.mark.parametrize("fn", [
    lambda m: m.gather(m.tensor([1., 2.]), 0, m.tensor([0]), out=m.empty(1, dtype=m.float64)),
    lambda m: m.multinomial(m.tensor([0., 1.]), 1, out=m.empty(1)),
    lambda m: m.aminmax(m.tensor([1, 2]), out=(m.empty((), dtype=m.int32), m.empty((), dtype=m.int32))),
    lambda m: m.softmax(m.tensor([1., 2.]), 0, out=m.empty(1).expand(2)),
    lambda m: m.log_softmax(m.tensor([1., 2.]), 0, out=m.empty(2, dtype=m.float64)),
    lambda m: m.tensor([1., 2.]).uniform_(0.0, 1.0, out=m.empty(2)),
    lambda m: m.tensor([1., 2.]).random_(0, 3, out=m.empty(2)),
    lambda m: m.tensor([1., 2.]).type(m.float64, out=m.empty(2)),
    lambda m: m.tensor([1., 2.]).new_empty_strided((2,), (1,), out=m.empty(2)),
    lambda m: m.tensor([1., 2.]).eig(out=m.empty(2)),
    lambda m: m.tensor([1., 2.]).lstsq(),
])
def test_out_errors_like_torch(fn):
    raises_like_torch(fn)


@pytest.mark.parametrize("fn", [
    lambda m: m.mm(m.ones(2, 2), m.ones(2, 2), out=1),
    lambda m: m.sum(m.ones(2, 2), 0, out=1),
    lambda m: m.add(m.ones(2, 2), m.ones(2, 2), out="a"),
    lambda m: m.mul(m.ones(2, 2), 2, out=[m.ones(2, 2)]),
    lambda m: m.exp(m.ones(2), out=(m.ones(2),)),
    lambda m: m.max(m.ones(2, 2), 0, out=1),
    lambda m: m.cat([m.ones(2), m.ones(2)], out=3),
], ids=["mm int", "sum int", "add str", "mul list", "exp tuple", "max int", "cat int"])
def test_out_that_is_no_tensor_is_torchs_type_error(fn):
    # torch's parser refuses it before the kernel runs (torchlike met it as an AttributeError of the int, or wrote
    # a one-tensor result into a list); the message names the argument or lists the overloads
    e = raises_like_torch(fn, match=r"argument 'out'|invalid combination of arguments|incorrect|out")
    assert isinstance(e, TypeError)
