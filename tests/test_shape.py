"""Shape ops (repeat, tile, flips, rolls, triangles, diagonals, stacks, grids, resize_) vs torch."""
import numpy as np
import pytest
import torch

import torchlike
from conftest import assert_close_values, assert_same, raises_like_torch, same_as_torch, to_tl, torch_or_tl

R = np.random.default_rng(0)
A23 = np.arange(6).reshape(2, 3)
F234 = R.standard_normal((2, 3, 4)).astype(np.float32)
F33 = R.standard_normal((3, 3)).astype(np.float32)
V3 = np.array([1.5, -2.0, 3.0], np.float32)


CASES = [
    (lambda m, x: x.repeat(2, 1), A23),
    (lambda m, x: x.repeat(2, 1, 3), A23),
    (lambda m, x: x.repeat(0, 2), A23),
    (lambda m, x: x.repeat(()), np.array(3)),
    (lambda m, x: m.tile(x, (2,)), A23),
    (lambda m, x: m.tile(x, (2, 1, 2)), A23),
    (lambda m, x: x.tile(2, 2), F234),
    (lambda m, x: m.repeat_interleave(x, 2), A23),
    (lambda m, x: m.repeat_interleave(x, 2, dim=1), A23),
    (lambda m, x: m.repeat_interleave(x, m.tensor([1, 0, 2]), dim=-1), A23),
    (lambda m, x: m.repeat_interleave(x, m.tensor([1, 2]), dim=0, output_size=3), A23),
    (lambda m, x: x.repeat_interleave(m.tensor(2)), A23),
    (lambda m, x: m.repeat_interleave(x), np.array([2, 0, 1])),
    (lambda m, x: m.repeat_interleave(x, 3), np.array(5.0)),
    (lambda m, x: m.flip(x, [0, 2]), F234),
    (lambda m, x: x.flip(-1), F234),
    (lambda m, x: m.flip(x, ()), F234),
    (lambda m, x: m.fliplr(x), A23),
    (lambda m, x: m.flipud(x), A23),
    (lambda m, x: m.roll(x, 2), A23),
    (lambda m, x: m.roll(x, -1, 1), A23),
    (lambda m, x: m.roll(x, (1, -2), (0, 2)), F234),
    (lambda m, x: x.roll(7, 0), F234),
    (lambda m, x: m.roll(x, (1, 1), (1, 1)), F234),
    (lambda m, x: m.rot90(x), A23),
    (lambda m, x: m.rot90(x, 2), A23),
    (lambda m, x: m.rot90(x, -1, (1, 2)), F234),
    (lambda m, x: x.rot90(3, [2, 0]), F234),
    (lambda m, x: m.tril(x), F234),
    (lambda m, x: m.triu(x, 1), F234),
    (lambda m, x: m.tril(x, -1), A23),
    (lambda m, x: x.triu(-5), A23),
    (lambda m, x: m.tril(x > 0, 1), F33),
    (lambda m, x: m.diag(x), A23),
    (lambda m, x: m.diag(x, 1), A23),
    (lambda m, x: m.diag(x, -1), F33),
    (lambda m, x: m.diag(x, 2), V3),
    (lambda m, x: x.diag(-1), V3),
    (lambda m, x: m.diag_embed(x), F234),
    (lambda m, x: m.diag_embed(x, 1), A23),
    (lambda m, x: m.diag_embed(x, -2, 0, 2), A23),
    (lambda m, x: m.diag_embed(x, 0, -1, 0), A23),
    (lambda m, x: m.diagflat(x), A23),
    (lambda m, x: m.diagflat(x, -1), V3),
    (lambda m, x: m.trace(x), A23),
    (lambda m, x: x.trace(), F33),
    (lambda m, x, y: m.hstack([x, y]), A23, F33[:2]),
    (lambda m, x, y: m.hstack((x, y)), V3, np.array(1.0, np.float32)),
    (lambda m, x, y: m.vstack([x, y]), V3, F33),
    (lambda m, x, y: m.row_stack([x, y]), V3, A23[:1]),
    (lambda m, x, y: m.dstack([x, y]), V3, V3),
    (lambda m, x, y: m.dstack([x, y]), A23, F234[:, :, 0].copy()),
    (lambda m, x, y: m.column_stack([x, y]), V3, F33),
    (lambda m, x, y: m.column_stack([x, y]), np.array(1), np.array(2.0)),
    (lambda m, x: m.atleast_1d(x), np.array(2.0)),
    (lambda m, x: m.atleast_2d(x), V3),
    (lambda m, x: m.atleast_3d(x), V3),
    (lambda m, x: m.atleast_3d(x), A23),
    (lambda m, x: m.atleast_3d(x), np.array(1)),
    (lambda m, x: m.atleast_2d(x, x), np.array(1)),
    (lambda m, x: m.atleast_1d([x, x]), F234),
    (lambda m, x, y: m.meshgrid(x, y, indexing="ij"), V3, V3[:2]),
    (lambda m, x, y: m.meshgrid(x, y, indexing="ij"), A23[0], np.arange(2)),
    (lambda m, x, y: m.meshgrid(x, y, indexing="xy"), V3, V3[:2]),
    (lambda m, x, y: m.meshgrid([x, y, x], indexing="xy"), V3, V3[:2]),
    (lambda m, x, y: m.meshgrid(x, y, indexing="ij"), np.array(1.0, np.float32), V3),
    (lambda m, x: m.meshgrid(x, indexing="xy"), V3),
    (lambda m, x, y: m.cartesian_prod(x, y), np.arange(3), np.arange(2)),
    (lambda m, x: m.cartesian_prod(x), np.arange(3)),
    (lambda m, x, y: m.block_diag(x, y), A23, F33),
    (lambda m, x, y: m.block_diag(x, y, x), np.array(2), V3),
    (lambda m, x: m.combinations(x), V3),
    (lambda m, x: m.combinations(x, 3), np.arange(4)),
    (lambda m, x: m.combinations(x, 2, with_replacement=True), V3),
    (lambda m, x: m.combinations(x, 1), V3),
    (lambda m, x: m.combinations(x, 4), V3),
    (lambda m, x: m.combinations(x, 0), V3),
    (lambda m, x, y: m.broadcast_tensors(x, y), A23, V3),
    (lambda m, x, y: m.broadcast_tensors(x, y), F234[:, :1], np.array(1.0)),
    (lambda m: m.broadcast_shapes((2, 1), (3,), 1), ),
    (lambda m: m.broadcast_shapes(), ),
    (lambda m, x: x.sum_to_size(1, 3), A23),
    (lambda m, x: x.sum_to_size((1, 3)), F234[0].T.copy()),
    (lambda m, x: x.sum_to_size(4), F234),
    (lambda m, x: x.sum_to_size(2, 3, 4), F234),
    (lambda m, x: m.squeeze(x.reshape(1, 2, 1, 3), (0, 2)), A23),
    (lambda m, x: m.squeeze(x.reshape(1, 2, 1, 3), (-1, 0)), A23),
    (lambda m, x: x.reshape(1, 6).squeeze(()), A23),
    (lambda m, x: m.chunk(x, 3, 1), F234),
    (lambda m, x: m.chunk(x, 3, 2), F234),
    (lambda m, x: m.chunk(x, 4, -1), A23),
    (lambda m, x: x.chunk(5), np.arange(6)),
    (lambda m, x: m.split(x, 3, -1), F234),
    (lambda m, x: m.split(x, [1, 3], 2), F234),
    (lambda m, x: x.split([0, 2, 1], 1), A23),
    (lambda m, x: m.tensor_split(x, 3, 2), F234),
    (lambda m, x: m.tensor_split(x, [1, 5], 2), F234),
    (lambda m, x: m.tensor_split(x, m.tensor([2, 1]), 2), F234),
    (lambda m, x: m.unbind(x, 1), F234),
    (lambda m, x: x.unbind(-1), A23),
    (lambda m, x: m.chunk(x, 3), np.zeros(0, np.float32)),
    (lambda m, x: m.flip(x, [0]), np.array(3.0)),
    (lambda m, x: m.roll(x, 1), np.array(3.0)),
    (lambda m, x: m.rot90(x, -3), A23),
    (lambda m, x: m.block_diag(), A23),
]


@pytest.mark.parametrize("case", range(len(CASES)))
def test_values(case):
    fn, *inputs = CASES[case]
    same_as_torch(fn, *inputs, grad=False)


ERRS = [
    (lambda m, x: x.repeat(2), A23),
    (lambda m, x: m.repeat_interleave(x, m.tensor([1, 2]), dim=1), A23),
    (lambda m, x: m.repeat_interleave(x, -1), A23),
    (lambda m, x: m.flip(x, (0, 0)), A23),
    (lambda m, x: m.fliplr(x), V3),
    (lambda m, x: m.flipud(x), np.array(1)),
    (lambda m, x: m.roll(x, (1, 2), 0), A23),
    (lambda m, x: m.rot90(x, 1, (0, 0)), A23),
    (lambda m, x: m.rot90(x, 1, (0, 1, 2)), F234),
    (lambda m, x: m.rot90(x), V3),
    (lambda m, x: m.tril(x), V3),
    (lambda m, x: m.triu(x), np.array(1)),
    (lambda m, x: m.diag(x), F234),
    (lambda m, x: m.diag_embed(x, 0, 1, 1), A23),
    (lambda m, x: m.trace(x), V3),
    (lambda m, x: m.meshgrid(x, x.double()), V3),
    (lambda m, x: m.block_diag(x), F234),
    (lambda m, x: m.combinations(x), A23),
    (lambda m, x: m.cartesian_prod(x), A23),
    (lambda m, x: x.sum_to_size(3, 3), A23),
    (lambda m, x: m.broadcast_tensors(x, x.narrow(0, 0, 2)), V3),
    (lambda m, x: m.hstack([]), V3),
    (lambda m, x: m.chunk(x, 0), V3),
]


@pytest.mark.parametrize("case", range(len(ERRS)))
def test_errors(case):
    fn, *inputs = ERRS[case]
    raises_like_torch(fn, *inputs)


def test_meshgrid_error_prefix():
    with pytest.raises(RuntimeError, match="torch.meshgrid: Expected 0D or 1D tensor in the tensor list"):
        torchlike.meshgrid(torchlike.ones(2, 2))


def test_broadcast_shapes_error_type():
    with pytest.raises(RuntimeError):
        torchlike.broadcast_shapes((2,), (3,))
    with pytest.raises(RuntimeError):
        torch.broadcast_shapes((2,), (3,))
    assert torchlike.broadcast_shapes((2, 1), (4,)) == torch.broadcast_shapes((2, 1), (4,))


def test_inplace_tri_and_meshgrid_views():
    for m in (torch, torchlike):
        x = m.ones(3, 3)
        assert x.tril_(-1) is x
    a, b = torch.ones(3, 3).tril_(-1), torchlike.ones(3, 3).tril_(-1)
    assert_same(b, a)
    assert_same(torchlike.ones(2, 4).triu_(1), torch.ones(2, 4).triu_(1))


def test_resize_():
    for m in (torch, torchlike):
        x = m.arange(6.)
        assert x.resize_(2, 3) is x
        assert x.shape == (2, 3)
    x, y = torch.arange(6.).resize_(2, 2), torchlike.arange(6.).resize_(2, 2)
    assert_same(y, x)
    x, y = torch.arange(6.).resize_as_(torch.ones(3, 2)), torchlike.arange(6.).resize_as_(torchlike.ones(3, 2))
    assert_same(y, x)
    y = torchlike.arange(4.).resize_(3, 2)
    assert y.shape == (3, 2) and y.reshape(-1).narrow(0, 0, 4).tolist() == [0., 1., 2., 3.]
    with pytest.raises(RuntimeError, match="cannot resize variables that require grad"):
        torchlike.ones(2, requires_grad=True).resize_(3)


def _grad(m, fn, a):
    x = m.tensor(a, requires_grad=True)
    out = fn(m, x)
    out = out if isinstance(out, (m.Tensor,)) else m.cat([o.reshape(-1) for o in out])
    (out * m.arange(out.numel(), dtype=out.dtype).reshape(out.shape)).sum().backward()
    return x.grad


GRADS = [
    lambda m, x: x.repeat(2, 1, 2),
    lambda m, x: m.tile(x, (2, 2)),
    lambda m, x: m.repeat_interleave(x, m.tensor([2, 0, 1, 3]), dim=2),
    lambda m, x: m.flip(x, (0, 2)),
    lambda m, x: m.roll(x, (1, 2), (1, 2)),
    lambda m, x: m.rot90(x, 1, (1, 2)),
    lambda m, x: m.triu(x, 1),
    lambda m, x: m.diag_embed(x, 1),
    lambda m, x: m.diagflat(x.select(0, 0).select(0, 0)),
    lambda m, x: m.diag(x.select(0, 0), 1),
    lambda m, x: m.trace(x.select(0, 1)),
    lambda m, x: m.block_diag(x.select(0, 0), x.select(0, 1).narrow(0, 0, 2)),
    lambda m, x: m.combinations(x.select(0, 0).select(0, 0), 2),
    lambda m, x: x.sum_to_size(1, 3, 1),
    lambda m, x: m.meshgrid(x.select(0, 0).select(0, 0), x.select(0, 1).select(0, 1), indexing="xy"),
    lambda m, x: m.broadcast_tensors(x, x.select(0, 0).narrow(0, 0, 1)),
    lambda m, x: m.vstack([x.select(0, 0), x.select(0, 1)]),
]


@pytest.mark.parametrize("case", range(len(GRADS)))
def test_grads(case):
    a = F234.astype(np.float64)
    assert_same(_grad(torchlike, GRADS[case], a), _grad(torch, GRADS[case], a))


def test_hstack_out_and_promotion():
    x = torch.ones(2, dtype=torch.int32), torch.ones(2)
    y = torchlike.ones(2, dtype=torchlike.int32), torchlike.ones(2)
    assert_same(torchlike.hstack(y), torch.hstack(x))
    o1, o2 = torch.empty(0), torchlike.empty(0)
    torch.vstack(x, out=o1)
    torchlike.vstack(y, out=o2)
    assert_same(o2, o1)


# (was test_core_fixes.py) --- zero_ / resize_as_ as functions -------------------------------------------------------
def test_zero_and_resize_as_functions():
    x = torch.randn(3)
    xt = to_tl(x)
    assert torchlike.zero_(xt) is xt
    assert_close_values(xt, torch.zero_(x))
    a, at = torch.ones(2), torchlike.ones(2)
    r, q = torch.resize_as_(a, torch.ones(2, 3)), torchlike.resize_as_(at, torchlike.ones(2, 3))
    assert q is at and tuple(q.shape) == tuple(r.shape)


def test_zero_function_grad():
    x = torch.randn(3, requires_grad=True)
    xt = to_tl(x).requires_grad_()
    y, yt = x * 2, xt * 2
    torch.zero_(y).sum().backward()
    torchlike.zero_(yt).sum().backward()
    assert_close_values(xt.grad, x.grad)


# --- _chunk_cat, empty_permuted -------------------------------------------------------------------
# --- ops that were missing ---------------------------------------------------------------------------
def test_chunk_cat():
    g = torch.Generator().manual_seed(4)
    cases = [([(1, 2, 3), (1, 2, 3)], -1, 5), ([(1, 2, 3), (1, 2, 3)], 1, 2), ([(2, 4), (1, 3)], 0, 2),
             ([(3, 5, 2), (3, 1), (3, 7, 4, 1)], 1, 3)]
    for shapes, dim, n in cases:
        ts = [torch.randn(s, generator=g) for s in shapes]
        assert_same(torchlike._chunk_cat([to_tl(t) for t in ts], dim, n), torch._chunk_cat(ts, dim, n),
                    rtol=None, atol=None)
    a, b = torch.randn(2, 3), torch.randn(2, 3)
    for bad in (([], 0, 2), ([a, b], 0, 0), ([a, b.double()], 0, 2), ([a, torch.randn(3, 3)], 1, 2),
                ([a, torch.zeros(0, 3).double()], 0, 2), ([a, torch.randn(2)], 1, 2), ([a], 2, 2)):
        raises_like_torch(torch_or_tl(lambda: torch._chunk_cat(*bad),
                                      lambda: torchlike._chunk_cat([to_tl(t) for t in bad[0]], *bad[1:])))


def test_chunk_cat_has_no_derivative():
    # torch: "derivative for aten::_chunk_cat is not implemented" at backward; here the result takes no part
    # in autograd, so backward raises RuntimeError too
    a = torch.randn(2, 5, dtype=torch.float64, requires_grad=True)
    with pytest.raises(RuntimeError):
        torch._chunk_cat([a, a], 1, 3).sum().backward()
    la = to_tl(a, requires_grad=True)
    with pytest.raises(RuntimeError):
        torchlike._chunk_cat([la, la], 1, 3).sum().backward()


def test_empty_permuted_shape_dtype_and_errors():
    r = torchlike.empty_permuted((2, 3, 4), (2, 0, 1), dtype=torchlike.int8)
    e = torch.empty_permuted((2, 3, 4), (2, 0, 1), dtype=torch.int8)
    assert tuple(r.shape) == tuple(e.shape) and str(r.dtype) == str(e.dtype)
    for size, perm in (((2, 3), (0,)), ((2, 3), (0, 0)), ((2, 3), (0, 2)), ((2, 3), (0, -1))):
        raises_like_torch(torch_or_tl(lambda: torch.empty_permuted(size, perm),
                                      lambda: torchlike.empty_permuted(size, perm)))
