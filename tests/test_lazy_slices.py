"""Lazy basic views (not timed): a slice / row of a tensor that needs no autograd is read on first use, stack/cat
of such views of one root read them in one program, and ``i + 8`` on the rows of a small int tensor is computed
on the host.  Every observable behaviour is compared with real torch: values after later writes to the root or
into the view, views of views, dtypes, negative and non-zero dims, autograd roots, ``_base``, strides,
``data_ptr``, pickling/save, printing, compile and vmap."""
import io
import pickle

import numpy as np
import pytest
import torch

import torchlike
from torchlike import _views
from tests.conftest import raises_like_torch, same_as_torch

D = np.arange(60, dtype=np.int64)
F = np.arange(60, dtype=np.float32).reshape(12, 5) / 7
IX = [3, 40, 0, 17, 51, 9]


def _lazy(t):
    return type(t._x) is _views.Pending


def test_slices_are_lazy_and_stack_reads_them_without_materialising():
    d = torchlike.tensor(D)
    xs = [d[i:i + 8] for i in torchlike.tensor(IX)]
    assert all(_lazy(x) for x in xs)
    assert xs[0].shape == (8,) and xs[0].dtype is torchlike.int64 and xs[0].ndim == 1 and xs[0].numel() == 8
    s = torchlike.stack(xs)
    assert all(_lazy(x) for x in xs)  # stack read them from the root, none was materialised
    np.testing.assert_array_equal(s.numpy(), np.stack([D[i:i + 8] for i in IX]))


@pytest.mark.parametrize("dim", [0, 1, -1, -2])
def test_stack_and_cat_of_slices_of_one_root(dim):
    def fn(m, x):
        ix = m.tensor(IX)
        a = m.stack([x[i:i + 8] for i in ix], dim)
        b = m.stack([x[i + 1:i + 8 + 1] for i in ix], dim)
        c = m.cat([x[i:i + 8] for i in ix], dim if dim in (0, -1) else 0)
        return a, b, c
    same_as_torch(fn, D)


@pytest.mark.parametrize("dim", [0, 1, 2, -1, -3])
def test_stack_of_2d_rows_float_and_cat(dim):
    def fn(m, x):
        rows = [x[i:i + 3] for i in (0, 4, 9)]
        out = m.stack(rows, dim)
        cat_dim = dim if dim in (0, 1, -1) else 0
        return out, m.cat(rows, cat_dim)
    same_as_torch(fn, F, grad=False)


def test_stack_of_strided_and_non_contiguous_roots():
    def fn(m, x):
        t = x.t()  # a non-contiguous view root
        a = m.stack([t[i:i + 2] for i in (0, 1, 3)])
        b = m.stack([x[i:i + 6:2] for i in (0, 3, 5)])
        c = m.stack([x[i] for i in (2, 7, 11)], 1)
        return a, b, c
    same_as_torch(fn, F, grad=False)


def test_stack_mixing_roots_and_normal_tensors():
    def fn(m, x):
        y = x.clone()
        a = m.stack([x[0:4], y[1:5], x[2:6]])  # two roots
        b = m.stack([x[0:4], m.ones(4, dtype=x.dtype), x[3:7]])  # a normal tensor in between
        c = m.cat([x[0:4], x[5:7], x[9:10]])  # one root, different structures
        d = m.stack([x[0:4], x[1:9:2]])  # one root, different steps
        e = m.stack([x[5:40][0:2], x[6:40][0:2], x[5:40][3:5]])  # different parent views
        f = m.stack([x[i:i + 3] for i in list(x[50:60])[:4]])  # rows of a slice as bounds
        return a, b, c, d, e, f
    same_as_torch(fn, D)


def test_dtype_promotion_in_stack_and_cat_of_slices():
    def fn(m, x):
        f = x.float()
        return m.stack([x[0:3], f[1:4]]), m.cat([f[0:2], x[4:6]])
    same_as_torch(fn, D)


def test_root_written_after_slicing_is_seen_by_the_slices():
    def fn(m, x):
        x = x.clone()
        ix = m.tensor(IX)
        xs = [x[i:i + 8] for i in ix]
        ys = [x[i:i + 8] for i in ix]
        x[3:6] = -1
        x.mul_(2)
        one = xs[0] + 0  # read after the writes
        return one, m.stack(ys), xs[1], x._version
    same_as_torch(fn, D)


def test_write_into_a_lazy_slice_reaches_the_root():
    def fn(m, x):
        x = x.clone()
        a, b = x[2:6], x[4:9]
        a[1] = 100
        b.add_(1000)
        c = x[10:12]
        c.zero_()
        return x, a, b, c, a._version
    same_as_torch(fn, D)


def test_slice_of_a_lazy_slice_and_rows_of_a_slice():
    def fn(m, x):
        x = x.clone()
        a = x[5:40]
        b = a[3:10]
        rows = list(a[0:3])
        x[8] = -7  # inside both a and b
        return b, a[3:10:2], m.stack(rows), rows[2], m.stack([a[i:i + 2] for i in (0, 4)])
    same_as_torch(fn, D)


def test_root_data_rebound_keeps_old_slices():
    def fn(m, x):
        x = x.clone()
        v = x[1:4]
        w = x[2:5]
        x.data = m.arange(100, 160)
        return v, m.stack([w, x[2:5]])
    same_as_torch(fn, D)


def test_requires_grad_roots_are_not_lazy_and_gradients_match():
    x = torchlike.tensor(F, requires_grad=True)
    assert not _lazy(x[2:5])

    def fn(m, x):
        rows = [x[i:i + 2] for i in (0, 3, 7)]
        return m.stack(rows).sum(0) * m.cat(rows, 1)[:, :5]
    same_as_torch(fn, F)


def test_root_requires_grad_after_slicing():
    def fn(m, x):
        x = x.clone().detach()
        v = x[0:3]
        x.requires_grad_()
        y = (x * 2).sum()
        return v, v.grad_fn is None, y
    same_as_torch(fn, F, grad=False)


def test_written_root_in_graph_after_slicing():
    def fn(m, x):
        y = x.detach().clone()
        v = y[0:3]
        y.mul_(x)  # now in the graph: the lazy view re-reads with autograd, like any stale view
        return v, v.requires_grad, type(v.grad_fn).__name__
    same_as_torch(fn, F)


def test_base_strides_contiguity_and_pointers():
    for m in (torch, torchlike):
        x = m.tensor(D)
        v = x[4:20:3]
        r = list(x)[5]
        assert v._base is x and r._base is x
        assert v.stride() == (3,) and v.storage_offset() == 4 and not v.is_contiguous()
        assert x[2:9].is_contiguous() and r.storage_offset() == 5
        assert v.data_ptr() == x.data_ptr() + 4 * 8
        assert v.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
        s = r + 8
        assert s._base is None and s.is_contiguous() and s.stride() == ()
        assert s.data_ptr() != 0


def test_host_scalar_arithmetic():
    def fn(m, x):
        ix = m.tensor(IX)
        outs = []
        for i in ix:
            j = i + 8
            k = 3 + i - 1
            outs.append((j, k, int(j), k.item(), j.dtype, j.shape, x[i:j], x[k], j * 2, j - i, i + i, i - 70))
        return outs
    same_as_torch(fn, D)


def test_host_scalars_other_dtypes_and_in_place():
    def fn(m, x):
        ix = m.tensor([1, 5], dtype=m.int32)
        i, j = list(ix)
        a = i + 2  # int32 + python int: not the host path, same result
        f = list(m.tensor([1.5, 2.5]))[0] + 1
        b = list(m.tensor([4, 6]))[1] + 1
        b.add_(10)
        c = list(m.tensor([2**62]))[0] + 2**62  # overflow wraps like torch
        return a, f, b, j - 1, c
    same_as_torch(fn, D)


def test_row_iteration_values_after_root_write():
    def fn(m, x):
        ix = m.tensor(IX)
        rows = list(ix)
        ix[1] = 5
        return [int(r) for r in rows], rows[1] + 1, rows[0] + 0
    same_as_torch(fn, D)


def test_row_reads_on_the_host_keep_0d_shapes(monkeypatch):
    """A view chain whose structure has compiled for ``_READ_SHAPES`` shapes is read with numpy
    (``_views._read_on_host``): a 0-d row read that way stays 0-d (a long test process reached it through earlier
    files' reads and gave ``rows[1] + 1`` shape [1])."""
    monkeypatch.setattr(_views, "_READ_SHAPES", 0)

    def fn(m, x):
        ix = m.tensor(IX)
        rows = list(ix)
        ix[1] = 5
        return rows[1] + 1, rows[0] + 0, x[7] * 2
    same_as_torch(fn, D)


def test_printing_pickle_and_save():
    d = torchlike.tensor(D)
    t = torch.tensor(D)
    assert repr(d[3:7]) == repr(t[3:7])
    assert str(list(torchlike.tensor(IX))[1] + 8) == str(list(torch.tensor(IX))[1] + 8)
    v = d[5:9]
    w = pickle.loads(pickle.dumps(v))
    np.testing.assert_array_equal(w.numpy(), D[5:9])
    buf = io.BytesIO()
    torchlike.save({"v": d[10:14], "s": list(torchlike.tensor(IX))[2] + 1}, buf)
    buf.seek(0)
    back = torchlike.load(buf)
    np.testing.assert_array_equal(back["v"].numpy(), D[10:14])
    assert back["s"].item() == IX[2] + 1
    assert d[2:5].numpy().tolist() == [2, 3, 4] and d[2:5].tolist() == [2, 3, 4]


def test_lazy_slices_under_compile():
    d = torchlike.tensor(D)

    @torchlike.compile
    def f(xs):
        return torchlike.stack(xs).sum(1)

    for ix in ([1, 7, 30], [2, 2, 50]):
        xs = [d[i:i + 4] for i in torchlike.tensor(ix)]
        np.testing.assert_array_equal(f(xs).numpy(), np.stack([D[i:i + 4] for i in ix]).sum(1))

    @torchlike.compile
    def g(x):
        rows = [x[i:i + 3] for i in (0, 5)]
        return torchlike.stack(rows) * 2

    x = torchlike.tensor(D)
    np.testing.assert_array_equal(g(x).numpy(), np.stack([D[0:3], D[5:8]]) * 2)
    x.add_(1)
    np.testing.assert_array_equal(g(x).numpy(), np.stack([D[0:3], D[5:8]]) * 2 + 2)


def test_lazy_slices_under_vmap():
    x = torchlike.tensor(F)
    out = torchlike.func.vmap(lambda r: torchlike.stack([r[0:2], r[2:4]]))(x)
    np.testing.assert_allclose(out.numpy(), np.stack([F[:, 0:2], F[:, 2:4]], 1))
    v = x[1:4]
    out2 = torchlike.func.vmap(lambda r: r * 2)(v)
    np.testing.assert_allclose(out2.numpy(), F[1:4] * 2)


@pytest.mark.parametrize("op", ["stack", "cat"])
@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("kind", ["slice", "strided", "row", "of_view", "empty"])
def test_stack_cat_of_small_root_gather_on_the_host(op, dim, kind):
    """stack/cat of lazy slices of a small root (``_views.host_together``): a result equal to torch's, and a
    copy: later writes to the root or to the result do not reach the other."""
    def fn(m, x):
        d = x.clone()
        if kind == "slice":
            xs = [d[i:i + 3] for i in (0, 4, 9)]
        elif kind == "strided":
            xs = [d[i:i + 5:2] for i in (0, 2, 7)]
        elif kind == "row":
            xs = [d[i] for i in (11, 0, 5)]
        elif kind == "of_view":
            v = d[1:]
            xs = [v[i:i + 2] for i in m.tensor([0, 6, 9])]
        else:
            xs = [d[i:i] for i in (0, 3)]
        r = getattr(m, op)(xs, 0 if op == "cat" and kind == "row" and dim == 1 else dim)
        snap = r.clone()
        d[0] = -1.0
        r.view(-1)[:1] = 99.0
        return snap, r, d
    same_as_torch(fn, F, grad=False)


def test_host_gather_taken_for_a_small_root():
    d = torchlike.tensor(D)
    r = torchlike.stack([d[i:i + 8] for i in torchlike.tensor(IX)])
    assert r._host_array() is not None
    same_as_torch(lambda m, x: m.stack([x[i:i + 8] for i in m.tensor(IX)]), D)


BIG = (np.arange(70001, dtype=np.int64) * 7) % 65  # over 65536 elements: a root too big to copy to the host


@pytest.mark.parametrize("op", ["stack", "cat"])
def test_stack_cat_of_slices_of_a_large_cpu_root_like_torch(op):
    """The bigram's batch: slices of a view of a large (> 65536 elements) CPU root, gathered on the host from the
    root's own buffer (JAX's CPU device: ``np.asarray`` aliases it); the result is torch's and a copy."""
    ix = [3, 69980, 0, 40000, 65536, 12]

    def fn(m, x):
        data = x.clone()
        train = data[:69995]
        r = getattr(m, op)([train[i:i + 8] for i in m.tensor(ix)])
        s = getattr(m, op)([train[i + 1:i + 8 + 1] for i in m.tensor(ix)])
        snap = r.clone()
        data[3] = -5  # a write to the root after the gather: not seen by the result
        r.view(-1)[:1] = 99  # nor a write into the result by the root
        return snap, r, s, data[:12], train[:12]
    same_as_torch(fn, BIG, grad=False)
    d = torchlike.tensor(BIG) + 0  # (a device root)
    r = torchlike.stack([d[i:i + 8] for i in torchlike.tensor(ix)])
    assert r._host_array() is not None  # the host gather was taken


def test_rows_and_range_checks_of_a_large_cpu_root_like_torch():
    """Rows of a large root read on the host (``int(i)``, ``i + 1``), and cross_entropy's range check of lazy
    targets of such a root: torch's values and torch's IndexError."""
    def rows(m, x):
        d = x.clone()
        return [int(i) for i in d[65530:65540]], [i + 1 for i in d[:3]]
    same_as_torch(rows, BIG, grad=False)

    def ce(m, x, bad):
        d = x.clone()
        if bad:
            d[70000] = 65
        return m.nn.functional.cross_entropy(m.ones(8, 65), d[69993:70001])
    same_as_torch(lambda m, x: ce(m, x, False), BIG, grad=False)
    raises_like_torch(lambda m: ce(m, m.tensor(BIG), True))
