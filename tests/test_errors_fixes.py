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
