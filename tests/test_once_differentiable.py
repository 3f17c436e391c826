"""``@once_differentiable`` backward: its results, differentiated again (create_graph with grad outputs that require
grad), raise torch's error through torch's ``Error`` node; before, torchlike left them without history, so a second
backward silently dropped this Function's contribution."""
import pytest
import torch
from torch.autograd.function import once_differentiable as torch_once

import torchlike
from torchlike.autograd.function import once_differentiable as our_once


def _square(lib, once):
    class Square(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        @once
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return 2 * x * g
    return Square


LIBS = [(torch, torch_once), (torchlike, our_once)]


def _second_backward(lib, once):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    y = (_square(lib, once).apply(x) * x).sum()
    g, = lib.autograd.grad(y, x, create_graph=True)
    first = g.detach().tolist()
    with pytest.raises(RuntimeError) as e:
        g.sum().backward()
    return first, str(e.value)


def test_differentiating_twice_raises_like_torch():
    assert _second_backward(torchlike, our_once) == _second_backward(torch, torch_once)


def _node(lib, once):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    go = lib.ones(2, requires_grad=True)
    g, = lib.autograd.grad(_square(lib, once).apply(x), x, go, create_graph=True)
    edges = [type(n).__name__ for n, _ in g.grad_fn.next_functions]
    return type(g.grad_fn).__name__, g.grad_fn.name(), edges, g.tolist(), g.requires_grad


def test_results_hang_on_torchs_error_node():
    assert _node(torchlike, our_once) == _node(torch, torch_once)


def _plain(lib, once):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    g, = lib.autograd.grad(_square(lib, once).apply(x).sum(), x, create_graph=True)
    h, = lib.autograd.grad(_square(lib, once).apply(x).sum(), x)
    return g.tolist(), g.requires_grad, h.tolist(), h.requires_grad


def test_grad_outputs_that_need_no_grad_give_plain_results_like_torch():
    assert _plain(torchlike, our_once) == _plain(torch, torch_once)
