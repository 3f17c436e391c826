"""``nn.Buffer(t)`` shares ``t``'s storage and version counter, as torch's (``t.detach()``, requiring grad where
``t`` does, with ``persistent`` and ``_is_buffer`` set): in-place writes through either show in the other, a
module registers that very tensor, ``state_dict`` / ``load_state_dict`` reach ``t``; each compared with real
torch."""
import pytest

from conftest import same_as_torch


def _buffer_of_a_plain_tensor(m):
    t = m.zeros(3)
    t.add_(1)
    b = m.nn.Buffer(t)
    out = [type(b).__name__, b is t, b.data_ptr() == t.data_ptr(), isinstance(b, m.nn.Buffer),
           isinstance(t, m.nn.Buffer), sorted(vars(b).items()), b._version, t._version, b._base is None,
           b.requires_grad, b.is_leaf]
    t.add_(1)
    out += [b.clone(), b._version, t._version]
    b.mul_(3)
    return out + [t.clone(), b._version, t._version]


def _buffer_registered_on_a_module(m):
    t = m.ones(2)
    mod = m.nn.Module()
    mod.b = b = m.nn.Buffer(t)
    mod.c = m.nn.Buffer(t, persistent=False)
    out = [mod.b is b, mod.b is t, type(mod.b).__name__, [n for n, _ in mod.named_buffers()],
           list(mod.state_dict()), mod.state_dict()["b"].data_ptr() == t.data_ptr(), mod.c.data_ptr() == t.data_ptr()]
    mod.load_state_dict({"b": m.full((2,), 9.0)})
    return out + [t.clone(), mod.c.clone()]


def _buffer_of_a_tensor_that_requires_grad(m):
    x = m.ones(2, requires_grad=True)
    b = m.nn.Buffer(x)
    y = x * 2
    by = m.nn.Buffer(y)
    with m.no_grad():
        x.add_(1)
    return (b.clone().detach(), b.requires_grad, b.is_leaf, b.data_ptr() == x.data_ptr(), by.requires_grad,
            by.is_leaf, by.grad_fn is None, type(m.nn.Buffer(m.nn.Parameter(m.ones(1)))).__name__)


def _buffer_of_a_view(m):
    flat = m.arange(6.0)
    b = m.nn.Buffer(flat[1:3])
    flat.mul_(10)
    b.add_(1)
    return flat.clone(), b.clone(), b._base is None, b.storage_offset(), b.data_ptr() == flat.data_ptr() + 4


def _buffer_of_a_buffer_and_data_assignment(m):
    t = m.zeros(2)
    b = m.nn.Buffer(t)
    c = m.nn.Buffer(b)
    c.add_(2)
    new = m.ones(2)
    b.data = new
    new.add_(1)
    t.add_(5)
    return t.clone(), b.clone(), c.clone(), b.data_ptr() == new.data_ptr()


def _module_to_dtype(m):
    t = m.ones(2)
    mod = m.nn.Module()
    mod.b = m.nn.Buffer(t)
    mod.double()
    t.add_(1)
    return mod.b.clone(), mod.b.dtype, t.clone()


SCENARIOS = {
    "Buffer(t): t's storage and version": _buffer_of_a_plain_tensor,
    "module registration, state_dict, persistent=False": _buffer_registered_on_a_module,
    "Buffer of a tensor that requires grad": _buffer_of_a_tensor_that_requires_grad,
    "Buffer of a view": _buffer_of_a_view,
    "Buffer of a Buffer, b.data = t": _buffer_of_a_buffer_and_data_assignment,
    "module.double()": _module_to_dtype,
}


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_buffer_shares_storage_like_torch(name):
    same_as_torch(lambda m: SCENARIOS[name](m), grad=False)
