"""``.data`` and ``detach()`` of views, and ``p.data = ...``, against torch: the results are no views (``_base`` is
None, as torch's), ``p.data = p.data[0]`` takes the view's value and strides (it raised an IndexError while reading
the strides of a view of what it was replacing), and a module converted with ``.double()`` keeps training."""
import pytest

from conftest import same_as_torch


def _data_of_a_view_of_self(m):
    p = m.nn.Parameter(m.arange(6.0).reshape(2, 3))
    p.data = p.data[1]
    with m.no_grad():
        p.mul_(2)
    return p.detach().clone(), p.shape, p.stride(), p.is_leaf, p._base is None


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


SCENARIOS = {
    ".data = a view of its own .data": _data_of_a_view_of_self,
    "a converted module trains": _converted_module_keeps_training,
    "detach() and .data of a view are no views": _detach_of_a_view_is_no_view,
}


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_data_and_detach_of_views_like_torch(name):
    same_as_torch(lambda m: SCENARIOS[name](m), grad=False)
