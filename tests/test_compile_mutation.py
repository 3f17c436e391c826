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


# ---- thread safety and nesting ---------------------------------------------------------------
def _mlp(seed):
    torchlike.manual_seed(seed)
    return torchlike.nn.Sequential(torchlike.nn.Linear(4, 8), torchlike.nn.Tanh(), torchlike.nn.Linear(8, 2))


class _Staggered(torchlike.nn.Module):
    """Holds both threads inside their traces at once; thread 1 reads its parameters only after
    thread 0's trace has finished."""

    def __init__(self, mlp, k, barrier):
        super().__init__()
        self.mlp, self.k, self.barrier = mlp, k, barrier

    def forward(self, x):
        import time
        if torchlike.compile.is_compiling():
            self.barrier.wait()
            time.sleep(0.3 * self.k)
        return self.mlp(x)


def test_two_threads_compile_at_once_match_eager():
    import threading
    barrier = threading.Barrier(2)
    models = [_Staggered(_mlp(s), s, barrier) for s in (0, 1)]
    xs = [torchlike.randn(5, 4), torchlike.randn(3, 4)]
    cfs = [torchlike.compile(m) for m in models]
    results, errors = [None, None], []

    def work(k):
        try:
            results[k] = cfs[k](xs[k]).detach().numpy()
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)
    threads = [threading.Thread(target=work, args=(k,)) for k in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    for k in range(2):
        np.testing.assert_allclose(results[k], models[k](xs[k]).detach().numpy(), rtol=1e-5, atol=1e-6)
    # parameters were inputs, not baked-in constants: new weights are seen by the cached programs
    with torchlike.no_grad():
        for m in models:
            m.mlp[0].weight.mul_(-0.5)
    for k in range(2):
        np.testing.assert_allclose(cfs[k](xs[k]).detach().numpy(), models[k](xs[k]).detach().numpy(),
                                   rtol=1e-5, atol=1e-6)
        assert cfs[k]._compiled.compile_count == 1


def test_eager_thread_unaffected_while_another_traces():
    import threading
    stop = threading.Event()
    errs = []
    a = torchlike.arange(6.0, requires_grad=True)

    def eager_loop():
        while not stop.is_set():
            v = a[1:4]  # views and autograd in a thread that is not tracing
            (v * v).sum().backward()
            if a.grad[0].item() != 0.0:
                errs.append("grad")
            a.grad = None

    t = threading.Thread(target=eager_loop)
    t.start()
    try:
        for n in range(1, 4):
            f = torchlike.compile(lambda x: (x * 2).sum())
            assert f(torchlike.ones(n)).item() == 2.0 * n
    finally:
        stop.set()
        t.join()
    assert not errs


def test_nested_compile_matches_eager():
    m = _mlp(3)
    inner = torchlike.compile(m)
    opt = torchlike.optim.SGD(m.parameters(), lr=0.1)
    x, y = torchlike.randn(6, 4), torchlike.randn(6, 2)

    def step(model):
        opt.zero_grad()
        loss = ((model(x) - y) ** 2).mean()
        loss.backward()
        opt.step()
        return loss

    outer = torchlike.compile(lambda: step(inner))
    got = [outer().item() for _ in range(3)]
    m2 = _mlp(3)
    opt = torchlike.optim.SGD(m2.parameters(), lr=0.1)
    want = [step(m2).item() for _ in range(3)]
    np.testing.assert_allclose(got, want, rtol=1e-5)
    for p, q in zip(m.parameters(), m2.parameters()):
        np.testing.assert_allclose(p.detach().numpy(), q.detach().numpy(), rtol=1e-5, atol=1e-6)


def test_trace_inside_trace_restores_attributes():
    from torchlike.compile import _trace
    from torchlike.tensor import Tensor
    plain = Tensor.__dict__["_value"]
    with _trace.Trace() as outer:
        with _trace.Trace() as inner:
            assert _trace.current() is inner
        assert _trace.current() is outer
    assert _trace.current() is None and Tensor.__dict__["_value"] is plain
