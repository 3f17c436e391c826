"""Every ``register_*hook`` returns torch's handle class (torch.utils.hooks.RemovableHandle; a multi-grad hook's
torch.autograd.graph._MultiHandle): tensors, autograd nodes, modules, optimizers, with ids from one counter, and
``remove()`` / the context manager take the hook out as torch's do."""
import importlib
import pickle

import pytest

import torchlike

torch = pytest.importorskip("torch", reason="torch is the oracle for these tests")


def _handles(m):
    x = m.ones(2, requires_grad=True)
    y = x * 2
    lin = m.nn.Linear(2, 2)
    opt = m.optim.SGD(lin.parameters(), lr=0.1)
    return {
        "tensor leaf": x.register_hook(lambda g: None),
        "tensor non-leaf": y.register_hook(lambda g: None),
        "post accumulate": x.register_post_accumulate_grad_hook(lambda t: None),
        "node hook": y.grad_fn.register_hook(lambda gi, go: None),
        "node prehook": y.grad_fn.register_prehook(lambda go: None),
        "module forward": lin.register_forward_hook(lambda *a: None),
        "module full backward": lin.register_full_backward_hook(lambda *a: None),
        "optimizer step pre": opt.register_step_pre_hook(lambda *a: None),
        "global optimizer post": importlib.import_module(f"{m.__name__}.optim.optimizer")
            .register_optimizer_step_post_hook(lambda *a: None),
        "multi grad": m.autograd.graph.register_multi_grad_hook([x], lambda gs: None),
    }


def _name(h):
    return type(h).__module__.replace("torchlike", "torch"), type(h).__qualname__, [
        c.__qualname__ for c in type(h).__mro__]


def test_every_register_hook_returns_torchs_handle_class():
    ours, theirs = _handles(torchlike), _handles(torch)
    assert {k: _name(h) for k, h in ours.items()} == {k: _name(h) for k, h in theirs.items()}
    for h in (*ours.values(), *theirs.values()):
        h.remove()


def test_removed_and_context_managed_hooks_stop_running_as_torchs():
    def run(m):
        seen = []
        x = m.ones(2, requires_grad=True)
        h = x.register_hook(lambda g: seen.append("leaf") or g * 2)
        y = x * 3
        hy = y.register_hook(lambda g: seen.append("y"))
        with y.grad_fn.register_prehook(lambda go: seen.append("pre")):
            y.sum().backward(retain_graph=True)
        h.remove()
        h.remove()  # (twice: a no-op)
        y.sum().backward(retain_graph=True)
        hy.remove()
        y.sum().backward()
        return seen, x.grad.tolist()
    assert run(torchlike) == run(torch)


def test_a_handle_pickles_with_its_module():
    lin = torchlike.nn.Linear(2, 2)
    h = lin.register_forward_hook(print)
    lin2, h2 = pickle.loads(pickle.dumps((lin, h)))
    assert list(lin2._forward_hooks) == [h2.id]
    h2.remove()
    assert not lin2._forward_hooks and list(lin._forward_hooks) == [h.id]
