"""torch._foreach_* (torchlike/_foreach.py): the same calls in torch and torchlike give the same values, return
types (a tuple out of place, the list itself in place), in-place writes, gradients and errors.  keras's torch
backend updates its variables with them (torch._foreach_mul_ was a NotImplementedError)."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")

import torchlike  # noqa: E402

RNG = np.random.default_rng(3)
SHAPES = [(2,), (3, 2), ()]


def _lists(lib, k=3, positive=False):
    out = []
    for j in range(k):
        arrs = [RNG.standard_normal(s).astype(np.float32) for s in SHAPES] if j >= len(_CACHE) else _CACHE[j]
        if j >= len(_CACHE):
            _CACHE.append(arrs)
        out.append([lib.tensor(np.abs(a) + 0.5 if positive else a) for a in arrs])
    return out


_CACHE = []

CALLS = [
    ("_foreach_exp", lambda a, b, c: (a,)), ("_foreach_sqrt", lambda a, b, c: (a,)),
    ("_foreach_neg", lambda a, b, c: (a,)), ("_foreach_sigmoid", lambda a, b, c: (a,)),
    ("_foreach_add", lambda a, b, c: (a, 2.5)), ("_foreach_add", lambda a, b, c: (a, b)),
    ("_foreach_sub", lambda a, b, c: (a, [1.0, 2.0, 3.0])), ("_foreach_mul", lambda a, b, c: (a, b)),
    ("_foreach_div", lambda a, b, c: (a, 3.0)), ("_foreach_maximum", lambda a, b, c: (a, b)),
    ("_foreach_clamp_min", lambda a, b, c: (a, 1.0)), ("_foreach_pow", lambda a, b, c: (a, 2.0)),
    ("_foreach_addcmul", lambda a, b, c: (a, b, c)), ("_foreach_addcdiv", lambda a, b, c: (a, b, c)),
    ("_foreach_lerp", lambda a, b, c: (a, b, 0.25)), ("_foreach_lerp", lambda a, b, c: (a, b, c)),
]


def _call(lib, name, args_of, kwargs, positive):
    a, b, c = _lists(lib, positive=positive)
    return a, getattr(lib, name)(*args_of(a, b, c), **kwargs)


@pytest.mark.parametrize("inplace", [False, True], ids=["out_of_place", "in_place"])
@pytest.mark.parametrize("name,args_of", CALLS, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CALLS)])
def test_foreach_values_and_return_types_match_torch(name, args_of, inplace):
    name += "_" if inplace else ""
    positive = "sqrt" in name or "div" in name or "pow" in name
    ta, tr = _call(torch, name, args_of, {}, positive)
    la, lr = _call(torchlike, name, args_of, {}, positive)
    assert type(lr) is type(tr)
    if inplace:
        assert lr is la and tr is ta
    for t, o in zip(tr, lr):
        np.testing.assert_allclose(o.numpy(), t.numpy(), rtol=1e-6, atol=1e-6)


def test_foreach_keywords_and_other_overloads_match_torch():
    for lib in (torch, torchlike):
        a, b, c = _lists(lib)
        lib.v = [lib._foreach_add(a, b, alpha=-2.0), lib._foreach_mul(a, lib.tensor(3.0)),
                 lib._foreach_pow(2.0, a), lib._foreach_addcmul(a, b, c, [0.5, 1.0, 2.0]),
                 lib._foreach_addcdiv(a, b, _lists(lib, positive=True)[2], value=0.5),
                 lib._foreach_norm(a), lib._foreach_norm(a, 1), lib._foreach_max(a), lib._foreach_clone(a),
                 lib._foreach_powsum(a, 3)]
    for tt, ll in zip(torch.v, torchlike.v):
        for t, o in zip(tt, ll):
            np.testing.assert_allclose(o.numpy(), t.numpy(), rtol=1e-5, atol=1e-6)
    del torch.v, torchlike.v


def test_foreach_zero_copy_and_gradients_match_torch():
    for lib in (torch, torchlike):
        a, b, _ = _lists(lib)
        assert lib._foreach_copy_(a, b) is a and all((x == y).all() for x, y in zip(a, b))
        assert lib._foreach_zero_(a) is a and all((x == 0).all() for x in a)
        x = lib.ones(2, requires_grad=True)
        (y,) = lib._foreach_mul([x], 3.0)
        (y * y).sum().backward()
        assert x.grad.tolist() == [18.0, 18.0]


ERRORS = [
    lambda L: L._foreach_add([], 1.0),
    lambda L: L._foreach_add([L.ones(2), L.ones(3)], [L.ones(2)]),
    lambda L: L._foreach_mul([L.ones(2), L.ones(3)], [1.0]),
    lambda L: L._foreach_mul(L.ones(2), 2.0),
    lambda L: L._foreach_add([L.ones(2)], "x"),
    lambda L: L._foreach_add([L.ones(2)], L.ones(2)),
    lambda L: L._foreach_mul_([L.ones(2, dtype=L.int64)], 2.5),
    lambda L: L._foreach_add([L.ones(2)], [L.ones(3)]),
    lambda L: L._foreach_exp(1),
]


@pytest.mark.parametrize("k", range(len(ERRORS)))
def test_foreach_errors_match_torch(k):
    with pytest.raises(Exception) as te:
        ERRORS[k](torch)
    with pytest.raises(Exception) as le:
        ERRORS[k](torchlike)
    assert type(le.value) is type(te.value)
    assert str(le.value).splitlines()[0] == str(te.value).splitlines()[0]
