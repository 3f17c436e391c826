"""Strict sweep of op_db[375:470], [500:526], [667:702]: the differences it found, each compared with torch.

histc / histogram / histogramdd check the edge tensors' dtype and the kernels' dtypes in torch's order and with
its messages (the data-range step takes float32/float64 only, the kernel the half types too), and renorm of an
integer tensor fails in torch's norm after its argument checks.
"""
import pytest
import torch

import torchlike


def _outcome(lib, fn):
    try:
        r = fn(lib)
    except Exception as e:  # noqa: BLE001 - the exception is what is compared
        return type(e).__name__, str(e)
    return "ok", [x.tolist() for x in (r if isinstance(r, (tuple, list)) else (r,))
                  if hasattr(x, "tolist")]


def _same(fn):
    want = _outcome(torch, fn)
    got = _outcome(torchlike, fn)
    assert got == want


DTYPES = ["float16", "bfloat16", "int64", "bool", "complex64", "float64"]


def _x(L, dt, rows=False):
    x = L.tensor([[1., 2.], [0., 3.]] if rows else [1., 2., 0., 3.]).to(getattr(L, dt))
    return x


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("case", [
    lambda L, dt: L.histc(_x(L, dt), bins=3),
    lambda L, dt: L.histc(_x(L, dt), bins=3, min=0, max=3),
    lambda L, dt: L.histogram(_x(L, dt), 3),
    lambda L, dt: L.histogram(_x(L, dt), 3, range=(0., 3.)),
    lambda L, dt: L.histogram(_x(L, dt), L.tensor([0, 1, 3]).to(getattr(L, dt))),
    lambda L, dt: L.histogram(_x(L, dt)[:0], 3),
    lambda L, dt: L.histogram(_x(L, dt), 3, weight=L.ones(4)),
    lambda L, dt: L.histogramdd(_x(L, dt, True), 3),
    lambda L, dt: L.histogramdd(_x(L, dt, True), 3, range=[0., 3., 0., 3.]),
    lambda L, dt: L.histogramdd(_x(L, dt, True), [L.tensor([0, 1, 3]).to(getattr(L, dt))] * 2),
], ids=["histc", "histc_range", "histogram", "histogram_range", "histogram_edges", "histogram_empty",
        "histogram_weight", "histogramdd", "histogramdd_range", "histogramdd_edges"])
def test_histogram_dtypes_as_torch(case, dt):
    _same(lambda L: case(L, dt))


@pytest.mark.parametrize("case", [
    lambda L: L.histogram(L.tensor([1., 2.]), bins=L.tensor([0., 1.], dtype=L.float64)),
    lambda L: L.histogram(L.tensor([1., 2.]), bins=L.tensor([0, 1])),
    lambda L: L.histogram(L.tensor([1, 2]), bins=L.tensor([0., 1.])),
    lambda L: L.histogramdd(L.tensor([[1., 2.]]), bins=[L.tensor([0., 1.]), L.tensor([0., 1.], dtype=L.float16)]),
    lambda L: L.histogramdd(L.tensor([[1, 2]]), bins=[L.tensor([0, 1])]),
    lambda L: L.histogramdd(L.tensor([1., 2.]), bins=2),
    lambda L: L.histogramdd(L.tensor([1, 2]), bins=2),
    lambda L: L.histogramdd(L.tensor(1.), bins=2),
    lambda L: L.histogram(L.ones(4, dtype=L.float64), 3, weight=L.ones(4)),
    lambda L: L.histogram(L.ones(2, 2), 3, weight=L.ones(3)),
    lambda L: L.histogram(L.ones(2, 2), 3, weight=L.ones(2, 2)),
    lambda L: L.histogram(L.ones(4, dtype=L.int64), L.tensor([0, 1]), weight=L.ones(4)),
    lambda L: L.histogram(L.ones(4), L.tensor([0, 1]), weight=L.ones(4, dtype=L.float64)),
    lambda L: L.histogramdd(L.ones(2, 3, 2), 3, weight=L.ones(3)),
    lambda L: L.histogramdd(L.ones(2, 3, 2), 3, weight=L.ones(2, 3, dtype=L.float64)),
    lambda L: L.histogramdd(L.ones(2, 3, 2), 3, weight=L.ones(2, 3)),
])
def test_histogram_argument_checks_as_torch(case):
    _same(case)


@pytest.mark.parametrize("case", [
    lambda L: L.renorm(L.ones(2, 2, dtype=L.int64), 2, 0, 1.),
    lambda L: L.renorm(L.ones(2, 2, dtype=L.bool), 2, 0, 1.),
    lambda L: L.ones(2, 2, dtype=L.int32).renorm_(2, 0, 1.),
    lambda L: L.renorm(L.ones(2, 2, dtype=L.int64), 2, 0, 1., out=L.ones(2, 2, dtype=L.int64)),
    lambda L: L.renorm(L.ones(2, dtype=L.int64), 2, 0, 1.),
    lambda L: L.renorm(L.ones(2, 2, dtype=L.int64), -2, 0, 1.),
    lambda L: L.renorm(L.ones(2, 2, dtype=L.int64), 2, 0, -1.),
    lambda L: L.renorm(L.ones(2, 2, dtype=L.int64), 2, 5, 1.),
    lambda L: L.renorm(L.tensor([[3., 4.], [0.3, 0.4]]), 2, 0, 1.),
])
def test_renorm_checks_in_torchs_order(case):
    _same(case)


@pytest.mark.parametrize("case", [
    lambda L: L.nonzero_static(L.tensor([1, 0, 2]), size=-1),
    lambda L: L.ones(2, 2).nonzero_static(size=-3, fill_value=2),
    lambda L: L.nonzero_static(L.tensor([1, 0, 2]), size=4, fill_value=-7),
])
def test_nonzero_static_size_check_as_torch(case):
    _same(case)


@pytest.mark.parametrize("case", [
    lambda L: L.fill(L.tensor([1., 2.]), 1j),
    lambda L: L.fill(L.tensor([1., 2.]), 1 + 0j),
    lambda L: L.fill(L.tensor([1, 2]), 1e30),
    lambda L: L.fill(L.tensor([1, 2], dtype=L.uint8), -1),
    lambda L: L.fill(L.tensor([1, 2], dtype=L.int8), 300),
    lambda L: L.nn.init.constant_(L.ones(2), 1j),
    lambda L: L.nn.init.constant_(L.ones(2), 1 + 0j),
    lambda L: L.nn.init.constant_(L.ones(2, dtype=L.int8), 300),
    lambda L: L.nn.init.constant_(L.ones(2, dtype=L.complex64), 1j),
])
def test_fill_and_constant_check_the_value_fits(case):
    _same(case)


@pytest.mark.parametrize("case", [
    lambda L: L.searchsorted(L.tensor([1., 2.]), L.tensor([1.5]), out=L.zeros(1, dtype=L.int32)),
    lambda L: L.searchsorted(L.tensor([1., 2.]), L.tensor([1.5]), out_int32=True, out=L.zeros(1, dtype=L.int64)),
    lambda L: L.searchsorted(L.tensor([1., 2.]), L.tensor([1.5]), out_int32=True, out=L.zeros(1, dtype=L.int32)),
    lambda L: L.searchsorted(L.tensor([1., 2.]), L.tensor([1.5]), out=L.zeros(0, dtype=L.int64)),
    lambda L: L.searchsorted(L.tensor([1., 2.]), L.tensor([1.5]), side="left", right=True, out=L.zeros(1)),
    lambda L: L.bucketize(L.tensor([1.5]), L.tensor([1., 2.]), out=L.zeros(1)),
    lambda L: L.bucketize(L.tensor([1.5, 3.]), L.tensor([1., 2.]), out_int32=True, out=L.zeros(2, dtype=L.int32)),
    lambda L: L.bucketize(L.tensor([1.5, 3.]), L.tensor([1., 2.]), right=True, out=L.zeros(0, dtype=L.int64)),
])
def test_searchsorted_out_dtype_as_torch(case):
    _same(case)


@pytest.mark.parametrize("case", [
    lambda L: L.norm(L.ones(2, 2, 2), p="fro", dim=(0, 1, -1)),
    lambda L: L.norm(L.ones(2, 2, 2, dtype=L.int64), p="fro", dim=(0, 1, 2)),
    lambda L: L.norm(L.ones(2, 2), p="fro", dim=(0, 1, 0)),
    lambda L: L.norm(L.tensor([1., 2.]), dim=0, out=L.zeros((), dtype=L.float64)),
    lambda L: L.norm(L.tensor([1., 2.]), out=L.zeros((), dtype=L.float16)),
    lambda L: L.norm(L.tensor([1., 2.]), p="fro", dim=(0,), out=L.zeros((), dtype=L.float64)),
    lambda L: L.norm(L.ones(2, 2), p="nuc", out=L.zeros((), dtype=L.float64)),
    lambda L: L.norm(L.tensor([1., 2.], dtype=L.float64), dim=0, out=L.zeros(())),
    lambda L: L.norm(L.tensor([1., 2.]), dim=0, dtype=L.float64, out=L.zeros(())),
    lambda L: L.norm(L.tensor([1. + 1j, 2.]), dim=0, out=L.zeros((), dtype=L.complex64)),
    lambda L: L.norm(L.tensor([1., 2.]), p=3, out=L.zeros((), dtype=L.float64)),
    lambda L: L.norm(L.tensor([1., 2.]), dim=0, out=L.zeros(())),
    lambda L: L.norm(L.eye(2), p="nuc", out=L.zeros(())),
])
def test_norm_fro_dims_and_out_dtype_as_torch(case):
    _same(case)


def _o(L, dt, n=2):
    return L.zeros(n, dtype=getattr(L, dt))


@pytest.mark.parametrize("dt", ["float64", "float16", "int64", "float32"])
@pytest.mark.parametrize("case", [
    lambda L, dt: L.scatter(L.tensor([1., 2.]), 0, L.tensor([0]), L.tensor([3.]), out=_o(L, dt)),
    lambda L, dt: L.scatter(L.tensor([1., 2.]), 0, L.tensor([0]), 2., out=_o(L, dt)),
    lambda L, dt: L.scatter(L.tensor([1., 2.]), 0, L.tensor([0]), L.tensor([3.]), reduce="add", out=_o(L, dt)),
    lambda L, dt: L.scatter_add(L.tensor([1., 2.]), 0, L.tensor([0]), L.tensor([3.]), out=_o(L, dt)),
    lambda L, dt: L.scatter_reduce(L.tensor([1., 2.]), 0, L.tensor([0]), L.tensor([3.]), "sum", out=_o(L, dt)),
    lambda L, dt: L.index_add(L.tensor([1., 2.]), 0, L.tensor([0]), L.tensor([3.]), out=_o(L, dt)),
    lambda L, dt: L.index_add(L.tensor([1, 2]), 0, L.tensor([0]), L.tensor([3]), out=_o(L, dt)),
    lambda L, dt: L.index_copy(L.tensor([1., 2.]), 0, L.tensor([0]), L.tensor([3.]), out=_o(L, dt)),
    lambda L, dt: L.index_reduce(L.tensor([1., 2.]), 0, L.tensor([0]), L.tensor([3.]), "prod", out=_o(L, dt)),
    lambda L, dt: L.slice_scatter(L.ones(2), L.ones(1), 0, 0, 1, out=_o(L, dt)),
    lambda L, dt: L.msort(L.tensor([2., 1.]), out=_o(L, dt)),
    lambda L, dt: L.take_along_dim(L.tensor([1., 2.]), L.tensor([0]), out=_o(L, dt, 1)),
])
def test_structured_out_keeps_the_result_dtype(case, dt):
    _same(lambda L: case(L, dt))


@pytest.mark.parametrize("case", [
    lambda L: L.where(L.tensor([True, False]), L.tensor([1., 2.]), L.tensor([0., 1.]), out=L.zeros(2, dtype=L.int64)),
    lambda L: L.where(L.tensor([True, False]), L.tensor([1., 2.]), L.tensor([0., 1.]),
                      out=L.zeros(2, dtype=L.float64)),
    lambda L: L.where(L.tensor([True, False]), L.tensor([1, 2]), L.tensor([0., 1.]), out=L.zeros(2)),
    lambda L: L.take(L.tensor([1., 2.]), L.tensor([5]), out=L.zeros(1, dtype=L.int64)),
    lambda L: L.take(L.tensor([1., 2.]), L.tensor([1]), out=L.zeros(1, dtype=L.float64)),
    lambda L: L.take(L.tensor([1., 2.]), L.tensor([1]), out=L.zeros(1)),
    lambda L: L.index_select(L.tensor([1., 2.]), 0, L.tensor([1]), out=L.zeros(1, dtype=L.float64)),
    lambda L: L.index_select(L.tensor([1., 2.]), 0, L.tensor([1]), out=L.zeros(1, dtype=L.int64)),
    lambda L: L.index_select(L.tensor([1., 2.]), 0, L.tensor([1]), out=L.zeros(1)),
])
def test_where_take_index_select_out_dtype_as_torch(case):
    _same(case)
