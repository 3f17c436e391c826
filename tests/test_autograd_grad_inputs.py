"""What ``autograd.grad`` and ``backward`` take as ``inputs``, as torch reads them: a dict (torch 2.13: grad's
gradients come back as a dict under the same keys; torchopt's ``FuncOptimizer.step`` passes one), a GradientEdge,
and anything else refused with torch's RuntimeError/TypeError."""
import collections

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="the expected behaviour comes from torch")
import torchlike  # noqa: E402
from conftest import raises_like_torch  # noqa: E402


def _dict_inputs(t, create_graph):
    a = t.tensor([0.5, -1.0], requires_grad=True)
    b = t.tensor([[2.0, 3.0]], requires_grad=True)
    unused = t.tensor(1.0, requires_grad=True)
    loss = (a.sin() * b).sum()
    g = t.autograd.grad(loss, {"a": a, "b": b, "u": unused}, create_graph=create_graph, allow_unused=True)
    out = [type(g).__name__, list(g), g["u"] is None, g["a"].requires_grad]
    out += [g["a"].detach().numpy(), g["b"].detach().numpy()]
    if create_graph:  # the dict's gradients are differentiable
        out.append(t.autograd.grad(g["a"].sum(), a)[0].numpy())
    m = t.autograd.grad((a * a).sum(), {"a": a}, materialize_grads=True)
    out.append(m["a"].numpy())
    (a.cos() * b).sum().backward(inputs={"b": b})   # backward accumulates into the dict's values
    out += [a.grad is None, b.grad.numpy()]
    return out


@pytest.mark.parametrize("create_graph", [False, True])
def test_grad_of_a_dict_of_inputs_returns_a_dict_like_torch(create_graph):
    want, got = _dict_inputs(torch, create_graph), _dict_inputs(torchlike, create_graph)
    assert len(want) == len(got)
    for w, g in zip(want, got):
        if isinstance(w, np.ndarray):
            np.testing.assert_allclose(g, w, rtol=1e-6)
        else:
            assert g == w


def _edge_inputs(t):
    x = t.tensor([1.0, 2.0], requires_grad=True)
    h = x * 3
    y = (h * h).sum()
    edge = t.autograd.graph.get_gradient_edge(h)
    (gh,) = t.autograd.grad(y, edge, retain_graph=True)
    gx, gh2 = t.autograd.grad(y, [t.autograd.graph.get_gradient_edge(x), edge])
    return [v.numpy() for v in (gh, gx, gh2)]


def test_grad_with_respect_to_gradient_edges_like_torch():
    for w, g in zip(_edge_inputs(torch), _edge_inputs(torchlike)):
        np.testing.assert_allclose(g, w, rtol=1e-6)


def _a(t):
    return t.tensor([1.0, 2.0], requires_grad=True)


@pytest.mark.parametrize("call", [
    lambda t: t.autograd.grad((_a(t) * 2).sum(), ["x"]),
    lambda t: (lambda a: t.autograd.grad((a * 2).sum(), [a, 3]))(_a(t)),
    lambda t: (lambda a: t.autograd.grad((a * 2).sum(), (a, (a,))))(_a(t)),
    lambda t: (lambda a: t.autograd.grad((a * 2).sum(), collections.OrderedDict(a=a)))(_a(t)),
    lambda t: t.autograd.grad((_a(t) * 2).sum(), {}),
    lambda t: (_a(t) * 2).sum().backward(inputs=["x"]),
    lambda t: (lambda a: t.autograd.backward((a * 2).sum(), inputs=[a, None]))(_a(t)),
    lambda t: (lambda a: t.autograd.backward((a * 2).sum(), inputs=collections.OrderedDict(a=a)))(_a(t)),
    lambda t: (_a(t) * 2).sum().backward(inputs=[]),
    lambda t: (_a(t) * 2).sum().backward(inputs={}),
], ids=["str", "int", "nested", "ordered-dict", "empty-dict", "backward-str", "backward-none",
        "backward-ordered-dict", "backward-empty", "backward-empty-dict"])
def test_inputs_that_are_not_tensors_raise_like_torch(call):
    raises_like_torch(call)
