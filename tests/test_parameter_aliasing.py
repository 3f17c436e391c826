"""``nn.Parameter(t)`` and ``p.data = t`` share ``t``'s storage, as torch's: writes through either reach the other
(``data_ptr`` equal), versions, ``requires_grad``, ``.grad``, optimizer steps (for-loop and foreach), flat-buffer
parameters (``p.data = flat[a:b].view_as(p)``), ``vector_to_parameters``, ``state_dict`` / ``load_state_dict``,
``torch.save`` / ``torch.load`` and ``deepcopy`` of both, ``module.to(dtype)`` and a compiled step, each compared
with real torch."""
import copy
import io

import numpy as np
import pytest

from conftest import raises_like_torch, same_as_torch



def _parameter_of_a_named_tensor(m):
    t = m.zeros(3)
    t.add_(1)
    t.add_(1)
    p = m.nn.Parameter(t)
    out = [p._version, t._version, p.data_ptr() == t.data_ptr(), p._base is None, p.is_leaf, t.requires_grad,
           sorted(vars(p)), sorted(vars(m.nn.Linear(2, 2).weight))]
    t.add_(1)
    out += [p.detach().clone(), p._version, t._version]
    with m.no_grad():
        p.mul_(2)
    out += [t.clone(), p._version, t._version, p.grad is None]
    return out


def _parameter_of_a_view(m):
    flat = m.arange(6.0)
    p = m.nn.Parameter(flat[2:5])
    flat.mul_(10)
    with m.no_grad():
        p.add_(1)
    return flat.clone(), p.detach().clone(), p.storage_offset(), p._base is None, p.is_leaf, p.data_ptr() == \
        flat.data_ptr() + 2 * 4


def _parameter_of_a_tensor_that_requires_grad(m):
    x = m.ones(3, requires_grad=True)
    p = m.nn.Parameter(x)
    with m.no_grad():
        x.mul_(3)
    (p * 2).sum().backward()
    return p.detach().clone(), p.grad, x.grad is None, x.requires_grad, x.is_leaf, p.data_ptr() == x.data_ptr()


def _parameter_requires_grad_false(m):
    t = m.ones(2)
    p = m.nn.Parameter(t, requires_grad=False)
    t.fill_(4.0)
    return p.detach().clone(), p.requires_grad, p.is_leaf


def _views_of_the_source_made_before(m):
    t = m.zeros(4)
    v = t[1:3]
    p = m.nn.Parameter(t)
    v.fill_(5.0)
    with m.no_grad():
        p.add_(1)
    return p.detach().clone(), t.clone(), v.clone(), t[2:].clone()


def _data_assignment_flat_buffer(m):
    m.manual_seed(0)
    model = m.nn.Sequential(m.nn.Linear(3, 4), m.nn.Linear(4, 2))
    params = list(model.parameters())
    flat = m.cat([p.detach().reshape(-1) for p in params])
    i = 0
    for p in params:
        n = p.numel()
        p.data = flat[i:i + n].view_as(p)
        i += n
    out = [all(p.is_leaf and p.requires_grad and p._base is None for p in params)]
    flat.mul_(0.5)  # the buffer's writes show in every parameter
    out.append(model[0].weight.detach().clone())
    opt = m.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    x = m.linspace(-1, 1, 15).reshape(5, 3)
    for _ in range(2):
        opt.zero_grad()
        model(x).pow(2).sum().backward()
        opt.step()  # the parameters' writes show in the buffer
    out += [flat.clone(), model[1].bias.detach().clone(), model[0].weight.grad]
    return out


def _data_assignment_keeps_autograd_flags(m):
    p = m.nn.Parameter(m.ones(2))
    (p * 3).sum().backward()
    t = m.full((2,), 7.0)
    p.data = t
    t.add_(1)
    with m.no_grad():
        p.mul_(2)
    return p.detach().clone(), t.clone(), p.grad, p.requires_grad, p.is_leaf, p.data_ptr() == t.data_ptr()


def _data_assignment_of_a_fresh_tensor(m):
    p = m.nn.Parameter(m.ones(3))
    with m.no_grad():
        p.add_(1)
        p.add_(1)
    p.data = p.data.double()
    with m.no_grad():
        p.add_(1)
    return p.detach().clone(), p._version, p.dtype


@pytest.mark.parametrize("foreach", [False, True])
def test_optimizer_writes_reach_the_source(foreach):
    def fn(m):
        w = m.linspace(-1, 1, 6).reshape(2, 3)
        b = m.zeros(2)
        pw, pb = m.nn.Parameter(w), m.nn.Parameter(b)
        opt = m.optim.Adam([pw, pb], lr=0.1, foreach=foreach)
        x = m.linspace(0, 1, 12).reshape(4, 3)
        for _ in range(3):
            opt.zero_grad()
            (x @ pw.t() + pb).pow(2).sum().backward()
            opt.step()
        return w.clone(), b.clone(), pw.detach().clone(), w._version == pw._version
    same_as_torch(fn, grad=False)


def _vector_to_parameters(m):
    t1, t2 = m.zeros(2, 2), m.zeros(3)
    ps = [m.nn.Parameter(t1), m.nn.Parameter(t2)]
    m.nn.utils.vector_to_parameters(m.arange(7.0), ps)
    return t1.clone(), t2.clone(), m.nn.utils.parameters_to_vector(ps)


def _state_dict_round_trip(m):
    w = m.ones(2, 3)
    lin = m.nn.Linear(3, 2)
    lin.weight = m.nn.Parameter(w)
    sd = lin.state_dict()
    lin.load_state_dict({"weight": m.full((2, 3), 2.0), "bias": m.zeros(2)})
    return w.clone(), sd["weight"].clone(), sd["weight"].data_ptr() == w.data_ptr()


def _save_and_load_keep_sharing(m):
    t = m.arange(4.0)
    p = m.nn.Parameter(t)
    buf = io.BytesIO()
    m.save({"p": p, "t": t, "v": t[1:3]}, buf)
    buf.seek(0)
    d = m.load(buf, weights_only=False)
    d["t"].add_(10)
    return (type(d["p"]).__name__, d["p"].detach().clone(), d["v"].clone(), d["p"].requires_grad,
            d["p"].data_ptr() == d["t"].data_ptr())


def _deepcopy_of_a_parameter(m):
    t = m.ones(2)
    p = m.nn.Parameter(t)
    q = copy.deepcopy(p)
    t.add_(1)
    return q.detach().clone(), q.requires_grad, type(q).__name__, p.detach().clone()


def _module_to_dtype_makes_new_storage(m):
    w = m.ones(2, 2)
    lin = m.nn.Linear(2, 2)
    lin.weight = m.nn.Parameter(w)
    lin.double()
    w.add_(1)
    same_dtype = m.nn.Linear(2, 2)
    w2 = m.ones(2, 2)
    same_dtype.weight = m.nn.Parameter(w2)
    same_dtype.float()  # no conversion: the storage stays shared
    w2.add_(1)
    return lin.weight.detach().clone(), lin.weight.dtype, same_dtype.weight.detach().clone()


def _compiled_step_mutates_parameters(m):
    w = m.ones(3)
    p = m.nn.Parameter(w)
    opt = m.optim.SGD([p], lr=0.5)

    @m.compile
    def step(x):
        opt.zero_grad()
        (p * x).sum().backward()
        opt.step()

    x = m.tensor([1.0, 2.0, 3.0])
    for _ in range(2):
        step(x)
    return w.clone(), p.detach().clone()


def _compiled_in_place_write_to_parameter(m):
    w = m.zeros(3)
    p = m.nn.Parameter(w)

    @m.compile
    def bump(x):
        with m.no_grad():
            p.add_(x)
        return p * 2

    out = bump(m.ones(3))
    return w.clone(), out.detach()


def _deepcopy_of_a_parameter_and_its_source(m):
    t = m.ones(2)
    p = m.nn.Parameter(t)
    a, b = copy.deepcopy([p, t])
    b.add_(1)
    return a.detach().clone(), b.clone()


def _parameter_of_a_numpy_tensor(m):
    arr = np.zeros(3, dtype=np.float32)
    p = m.nn.Parameter(m.from_numpy(arr))
    arr[0] = 5
    out = [p.detach().clone()]
    with m.no_grad():
        p.add_(1)
    return out + [arr.tolist()]


def _compiled_step_on_flat_buffer_parameters(m):
    m.manual_seed(0)
    lin = m.nn.Linear(3, 2)
    flat = m.zeros(8)
    lin.weight.data = flat[:6].view(2, 3)
    lin.bias.data = flat[6:]
    with m.no_grad():
        flat.copy_(m.linspace(-1, 1, 8))
    opt = m.optim.SGD(lin.parameters(), lr=0.1)

    @m.compile
    def step(x):
        opt.zero_grad()
        lin(x).pow(2).sum().backward()
        opt.step()

    x = m.linspace(0, 1, 6).reshape(2, 3)
    for _ in range(3):
        step(x)
    return flat.clone(), lin.weight.detach().clone()


def _weight_sharing(m):
    shared = m.nn.Parameter(m.ones(2, 2))
    a, b = m.nn.Linear(2, 2, bias=False), m.nn.Linear(2, 2, bias=False)
    a.weight = shared
    b.weight = m.nn.Parameter(shared)  # a Parameter of a Parameter shares it
    with m.no_grad():
        a.weight.mul_(3)
    return b.weight.detach().clone(), a.weight.data_ptr() == b.weight.data_ptr()


SCENARIOS = {
    "Parameter(t): t's storage and version": _parameter_of_a_named_tensor,
    "Parameter of a view": _parameter_of_a_view,
    "Parameter of a tensor that requires grad": _parameter_of_a_tensor_that_requires_grad,
    "Parameter(t, requires_grad=False)": _parameter_requires_grad_false,
    "views of the source made before": _views_of_the_source_made_before,
    "p.data = flat[a:b].view_as(p)": _data_assignment_flat_buffer,
    "p.data = t keeps requires_grad and .grad": _data_assignment_keeps_autograd_flags,
    "p.data = p.data.double()": _data_assignment_of_a_fresh_tensor,
    "vector_to_parameters": _vector_to_parameters,
    "state_dict and load_state_dict": _state_dict_round_trip,
    "torch.save / torch.load keep the sharing": _save_and_load_keep_sharing,
    "deepcopy": _deepcopy_of_a_parameter,
    "module.double()": _module_to_dtype_makes_new_storage,
    "a compiled optimizer step": _compiled_step_mutates_parameters,
    "a compiled in-place write": _compiled_in_place_write_to_parameter,
    "weight sharing": _weight_sharing,
    "deepcopy of a parameter and its source": _deepcopy_of_a_parameter_and_its_source,
    "Parameter of a numpy-sharing tensor": _parameter_of_a_numpy_tensor,
    "a compiled step on flat-buffer parameters": _compiled_step_on_flat_buffer_parameters,
}


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_parameter_shares_storage_like_torch(name):
    same_as_torch(lambda m: SCENARIOS[name](m), grad=False)


def test_in_place_write_to_a_view_of_an_aliasing_parameter_is_refused():
    def fn(m):
        t = m.ones(3)
        p = m.nn.Parameter(t)
        p[0:2].mul_(2)
    raises_like_torch(fn)


def test_data_of_a_non_tensor_is_refused():
    def fn(m):
        p = m.nn.Parameter(m.ones(3))
        p.data = [1.0]
    raises_like_torch(fn)


def test_as_strided_of_a_detached_leaf_stays_outside_autograd():
    def fn(m):
        x = m.ones(4, requires_grad=True)
        v = x.detach().as_strided((2,), (2,), 0)
        v.mul_(3)
        w = x.data.as_strided((2,), (1,), 1)
        w.add_(1)
        return x.detach().clone(), v.requires_grad, w.requires_grad
    same_as_torch(fn, grad=False)


def test_source_kept_after_conversion_keeps_its_storage():
    def fn(m):
        w = m.ones(2)
        p = m.nn.Parameter(w)
        p.data = m.zeros(2, dtype=m.float64)
        w.add_(1)
        with m.no_grad():
            p.add_(5)
        return w.clone(), p.detach().clone(), p.data_ptr() == w.data_ptr()
    same_as_torch(fn, grad=False)


def _view_of_a_parameter_of_a_grad_tensor(m):
    return m.nn.Parameter(m.ones(3, requires_grad=True))[0:2]


def _view_of_a_parameter_of_a_view(m):
    return m.nn.Parameter(m.arange(6.0)[0:3])[0:2]


def _view_of_a_view_of_a_parameter_of_a_view(m):
    return m.nn.Parameter(m.arange(6.0)[0:3])[0:2][0:1]


def _view_of_a_flat_buffer_parameter(m):
    lin = m.nn.Linear(3, 2)
    flat = m.zeros(8)
    lin.weight.data = flat[:6].view(2, 3)
    return lin.weight[0]


def _view_of_a_detached_alias_that_requires_grad(m):
    return m.ones(3, requires_grad=True).detach().requires_grad_()[1:]


def _view_of_a_view_made_a_leaf(m):
    v = m.ones(3)[0:2]
    v.requires_grad_()
    return v[0:1]


VIEWS_OF_LEAVES = {
    "Parameter(x that requires grad)[0:2]": _view_of_a_parameter_of_a_grad_tensor,
    "Parameter(flat[0:3])[0:2]": _view_of_a_parameter_of_a_view,
    "Parameter(flat[0:3])[0:2][0:1]": _view_of_a_view_of_a_parameter_of_a_view,
    "p.data = flat[:6].view(2, 3); p[0]": _view_of_a_flat_buffer_parameter,
    "x.detach().requires_grad_()[1:]": _view_of_a_detached_alias_that_requires_grad,
    "v = t[0:2]; v.requires_grad_(); v[0:1]": _view_of_a_view_made_a_leaf,
}


@pytest.mark.parametrize("name", list(VIEWS_OF_LEAVES))
def test_in_place_write_to_a_view_of_a_leaf_alias_is_refused(name):
    raises_like_torch(lambda m: VIEWS_OF_LEAVES[name](m).mul_(2))


@pytest.mark.parametrize("name", list(VIEWS_OF_LEAVES))
def test_in_place_write_to_a_view_of_a_leaf_alias_under_no_grad(name):
    def fn(m):
        with m.no_grad():
            v = VIEWS_OF_LEAVES[name](m)
            v.mul_(2)
        return v.detach().clone()
    same_as_torch(fn, grad=False)


def test_data_assignment_of_a_view_keeps_the_parameter_version():
    def fn(m):
        q = m.nn.Parameter(m.zeros(2))
        with m.no_grad():
            q.add_(1)
            q.add_(1)
        y = (q * q).sum()
        flat = m.arange(6.0)
        flat.add_(0)
        q.data = flat[2:4]
        v = q._version
        y.backward()  # autograd's check of the saved q passes (torch's q keeps its own counter)
        return v, q.grad, q.is_leaf, q.data_ptr() == flat.data_ptr() + 8
    same_as_torch(fn, grad=False)


@pytest.mark.parametrize("source", ["view", "requires grad", "data = view", "plain"])
def test_compiled_code_reaches_the_gradient_of_a_parameter_whatever_its_source(source):
    """``Parameter(t.reshape(...))``, ``Parameter(t)`` of a tensor requiring grad and ``p.data = flat[a:b]``: a compiled
    function's backward fills the parameter's ``.grad`` as torch's eager backward does (it was None, or the
    backward raised, while such parameters aliased their source's storage)."""
    import torch

    import torchlike

    def fn(m, compiled):
        x = m.linspace(-1, 1, 12).reshape(3, 4)
        if source == "view":
            w = m.nn.Parameter(m.linspace(0.5, 1.5, 4).reshape(1, 4))
        elif source == "requires grad":
            w = m.nn.Parameter(m.linspace(0.5, 1.5, 4, requires_grad=True))
        elif source == "data = view":
            flat = m.zeros(8)
            w = m.nn.Parameter(m.ones(4))
            w.data = flat[4:]
        else:
            w = m.nn.Parameter(m.linspace(0.5, 1.5, 4))
        f = (lambda x: (x * w).pow(2).sum())
        (m.compile(f) if compiled else f)(x).backward()
        return w.grad.numpy()
    np.testing.assert_allclose(fn(torchlike, True), fn(torch, False), rtol=1e-6)


@pytest.mark.parametrize("source", ["view", "requires grad", "data = view", "plain"])
def test_compiled_code_reaches_the_gradient_of_a_parameter_argument_whatever_its_source(source):
    """The parameter as an argument of the compiled function: its gradient reaches ``.grad`` through views made of
    it (none through its ``detach()``), and a compiled step's in-place update of it reaches the buffer it shares
    (``flat``), as torch's eager code does."""
    import torch

    import torchlike

    def fn(m, compiled):
        x = m.linspace(-1, 1, 12).reshape(3, 4)
        flat = m.zeros(8)
        if source == "view":
            w = m.nn.Parameter(flat[2:6].reshape(1, 4))
        elif source == "requires grad":
            w = m.nn.Parameter(m.linspace(0.5, 1.5, 4, requires_grad=True))
        elif source == "data = view":
            w = m.nn.Parameter(m.ones(4))
            w.data = flat[4:]
        else:
            w = m.nn.Parameter(m.linspace(0.5, 1.5, 4))
        with m.no_grad():
            flat.copy_(m.linspace(-1, 1, 8))
        f = (lambda x, w: (x * w).pow(2).sum() + (x * w.t().t()).sum() + (x * w.detach()).sum())
        (m.compile(f) if compiled else f)(x, w).backward()
        grads = [w.grad.clone()]

        def step(x, w):
            (x * w).pow(2).sum().backward()
            with m.no_grad():
                w.sub_(0.1 * w.grad)
        step = m.compile(step) if compiled else step
        for _ in range(2):
            w.grad = None
            step(x, w)
            grads.append(w.grad.clone())
        return [g.numpy() for g in grads] + [w.detach().numpy(), flat.numpy()]
    for a, b in zip(fn(torchlike, True), fn(torch, False)):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("read_first", [False, True])
def test_compiled_writes_to_the_buffer_show_in_a_parameter_viewing_it(read_first):
    """A compiled function writes the buffer a parameter views (``flat.mul_``, ``p.add_`` under no_grad) before or
    after reading the parameter: its value follows the writes and its gradient (through a view made of it) still
    reaches ``p.grad``, call after call, as torch's eager code does."""
    import torch

    import torchlike

    def fn(m, compiled):
        x = m.linspace(-1, 1, 12).reshape(3, 4)
        flat = m.linspace(0.5, 1.5, 8)
        p = m.nn.Parameter(m.ones(4))
        p.data = flat[4:]

        def f(x):
            y = (x * p).pow(2).sum() if read_first else 0
            flat.mul_(2)
            with m.no_grad():
                p.add_(1)
            return y + (x * p.view(2, 2).reshape(4)).pow(2).sum()
        f = m.compile(f) if compiled else f
        outs = []
        for _ in range(2):
            out = f(x)
            out.backward()
            outs += [out.detach().numpy(), p.grad.numpy().copy(), flat.numpy().copy()]
        return outs
    for a, b in zip(fn(torchlike, True), fn(torch, False)):
        np.testing.assert_allclose(a, b, rtol=1e-6)


def test_compiled_call_on_a_view_of_a_parameter_viewing_a_buffer_reaches_its_gradient():
    """``f(x, p.reshape(1, 4))`` where ``p.data = flat[4:]``: the argument's gradient goes to ``p``, which is not an
    argument; torchlike.compile runs such a call eagerly (a graph break, warned) and ``p.grad`` is torch's."""
    import warnings

    import torch

    import torchlike

    def fn(m, compiled):
        x = m.linspace(-1, 1, 12).reshape(3, 4)
        flat = m.linspace(0.5, 1.5, 8)
        p = m.nn.Parameter(m.ones(4))
        p.data = flat[4:]
        f = (lambda x, v: (x * v).pow(2).sum())
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            (m.compile(f) if compiled else f)(x, p.reshape(1, 4)).backward()
        return p.grad.numpy()
    np.testing.assert_allclose(fn(torchlike, True), fn(torch, False), rtol=1e-6)
