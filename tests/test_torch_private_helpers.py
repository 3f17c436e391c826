"""Private torch helpers that libraries import by name, vs torch: torch._vmap_internals (_vmap, the deprecated
vmap) and torch.autograd.functional's _as_tuple / _tuple_postprocess / _grad_preprocess / _grad_postprocess /
_construct_standard_basis_for (pytorch-minimize imports both; under the runner its import failed)."""
import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import torch._vmap_internals as TV  # noqa: E402
import torch.autograd.functional as TF  # noqa: E402

import torchlike  # noqa: E402
import torchlike._vmap_internals as LV  # noqa: E402
import torchlike.autograd.functional as LF  # noqa: E402


def arr(t):
    return None if t is None else np.asarray(t.detach().numpy())


def _both(fn):
    return fn(torch, TV, TF), fn(torchlike, LV, LF)


def _same(a, b):
    if isinstance(a, (tuple, list)):
        assert type(a) is type(b) and len(a) == len(b), (a, b)
        for x, y in zip(a, b):
            _same(x, y)
    elif hasattr(a, "detach"):
        np.testing.assert_array_equal(arr(b), arr(a))
        assert tuple(b.shape) == tuple(a.shape)
    else:
        assert a == b, (a, b)


def test_vmap_maps_and_stacks_like_torch():
    def run(L, V, F):
        x = L.arange(6.0).view(2, 3)
        a = V._vmap(lambda u, s: (u * s, u.sum()), in_dims=(1, None), out_dims=(0, 0))(x, L.tensor(2.0))
        b = V._vmap(lambda u: u.square(), out_dims=1)(x)
        return a + (b,)
    _same(*_both(run))


def test_vmap_of_autograd_grad_gives_the_hessian_like_torch():
    """torchmin's exact-Hessian path: ``_vmap(hvp)(eye)`` with ``hvp`` an ``autograd.grad`` of the gradient."""
    def run(L, V, F):
        x = L.tensor([0.3, -1.2, 2.0], dtype=L.float64, requires_grad=True)
        f = (x[1:] - x[:-1] ** 2).pow(2).sum() * 100 + (1 - x[:-1]).pow(2).sum()
        g, = L.autograd.grad(f, x, create_graph=True)
        return V._vmap(lambda v: L.autograd.grad(g, x, v, retain_graph=True)[0])(L.eye(3, dtype=L.float64))
    _same(*_both(run))


def test_vmap_errors_and_deprecated_vmap_like_torch():
    for L, V in [(torch, TV), (torchlike, LV)]:
        with pytest.raises(ValueError, match="Expected all tensors to have the same size in the mapped dimension, "
                                             r"got sizes \[2, 3\] for the mapped dimension"):
            V._vmap(lambda a, b: a + b)(L.ones(2, 3), L.ones(3, 3))
        with pytest.raises(ValueError, match="must only return Tensors, got type <class 'int'> as the return"):
            V._vmap(lambda a: 3)(L.ones(2))
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            out = V.vmap(lambda a: a * 2)(L.ones(2))
        assert [(x.category, str(x.message)) for x in w] == [
            (FutureWarning, "Please use `torch.vmap` instead of `torch._vmap_internals.vmap`.")]
        assert out.tolist() == [2.0, 2.0]


def test_autograd_functional_private_helpers_like_torch():
    def run(L, V, F):
        t1, t2 = L.ones(1), L.zeros(2, 2)
        basis = F._construct_standard_basis_for((t1, t2), (1, 4))
        tup = (F._as_tuple(t1, "inputs", "jacobian"), F._as_tuple([t1, t2]), F._as_tuple((t1,)))
        post = (F._tuple_postprocess(((t1,),), (False, False)), F._tuple_postprocess((t1, t2), True),
                F._tuple_postprocess((t2,), False))
        x = L.ones(2, requires_grad=True)
        pre = F._grad_preprocess((x * 2,), create_graph=True, need_graph=True)
        pre2 = F._grad_preprocess((x,), create_graph=False, need_graph=False)
        gp = F._grad_postprocess(((x * 3,),), create_graph=False)
        flags = ([p.requires_grad for p in pre + pre2], pre[0].grad_fn is not None, gp[0][0].requires_grad)
        return basis, tup, post, flags
    _same(*_both(run))
    for L, F in [(torch, TF), (torchlike, LF)]:
        with pytest.raises(TypeError, match=r"The inputs given to jacobian must be either a Tensor or a tuple of "
                                            r"Tensors but the value at index 1 has type <class 'int'>\."):
            F._as_tuple((L.ones(1), 3), "inputs", "jacobian")


def test_lbfgs_strong_wolfe_and_cubic_interpolate_like_torch():
    """torch.optim.lbfgs._strong_wolfe / _cubic_interpolate (pytorch-minimize's line search imports them)."""
    import torch.optim.lbfgs as TL
    import torchlike.optim.lbfgs as LL

    def run(L, lb):
        def rosen(x):
            return (100 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2).sum()

        def obj(x, t, d):
            y = (x + t * d).detach().requires_grad_()
            f = rosen(y)
            g, = L.autograd.grad(f, y)
            return f.detach(), g
        out = []
        for x0 in ([-1.2, 1.0, 0.5], [0.3, 0.1, -0.4]):
            x = L.tensor(x0, dtype=L.float64)
            f, g = obj(x, 0.0, L.zeros(3, dtype=L.float64))
            d = -g
            f_new, g_new, t, n = lb._strong_wolfe(obj, x, 1e-3, d, f, g, g.dot(d))
            out.append((f_new, g_new, L.tensor(float(t)), n))
        ci = lb._cubic_interpolate(0.0, L.tensor(1.0), L.tensor(-2.0), 1.0, L.tensor(0.5), L.tensor(1.0))
        ci2 = lb._cubic_interpolate(0.0, L.tensor(1.0), L.tensor(-2.0), 2.0, L.tensor(-1.0), L.tensor(-3.0),
                                    bounds=(0.5, 1.5))
        return out, L.tensor(float(ci)), L.tensor(float(ci2))
    _same(run(torch, TL), run(torchlike, LL))
