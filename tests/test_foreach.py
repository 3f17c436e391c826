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


# the second operand by keyword: its name picks the overload, as torch's parser does (torch-optimi's foreach
# optimizers call _foreach_mul_(params, scalar=...); a value the named overload cannot take is invalid)
KEYWORD_CALLS = [
    lambda L, a, b: L._foreach_mul(a, scalar=2.0), lambda L, a, b: L._foreach_mul_(a, scalar=2),
    lambda L, a, b: L._foreach_mul(a, scalars=[2, 3, 4]), lambda L, a, b: L._foreach_div(a, scalars=[2.0, 4, 5]),
    lambda L, a, b: L._foreach_mul(a, other=b), lambda L, a, b: L._foreach_mul(a, other=L.tensor(4.0)),
    lambda L, a, b: L._foreach_add(a, other=b, alpha=2), lambda L, a, b: L._foreach_sub_(a, scalar=1),
    lambda L, a, b: L._foreach_pow(a, exponent=2), lambda L, a, b: L._foreach_clamp_min(a, scalar=0.1),
    lambda L, a, b: L._foreach_maximum(a, other=b), lambda L, a, b: L._foreach_mul(self=a, scalar=3),
    lambda L, a, b: L._foreach_addcmul(a, a, b, scalars=[0.5, 2, 1]),
    lambda L, a, b: L._foreach_addcdiv_(a, b, b, scalars=L.tensor([0.5, 2, 1])),
    lambda L, a, b: L._foreach_lerp(a, b, weights=b), lambda L, a, b: L._foreach_lerp_(a, b, weight=[0.5, 0.25, 1]),
]


@pytest.mark.parametrize("k", range(len(KEYWORD_CALLS)))
def test_foreach_operand_keywords_match_torch(k):
    tr = KEYWORD_CALLS[k](torch, *_lists(torch)[:2])
    lr = KEYWORD_CALLS[k](torchlike, *_lists(torchlike)[:2])
    assert type(lr) is type(tr)
    for t, o in zip(tr, lr):
        np.testing.assert_allclose(o.numpy(), t.numpy(), rtol=1e-6, atol=1e-6)


ERRORS = [
    lambda L: L._foreach_mul([L.ones(2)], scalar=[1.0]),
    lambda L: L._foreach_mul([L.ones(2)], other=2),
    lambda L: L._foreach_add([L.ones(2)], zeta=1, scalar=2, alpha=2),
    lambda L: L._foreach_mul(other=[L.ones(2)], alpha=2),
    lambda L: L._foreach_mul([L.ones(2)]),
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


# maximum/minimum have no per-tensor Number overload: torch's foreach Number and Scalars forms are the
# clamp_min/clamp_max kernels (pytorch_optimizer's Adafactor and ADOPT call _foreach_maximum(list, eps))
@pytest.mark.parametrize("op", ["maximum", "minimum", "clamp_min", "clamp_max"])
@pytest.mark.parametrize("inplace", [False, True], ids=["out_of_place", "in_place"])
def test_foreach_scalar_bounds_are_clamps_like_torch(op, inplace):
    from conftest import same_as_torch, raises_like_torch
    name = f"_foreach_{op}{'_' if inplace else ''}"
    inputs = (np.array([1.0, np.nan, -3.0], np.float32), np.array([1, 5], np.int64))
    for bound in (2, 2.5, float("nan"), True, [0.5, 7]):
        def fn(L, a, b):
            ts = [a, b] if inplace else [a, b.float()]
            out = getattr(L, name)(ts, bound)
            return tuple(ts) if inplace else out
        if inplace and any(isinstance(v, float) for v in (bound if isinstance(bound, list) else [bound])):
            continue  # an int64 written with a float result: torch's message is "... type long int" (differences.md)
        same_as_torch(fn, *inputs, grad=False)
        same_as_torch(lambda L, a, b: getattr(L, f"_foreach_{op}")([a.long(), b], bound), *inputs, grad=False)
    raises_like_torch(lambda L: getattr(L, name)([L.tensor([True, False])], True))


@pytest.mark.parametrize("bounds", [(True, None), (None, True), (True, True)])
def test_clamp_number_bounds_on_bool_raise_like_torch(bounds):
    from conftest import same_as_torch, raises_like_torch
    lo, hi = bounds
    raises_like_torch(lambda L: L.tensor([True, False]).clamp(lo, hi))
    raises_like_torch(lambda L: L.clamp(L.tensor([True, False]), lo, hi))
    # one Tensor bound has a Bool kernel (two have none); a Number bound of another kind promotes
    tensor_bounds = lambda L: L.tensor([True, False]).clamp(*(None if v is None else L.tensor(v) for v in bounds))
    if None in bounds:
        same_as_torch(tensor_bounds, grad=False)
    else:
        raises_like_torch(tensor_bounds)
    same_as_torch(lambda L: L.tensor([True, False]).clamp(*(None if v is None else 2 for v in bounds)), grad=False)


def test_group_tensors_by_device_and_dtype_like_torch():
    """torch.utils._foreach_utils (pytorch_optimizer imports it): torch._C's grouping, its group order, the
    tensors themselves in the groups, None kept in the later lists, and its errors."""
    from conftest import raises_like_torch
    from torch.utils import _foreach_utils as tfu
    from torchlike.utils import _foreach_utils as lfu
    for with_indices in (True, False):
        res = {}
        for L, fu in ((torch, tfu), (torchlike, lfu)):
            dts = [L.float32, L.int64, L.float64, L.float32, L.float16, L.int64]
            first = [L.zeros(i + 1, dtype=d) for i, d in enumerate(dts)]
            second = [t if i % 2 else None for i, t in enumerate(first)]
            groups = fu._group_tensors_by_device_and_dtype([first, second, []], with_indices=with_indices)
            assert all(lists[0][j] is first[k] for (lists, idx), ks in zip(groups.values(), [
                [i for i, t in enumerate(first) if t.dtype == key[1]] for key in groups]) for j, k in enumerate(ks))
            res[L] = [(str(key[0]), str(key[1]), idx, [[None if t is None else t.numel() for t in lst]
                                                       for lst in lists]) for key, (lists, idx) in groups.items()]
        assert res[torchlike] == res[torch], res
    for L in (torch, torchlike):
        fu = tfu if L is torch else lfu
        assert fu._has_foreach_support([L.ones(1), None], L.device("cpu"))
        assert fu._device_has_foreach_support(L.device("cpu")) and not fu._device_has_foreach_support(
            L.device("meta"))
        assert fu._get_fused_kernels_supported_devices() == tfu._get_fused_kernels_supported_devices()
        assert fu._get_foreach_kernels_supported_devices() == tfu._get_foreach_kernels_supported_devices()
    for bad in (lambda L: [], lambda L: [[L.ones(1), L.ones(2)], [L.ones(1)]], lambda L: [[None, L.ones(1)]]):
        raises_like_torch(lambda L: L._C._group_tensors_by_device_and_dtype(bad(L), True))
