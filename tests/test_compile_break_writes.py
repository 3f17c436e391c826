"""A compiled function that graph-breaks runs eagerly; the in-place writes of that eager run must stay (they
were undone by the trace's clean-up, so the first call lost its mutations). Checked against torch.compile."""
import warnings

import torch

import torchlike


def _program(lib):
    w = lib.zeros(3)

    @lib.compile
    def f(x):
        w.add_(x)
        v = float(w.sum())  # needs a concrete value: a graph break
        return w * v

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = [(f(lib.ones(3)).tolist(), w.tolist()) for _ in range(3)]
    return out


def test_break_keeps_first_call_writes():
    assert _program(torchlike) == _program(torch)


def test_break_keeps_optimizer_step():
    def run(lib):
        lib.manual_seed(0)
        m = lib.nn.Linear(3, 2)
        opt = lib.optim.SGD(m.parameters(), lr=0.1)

        @lib.compile
        def step(x):
            opt.zero_grad()
            loss = m(x).sum()
            loss.backward()
            opt.step()
            return float(loss)  # a graph break in torchlike (concrete value)

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return [round(step(lib.ones(4, 3)), 4) for _ in range(3)], round(float(m.weight.sum()), 4)

    assert run(torchlike) == run(torch)
