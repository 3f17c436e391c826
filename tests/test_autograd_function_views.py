"""The outputs of a custom ``autograd.Function`` that are its inputs returned as-is, or views of them made in
``forward``, are views sharing the input's storage, as torch makes them (``view_as(self)``): the same
``data_ptr``, ``_base`` the input's base, writes visible both ways, and the Function's node as ``grad_fn``;
torch then refuses an in-place write to such an output (CreationMeta::IN_CUSTOM_FUNCTION). Module full backward hooks route tensors through such a Function
(``BackwardHookFunction``), so a hooked module's output shares its result's storage (libraries such as
BackPACK key what they pass between modules by ``data_ptr``), and an in-place op on it raises torch's error."""
import pytest

torch = pytest.importorskip("torch", reason="the expected behaviour comes from torch")
import torchlike  # noqa: E402
from conftest import raises_like_torch  # noqa: E402


def _fns(t):
    class Same(t.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a

        @staticmethod
        def backward(ctx, g):
            return g * 2

    class Flat(t.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a.view(-1)

        @staticmethod
        def backward(ctx, g):
            return g.view(2, 3) * 3

    class Three(t.autograd.Function):  # an input as-is, a view of it made in forward, a new tensor
        @staticmethod
        def forward(ctx, a):
            return a, a[0], a * 2

        @staticmethod
        def backward(ctx, g0, g1, g2):
            out = g0 + g2 * 2
            out[0] += g1
            return out

    return Same, Flat, Three


def _facts(t, make_input):
    out = []
    for fn in _fns(t)[:2]:
        x = t.arange(6.0).reshape(2, 3).requires_grad_()
        w = make_input(x)
        p = fn.apply(w)
        base = w if w._base is None else w._base
        out.append([p is w, p._base is base, p.data_ptr() == w.data_ptr(), p.requires_grad, p.is_leaf,
                    None if p.grad_fn is None else p.grad_fn.name(), p._version, tuple(p.shape)])
        if p.requires_grad:
            (p * t.arange(6.0).view(p.shape)).sum().backward()
            out.append(x.grad.tolist())
        with t.no_grad():  # a write through the output is a write of the input's storage
            p.add_(1)
        out.append((w.tolist(), w._version, p._version))
    return out


@pytest.mark.parametrize("kind", ["non-leaf", "leaf", "no-grad", "view-input"])
def test_input_returned_or_viewed_is_a_view_of_it(kind):
    make = {"non-leaf": lambda x: x * 1, "leaf": lambda x: x, "no-grad": lambda x: x.detach().clone(),
            "view-input": lambda x: (x * 1)[:, :]}[kind]
    assert _facts(torchlike, make) == _facts(torch, make)


def _three(t):
    _, _, three = _fns(t)
    x = t.arange(6.0).reshape(2, 3).requires_grad_()
    w = x * 1
    a, b, c = three.apply(w)
    facts = [(o._base is w, o.data_ptr() == w.data_ptr(), o.grad_fn.name(), o._is_view()) for o in (a, b, c)]
    (a.sum() + (b * 10).sum() + (c * 100).sum()).backward()
    return facts, x.grad.tolist()


def test_multiple_outputs_views_and_new():
    assert _three(torchlike) == _three(torch)


def _inplace_on_output(t, which):
    same, flat, _ = _fns(t)
    x = t.randn(2, 3, requires_grad=True)
    p = (same if which == "same" else flat).apply(x * 1 if which != "leaf" else x)
    p.mul_(2)


def _read_after_base_write(t, which):
    same, flat, _ = _fns(t)
    x = t.ones(2, 3, requires_grad=True)
    w = x * 1
    p = (same if which == "same" else flat).apply(w)
    w.add_(1)  # (torch would refuse p's autograd use now; reading its value is fine)
    with t.no_grad():
        doubled = (p * 2).tolist()
    return p.detach().tolist(), doubled, p.data_ptr() == w.data_ptr()


@pytest.mark.parametrize("which", ["same", "flat", "leaf"])
def test_inplace_on_function_view_output_raises_like_torch(which):
    raises_like_torch(lambda t: _inplace_on_output(t, which))


@pytest.mark.parametrize("which", ["same", "flat"])
def test_value_reads_after_base_written_like_torch(which):
    assert _read_after_base_write(torchlike, which) == _read_after_base_write(torch, which)


def _nograd_writes_are_allowed(t):
    same, _, _ = _fns(t)
    x = t.ones(2, 3, requires_grad=True)
    p = same.apply(x * 1)
    with t.no_grad():
        p.mul_(3)
    return p.detach().tolist()


def test_inplace_without_grad_is_allowed():
    assert _nograd_writes_are_allowed(torchlike) == _nograd_writes_are_allowed(torch)


def _hooked(t):
    t.manual_seed(0)
    lin = t.nn.Linear(3, 3)
    relu = t.nn.ReLU()
    seen = {}
    for m in (lin, relu):
        m.register_forward_hook(lambda m, i, o: seen.__setitem__(type(m).__name__, (i[0].data_ptr(), o.data_ptr())))
        m.register_full_backward_hook(lambda m, gi, go: None)
    x = t.randn(2, 3, requires_grad=True)
    y = relu(lin(x))
    # the output the hook saw is the one the next module took in, by storage (BackPACK's data_ptr keys)
    return [seen["Linear"][1] == seen["ReLU"][0], y.grad_fn.name(), lin(x).grad_fn.name(),
            lin(x)._base.grad_fn.name()]


def test_full_backward_hook_outputs_share_storage():
    assert _hooked(torchlike) == _hooked(torch)


def _inplace_after_hooked(t):
    lin = t.nn.Linear(3, 3)
    lin.register_full_backward_hook(lambda m, gi, go: None)
    t.nn.ReLU(inplace=True)(lin(t.randn(2, 3, requires_grad=True)))


def test_inplace_after_hooked_module_raises_like_torch():
    raises_like_torch(_inplace_after_hooked)
