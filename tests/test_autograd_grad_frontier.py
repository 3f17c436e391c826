"""``autograd.grad(outputs, inputs)`` with non-leaf ``inputs`` stops at them, as torch's engine does: the
input's own node is not run (nor its saved values freed), so a later ``grad`` from that input down to the
leaves still works (captum's NeuronConductance does exactly this). A target's node that does run because
another target lies below it is freed, and then a second pass through it fails as in torch. Where a target's
node runs, the gradient captured for it is the one before its tensor hooks (torch's engine order)."""
import pytest

torch = pytest.importorskip("torch", reason="the expected behaviour comes from torch")
import torchlike  # noqa: E402


def _program(t, x0):
    out = []
    x = t.tensor(x0, requires_grad=True)
    h = (x * x).exp()
    y = (h.sin() * h).sum()
    out.append(t.autograd.grad(y, h)[0])
    out.append(t.autograd.grad(h.sum(), x)[0])           # the graph under h is still there
    lin_w = t.tensor([[0.5, -1.0, 0.25], [1.5, 0.5, -0.5]], requires_grad=True)
    z = x @ lin_w.t()
    o = t.relu(z) * z
    out.append(t.autograd.grad(t.unbind(o), z)[0])
    out.append(t.autograd.grad(z[1], x)[0])
    h = (x * 3).tanh()
    h.register_hook(lambda g: g * 10)
    out.extend(t.autograd.grad((h * h).sum(), [h, x]))   # h's node runs (x below): h's grad is pre-hook
    h = (x * 3).tanh()
    h.register_hook(lambda g: g * 10)
    out.extend(t.autograd.grad((h * h).sum(), [h]))      # h's node does not run: the hook applies
    h = x.exp()
    w = h.sin()
    out.extend(t.autograd.grad(w.sum(), [w, h]))         # w's node ran and was freed
    try:
        t.autograd.grad(w.sum(), x)
        out.append("no error")
    except RuntimeError as e:
        out.append(str(e).split(".")[0])
    return out


def test_grad_to_non_leaf_inputs_stops_there_like_torch():
    x0 = [0.3, -0.7, 1.1]
    want, got = _program(torch, x0), _program(torchlike, x0)
    assert len(want) == len(got)
    for w, g in zip(want, got):
        if isinstance(w, str):
            assert w == g
        else:
            assert g.numpy() == pytest.approx(w.numpy(), rel=1e-4, abs=1e-5)
    assert got[-1].startswith("Trying to backward through the graph a second time")
