"""``out=`` on ``torch.softmax`` / ``torch.log_softmax`` and on nn.functional functions that take
it, compared with torch: the result is the ``out`` tensor, resized like torch's; a grad-requiring input is
rejected as torch rejects it."""
import pytest

torch = pytest.importorskip("torch", reason="torch is the oracle for these tests")
import torchlike  # noqa: E402
import torchlike.nn.functional as LF  # noqa: E402
from conftest import assert_same, raises_like_torch, to_tl, torch_or_tl  # noqa: E402

F = torch.nn.functional


# --- torch.softmax / torch.log_softmax take out= ----------------------------------------------------
@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_softmax_out_matches_torch(name):
    x = torch.randn(3, 5, generator=torch.Generator().manual_seed(2), dtype=torch.float64)
    out = torch.empty(3, 5, dtype=torch.float64)
    expected = getattr(torch, name)(x, 1, out=out)
    lout = torchlike.empty(3, 5, dtype=torchlike.float64)
    got = getattr(torchlike, name)(to_tl(x), 1, out=lout)
    assert got is lout and expected is out
    assert_same(lout, out, rtol=None, atol=None)


# --- nn.functional ``out=`` ---------------------------------------------------------------------------
OUT_CASES = [("softplus", lambda t: (t,), {}), ("logsigmoid", lambda t: (t,), {}), ("gelu", lambda t: (t,), {}),
             ("hardshrink", lambda t: (t,), {}), ("softshrink", lambda t: (t, 0.3), {}),
             ("linear", lambda t: (t, torch.arange(18.).reshape(3, 6) / 10, torch.ones(3)), {}),
             ("avg_pool2d", lambda t: (t, 2), {}), ("avg_pool3d", lambda t: (t.reshape(1, 2, 2, 3, 6), 2), {})]


@pytest.mark.parametrize("name,args,kw", OUT_CASES, ids=[c[0] for c in OUT_CASES])
def test_nn_functional_out(name, args, kw):
    x = torch.linspace(-3, 3, 72).reshape(1, 2, 6, 6)
    targs = args(x)
    expected = getattr(F, name)(*targs, **kw)
    t_out = torch.empty(0)
    assert getattr(F, name)(*targs, out=t_out, **kw) is t_out
    l_out = torchlike.empty(0)
    got = getattr(LF, name)(*[to_tl(a) if isinstance(a, torch.Tensor) else a for a in targs], out=l_out, **kw)
    assert got is l_out
    assert_same(l_out, expected, rtol=1e-5, atol=1e-6)


def test_nn_functional_out_rejects_grad_like_torch():
    x = torch.randn(4, requires_grad=True)
    lx = to_tl(x, requires_grad=True)
    raises_like_torch(torch_or_tl(lambda: F.softplus(x, out=torch.empty(4)),
                                  lambda: LF.softplus(lx, out=torchlike.empty(4))))
    raises_like_torch(torch_or_tl(lambda: F.logsigmoid(x, out=torch.empty(4)),
                                  lambda: LF.logsigmoid(lx, out=torchlike.empty(4))))
