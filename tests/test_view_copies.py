"""The ``*_copy`` family and split helpers compared with torch: values, dtypes, gradients, that a copy
is not a view, list ``out=`` of the copies returning None, and split errors."""
import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="torch is the oracle for these tests")
import torchlike  # noqa: E402
from conftest import assert_same, raises_like_torch, to_tl, torch_or_tl  # noqa: E402

RNG = np.random.default_rng(0)


@pytest.mark.parametrize("name,args", [("unbind_copy", ()), ("split_copy", (2,)),
                                       ("split_with_sizes_copy", ([1, 2],))])
def test_list_out_copies_return_none(name, args):
    x = torch.arange(6.).reshape(3, 2)
    pieces = getattr(torch, name)(x, *args)
    t_out = [torch.zeros_like(p) for p in pieces]
    assert getattr(torch, name)(x, *args, out=t_out) is None
    l_out = [torchlike.zeros(tuple(p.shape)) for p in pieces]
    assert getattr(torchlike, name)(to_tl(x), *args, out=l_out) is None
    for a, b in zip(l_out, t_out):
        assert_same(a, b, rtol=None, atol=None)
    raises_like_torch(torch_or_tl(lambda: getattr(torch, name)(x, *args, out=t_out[:1]),
                                  lambda: getattr(torchlike, name)(to_tl(x), *args, out=l_out[:1])))


# --- copies and splits -----------------------------------------------------------------------------
X = RNG.standard_normal((3, 4)).astype(np.float32)


@pytest.mark.parametrize("name,args", [
    ("view_copy", ((4, 3),)), ("t_copy", ()), ("permute_copy", ((1, 0),)), ("transpose_copy", (0, 1)),
    ("expand_copy", ((2, 3, 4),)), ("squeeze_copy", ()), ("unsqueeze_copy", (1,)), ("unbind_copy", (1,)),
    ("unfold_copy", (1, 2, 1)), ("alias_copy", ()), ("as_strided_copy", ((2, 2), (1, 2), 1)),
    ("diagonal_copy", (0, 0, 1)), ("split_with_sizes_copy", ([1, 3], 1)), ("narrow_copy", (1, 1, 2)),
    ("unsafe_split", (2, 1)), ("unsafe_chunk", (3, 1)), ("hsplit", (2,)), ("hsplit", ([1, 3],)),
    ("vsplit", ([1],)), ("constant_pad_nd", ((1, -1, 2, 0), 3.5)),
])
def test_copy_family(name, args):
    xt, xl = torch.tensor(X, requires_grad=True), torchlike.tensor(X, requires_grad=True)
    r, l = getattr(torch, name)(xt, *args), getattr(torchlike, name)(xl, *args)
    assert_same(l, r, 1e-6, 1e-6)
    for a, b in zip(l if isinstance(l, tuple) else (l,), r if isinstance(r, tuple) else (r,)):
        if name.endswith("_copy"):  # an X_copy is row-major, not laid out as its view
            assert a.stride() == b.stride(), (a.stride(), b.stride())
    if isinstance(r, tuple):
        r, l = r[0], l[0]
    else:
        assert l._base is None
    g = RNG.standard_normal(tuple(r.shape)).astype(np.float32)
    r.backward(torch.tensor(g))
    l.backward(torchlike.tensor(g))
    assert_same(xl.grad, xt.grad, 1e-6, 1e-6)


def test_dsplit_and_errors():
    x = np.arange(24.).reshape(2, 3, 4)
    assert_same(torchlike.dsplit(torchlike.tensor(x), 2), torch.dsplit(torch.tensor(x), 2), 1e-6, 1e-6)
    assert_same(torchlike.tensor(x).hsplit(3), torch.tensor(x).hsplit(3), 1e-6, 1e-6)
    for m in (torch, torchlike):
        with pytest.raises(RuntimeError, match="divisible"):
            m.hsplit(m.ones(2, 4), 3)
        with pytest.raises(RuntimeError, match="at least 2 dimension, but got"):
            m.vsplit(m.ones(4), 2)
