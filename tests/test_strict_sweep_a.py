"""Strict OpInfo sweep, op_db[0:350]: half-precision numerics that the strict harness found differing from torch.

- ``torch.dist`` of float16/bfloat16: the difference is rounded to the half type before the norm (XLA had
  dropped that rounding inside one compiled program);
- ``native_batch_norm`` (and the ops built on its kernel) of float16/bfloat16 in training mode: torch's
  statistics in float32 in its summation order, ``y = x * alpha + beta`` in float32, rounded once.
"""
import pytest
import torch

import torchlike

from conftest import raises_like_torch, same_as_torch


def _to_tl(t):
    if t is None:
        return None
    return torchlike.tensor(t.float().numpy()).to(getattr(torchlike, str(t.dtype).split(".")[1]))


def _assert_same(tl, tt):
    got = torch.tensor(tl.float().numpy())
    assert tl.dtype.__str__() == str(tt.dtype), (tl.dtype, tt.dtype)
    assert torch.equal(got, tt.float()), (got, tt)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("p", [1, 2, 3, 1.5, float("inf")])
def test_dist_half_rounds_the_difference(dtype, p):
    g = torch.Generator().manual_seed(0)
    for _ in range(20):
        a = (torch.randn(5, 5, generator=g) * 10).to(dtype)
        b = (torch.randn(5, 5, generator=g) * 10).to(dtype)
        _assert_same(torchlike.dist(_to_tl(a), _to_tl(b), p), torch.dist(a, b, p))


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("shape", [(5, 5, 5), (3, 4, 7, 6), (2, 3), (8, 2, 33)])
@pytest.mark.parametrize("params", [None, "same", "float32"])
def test_native_batch_norm_half_training(dtype, shape, params):
    g = torch.Generator().manual_seed(1)
    x = (torch.randn(shape, generator=g) * 3 + 1).to(dtype)
    c = shape[1]
    pd = dtype if params == "same" else torch.float32
    w = torch.randn(c, generator=g).to(pd) if params else None
    b = torch.randn(c, generator=g).to(pd) if params else None
    t = torch.native_batch_norm(x, w, b, None, None, True, 0.1, 1e-5)
    lt = torchlike.native_batch_norm(_to_tl(x), _to_tl(w), _to_tl(b), None, None, True, 0.1, 1e-5)
    _assert_same(lt[0], t[0])  # the output
    _assert_same(lt[1], t[1])  # save_mean
    if params != "float32":  # (float32 parameters: save_invstd can differ in its last float32 bit, see report)
        _assert_same(lt[2], t[2])


def test_batch_norm_functional_half_training():
    def f(m):
        x = m.arange(60, dtype=m.float32).reshape(3, 4, 5).sin().mul(4).to(m.bfloat16)
        return m.nn.functional.batch_norm(x, None, None, training=True)
    same_as_torch(f)


def test_constant_pad_nd_complex_value():
    # torch.constant_pad_nd's value is a Scalar: a complex fill pads a complex tensor (F.pad's float refuses it)
    def f(m):
        x = m.tensor([1 + 1j, -2j, 3.0], dtype=m.complex64)
        return m.constant_pad_nd(x, (1, 2), 1 + 2j), m.constant_pad_nd(x, (-1, 1), 3 - 2j), \
            m.constant_pad_nd(m.ones(2), (1, 1), 2 + 0j)
    same_as_torch(f)


def test_constant_pad_nd_complex_value_into_real_raises():
    raises_like_torch(lambda m: m.constant_pad_nd(m.ones(2), (1, 1), 1 + 2j))


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("affine", [False, True])
def test_functional_batch_and_instance_norm_half(dtype, training, affine):
    # F.batch_norm / F.instance_norm of half types: torch's half-type batch-norm kernel (instance norm runs it
    # over the (1, N * C, ...) view), statistics in float32, y = x * alpha + beta rounded once
    def f(m):
        dt = getattr(m, dtype)
        g = m.Generator().manual_seed(3)
        x = (m.randn(4, 3, 7, 5, generator=g) * 3 + 1).to(dt)
        w = m.randn(3, generator=g).to(dt) if affine else None
        b = m.randn(3, generator=g).to(dt) if affine else None
        rm = m.randn(3, generator=g).to(dt)
        rv = (m.rand(3, generator=g) + 0.5).to(dt)
        bn = m.nn.functional.batch_norm(x, rm.clone(), rv.clone(), w, b, training=training)
        inn = m.nn.functional.instance_norm(x, rm.clone(), rv.clone(), w, b, use_input_stats=training)
        return bn, inn
    same_as_torch(f, grad=False)


@pytest.mark.parametrize("training", [True, False])
def test_native_batch_norm_out(training):
    # out=(output, save_mean, save_invstd): filled and returned; in eval mode the statistics' out tensors are
    # left alone (torch neither resizes nor writes them)
    def f(m):
        x = m.arange(24.).reshape(2, 3, 4).sin()
        rm, rv = m.zeros(3), m.ones(3)
        o = (m.empty(0), m.full((3,), 7.0), m.full((3,), 8.0))
        r = m.native_batch_norm(x, None, None, rm, rv, training, 0.1, 1e-5, out=o)
        assert all(a is b for a, b in zip(r, o))
        o2 = (m.empty(0), m.empty(0), m.empty(0))
        r2 = m._native_batch_norm_legit(x, None, None, True, 0.1, 1e-5, out=o2)
        assert all(a is b for a, b in zip(r2, o2))
        return tuple(r) + tuple(r2) + (rm, rv)
    same_as_torch(f, grad=False)


def test_native_batch_norm_out_dtype_raises():
    raises_like_torch(lambda m: m.native_batch_norm(
        m.ones(2, 3), None, None, m.zeros(3), m.ones(3), True, 0.1, 1e-5,
        out=(m.empty(0, dtype=m.float64), m.empty(0), m.empty(0))))


def test_native_group_norm_noncontiguous_raises():
    # torch's native_group_norm kernel requires X contiguous in its suggested memory format
    raises_like_torch(lambda m: m.native_group_norm(m.randn(2, 4, 3).transpose(1, 2).contiguous().transpose(1, 2),
                                                    None, None, 2, 4, 3, 2, 1e-5))

    def f(m):  # a channels-last input is contiguous in its suggested format; F.group_norm copies
        x = m.arange(72.).reshape(2, 4, 3, 3).sin().to(memory_format=m.channels_last)
        return m.native_group_norm(x, None, None, 2, 4, 9, 2, 1e-5), \
            m.nn.functional.group_norm(m.arange(48.).reshape(2, 4, 6).cos()[:, :, ::2], 2)
    same_as_torch(f, grad=False)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("swap", [False, True])
def test_triplet_margin_loss_half_rounds_each_op(dtype, swap):
    # torch's formula runs op by op in the half type: pairwise distances, margin + d_pos, - d_neg each rounded
    def f(m):
        g = m.Generator().manual_seed(5)
        a, p, n = ((m.randn(6, 10, generator=g) * 4).to(getattr(m, dtype)) for _ in range(3))
        return (m.nn.functional.triplet_margin_loss(a, p, n, margin=1e-6, swap=swap),
                m.nn.functional.triplet_margin_loss(a, p, n, margin=0.5, swap=swap, reduction="none"))
    same_as_torch(f, grad=False)


def test_triangular_solve_out():
    # torch.triangular_solve(b, A, out=(X, M)): filled, returned as triangular_solve_out; no cast into out
    def f(m):
        A = m.tensor([[2., 1.], [0., 3.]])
        b = m.tensor([[1.], [2.]])
        o = (m.empty(0), m.empty(0))
        r = m.triangular_solve(b, A, out=o)
        assert r[0] is o[0] and r[1] is o[1]
        return r
    same_as_torch(f, grad=False, quiet=True)
    raises_like_torch(lambda m: m.triangular_solve(m.ones(2, 1), m.eye(2), out=(m.empty(0, dtype=m.float64),
                                                                              m.empty(0))), quiet=True)
