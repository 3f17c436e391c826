"""The legacy ``torch.autograd.Variable`` constructor as pre-0.4 example code uses it
(``Variable(x, requires_grad=True)``, ``Variable(h.data)``, ``Variable(x, volatile=True)``): a detached leaf
sharing storage, the input left untouched, a UserWarning for ``volatile`` -- all checked against torch."""
import warnings

import numpy as np
import pytest

import torchlike

torch = pytest.importorskip("torch", reason="expected behaviour comes from real torch")


def _facts(t):
    from importlib import import_module
    Variable = import_module(t.__name__ + ".autograd").Variable
    x = t.tensor([1.0, 2.0, 3.0])
    v = Variable(x, requires_grad=True)
    facts = [v is x, v.requires_grad, x.requires_grad, v.is_leaf, v.grad_fn is None]
    v.sum().backward()
    facts += [v.grad.tolist(), x.grad is None]
    with t.no_grad():
        v[0] = 10.0  # shares storage with x
    facts.append(x.tolist())
    a = t.tensor([1.0, 2.0], requires_grad=True)
    w = Variable(a * 2)  # a non-leaf: detached
    facts += [w.requires_grad, w.grad_fn is None, w.tolist()]
    facts.append(isinstance(x, Variable))
    facts.append(x.numpy().tolist())  # x must not have been made to require grad
    return facts


def test_variable_constructor_matches_torch():
    assert _facts(torchlike) == _facts(torch)


def test_variable_volatile_warns_like_torch():
    msgs = []
    for t in (torch, torchlike):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            v = t.autograd.Variable(t.ones(2), volatile=True)
        msgs.append(([str(m.message) for m in w if issubclass(m.category, UserWarning)], v.requires_grad))
    assert msgs[0] == msgs[1]


def test_variable_of_non_tensor_is_type_error_like_torch():
    errs = []
    for t in (torch, torchlike):
        with pytest.raises(TypeError) as e:
            t.autograd.Variable(3)
        errs.append(str(e.value))
    assert errs[0] == errs[1]


def test_old_style_training_loop_with_variables_matches_torch():
    def run(t):
        t.manual_seed(0)
        V = t.autograd.Variable
        lin = t.nn.Linear(3, 1)
        x = t.randn(8, 3)
        y = t.randn(8, 1)
        for _ in range(3):
            xv, yv = V(x), V(y, requires_grad=False)
            lin.zero_grad()
            loss = ((lin(xv) - yv) ** 2).mean()
            loss.backward()
            for p in lin.parameters():
                p.data.sub_(0.1 * p.grad.data)
        return lin.weight.detach().numpy(), x.requires_grad
    (we, xe), (wg, xg) = run(torch), run(torchlike)
    np.testing.assert_allclose(wg, we, rtol=1e-5)
    assert xe == xg
