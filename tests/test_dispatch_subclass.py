"""Tensor subclasses with their own ``__torch_dispatch__`` (``torch.Tensor._make_wrapper_subclass``), compared with
torch: the aten calls a subclass sees (forward, views, backward), the types it is handed, NotImplemented falling
through to the next subclass, modes seeing ops first, metadata of a wrapper, autograd above the subclass, and the
program tests/programs/wrapper_subclass_dispatch.py line by line under the runner.
"""
import pytest

import torchlike
from conftest import lib_program_vs_torch

torch = pytest.importorskip("torch")


def _logging_class(tl):
    """A LoggingTensor for module ``tl`` (torch or torchlike): wraps ``elem``, records ``str(func)``."""
    tree_map = tl.utils._pytree.tree_map

    class LoggingTensor(tl.Tensor):
        log = []

        @staticmethod
        def __new__(cls, elem, requires_grad=False):
            r = tl.Tensor._make_wrapper_subclass(cls, elem.size(), strides=elem.stride(), dtype=elem.dtype,
                                                 device=elem.device, requires_grad=requires_grad)
            r.elem = elem
            return r

        __torch_function__ = tl._C._disabled_torch_function_impl

        @classmethod
        def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
            cls.log.append((str(func), tuple(t.__name__ for t in types)))
            un = lambda t: t.elem if isinstance(t, LoggingTensor) else t  # noqa: E731
            out = func(*tree_map(un, args), **tree_map(un, kwargs or {}))
            return tree_map(lambda t: LoggingTensor(t) if isinstance(t, tl.Tensor) else t, out)
    return LoggingTensor


def _both(program):
    """``program(tl, LoggingTensor)`` in torch and torchlike: (its result, the calls logged) for each."""
    out = []
    for tl in (torch, torchlike):
        cls = _logging_class(tl)
        tl.manual_seed(0)
        r = program(tl, cls)
        out.append((r, list(cls.log)))
    return out


def _elem(t):
    return t.elem if hasattr(t, "elem") else t


@pytest.mark.parametrize("name", ["arith", "views", "index", "reductions", "linear", "mlp_backward",
                                  "index_backward", "unary_backward", "inplace", "like"])
def test_calls_and_values_match_torch(name):
    def program(tl, L):
        F = tl.nn.functional
        x = L(tl.randn(3, 4), requires_grad=name.endswith("backward"))
        if name == "arith":
            return (x * 2 + 1 - x) / 3
        if name == "views":
            return [x.t(), x.view(2, 6), x.reshape(12), x.transpose(0, 1), x.permute(1, 0), x.unsqueeze(1),
                    x.expand(2, 3, 4), x.detach(), x.mT][-3]
        if name == "index":
            return [x[1], x[1:3], x[:, 1:], x[1:3, 0], x[..., None], x[0, 1:3]][3]
        if name == "reductions":
            return [x.sum(), x.sum(0), x.mean(1, keepdim=True), x.amax(1), x.softmax(-1)][-1]
        if name == "linear":
            lin = tl.nn.Linear(4, 2)
            return F.relu(lin(x))
        if name == "mlp_backward":
            mlp = tl.nn.Sequential(tl.nn.Linear(4, 5), tl.nn.ReLU(), tl.nn.Linear(5, 2))
            F.cross_entropy(mlp(x), tl.tensor([0, 1, 1])).backward()
            return x.grad, mlp[0].weight.grad
        if name == "index_backward":
            (x[1:3, 0] * 3 + x[0].sum()).sum().backward()
            return x.grad
        if name == "unary_backward":
            (x.tanh() + x.sigmoid() * x.exp() - x.abs()).mean().backward()
            return x.grad
        if name == "inplace":
            y = x.clone()
            y.add_(1)
            y.mul_(x)
            y.zero_()
            return y.fill_(2)
        if name == "like":
            return tl.zeros_like(x), tl.ones_like(x), tl.full_like(x, 3.0), x.to(tl.float64)
    (t_out, t_log), (l_out, l_log) = _both(program)
    assert l_log == t_log
    t_flat = t_out if isinstance(t_out, tuple) else (t_out,)
    l_flat = l_out if isinstance(l_out, tuple) else (l_out,)
    for a, b in zip(t_flat, l_flat):
        assert type(a).__name__ == type(b).__name__
        assert tuple(a.shape) == tuple(b.shape) and str(a.dtype) == str(b.dtype)
        assert a.stride() == b.stride()
        torch.testing.assert_close(torch.as_tensor(_elem(b).detach().numpy()), _elem(a).detach())


def test_wrapper_metadata_matches_torch():
    def meta(tl):
        class W(tl.Tensor):
            @classmethod
            def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
                return NotImplemented
        w = tl.Tensor._make_wrapper_subclass(W, (2, 3), strides=(1, 2), dtype=tl.float16, requires_grad=True)
        v = tl.Tensor._make_wrapper_subclass(W, [4], dtype=tl.int64)
        return [type(w).__name__, tuple(w.shape), w.stride(), str(w.dtype), w.requires_grad, w.is_leaf,
                str(w.device), w.dim(), w.numel(), w.is_contiguous(), tuple(v.shape), v.stride(), str(v.dtype),
                v.requires_grad, v.element_size(), w.grad_fn]
    assert meta(torchlike) == meta(torch)


def _two_classes(tl):
    tree_map = tl.utils._pytree.tree_map
    seen = []

    def make(name, handles):
        def __new__(cls, elem):
            r = tl.Tensor._make_wrapper_subclass(cls, elem.shape, dtype=elem.dtype)
            r.elem = elem
            return r

        def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
            seen.append((name, str(func), tuple(t.__name__ for t in types)))
            if func.overloadpacket.__name__ not in handles:
                return NotImplemented
            un = lambda t: t.elem if hasattr(t, "elem") else t  # noqa: E731
            return cls(func(*tree_map(un, args), **tree_map(un, kwargs or {})))
        return type(name, (tl.Tensor,), {"__new__": staticmethod(__new__), "__torch_dispatch__":
                                         classmethod(__torch_dispatch__),
                                         "__torch_function__": tl._C._disabled_torch_function_impl})
    return make("A", ("add", "mul")), make("B", ("add", "sub", "mul")), seen


def test_not_implemented_falls_through_in_torch_order():
    def run(tl):
        A, B, seen = _two_classes(tl)
        a, b = A(tl.ones(2)), B(tl.full((2,), 2.0))
        out = [type(tl.add(a, b)).__name__, type(tl.sub(a, b)).__name__, type(tl.mul(b, a)).__name__]
        try:
            tl.sub(a, 1)
        except TypeError as e:
            out.append(str(e).replace("tests.test_dispatch_subclass", "M").replace(__name__, "M"))
        return out, seen
    assert run(torchlike) == run(torch)


def test_mode_sees_the_op_before_the_subclass():
    def run(tl, mode_base):
        L = _logging_class(tl)
        events = []

        class Mode(mode_base):
            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                events.append(("mode", str(func), tuple(t.__name__ for t in types)))
                return func(*args, **(kwargs or {}))
        x = L(tl.randn(2, 3), requires_grad=True)
        with Mode():
            y = (x * 2).sum()
            y.backward()
        events += [("sub",) + e for e in L.log]
        return events, type(y).__name__, type(x.grad).__name__
    from torch.utils._python_dispatch import TorchDispatchMode as TorchMode
    from torchlike.utils._python_dispatch import TorchDispatchMode as OurMode
    assert run(torchlike, OurMode) == run(torch, TorchMode)


def test_quantized_weight_linear_forward_and_backward_match_torch():
    def run(tl):
        tree_map = tl.utils._pytree.tree_map
        calls = []

        class Q(tl.Tensor):
            @staticmethod
            def __new__(cls, q, scale):
                r = tl.Tensor._make_wrapper_subclass(cls, q.shape, strides=q.stride(), dtype=scale.dtype)
                r.q, r.scale = q, scale
                return r
            __torch_function__ = tl._C._disabled_torch_function_impl

            @classmethod
            def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
                calls.append(str(func))
                if func is tl.ops.aten.t.default:
                    return Q(args[0].q.t(), args[0].scale.t())
                un = lambda t: t.q.to(t.scale.dtype) * t.scale if isinstance(t, Q) else t  # noqa: E731
                return func(*tree_map(un, args), **tree_map(un, kwargs or {}))
        tl.manual_seed(0)
        w = tl.randn(4, 3)
        scale = w.abs().amax(1, keepdim=True) / 127
        qw = Q(tl.round(w / scale).to(tl.int8), scale)
        x = tl.randn(2, 5, 3, requires_grad=True)
        y = tl.nn.functional.linear(x, qw, tl.ones(4))
        y.relu().pow(2).sum().backward()
        return calls, y.detach().numpy(), x.grad.numpy(), y.grad_fn.name()
    (c1, y1, g1, n1), (c2, y2, g2, n2) = run(torch), run(torchlike)
    assert (c2, n2) == (c1, n1)
    torch.testing.assert_close(torch.as_tensor(y2), torch.as_tensor(y1))
    torch.testing.assert_close(torch.as_tensor(g2), torch.as_tensor(g1))


def test_traceable_wrapper_subclass_and_flatten():
    from torchlike.utils._python_dispatch import is_traceable_wrapper_subclass

    class F2(torchlike.Tensor):
        @staticmethod
        def __new__(cls, a):
            r = torchlike.Tensor._make_wrapper_subclass(cls, a.shape, dtype=a.dtype)
            r.a = a
            return r

        def __tensor_flatten__(self):
            return ["a"], None

        @staticmethod
        def __tensor_unflatten__(inner, meta, size, stride):
            return F2(inner["a"])

        @classmethod
        def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
            return NotImplemented
    f = F2(torchlike.ones(2))
    assert is_traceable_wrapper_subclass(f) and not is_traceable_wrapper_subclass(torchlike.ones(2))
    names, ctx = f.__tensor_flatten__()
    assert type(F2.__tensor_unflatten__({n: getattr(f, n) for n in names}, ctx, f.shape, f.stride())) is F2


def test_reading_a_wrappers_values_without_dispatch_raises():
    class W(torchlike.Tensor):
        @classmethod
        def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
            return NotImplemented
    w = torchlike.Tensor._make_wrapper_subclass(W, (2,))
    with pytest.raises(RuntimeError, match="holds no data of its own"):
        w.numpy()


def test_program_matches_torch():
    lib_program_vs_torch("wrapper_subclass_dispatch.py")
