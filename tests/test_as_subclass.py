"""``Tensor.as_subclass`` is torch's ``alias()``: the instance shares the tensor's storage (writes through either
reach the other, ``data_ptr``, strides and offset kept, ``_base``/``_is_view`` as torch's), and keeps the autograd
graph (``AliasBackward0`` while autograd records).  Parameters, pickling and shared memory, which make new tensors
of a class, stay plain tensors (no view), as torch's ``_make_subclass``.  Each case is compared with torch 2.13."""
import copy
import pickle

import pytest

import torchlike

torch = pytest.importorskip("torch", reason="torch is the oracle for these tests")


def _cls(tl):
    return type("S", (tl.Tensor,), {})


def _writes(tl):
    S = _cls(tl)
    t = tl.zeros(3)
    s = t.as_subclass(S)
    t.add_(1)
    out = [s.tolist(), type(s).__name__, s._is_view(), s._base is t, s.data_ptr() == t.data_ptr()]
    s.mul_(3)
    out += [t.tolist(), t._version == s._version]
    t = tl.zeros(2, 2)
    s = t.as_subclass(S)
    v = s[0]
    t.fill_(2)
    out.append(v.tolist())
    x = tl.zeros(3)
    s = x.as_subclass(S)
    s[0] = 7
    out.append(x.tolist())
    u = s.as_subclass(tl.Tensor)
    u.sub_(1)
    out += [x.tolist(), s.tolist(), u._base is x, type(u).__name__]
    return out


def _layout(tl):
    S = _cls(tl)
    out = []
    t = tl.arange(6.).view(2, 3)
    u = t.t().as_subclass(S)
    out += [u.stride(), u.is_contiguous(), u.storage_offset(), u._base is t]
    p = tl.arange(24.).view(2, 3, 4).permute(2, 0, 1)
    u = p.as_subclass(S)
    out += [u.stride(), u[1:].stride(), u[1:].storage_offset(), u.permute(1, 2, 0).stride(), u.is_contiguous()]
    u.add_(1)
    out += [p.sum().item(), u[1:].as_subclass(S).storage_offset()]
    c = tl.ones(1, 3, 2, 2).to(memory_format=tl.channels_last).as_subclass(S)
    out += [c.stride(), c.is_contiguous(memory_format=tl.channels_last)]
    n = tl.arange(10.)[2:8:2].as_subclass(S)
    out += [n.stride(), n.storage_offset(), n.tolist()]
    return out


def _autograd(tl):
    S = _cls(tl)
    a = tl.ones(3, requires_grad=True)
    s = a.as_subclass(S)
    (s * 2).sum().backward()
    out = [a.grad.tolist(), s.grad_fn.name(), s.is_leaf, s.requires_grad]
    b = a * 1
    s = b.as_subclass(S)
    out += [s.grad_fn.name(), s.grad_fn.next_functions[0][0] is b.grad_fn]
    b.mul_(3)
    s.sum().backward()
    out.append(a.grad.tolist())
    with tl.no_grad():
        s = a.as_subclass(S)
    out += [s.requires_grad, s.is_leaf, s.grad_fn]
    r = (a.as_subclass(S) * 2)
    out += [type(r).__name__, r.grad_fn.name(), r._is_view()]
    return out


def _made_of_a_class(tl):
    S = _cls(tl)
    p = tl.nn.Parameter(tl.ones(2))
    q = pickle.loads(pickle.dumps(p))
    d = copy.deepcopy(p)
    c = copy.copy(p)
    out = [type(x).__name__ for x in (p, q, d, c)] + [x._is_view() for x in (p, q, d, c)]
    out += [x.is_leaf for x in (p, q, d, c)] + [x.requires_grad for x in (p, q, d, c)]
    out += [S(2, 3)._is_view(), S([1.0, 2.0])._is_view(), tl.Tensor._make_subclass(S, tl.ones(2))._is_view()]
    lin = tl.nn.Linear(2, 2)
    with tl.no_grad():
        lin.weight.mul_(0)
    out += [lin.weight.sum().item(), lin.weight._is_view()]
    return out


@pytest.mark.parametrize("case", [_writes, _layout, _autograd, _made_of_a_class], ids=lambda f: f.__name__)
def test_as_subclass_matches_torch(case):
    assert case(torchlike) == case(torch)
