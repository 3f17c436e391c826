"""Strides of LAPACK results (column-major per matrix) and of nonzero's index matrix, against real torch.

torch's CPU kernels allocate what LAPACK writes column-major (``batched_matrix_contiguous_strides``); the
results' ``stride()`` / ``is_contiguous()`` must read the same here, over batched / unbatched, square / wide /
tall and empty shapes.
"""
import warnings

import numpy as np
import pytest

import torchlike

torch = pytest.importorskip("torch")

RECT = [(3, 3), (4, 2), (2, 4), (2, 4, 2), (2, 2, 4), (0, 3, 2), (2, 0, 3), (2, 3, 0), (3, 0), (2, 2, 3, 3)]
SQUARE = [(3, 3), (2, 3, 3), (0, 3, 3), (2, 0, 0), (1, 1), (2, 1, 2, 2)]


def _spd(a):
    return a @ np.swapaxes(a, -1, -2) + a.shape[-1] * np.eye(a.shape[-1], dtype=a.dtype)


def _layout(r):
    r = r if isinstance(r, (tuple, list)) else (r,)
    return [(tuple(t.shape), t.stride(), t.is_contiguous()) for t in r]


def _check(fn, shape, spd=False):
    a = np.asarray(np.random.RandomState(0).randn(*shape)).astype("float32")
    if spd:
        a = _spd(a)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = _layout(fn(torch, torch.tensor(a)))
        got = _layout(fn(torchlike, torchlike.tensor(a)))
    assert got == want


RECT_OPS = {
    "linalg.qr": lambda L, x: L.linalg.qr(x),
    "linalg.qr complete": lambda L, x: L.linalg.qr(x, mode="complete"),
    "linalg.qr r": lambda L, x: L.linalg.qr(x, mode="r"),
    "qr": lambda L, x: L.qr(x),
    "linalg.svd": lambda L, x: L.linalg.svd(x),
    "linalg.svd reduced": lambda L, x: L.linalg.svd(x, full_matrices=False),
    "svd": lambda L, x: L.svd(x),
    "svd no uv": lambda L, x: L.svd(x, compute_uv=False),
    "linalg.lu": lambda L, x: L.linalg.lu(x),
    "linalg.lu_factor": lambda L, x: L.linalg.lu_factor(x),
    "linalg.lu_factor_ex": lambda L, x: L.linalg.lu_factor_ex(x),
    "lu": lambda L, x: L.lu(x, get_infos=True),
    "lu_unpack": lambda L, x: L.lu_unpack(*L.linalg.lu_factor(x)),
    "geqrf": lambda L, x: L.geqrf(x),
    "linalg.pinv": lambda L, x: L.linalg.pinv(x),
}

SQUARE_OPS = {
    "linalg.eigh": lambda L, x: L.linalg.eigh(x),
    "linalg.eig": lambda L, x: L.linalg.eig(x),
    "linalg.cholesky": lambda L, x: L.linalg.cholesky(x),
    "linalg.cholesky upper": lambda L, x: L.linalg.cholesky(x, upper=True),
    "linalg.cholesky_ex": lambda L, x: L.linalg.cholesky_ex(x),
    "cholesky": lambda L, x: L.cholesky(x),
    "cholesky upper": lambda L, x: L.cholesky(x, upper=True),
    "linalg.solve": lambda L, x: L.linalg.solve(x, x),
    "linalg.solve vector": lambda L, x: L.linalg.solve(x, x.sum(-1)),
    "linalg.solve right": lambda L, x: L.linalg.solve(x, x, left=False),
    "linalg.solve broadcast": lambda L, x: L.linalg.solve(x[..., :1, :, :], x) if x.ndim > 2 else x,
    "linalg.solve_ex": lambda L, x: L.linalg.solve_ex(x, x),
    "linalg.inv": lambda L, x: L.linalg.inv(x),
    "linalg.inv_ex": lambda L, x: L.linalg.inv_ex(x),
    "linalg.matrix_power -2": lambda L, x: L.linalg.matrix_power(x, -2),
    "linalg.lstsq": lambda L, x: L.linalg.lstsq(x, x).solution,
    "cholesky_inverse": lambda L, x: L.cholesky_inverse(x),
    "cholesky_inverse upper": lambda L, x: L.cholesky_inverse(x, upper=True),
    "cholesky_solve": lambda L, x: L.cholesky_solve(x, x),
    "linalg.solve_triangular": lambda L, x: L.linalg.solve_triangular(x, x, upper=True),
    "linalg.solve_triangular right": lambda L, x: L.linalg.solve_triangular(x, x, upper=False, left=False),
    "triangular_solve": lambda L, x: L.triangular_solve(x, x),
    "linalg.lu_solve": lambda L, x: L.linalg.lu_solve(*L.linalg.lu_factor(x), x),
    "linalg.lu_solve adjoint": lambda L, x: L.linalg.lu_solve(*L.linalg.lu_factor(x), x, adjoint=True),
    "linalg.lu_solve right": lambda L, x: L.linalg.lu_solve(*L.linalg.lu_factor(x), x, left=False),
    "lu_solve": lambda L, x: L.lu_solve(x, *L.linalg.lu_factor(x)),
    "linalg.ldl_factor": lambda L, x: L.linalg.ldl_factor(x),
    "linalg.ldl_solve": lambda L, x: L.linalg.ldl_solve(*L.linalg.ldl_factor(x), x),
    "ormqr": lambda L, x: L.ormqr(*L.geqrf(x), x),
    "linalg.householder_product": lambda L, x: L.linalg.householder_product(x, x.sum(-2)),
}


@pytest.mark.parametrize("shape", RECT, ids=str)
@pytest.mark.parametrize("op", sorted(RECT_OPS))
def test_rectangular_results(op, shape):
    _check(RECT_OPS[op], shape)


@pytest.mark.parametrize("shape", SQUARE, ids=str)
@pytest.mark.parametrize("op", sorted(SQUARE_OPS))
def test_square_results(op, shape):
    _check(SQUARE_OPS[op], shape, spd=True)


@pytest.mark.parametrize("shape", [(4, 2), (2, 4), (2, 2, 4), (2, 4, 2), (2, 0, 3)], ids=str)
def test_lstsq_wide_and_vector(shape):
    # (m > n matrix solutions are torch's rows of a larger buffer: docs/differences.md; only m <= n here)
    m, n = shape[-2:]
    if m <= n:
        _check(lambda L, x: L.linalg.lstsq(x, x[..., :, :2]).solution, shape)
    _check(lambda L, x: L.linalg.lstsq(x, x[..., :, 0]).solution if m <= n else x[..., 0], shape)


def test_column_major_results_follow_torch_afterwards():
    # views, pointwise results and view legality then read the layout as torch's do
    a = np.random.RandomState(1).randn(2, 4, 3).astype("float32")
    outs = []
    for L in (torch, torchlike):
        q = L.linalg.qr(L.tensor(a)).Q
        row = [q.mT.is_contiguous(), q[0].stride(), (q * 2).stride(), q.mT.reshape(2, -1).shape, q.contiguous().stride()]
        try:
            q.view(2, 12)
            row.append("viewed")
        except RuntimeError as e:
            row.append(str(e))
        outs.append(row)
    assert outs[0] == outs[1]


@pytest.mark.parametrize("value", [True, False, [[0, 1], [0, 0]], [0, 1, 1], "ones34", "ones234", "zeros03"])
@pytest.mark.parametrize("op", ["nonzero", "argwhere"])
def test_nonzero_index_matrix_strides(op, value):
    def make(L):
        if value == "ones34":
            return L.ones(3, 4) > 0
        if value == "ones234":
            return L.randn(2, 3, 4, generator=L.Generator().manual_seed(0)) > 0
        if value == "zeros03":
            return L.zeros(0, 3)
        return L.tensor(value)
    outs = []
    for L in (torch, torchlike):
        x = make(L)
        if value == "ones234":
            x = L.tensor(np.random.RandomState(0).randn(2, 3, 4) > 0)
        r = getattr(L, op)(x)
        outs.append((tuple(r.shape), r.stride(), r.is_contiguous(), r[1:].stride(), r.t().is_contiguous(),
                     r.t().contiguous().stride()))
    assert outs[1] == outs[0]
