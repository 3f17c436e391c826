"""Every mutation inside a compiled region reaches the caller exactly as in eager torch.

Matrix: where the tensor lives (argument, a view made of an argument, a view passed as the argument,
a closure, a module attribute, a list element) x how it is written (in-place op, setitem, ``out=``,
``.data =``, ``requires_grad_``).  Expected states come from real torch running the same function.
"""
import warnings

import numpy as np
import pytest

import torchlike

torch = pytest.importorskip("torch", reason="torch is the oracle for the expected states")

TARGETS = ["arg", "view_of_arg", "view_as_arg", "closure", "attr", "list_elem"]
OPS = ["inplace", "setitem", "out", "data", "requires_grad"]


def _mutate(t, op, L):
    if op == "inplace":
        t.mul_(2)
    elif op == "setitem":
        t[0] = -1.0
    elif op == "out":
        L.add(t, 1, out=t)
    elif op == "data":
        t.data = L.cat([t, t]) * 3
    elif op == "requires_grad":
        t.requires_grad_()


def _scenario(L, target, op, compiled):
    """Run the function twice (trace + cached program) and return the observable states."""
    wrap = torchlike.compile if compiled else (lambda f: f)
    x = L.arange(4.0)
    if target == "arg":
        f = wrap(lambda a: (_mutate(a, op, L), a.sum())[1])
        calls, state = (lambda: f(x)), (lambda: [x])
    elif target == "view_of_arg":
        def g(a):
            _mutate(a[1:], op, L)
            return a.sum()
        f = wrap(g)
        calls, state = (lambda: f(x)), (lambda: [x])
    elif target == "view_as_arg":
        v = x[1:]
        f = wrap(lambda a: (_mutate(a, op, L), a.sum())[1])
        calls, state = (lambda: f(v)), (lambda: [x, v])
    elif target == "closure":
        f = wrap(lambda: (_mutate(x, op, L), x.sum())[1])
        calls, state = f, (lambda: [x])
    elif target == "attr":
        m = L.nn.Module()
        m.register_buffer("buf", x)
        f = wrap(lambda: (_mutate(m.buf, op, L), m.buf.sum())[1])
        calls, state = f, (lambda: [m.buf])
    else:
        y = L.ones(2)
        lst = [x, y]
        f = wrap(lambda ts: (_mutate(ts[0], op, L), ts[1].sum())[1])
        calls, state = (lambda: f(lst)), (lambda: [x, y])
    results = []
    for _ in range(2):
        r = calls()
        results.append(float(r.detach()))
        results.append([(t.detach().numpy().tolist(), t.requires_grad, t.is_leaf) for t in state()])
    return results, f


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("target", TARGETS)
def test_compiled_mutation_matches_torch(target, op):
    expected, _ = _scenario(torch, target, op, compiled=False)
    eager, _ = _scenario(torchlike, target, op, compiled=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a graph break (eager fallback) would warn: the program must run
        got, f = _scenario(torchlike, target, op, compiled=True)
    assert eager == expected
    assert got == expected
    assert f.compile_count >= 1 and not f.breaks


def test_issue_example():
    @torchlike.compile
    def f(x):
        x.mul_(2)
        x[0] = -1.0
        return x.sum()
    x = torchlike.arange(4.0)
    assert f(x).item() == 11.0
    tx = torch.arange(4.0)
    tx.mul_(2)
    tx[0] = -1.0
    assert x.tolist() == tx.tolist()
    y = torchlike.arange(4.0)
    f(y)  # the cached program writes back too
    assert y.tolist() == tx.tolist() and f.compile_count == 1


def test_aliased_arguments_see_each_others_writes():
    def g(L, a, b):
        a.add_(1)
        return b * 2  # b aliases a: eager sees the write
    for L in (torch,):
        x = L.zeros(3)
        expected = g(L, x, x[1:]).tolist(), x.tolist()
    f = torchlike.compile(lambda a, b: g(torchlike, a, b))
    x = torchlike.zeros(3)
    assert (f(x, x[1:]).tolist(), x.tolist()) == expected
    y, z = torchlike.zeros(3), torchlike.zeros(2)  # same shapes, no aliasing: another program
    assert f(y, z).tolist() == [0.0, 0.0] and y.tolist() == [1.0, 1.0, 1.0]


def test_grad_of_argument_written_back_and_accumulated():
    def step(L, w):
        (w * w).sum().backward()
        return w.sum()
    tw = torch.tensor([1.0, 2.0], requires_grad=True)
    step(torch, tw)
    step(torch, tw)
    f = torchlike.compile(lambda w: step(torchlike, w))
    w = torchlike.tensor([1.0, 2.0], requires_grad=True)
    f(w)
    f(w)
    assert w.grad.tolist() == tw.grad.tolist()


def test_grad_set_to_none_and_mutated_grad_of_closure():
    p = torchlike.ones(3, requires_grad=True)
    p.grad = torchlike.ones(3)

    @torchlike.compile
    def f():
        p.grad = None
        return p.sum()
    f()
    assert p.grad is None
    p.grad = torchlike.ones(3)
    f()
    assert p.grad is None and f.compile_count == 1
