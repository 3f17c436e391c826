"""Lazy shape views (not timed): outside autograd and tracing, ``view``/``reshape``/``permute``/``t``/
``unsqueeze``/``expand`` and basic index steps are views read on first use, and an op consuming one reads it from
its root inside its own program.  Every observable behaviour is compared with real torch: values after writes
through the base or the view (either order), views of views, ``_base``, strides, ``is_contiguous``,
``storage_offset``, ``data_ptr``, version counters, autograd through views, dtypes, errors, and the host range
checks of cross_entropy/nll_loss/embedding that read such views."""
import numpy as np
import pytest
import torch

import torchlike
from torchlike import _views
from tests.conftest import raises_like_torch, same_as_torch

F = np.arange(24, dtype=np.float32).reshape(2, 3, 4) / 7
I = np.arange(24, dtype=np.int64).reshape(2, 3, 4)

VIEWS = {
    "view": lambda x: x.view(6, 4),
    "view-1": lambda x: x.view(-1),
    "reshape": lambda x: x.reshape(3, 8),
    "permute": lambda x: x.permute(2, 0, 1),
    "transpose": lambda x: x.transpose(0, 2),
    "unsqueeze": lambda x: x.unsqueeze(1),
    "squeeze": lambda x: x.unsqueeze(0).squeeze(0),
    "expand": lambda x: x[:, :1].expand(2, 5, 4),
    "flatten": lambda x: x.flatten(1),
    "index": lambda x: x[:, -1, :],
    "narrow": lambda x: x.narrow(2, 1, 2),
    "t-of-select": lambda x: x[1].t(),
    "chain": lambda x: x.view(6, 4)[2:5].t().unsqueeze(0),
}


def _lazy(t):
    return type(t._x) is _views.Pending


@pytest.mark.parametrize("name", sorted(VIEWS))
def test_view_is_lazy_and_reads_like_torch(name):
    f = VIEWS[name]
    x = torchlike.tensor(F) + 0  # a device tensor
    assert _lazy(f(x))
    same_as_torch(lambda m, a: (f(a), f(a) * 2, f(a).sum(), f(a).contiguous()), F, grad=False)
    same_as_torch(lambda m, a: (f(a), f(a) + 1), I, grad=False)


# (not "chain": the stride of its size-1 dim is the row-major one, a difference in docs/differences.md)
@pytest.mark.parametrize("name", [n for n in sorted(VIEWS) if n != "chain"])
def test_view_metadata_like_torch(name):
    f = VIEWS[name]

    def meta(m, a):
        a = a + 0
        v = f(a)
        return (tuple(v.shape), v.stride(), v.storage_offset(), v.is_contiguous(), v._base is a,
                v.data_ptr() - a.data_ptr(), v._version, v.dtype, v.requires_grad, v.is_leaf)
    t = meta(torch, torch.tensor(F))
    assert meta(torchlike, torchlike.tensor(F)) == tuple(
        getattr(torchlike, str(e).split(".")[1]) if isinstance(e, torch.dtype) else e for e in t)


@pytest.mark.parametrize("name", [n for n in sorted(VIEWS) if n != "expand"])
def test_writes_through_base_and_view_are_seen_by_both(name):
    f = VIEWS[name]

    def fn(m, a):
        a = a + 0
        v = f(a)
        w = f(a)  # another lazy view, read only after the writes
        a.mul_(2)  # through the base, before the view was ever read
        r1 = v.clone()
        v.add_(1)  # through the view
        r2 = a.clone()
        a[0] = -1.0
        return r1, r2, v, w, a, v._version, a._version, w._version
    same_as_torch(fn, F, grad=False)


def test_views_made_before_a_write_and_read_by_an_op_after_it():
    def fn(m, a):
        a = a + 0
        v = a.view(-1)
        p = a.permute(2, 1, 0)
        a.zero_()
        return v * 1, p + 0, m.nn.functional.softmax(v, 0)
    same_as_torch(fn, F, grad=False)


def test_expand_view_write_raises_like_torch():
    raises_like_torch(lambda m, a: (a + 0)[:, :1].expand(2, 5, 4).add_(1), F)


def test_autograd_through_views_like_torch():
    # a base that requires grad: views are recorded (not lazy), gradients flow through each kind
    for f in VIEWS.values():
        same_as_torch(lambda m, a: (f(a) * f(a)).sum() + f(a * 1).sum(), F)


def test_lazy_view_then_requires_grad_like_torch():
    def fn(m, a):
        with m.no_grad():
            b = a * 1
        v = b.view(6, 4)
        v.requires_grad_()
        out = (v * 3).sum()
        out.backward()
        return out, v.grad, v.is_leaf, b.requires_grad
    same_as_torch(fn, F, grad=False)


def test_lazy_view_under_no_grad_of_a_grad_tensor_like_torch():
    def fn(m, a):
        with m.no_grad():
            v = a.view(-1)
            s = v * 2
        return s, s.requires_grad, v.grad_fn is None, (a.view(-1) * 2).sum()
    same_as_torch(fn, F)


def test_view_plus_cross_entropy_and_nll_like_torch():
    rng = np.random.default_rng(0)
    logits = rng.standard_normal((4, 8, 11)).astype(np.float32)
    y = rng.integers(0, 11, (4, 8))

    def fn(m, lg, t):
        lg, t = lg + 0, t + 0
        a = m.nn.functional.cross_entropy(lg.view(32, 11), t.view(32))
        b = m.nn.functional.nll_loss(lg.view(32, 11).log_softmax(1), t.view(-1), reduction="sum")
        c = m.nn.functional.cross_entropy(lg.permute(0, 2, 1), t)
        return a, b, c
    same_as_torch(fn, logits, y, grad=False)
    same_as_torch(lambda m, lg, t: m.nn.functional.cross_entropy(lg.view(32, 11), t.view(32)), logits, y)


def test_range_checks_of_lazy_targets_raise_like_torch():
    lg = np.zeros((6, 5), np.float32)
    bad = np.array([[0, 1, 7], [2, 3, 4]])
    raises_like_torch(lambda m, a, t: m.nn.functional.cross_entropy(a, (t + 0).view(6)), lg, bad)
    raises_like_torch(lambda m, a, t: m.nn.functional.nll_loss(a, (t + 0).view(-1)), lg, bad)
    raises_like_torch(lambda m, w, t: m.nn.functional.embedding((t + 0).t(), w), lg, bad)
    raises_like_torch(lambda m, a, t: m.nn.functional.cross_entropy(a, t.view(6)), lg, bad)  # a host tensor
    same_as_torch(lambda m, w, t: m.nn.functional.embedding((t + 0).t() % 5, w), lg, bad, grad=False)


def test_op_errors_on_lazy_views_like_torch():
    raises_like_torch(lambda m, a: (a + 0).view(6, 4) + (a + 0).view(4, 6), F)
    raises_like_torch(lambda m, a: (a + 0).view(6, 4) @ (a + 0).view(6, 4), F)
    raises_like_torch(lambda m, a: (a + 0).view(5, 5), F)
    raises_like_torch(lambda m, a: (a + 0).view(-1, -1), F)
    raises_like_torch(lambda m, a: (a + 0).t().view(-1), F)


def test_host_tensor_views_like_torch():
    def fn(m, a):
        v = a.view(-1)
        u = a.unsqueeze(0)
        a[0, 0, 0] = 100.0
        return v, u, a.t() if a.ndim == 2 else a.permute(1, 0, 2), v.sum()
    same_as_torch(fn, F, grad=False)


def test_fused_view_reads_compile_once_per_structure():
    x = torchlike.tensor(np.arange(400, dtype=np.float32)) + 0
    (x[0:8] * 2).sum()
    before = torchlike.cache_info()["compiled"] if "compiled" in torchlike.cache_info() else None
    outs = [(x[i:i + 8] * 2).sum().item() for i in (5, 77, 300)]
    assert outs == [float((np.arange(400, dtype=np.float32)[i:i + 8] * 2).sum()) for i in (5, 77, 300)]
    if before is not None:
        assert torchlike.cache_info()["compiled"] == before
