"""Factories given an instance of a wrapper subclass (``x.new_zeros``, ``empty_like(x)``, ``rand_like(x)``, ...) and
in-place ops on one that requires grad, compared with torch: the aten calls ``__torch_dispatch__`` receives (names,
arguments, keywords), the results' types and metadata, and the autograd nodes in-place ops record."""
import pytest

import torchlike
from tests._dispatch_logging import summary

torch = pytest.importorskip("torch", reason="torch is the oracle for these tests")


def _wrapper_class(tl):
    """A wrapper subclass of module ``tl`` that logs each call with its arguments summarised and runs it on ``elem``."""
    tree_map = tl.utils._pytree.tree_map

    class W(tl.Tensor):
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
            kw = kwargs or {}
            cls.log.append((str(func), summary(list(args)), {k: summary(v) for k, v in kw.items()}))
            un = lambda t: t.elem if isinstance(t, W) else t  # noqa: E731
            out = func(*tree_map(un, args), **tree_map(un, kw))
            return tree_map(lambda t: W(t) if isinstance(t, tl.Tensor) else t, out)
    return W


FACTORIES = {
    "new_zeros": lambda tl, x: x.new_zeros(2, 3),
    "new_zeros_dtype": lambda tl, x: x.new_zeros((2,), dtype=tl.float64),
    "new_empty": lambda tl, x: x.new_empty(2),
    "new_ones_grad": lambda tl, x: x.new_ones(2, requires_grad=True),
    "new_full": lambda tl, x: x.new_full((2,), 3.0),
    "new_empty_strided": lambda tl, x: x.new_empty_strided((2, 3), (1, 2)),
    "new_tensor": lambda tl, x: x.new_tensor([1.0, 2.0]),
    "empty_like": lambda tl, x: tl.empty_like(x),
    "empty_like_format": lambda tl, x: tl.empty_like(x, memory_format=tl.contiguous_format),
    "empty_like_grad": lambda tl, x: tl.empty_like(x, requires_grad=True),
    "zeros_like": lambda tl, x: tl.zeros_like(x),
    "zeros_like_dtype": lambda tl, x: tl.zeros_like(x, dtype=tl.int64),
    "ones_like": lambda tl, x: tl.ones_like(x),
    "full_like": lambda tl, x: tl.full_like(x, 2.5),
    "rand_like": lambda tl, x: tl.rand_like(x),
    "randn_like_dtype": lambda tl, x: tl.randn_like(x, dtype=tl.float64),
    "randint_like": lambda tl, x: tl.randint_like(x, 5),
    "randint_like_low": lambda tl, x: tl.randint_like(x, 1, 5),
}


@pytest.mark.parametrize("name", sorted(FACTORIES))
def test_factories_of_an_instance_reach_its_torch_dispatch_as_torchs(name):
    def run(tl):
        W = _wrapper_class(tl)
        x = W(tl.randn(3, 4))
        W.log.clear()
        r = FACTORIES[name](tl, x)
        return W.log, type(r).__name__, tuple(r.shape), str(r.dtype), r.stride(), r.requires_grad
    assert run(torchlike) == run(torch)


INPLACE = {
    "add_scalar": lambda tl, y, w: (y * 1).add_(1),
    "mul_tensor": lambda tl, y, w: (y * 1).mul_(w),
    "mul_relu": lambda tl, y, w: (y * 1).mul_(2).relu_(),
    "into_plain_instance": lambda tl, y, w: w.clone().add_(y),
    "sub_alpha": lambda tl, y, w: (y * 2).sub_(w, alpha=2),
    "mul_tensor_wgrad": lambda tl, y, w: (y * 1).mul_(w),
    "add_wgrad": lambda tl, y, w: (y * 3).add_(w),
    "div_tensor_wgrad": lambda tl, y, w: (y * 1).div_(w),
    "sin": lambda tl, y, w: (y * 1).sin_(),
    "exp": lambda tl, y, w: (y * 1).exp_(),
    "div_scalar": lambda tl, y, w: (y * 1).div_(2),
    "no_grad_plain": lambda tl, y, w: w.clone().add_(1),
}


@pytest.mark.parametrize("name", sorted(INPLACE))
def test_in_place_ops_on_an_instance_record_torchs_node(name):
    def run(tl):
        W = _wrapper_class(tl)
        tl.manual_seed(0)
        y, w = W(tl.randn(3), requires_grad=True), W(tl.randn(3), requires_grad=name.endswith("wgrad"))
        W.log.clear()
        z = INPLACE[name](tl, y, w)
        if name == "no_grad_plain":
            return [c[0] for c in W.log], z.grad_fn, z.requires_grad, z._version
        forward = [c[0] for c in W.log]
        node = z.grad_fn.name() if z.grad_fn is not None else None
        meta = (type(z).__name__, node, z.requires_grad, z._version)
        W.log.clear()
        z.sum().backward()
        return forward, meta, [c[0] for c in W.log], y.grad.elem.tolist()
    ours, theirs = run(torchlike), run(torch)
    assert ours[:3] == theirs[:3]
    assert ours[3] == pytest.approx(theirs[3])


def test_in_place_ops_on_an_instance_keep_torchs_leaf_rule_and_return_it():
    def run(tl):
        W = _wrapper_class(tl)
        y = W(tl.randn(3), requires_grad=True)
        out = []
        try:
            y.add_(1)
        except RuntimeError as e:
            out.append(str(e))
        z = y * 1
        out.append(z.mul_(2) is z)
        with tl.no_grad():
            u = y * 1
            u.add_(1)
        out += [u._version, u.grad_fn, z._version]
        return out
    assert run(torchlike) == run(torch)
