"""Mistakes users make every day with shapes, dtypes, creation, random draws, reductions and linear algebra, fed to
torch and to torchlike (found by sweeping ~700 such calls next to torch; the ones here had another message, another
exception type, JAX's words, no error, or another result)."""
import warnings

import numpy as np
import pytest

from conftest import raises_like_torch, same_as_torch, torch, torchlike

nan, inf = float("nan"), float("inf")

# a dtype torch's parser does not take: a str or numpy's (type or dtype instance); Python's own types it does take
NOT_DTYPES = {"str": "float32", "numpy type": np.float64, "numpy dtype": np.dtype("float32")}
DTYPE_TAKERS = {
    "zeros": lambda m, d: m.zeros(2, dtype=d), "ones": lambda m, d: m.ones(2, dtype=d),
    "empty": lambda m, d: m.empty(2, dtype=d), "full": lambda m, d: m.full((2,), 1, dtype=d),
    "rand": lambda m, d: m.rand(2, dtype=d), "randn": lambda m, d: m.randn(2, dtype=d),
    "randint": lambda m, d: m.randint(3, (2,), dtype=d), "randperm": lambda m, d: m.randperm(3, dtype=d),
    "tensor": lambda m, d: m.tensor([1, 2], dtype=d), "as_tensor": lambda m, d: m.as_tensor([1, 2], dtype=d),
    "zeros_like": lambda m, d: m.zeros_like(m.ones(2), dtype=d), "full_like": lambda m, d: m.full_like(m.ones(2), 1, dtype=d),
    "empty_like": lambda m, d: m.empty_like(m.ones(2), dtype=d), "new_zeros": lambda m, d: m.ones(2).new_zeros(2, dtype=d),
    "new_full": lambda m, d: m.ones(2).new_full((2,), 1, dtype=d), "new_tensor": lambda m, d: m.ones(2).new_tensor([1], dtype=d),
    "sum": lambda m, d: m.ones(2).sum(dtype=d), "torch.sum": lambda m, d: m.sum(m.ones(2), dtype=d),
    "Tensor.to": lambda m, d: m.ones(2).to(dtype=d),
}


@pytest.mark.parametrize("op", list(DTYPE_TAKERS))
@pytest.mark.parametrize("kind", list(NOT_DTYPES))
def test_a_dtype_that_is_not_torchs_is_the_parsers_type_error(op, kind):
    """'float32' and numpy's dtypes were taken as the dtype they name; torch's parser rejects them."""
    raises_like_torch(lambda m: DTYPE_TAKERS[op](m, NOT_DTYPES[kind]))


@pytest.mark.parametrize("py_type", [float, int, bool])
def test_a_python_type_is_a_dtype(py_type):
    """torch's parser takes Python's float/int/bool for a dtype (rand of an integer dtype is then the kernel's error)."""
    same_as_torch(lambda m: m.zeros(2, dtype=py_type), grad=False)
    same_as_torch(lambda m: m.ones(2).sum(dtype=py_type), grad=False)
    if py_type is not float:
        raises_like_torch(lambda m: m.rand(2, dtype=py_type))


MISTAKES = {
    # the parser's "invalid combination" of a Tensor method: no ``out`` in its overloads, and torch's
    # "didn't match" lines under the overloads taking that many arguments
    "sum of a float dim": lambda m: m.ones(3).sum(0.5),
    "sum of a str dim": lambda m: m.ones(3).sum("a"),
    "sum of a str dim keyword": lambda m: m.ones(3).sum(dim="a"),
    "torch.sum of a float dim": lambda m: m.sum(m.ones(3), 0.5),
    "mean of a float dim": lambda m: m.ones(3).mean(0.5),
    "torch.mean with a str dtype": lambda m: m.mean(m.ones(3), dtype="a"),
    "prod of duplicate dims": lambda m: m.ones(2, 3).prod((0, 0)),
    "torch.prod of duplicate dims": lambda m: m.prod(m.ones(2, 3), (0, 0)),
    "max of a float dim": lambda m: m.ones(3).max(0.0),
    "max of a str": lambda m: m.ones(3).max("a"),
    "max of two strs": lambda m: m.ones(3).max("a", "b"),
    "max with a str keepdim": lambda m: m.ones(3).max(0, "a"),
    "max method with out": lambda m: m.ones(3).max(0, out=(m.ones(1), m.ones(1))),
    "sort with a str descending": lambda m: m.ones(3).sort(descending="yes"),
    # shapes
    "expand_as of a transposed shape": lambda m: m.ones(2, 3).expand_as(m.ones(3, 2)),
    "expand with two mismatches": lambda m: m.ones(2, 3).expand(3, 4),
    "expand with a leading -1 and a mismatch": lambda m: m.ones(2, 3).expand(-1, 3, 4),
    "tensor_split of a 0-d tensor": lambda m: m.tensor(1.).tensor_split(2),
    "tensor_split of a 0-d tensor at indices": lambda m: m.tensor(1.).tensor_split([1]),
    "trapezoid with too few x": lambda m: m.trapezoid(m.ones(3), m.ones(2)),
    "trapezoid with x along another dim": lambda m: m.trapezoid(m.ones(2, 3), m.ones(3), dim=0),
    "cumulative_trapezoid with too few x": lambda m: m.cumulative_trapezoid(m.ones(3), m.ones(2)),
    "tensordot dims lists of two lengths": lambda m: m.tensordot(m.ones(2, 3), m.ones(3, 2), dims=([1], [0, 1])),
    "vecdot of vectors of two sizes": lambda m: m.linalg.vecdot(m.ones(2), m.ones(3)),
    "corrcoef of 3-D": lambda m: m.corrcoef(m.ones(2, 2, 2)),
    "multi_dot of mismatched matrices": lambda m: m.linalg.multi_dot([m.ones(2, 3), m.ones(2, 3)]),
    "multi_dot mismatch later": lambda m: m.linalg.multi_dot([m.ones(2, 3), m.ones(3, 3), m.ones(4, 2)]),
    "multi_dot mismatched vector first": lambda m: m.linalg.multi_dot([m.ones(3), m.ones(2, 3)]),
    "multi_dot mismatched vector last": lambda m: m.linalg.multi_dot([m.ones(2, 3), m.ones(2)]),
    "multi_dot of two dtypes": lambda m: m.linalg.multi_dot([m.ones(2, 2), m.ones(2, 2, dtype=m.int64)]),
    "multi_dot of half and bfloat16": lambda m: m.linalg.multi_dot([m.ones(2, 2, dtype=m.float16),
                                                                    m.ones(2, 2, dtype=m.bfloat16)]),
    "chain_matmul of mismatched": lambda m: m.chain_matmul(m.ones(2, 3), m.ones(2, 3)),
    "chain_matmul of a vector": lambda m: m.chain_matmul(m.ones(3), m.ones(3, 3)),
    "chain_matmul of one vector": lambda m: m.chain_matmul(m.ones(3)),
    "chain_matmul of nothing": lambda m: m.chain_matmul(),
    "chain_matmul of two dtypes": lambda m: m.chain_matmul(m.ones(2, 3), m.ones(3, 3, dtype=m.float64)),
    "unflatten into an int": lambda m: m.ones(2, 6).unflatten(1, 6),
    "torch.unflatten into an int": lambda m: m.unflatten(m.ones(2, 6), 1, 6),
    "unflatten into a float size": lambda m: m.ones(2, 6).unflatten(1, [2.0, 3]),
    "unflatten into a later float size": lambda m: m.ones(2, 6).unflatten(1, [2, 3.0]),
    "broadcast_shapes of two sizes": lambda m: m.broadcast_shapes((2,), (3,)),
    "broadcast_shapes mismatch in a third shape": lambda m: m.broadcast_shapes((2, 1), (3,), (4, 2, 5)),
    "broadcast_shapes of a Size": lambda m: m.broadcast_shapes([2, 1], m.Size([3, 4])),
    "broadcast_shapes of a negative size": lambda m: m.broadcast_shapes((2, -1), (3,)),
    "broadcast_shapes of a negative size later": lambda m: m.broadcast_shapes((3,), (-1,)),
    "repeat_interleave of float repeats": lambda m: m.ones(3).repeat_interleave(m.tensor([1., 2., 1.])),
    "repeat_interleave of bool repeats": lambda m: m.ones(3).repeat_interleave(m.tensor([True, False, True])),
    "torch.repeat_interleave of float counts": lambda m: m.repeat_interleave(m.tensor([1., 2.])),
    "repeat_interleave of 2-D repeats": lambda m: m.ones(3).repeat_interleave(m.ones(1, 3, dtype=m.long)),
    "atleast_2d of a list of ints": lambda m: m.atleast_2d([1, 2]),
    "atleast_2d of an int": lambda m: m.atleast_2d(1),
    "atleast_1d of a str": lambda m: m.atleast_1d("a"),
    "atleast_3d of a tensor and a str": lambda m: m.atleast_3d((m.ones(1), "a")),
    "atleast_2d of a tensor and an int": lambda m: m.atleast_2d(m.ones(1), 2),
    "cat of a meta and a cpu tensor": lambda m: m.cat([m.ones(2, device="meta"), m.ones(3)]),
    "cat of a cpu and a meta tensor": lambda m: m.cat([m.ones(2), m.ones(3, device="meta")]),
    "stack of a meta and a cpu tensor": lambda m: m.stack([m.ones(2, device="meta"), m.ones(2)]),
    "meta plus cpu": lambda m: m.ones(2, device="meta") + m.ones(2),
    "cpu plus meta": lambda m: m.ones(2) + m.ones(2, device="meta"),
    "where of meta and cpu": lambda m: m.where(m.ones(2, dtype=m.bool), m.ones(2, device="meta"), m.ones(2)),
    "Tensor of a negative size": lambda m: m.Tensor(-1),
    "LongTensor of a negative size": lambda m: m.LongTensor(2, -1),
    # random draws
    "bernoulli of ints": lambda m: m.bernoulli(m.ones(2, dtype=m.int32)),
    "bernoulli of bools": lambda m: m.bernoulli(m.ones(2, dtype=m.bool)),
    "bernoulli of complex": lambda m: m.bernoulli(m.ones(2, dtype=m.complex64)),
    "randperm of more than int8 holds": lambda m: m.randperm(129, dtype=m.int8),
    "randperm of more than uint8 holds": lambda m: m.randperm(257, dtype=m.uint8),
    "randperm of more than int16 holds": lambda m: m.randperm(2 ** 15 + 1, dtype=m.int16),
    "randperm of more than half counts": lambda m: m.randperm(2050, dtype=m.float16),
    "randperm of more than float counts": lambda m: m.randperm(2 ** 24 + 2, dtype=m.float32),
    "randperm of bools": lambda m: m.randperm(0, dtype=m.bool),
    "randperm of complex": lambda m: m.randperm(3, dtype=m.complex64),
    "randint of complex": lambda m: m.randint(0, 3, (3,), dtype=m.complex64),
    "randint_like of complex": lambda m: m.randint_like(m.zeros(3, dtype=m.complex64), 0, 3),
    # linear algebra
    "linalg.cholesky of ints": lambda m: m.linalg.cholesky(m.eye(2, dtype=m.long)),
    "cholesky_ex of bools": lambda m: m.linalg.cholesky_ex(m.eye(2, dtype=m.bool)),
    "cholesky_solve of mismatched sizes": lambda m: m.cholesky_solve(m.ones(3, 1), m.eye(2)),
    "cholesky_solve of a vector b": lambda m: m.cholesky_solve(m.ones(2), m.eye(2)),
    "cholesky_solve of a vector factor": lambda m: m.cholesky_solve(m.ones(2, 1), m.ones(2)),
    "cholesky_solve of a non-square factor": lambda m: m.cholesky_solve(m.ones(2, 1), m.ones(2, 3)),
    "cholesky_solve of two dtypes": lambda m: m.cholesky_solve(m.ones(2, 1), m.eye(2, dtype=m.float64)),
    "cholesky_solve of ints": lambda m: m.cholesky_solve(m.ones(2, 1, dtype=m.long), m.eye(2, dtype=m.long)),
    "cholesky_inverse of a non-square matrix": lambda m: m.cholesky_inverse(m.ones(2, 3)),
    "cholesky_inverse of a vector": lambda m: m.cholesky_inverse(m.ones(3)),
    "cholesky_inverse of ints": lambda m: m.cholesky_inverse(m.eye(2, dtype=m.long)),
    "svd of a nan": lambda m: m.linalg.svd(m.tensor([[nan, 1.], [1., 1.]])),
    "svd of a nan in a batch": lambda m: m.linalg.svd(m.stack([m.eye(2), m.tensor([[nan, 1.], [1., 1.]])])),
    "complex svd of a nan": lambda m: m.linalg.svd(m.tensor([[nan, 1.], [1., 1.]]).to(m.complex64)),
    "svdvals of a nan": lambda m: m.linalg.svdvals(m.tensor([[nan, 1.], [1., 1.]], dtype=m.float64)),
    "torch.svd of a nan": lambda m: m.svd(m.tensor([[nan, 1.], [1., 1.]])),
    "eig of a nan": lambda m: m.linalg.eig(m.tensor([[nan, 1.], [1., 1.]])),
    "eig of an inf in a batch": lambda m: m.linalg.eig(m.stack([m.eye(2), m.tensor([[inf, 1.], [1., 1.]])])),
    "lu_factor of a vector": lambda m: m.linalg.lu_factor(m.ones(3)),
    "lu_factor_ex of a vector": lambda m: m.linalg.lu_factor_ex(m.ones(3)),
    "linalg.lu of a vector": lambda m: m.linalg.lu(m.ones(3)),
    "lu_factor of a singular matrix": lambda m: m.linalg.lu_factor(m.zeros(2, 2)),
    "lu_factor of a singular batch element": lambda m: m.linalg.lu_factor(m.stack([m.eye(2), m.zeros(2, 2)])),
}
RANDOM_BOUNDS = [(0, 300, "uint8"), (-1, 5, "uint8"), (-1, 300, "uint8"), (0, 200, "int8"), (-200, 5, "int8"),
                 (0, 3, "bool"), (0, 2 ** 40, "int32"), (0, 2 ** 16 + 1, "float16")]
for lo, hi, dt in RANDOM_BOUNDS:
    MISTAKES[f"randint [{lo}, {hi}) into {dt}"] = (lambda lo, hi, dt: lambda m: m.randint(
        lo, hi, (3,), dtype=getattr(m, dt)))(lo, hi, dt)
    MISTAKES[f"random_ [{lo}, {hi}) into {dt}"] = (lambda lo, hi, dt: lambda m: m.zeros(
        3, dtype=getattr(m, dt)).random_(lo, hi))(lo, hi, dt)
    MISTAKES[f"randint_like [{lo}, {hi}) into {dt}"] = (lambda lo, hi, dt: lambda m: m.randint_like(
        m.zeros(3, dtype=getattr(m, dt)), lo, hi))(lo, hi, dt)


@pytest.mark.parametrize("case", list(MISTAKES))
def test_common_shape_mistakes_raise_like_torch(case):
    raises_like_torch(MISTAKES[case], quiet=True)


def _warnings(fn, m):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        out = fn(m)
    return out, [str(x.message) for x in w]


@pytest.mark.parametrize("lo,hi,dt", [(0, 2 ** 25, "float32"), (-(2 ** 25), 0, "float32"), (0, 2 ** 12, "float16"),
                                      (0, 300, "bfloat16"), (0, 2 ** 54, "float64"), (0, 2 ** 20, "float32")])
@pytest.mark.parametrize("how", ["randint", "random_", "randint_like"])
def test_random_integers_past_what_a_float_dtype_holds_warn_like_torch(lo, hi, dt, how):
    """torch warns where ``from`` or ``to - 1`` passes the integers a float dtype holds exactly (bfloat16 drew
    nothing: finfo of it was numpy's error)."""
    def fn(m):
        d = getattr(m, dt)
        if how == "randint":
            return m.randint(lo, hi, (3,), dtype=d)
        if how == "random_":
            return m.zeros(3, dtype=d).random_(lo, hi)
        return m.randint_like(m.zeros(3, dtype=d), lo, hi)
    t, tw = _warnings(fn, torch)
    ours, lw = _warnings(fn, torchlike)
    assert lw == tw
    assert str(ours.dtype) == str(t.dtype) and tuple(ours.shape) == tuple(t.shape)


def test_reshape_that_copies_is_no_view():
    """reshape where no view fits is torch's ``_unsafe_view`` of a clone: ``_base`` None, a write to it stays in it,
    its grad_fn is UnsafeViewBackward0 (was a view of the clone)."""
    for mod in (torch, torchlike):
        x = mod.ones(2, 3)
        for y in (x.t().reshape(6), x.t().flatten(), mod.ones(1, 3).expand(2, 3).reshape(6)):
            assert y._base is None
        y = x.t().reshape(6)
        y.fill_(2.)
        assert x.sum().item() == 6.0
        z = mod.ones(2, 3, requires_grad=True).t().reshape(6)
        assert type(z.grad_fn).__name__ == "UnsafeViewBackward0"
        assert type(z.grad_fn.next_functions[0][0]).__name__ == "CloneBackward0"
    same_as_torch(lambda m, x: x.t().reshape(6) * m.arange(6.), np.arange(6.).reshape(2, 3))


def test_cholesky_inverse_of_a_factor_whose_full_matrix_is_singular():
    """Its value reads the lower triangle only (it was nan where the whole matrix, upper part included, is singular)."""
    same_as_torch(lambda m: m.cholesky_inverse(m.ones(2, 2)), grad=False)
    same_as_torch(lambda m: m.cholesky_inverse(m.ones(2, 2, 2)), grad=False)
    same_as_torch(lambda m: m.cholesky_solve(m.ones(2, 1), m.ones(2, 2)), grad=False)


def test_random_integers_within_the_dtype_still_draw():
    for dt, hi in (("uint8", 256), ("int8", 128), ("bool", 2), ("float16", 2 ** 11)):
        same_as_torch(lambda m: m.randint(0, hi, (5,), dtype=getattr(m, dt)).shape, grad=False)
    same_as_torch(lambda m: m.randperm(128, dtype=m.int8).sort().values, grad=False)
    same_as_torch(lambda m: m.randperm(2049, dtype=m.float16).shape, grad=False)
