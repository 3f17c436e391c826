"""``nn.Parameter(t)`` and ``p.data = t`` share ``t``'s storage, as in torch, where ``t`` is its storage's only
handle (a root nothing views, or the only view of a root nothing else holds): an in-place write through either
handle is seen by the other.  Each scenario runs with torch and with torchlike and must give the same values."""
import pytest

from conftest import same_as_torch


def _param_of_plain(m):
    t = m.zeros(3)
    p = m.nn.Parameter(t)
    t.add_(1)
    seen_by_p = p.detach().clone()
    with m.no_grad():
        p.mul_(5)
    return seen_by_p, t.clone(), p._base is None, t._base is None, p.is_leaf, t.requires_grad


def _data_assigned_a_held_tensor(m):
    p = m.nn.Parameter(m.zeros(2))
    z = m.ones(2)
    p.data = z
    z.add_(3)
    seen = p.detach().clone()
    p.data.mul_(2)
    return seen, z.clone(), p._base is None, p.is_leaf, p.requires_grad


def _converted_module_keeps_training(m):
    m.manual_seed(0)
    model = m.nn.Linear(3, 2).double()
    opt = m.optim.Adam(model.parameters(), lr=0.01)
    x = m.ones(4, 3, dtype=m.float64)
    for _ in range(2):
        opt.zero_grad()
        model(x).sum().backward()
        opt.step()
    return model.weight.detach().clone(), model.weight._base is None, model.weight.dtype


def _detach_of_a_view_is_no_view(m):
    t = m.ones(3)
    return t[1:].detach()._base is None, t[1:].data._base is None, t[1:]._base is t


def _param_of_the_only_view(m):
    w = m.arange(4.0).reshape(2, 2)  # (its root is held by w alone)
    p = m.nn.Parameter(w)
    w.add_(1)
    with m.no_grad():
        p[0, 0] = -5
    return p.detach().clone(), w.clone(), p._base is None, w._version == p._version


def _two_steps_of_a_module_made_of_kept_tensors(m):
    """A module whose parameters are made of tensors the constructor keeps (and changes afterwards), trained eagerly
    and compiled: the parameters stay ordinary leaves."""
    class Net(m.nn.Module):
        def __init__(self):
            super().__init__()
            w = m.linspace(-1, 1, 12).reshape(3, 4)
            self.w = m.nn.Parameter(w)
            b = m.zeros(3)
            self.b = m.nn.Parameter(b)
            b.fill_(0.5)  # (reaches the parameter, as in torch)
            self.kept = w

        def forward(self, x):
            return (x @ self.w.t() + self.b).tanh().sum()
    out = []
    for compiled in (False, True):
        net = Net()
        call = m.compile(net) if compiled else net
        opt = m.optim.SGD(net.parameters(), lr=0.1)
        x = m.linspace(0, 1, 8).reshape(2, 4)
        for _ in range(2):
            opt.zero_grad()
            loss = call(x)
            loss.backward()
            opt.step()
            out.append(loss.detach())
        out += [net.w.grad.clone(), net.b.grad.clone(), net.kept.clone()]
    return out


SCENARIOS = {
    "Parameter of a plain tensor": _param_of_plain,
    "Parameter of the only view of a root": _param_of_the_only_view,
    ".data = a tensor the caller keeps": _data_assigned_a_held_tensor,
    "a module made of kept tensors, eager and compiled": _two_steps_of_a_module_made_of_kept_tensors,
    "a converted module trains": _converted_module_keeps_training,
    "detach() and .data of a view are no views": _detach_of_a_view_is_no_view,
}


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_parameters_share_storage_like_torch(name):
    same_as_torch(lambda m: SCENARIOS[name](m), grad=False)
