"""Linear algebra on matrices holding NaN/inf, against torch: which calls raise (LAPACK's gesdd refuses a NaN:
pinv, matrix_rank, cond, svd, svdvals, the nuclear and spectral norms; oneMKL's least-squares drivers refuse a
NaN in A or B and print their complaint to stdout) with the same type and message, and the values of the ones
that return (cond's inverse-based orders give inf for a singular or NaN matrix, its 'nuc' order comes from the
singular values)."""
import math
import warnings

import numpy as np
import pytest

import torchlike
from conftest import torch

nan, inf = math.nan, math.inf
MATS = {
    "nan": [[1., nan], [3., 4.]], "allnan": [[nan, nan], [nan, nan]], "nan3x2": [[1., nan], [3., 4.], [5., 6.]],
    "inf": [[1., inf], [3., 4.]], "ninf": [[-inf, 2.], [3., 4.]], "zeros": [[0., 0.], [0., 0.]],
    "finite": [[2., 1.], [1., 3.]], "batch_nan": [[[1., 2.], [3., 4.]], [[1., nan], [3., 4.]]],
}
OPS = {
    "pinv": lambda L, a: L.linalg.pinv(a), "pinv_hermitian": lambda L, a: L.linalg.pinv(a, hermitian=True),
    "pinverse": lambda L, a: L.pinverse(a), "matrix_rank": lambda L, a: L.linalg.matrix_rank(a),
    "matrix_rank_hermitian": lambda L, a: L.linalg.matrix_rank(a, hermitian=True),
    "svd": lambda L, a: L.linalg.svd(a).S, "svdvals": lambda L, a: L.linalg.svdvals(a),
    "torch.svd": lambda L, a: L.svd(a).S, "cond": lambda L, a: L.linalg.cond(a),
    "cond_-2": lambda L, a: L.linalg.cond(a, -2), "cond_fro": lambda L, a: L.linalg.cond(a, "fro"),
    "cond_nuc": lambda L, a: L.linalg.cond(a, "nuc"), "cond_1": lambda L, a: L.linalg.cond(a, 1),
    "cond_inf": lambda L, a: L.linalg.cond(a, inf), "cond_1.0": lambda L, a: L.linalg.cond(a, 1.0),
    "norm_nuc": lambda L, a: L.linalg.matrix_norm(a, "nuc"), "norm_2": lambda L, a: L.linalg.matrix_norm(a, 2),
    "norm_-2": lambda L, a: L.linalg.matrix_norm(a, -2),
}
# the SVD of a matrix with an inf is LAPACK's own arithmetic (nan or 0 singular vectors): values not compared
_LAPACK_INF = {("inf", o) for o in ("pinv", "pinverse", "matrix_rank", "pinv_hermitian", "matrix_rank_hermitian")} | \
    {("ninf", o) for o in ("pinv", "pinverse", "matrix_rank", "pinv_hermitian", "matrix_rank_hermitian", "svd",
                           "torch.svd")}


def _call(lib, op, m):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return OPS[op](lib, lib.tensor(m)), None
        except Exception as e:  # noqa: BLE001 - the exception itself is what is compared
            return None, e


@pytest.mark.parametrize("mat", list(MATS))
@pytest.mark.parametrize("op", list(OPS))
def test_nonfinite(op, mat):
    rt, et = _call(torch, op, MATS[mat])
    rl, el = _call(torchlike, op, MATS[mat])
    if et is not None:
        assert el is not None, f"torch raises {type(et).__name__}: {et}"
        assert type(el).__name__ == type(et).__name__ and str(el) == str(et)
        return
    assert el is None, f"torch returns {rt}, torchlike raises {el!r}"
    assert str(rl.dtype).split(".")[-1] == str(rt.dtype).split(".")[-1] and tuple(rl.shape) == tuple(rt.shape)
    if (mat, op) not in _LAPACK_INF:
        np.testing.assert_allclose(rl.numpy(), rt.numpy(), rtol=1e-5, atol=1e-6)


LSTSQ = {
    "A_nan": ([[1., nan], [3., 4.]], [[1.], [1.]]), "B_nan": ([[1., 2.], [3., 4.]], [[nan], [1.]]),
    "both_nan": ([[1., nan], [3., 4.]], [[nan], [1.]]), "tall_nan": ([[1., nan], [3., 4.], [1., 1.]], [1., 1., 1.]),
    "batch": ([[[1., 2.], [3., 4.]], [[1., nan], [3., 4.]], [[nan, 2.], [3., 4.]]], [[[1.], [1.]]] * 3),
    "finite": ([[1., 2.], [3., 4.]], [[1.], [2.]]),
}


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64"])
@pytest.mark.parametrize("driver", [None, "gelsy", "gelsd", "gelss", "gels"])
@pytest.mark.parametrize("case", list(LSTSQ))
def test_lstsq_nan(case, driver, dtype, capfd):
    a, b = LSTSQ[case]
    results = []
    for lib in (torch, torchlike):
        capfd.readouterr()
        try:
            r = lib.linalg.lstsq(lib.tensor(a, dtype=getattr(lib, dtype)), lib.tensor(b, dtype=getattr(lib, dtype)),
                                 driver=driver)
            err = None
        except RuntimeError as e:
            r, err = None, str(e)
        results.append((r, err, capfd.readouterr().out))
    (rt, et, out_t), (rl, el, out_l) = results
    assert el == et
    assert out_l == out_t
    if rt is not None:
        np.testing.assert_allclose(rl.solution.numpy(), rt.solution.numpy(), rtol=1e-4, atol=1e-5)


def test_cond_ord_text_non_square():
    for p in ("fro", "nuc", 1, -1, inf, -inf, 1.0):
        with pytest.raises(RuntimeError) as et:
            torch.linalg.cond(torch.ones(3, 2), p)
        with pytest.raises(RuntimeError) as el:
            torchlike.linalg.cond(torchlike.ones(3, 2), p)
        assert str(el.value) == str(et.value)
