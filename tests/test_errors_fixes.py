"""error_inputs fixes: torchlike raises the same exception type (and message) as torch on bad inputs."""
import re

import pytest
import torch

import torchlike


def _conv(x, memo):
    if isinstance(x, torch.Tensor):
        if id(x) not in memo:
            memo[id(x)] = torchlike.tensor(x.numpy(), dtype=getattr(torchlike, str(x.dtype)[6:]))
        return memo[id(x)]
    if isinstance(x, (list, tuple)):
        return type(x)(_conv(v, memo) for v in x)
    if isinstance(x, dict):
        return {k: _conv(v, memo) for k, v in x.items()}
    return x


def same_error(tfn, lfn, *args, match=None, **kwargs):
    """torch raises; torchlike raises the same type with the same message (or one matching ``match``)."""
    memo = {}
    largs, lkwargs = _conv(args, memo), _conv(kwargs, memo)
    with pytest.raises(Exception) as te:
        tfn(*args, **kwargs)
    with pytest.raises(Exception) as le:
        lfn(*largs, **lkwargs)
    assert type(le.value) is type(te.value) or isinstance(le.value, type(te.value)), (te.value, le.value)
    if match is None:
        assert str(le.value) == str(te.value)
    else:
        assert re.search(match, str(te.value)) and re.search(match, str(le.value)), (te.value, le.value)


def both(name):
    def get(mod):
        obj = mod
        for part in name.split("."):
            obj = getattr(obj, part)
        return obj
    return get(torch), get(torchlike)


a5 = torch.rand(5)


@pytest.mark.parametrize("kw", [
    dict(fweights=torch.ones(5, 5, dtype=torch.long)), dict(aweights=torch.rand(5, 5)),
    dict(fweights=torch.rand(5)), dict(aweights=torch.tensor([1, 1])), dict(aweights=torch.ones(5, dtype=torch.long)),
    dict(fweights=torch.tensor([1])), dict(aweights=torch.rand(1)),
    dict(fweights=torch.tensor([-1, -2, -3, -4, -5])), dict(aweights=-torch.rand(5) - 0.1),
])
def test_cov_weights(kw):
    same_error(*both("cov"), a5, **kw)


def test_cov_weights_ok():
    x = torch.rand(3, 4, dtype=torch.float64)
    fw, aw = torch.tensor([1, 2, 0, 3], dtype=torch.int32), torch.rand(4, dtype=torch.float64)
    r = torchlike.cov(torchlike.tensor(x.numpy()), fweights=torchlike.tensor(fw.numpy()),
                      aweights=torchlike.tensor(aw.numpy()))
    torch.testing.assert_close(torch.tensor(r.numpy()), torch.cov(x, fweights=fw, aweights=aw))


@pytest.mark.parametrize("kw", [dict(rtol=-0.4), dict(atol=-0.4), dict(rtol=-1.0, atol=-1.0),
                                dict(rtol=float("nan"))])
def test_isclose_negative_tolerance(kw):
    x = torch.rand(3)
    same_error(*both("isclose"), x, x, **kw)


@pytest.mark.parametrize("name", ["atan2", "logical_and", "logical_or", "logical_xor", "ldexp", "lcm", "gcd",
                                  "nextafter", "isclose", "polar"])
@pytest.mark.parametrize("case", [0, 1, 2])
def test_tensor_only_binary(name, case):
    t = torch.tensor((1, 2, 3))
    args = [(t, 2), (2, t), (2, 3)][case]
    same_error(*both(name), *args)


@pytest.mark.parametrize("name", ["ne", "lt", "le", "eq", "gt", "ge", "rsub"])
def test_scalar_first(name):
    t = torch.tensor((1, 2, 3))
    for args in [(2, t), (2, 3)]:
        same_error(*both(name), *args, match=rf"^{name}\(\) received an invalid combination of arguments - "
                                             rf"got \((int, Tensor|int, int)\), but expected one of")


def test_scalar_first_still_fine_as_tensor_method():
    t = torch.tensor((1, 2, 3))
    lt = torchlike.tensor([1, 2, 3])
    assert (2 < lt).tolist() == (2 < t).tolist()
    assert (2 != lt).tolist() == (2 != t).tolist()
    assert torchlike.pow(2, lt).tolist() == torch.pow(2, t).tolist()
    assert torchlike.rsub(lt, 2).tolist() == torch.rsub(t, 2).tolist()


def test_pow_two_scalars():
    same_error(*both("pow"), 2, 3, match=r"^pow\(\) received an invalid combination of arguments - got \(int, int\)")


def test_radd_descriptor():
    t = torch.tensor((1, 2, 3))
    same_error(torch.Tensor.__radd__, torchlike.Tensor.__radd__, 2, t, match="descriptor '__radd__' for")
    same_error(torch.Tensor.__radd__, torchlike.Tensor.__radd__, 2, 3, match="descriptor '__radd__' for")
    lt = torchlike.tensor([1, 2, 3])
    assert (2 + lt).tolist() == (2 + t).tolist() and (2.5 + lt).tolist() == (2.5 + t).tolist()


@pytest.mark.parametrize("args", [(torch.rand(3).long(), torch.rand(3).long()), (torch.rand(3), torch.rand(3).double()),
                                  (torch.rand(3).long(), torch.rand(3).double())])
def test_polar_dtypes(args):
    same_error(*both("polar"), *args)


# --- out= aliasing (built natively on both sides so views/expands are the same) ------------------------
def _alias_cases(lib):
    S = 5
    src, ind = lib.arange(6.), lib.tensor([2, 1, 0])
    mask = lib.tensor([True, False, True, True, False, False])
    x, y, z = lib.zeros(0), lib.ones(4, 6), lib.zeros(4, 6)
    i2 = ind.clone()
    return [
        lambda: lib.cat([lib.ones(S, S), lib.ones(S, S)], out=lib.ones(1, S).expand(2 * S, S)),
        lambda: lib.cat((x, y), dim=0, out=x),
        lambda: lib.cat((x, y), dim=0, out=y),
        lambda: lib.cat((y, z), out=z[:2, :]),
        lambda: lib.take(src, ind, out=lib.ones(1).expand(3)),
        lambda: lib.take(src, ind, out=src),
        lambda: lib.take(i2.clone(), i2[1:], out=i2[:-1]),
        lambda: lib.masked_select(src, mask, out=lib.ones(1).expand(3)),
        lambda: lib.masked_select(src, mask, out=src),
        lambda: lib.masked_select(mask.clone(), mask, out=mask),
    ]


@pytest.mark.parametrize("i", range(10))
def test_out_overlap(i):
    same_error(_alias_cases(torch)[i], _alias_cases(torchlike)[i])


def test_out_no_overlap_still_works():
    for lib in (torch, torchlike):
        y, z = lib.ones(4, 6), lib.zeros(4, 6)
        o = lib.empty(8, 6)
        assert lib.cat((y, z), out=o) is o and o.sum().item() == 24
        src = lib.arange(6.)
        o = lib.empty(0)
        lib.take(src, lib.tensor([5, 0]), out=o)
        assert o.tolist() == [5.0, 0.0]
        o = lib.empty(0)
        lib.masked_select(src, src > 3, out=o)
        assert o.tolist() == [4.0, 5.0]


@pytest.mark.parametrize("args", [([],), ([torch.rand(5, 1, 1), None],), ([None, torch.rand(2)],),
                                  ([torch.rand(()), torch.rand(())],), ([torch.rand(3), torch.rand(())],)])
def test_cat_errors(args):
    same_error(torch.cat, torchlike.cat, *args)


# --- narrow -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("shape,args", [((), (0, 0, 1)), ((20, 10, 5), (1, 11, 0)), ((20, 10, 5), (1, -11, 0)),
                                        ((10,), (0, 0, -1)), ((20, 10, 5), (1, 5, 6)),
                                        ((20, 10, 5), (1, torch.ones(5, dtype=torch.int32), 2)),
                                        ((20, 10, 5), (-3, torch.tensor(False), 3)),
                                        ((20, 10, 5), (-3, torch.tensor(1.0), 3))])
def test_narrow_errors(shape, args):
    same_error(torch.narrow, torchlike.narrow, torch.rand(shape), *args)


def test_narrow_tensor_start_and_negative_start():
    x = torch.rand(20, 10, 5)
    lx = torchlike.tensor(x.numpy())
    for args in [(-3, torch.tensor(1), 3), (1, -10, 2), (1, 10, 0)]:
        largs = tuple(torchlike.tensor(a.numpy()) if isinstance(a, torch.Tensor) else a for a in args)
        assert torch.equal(torch.tensor(lx.narrow(*largs).numpy()), x.narrow(*args))


# --- arange / logspace --------------------------------------------------------------------------------
INF, NAN = float("inf"), float("nan")


@pytest.mark.parametrize("args,kw", [
    ((0, 3, 0), {}), ((0, -3, 2), {}), ((0, 3, -2), {}), ((1549556900, 1549556828, 1989724), {}),
    ((0, INF, 2), {}), ((-INF, 1, 2), {}), ((0, NAN, 2), {}), ((0, -INF, 2), {}), ((0, 5, NAN), {}),
    ((0, 64, 0.5), dict(dtype="int64")), ((0.5, -5, 1), dict(dtype="int64")), ((0, 1e30, 1e-10), {}),
    ((0, 5, 1), dict(dtype="bool")),
])
def test_arange_errors(args, kw):
    same_error(lambda *a: torch.arange(*a, **{k: getattr(torch, v) for k, v in kw.items()}),
               lambda *a: torchlike.arange(*a, **{k: getattr(torchlike, v) for k, v in kw.items()}), *args)


def test_arange_out_int_fractional_step():
    same_error(torch.arange, torchlike.arange, 0, 64, 0.5, out=torch.empty(0, dtype=torch.int64))


@pytest.mark.parametrize("args,kw", [((0.5, 5, 1), dict(dtype="int64")), ((-0.5, 0.7, 1), dict(dtype="int64")),
                                     ((0, 5, 0.3), dict(dtype="int32")), ((0.7, 5, 1.7), dict(dtype="int32")),
                                     ((0, -5, -1.5), dict(dtype="int64")), ((0, -5, -1.5), dict(dtype="int16")),
                                     ((0, 5, INF), {}), ((1, 2.5, 0.5), {}), ((10.0, 0, -3), {}), ((5,), {})])
def test_arange_values(args, kw):
    t = torch.arange(*args, **{k: getattr(torch, v) for k, v in kw.items()})
    r = torchlike.arange(*args, **{k: getattr(torchlike, v) for k, v in kw.items()})
    assert str(r.dtype) == str(t.dtype) and r.tolist() == t.tolist()


def test_arange_out_dtype():
    o = torchlike.empty(0, dtype=torchlike.float64)
    torchlike.arange(0, 5, 1.5, out=o)
    assert o.tolist() == torch.arange(0, 5, 1.5, out=torch.empty(0, dtype=torch.float64)).tolist()


@pytest.mark.parametrize("args", [(0, 3, -1), (torch.tensor([1, 2]), torch.tensor([1, 2]), 1),
                                  (torch.tensor(1), torch.tensor([1, 2]), 1)])
def test_logspace_errors(args):
    same_error(torch.logspace, torchlike.logspace, *args)


def test_logspace_float_steps():
    same_error(torch.logspace, torchlike.logspace, 0, 3, 1.0,
               match=r"^logspace\(\) received an invalid combination of arguments - got \(int, int, float\)")


# --- masked_fill value overflow -------------------------------------------------------------------------
@pytest.mark.parametrize("dt,v", [("float32", 1j), ("float64", 1j), ("int64", "t1j"), ("int64", 1e30),
                                  ("int32", 2 ** 40), ("float32", 1e300), ("float16", 1e300),
                                  ("int64", NAN), ("float32", "t1j"), ("int32", "t1099511627776"),
                                  ("uint8", 256), ("int8", -129)])
def test_masked_fill_overflow(dt, v):
    val = torch.tensor(complex(v[1:]) if "j" in v else int(v[1:])) if isinstance(v, str) else v
    same_error(lambda x, m, val: x.masked_fill(m, val), lambda x, m, val: x.masked_fill(m, val),
               torch.ones(2, dtype=getattr(torch, dt)), torch.tensor(True), val)


@pytest.mark.parametrize("dt,v", [("float32", 1 + 0j), ("int64", 1.5), ("bool", 2), ("uint8", -1),
                                  ("float32", INF), ("int8", -128), ("float16", -INF)])
def test_masked_fill_in_range(dt, v):
    t = torch.ones(2, dtype=getattr(torch, dt)).masked_fill(torch.tensor(True), v)
    r = torchlike.ones(2, dtype=getattr(torchlike, dt)).masked_fill(torchlike.tensor(True), v)
    assert r.tolist() == t.tolist()


# --- movedim / roll / vsplit / renorm / multinomial ----------------------------------------------------
@pytest.mark.parametrize("src,dst", [((0, 4, -5), (1, 0, 2)), ((1, 0, 2), (0, 4, -5)), ((1, 0, -4), (0, 4, -5))])
def test_movedim_repeated(src, dst):
    same_error(torch.movedim, torchlike.movedim, torch.rand(2, 3, 4, 5, 6), src, dst)


@pytest.mark.parametrize("shape,args", [((5,), ((),)), ((5,), ((), ())), ((), (0, 0)), ((5, 5), ((2, 1), 0)),
                                        ((5,), (0, 2))])
def test_roll_errors(shape, args):
    same_error(torch.roll, torchlike.roll, torch.rand(shape), *args)


def test_roll_empty_any_dim():
    assert tuple(torchlike.roll(torchlike.zeros(0), 1, 3).shape) == tuple(torch.roll(torch.zeros(0), 1, 3).shape)


@pytest.mark.parametrize("name", ["vsplit", "hsplit", "dsplit"])
@pytest.mark.parametrize("arg", ["abc", 2.0, [1.0]])
def test_dir_split_types(name, arg):
    same_error(*both(name), torch.rand(4, 4, 4), arg, match=rf"^{name}\(\) received an invalid combination")


@pytest.mark.parametrize("shape,args", [((), (0.5, 0, 1.0)), ((3,), (0.5, 0, 1.0)), ((3, 3), (1, 0, -1.0))])
def test_renorm_errors(shape, args):
    same_error(torch.renorm, torchlike.renorm, torch.rand(shape), *args)


@pytest.mark.parametrize("args,kw", [
    ((torch.rand(1, 2, dtype=torch.float64), 2), dict(out=torch.empty(1, 2, dtype=torch.float64))),
    ((torch.rand(1, 2, dtype=torch.float64), 2), dict(out=torch.empty(1, 2, dtype=torch.int32))),
    ((torch.tensor((1., -1., 1.)), 2, True), {}), ((torch.tensor((1., INF, 1.)), 2, True), {}),
    ((torch.tensor((1., -INF, 1.)), 2, True), {}), ((torch.tensor((1., 1., NAN)), 2, True), {}),
    ((torch.tensor([[1., 1.], [INF, -1.]]), 2, True), {}), ((torch.tensor([[0., 0.], [INF, -1.]]), 2, True), {}),
    ((torch.tensor((1., 1., NAN)), 1, True), {}), ((torch.tensor((1., 1., NAN)), 2, False), {}),
])
def test_multinomial_errors(args, kw):
    same_error(torch.multinomial, torchlike.multinomial, *args, **kw)


def test_multinomial_out_long():
    o = torchlike.empty(0, dtype=torchlike.int64)
    r = torchlike.multinomial(torchlike.tensor([0., 1., 0.]), 2, True, out=o)
    assert r is o and o.tolist() == [1, 1]
