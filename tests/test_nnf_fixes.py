"""Regression tests for nn.functional conformance fixes (unfold, batch_norm, max_unpool, ctc_loss, pooling
error messages); every check compares torchlike with torch on the same inputs."""
import numpy as np
import pytest
import torch

import torchlike as tl

TF, LF = torch.nn.functional, tl.nn.functional


def _tl(x):
    return tl.tensor(x.detach().numpy())


def _raises_same(tfn, lfn):
    with pytest.raises(Exception) as te:
        tfn()
    with pytest.raises(Exception) as le:
        lfn()
    assert type(le.value).__name__ == type(te.value).__name__
    assert str(le.value).split("\n")[0] == str(te.value).split("\n")[0]


def test_unfold_fold_empty_batch():
    x = torch.randn(0, 1, 5, 5)
    assert LF.unfold(_tl(x), 2, 1, 1, (1, 2)).shape == TF.unfold(x, 2, 1, 1, (1, 2)).shape
    y = torch.randn(0, 4, 9)
    assert LF.fold(_tl(y), (4, 4), 2).shape == TF.fold(y, (4, 4), 2).shape


@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_empty_1d(training):
    e = torch.randn(0)
    r = TF.batch_norm(e, torch.randn(0), torch.randn(0), training=training)
    o = LF.batch_norm(_tl(e), _tl(torch.randn(0)), _tl(torch.randn(0)), training=training)
    assert tuple(o.shape) == tuple(r.shape)


@pytest.mark.parametrize("n", [1, 2, 3])
def test_max_unpool_duplicate_index_grad(n):
    rng = np.random.default_rng(n)
    shape = (1, 2) + (2,) * n
    out = (4,) * n
    x = rng.standard_normal(shape)
    ind = np.zeros(shape, np.int64)  # every element scatters to position 0
    ind.reshape(-1)[1::2] = 3
    xt = torch.tensor(x, requires_grad=True)
    xl = tl.tensor(x).requires_grad_(True)
    tfn, lfn = getattr(TF, f"max_unpool{n}d"), getattr(LF, f"max_unpool{n}d")
    g = rng.standard_normal((1, 2) + out)
    tfn(xt, torch.tensor(ind), 2, output_size=out).backward(torch.tensor(g))
    lfn(xl, tl.tensor(ind), 2, output_size=out).backward(tl.tensor(g))
    np.testing.assert_allclose(xl.grad.numpy(), xt.grad.numpy())


def test_max_unpool_errors():
    x = torch.randn(1, 1, 4, 4)
    _raises_same(lambda: TF.max_unpool2d(x, torch.zeros(1, 1, 4, 1, dtype=torch.long), 3, 2),
                 lambda: LF.max_unpool2d(_tl(x), tl.zeros(1, 1, 4, 1, dtype=tl.long), 3, 2))
    y = torch.randn(1, 1, 4)
    _raises_same(lambda: TF.max_unpool1d(y, torch.zeros(1, 1, 4, dtype=torch.int32), 2),
                 lambda: LF.max_unpool1d(_tl(y), tl.zeros(1, 1, 4, dtype=tl.int32), 2))
    _raises_same(lambda: TF.max_unpool3d(torch.randn(2, 2, 2), torch.zeros(2, 2, 2, dtype=torch.long), 2),
                 lambda: LF.max_unpool3d(tl.randn(2, 2, 2), tl.zeros(2, 2, 2, dtype=tl.long), 2))


def test_ctc_loss_concat_targets_and_compile():
    rng = np.random.default_rng(0)
    T, N, C = 12, 3, 5
    lp = torch.tensor(rng.standard_normal((T, N, C))).log_softmax(-1)
    tlens, ilens = [3, 0, 4], [12, 10, 12]
    tg = torch.tensor(rng.integers(1, C, size=sum(tlens)))
    ref = TF.ctc_loss(lp, tg, ilens, tlens, reduction="none")
    got = LF.ctc_loss(_tl(lp), _tl(tg), tl.tensor(ilens), tl.tensor(tlens), reduction="none")
    np.testing.assert_allclose(got.numpy(), ref.numpy(), rtol=1e-10)
    f = tl.compile(lambda x, t, i, l: LF.ctc_loss(x, t, i, l, reduction="none"), fullgraph=True)
    out = f(_tl(lp), _tl(tg), tl.tensor(ilens), tl.tensor(tlens))
    assert not f.breaks
    np.testing.assert_allclose(out.numpy(), ref.numpy(), rtol=1e-10)


_POOL_ERRS = [
    ("max_pool1d", (3, 3, 3), dict(kernel_size=1, stride=0)),
    ("max_pool1d", (3, 3, 3), dict(kernel_size=1, dilation=0)),
    ("max_pool1d", (2, 2, 2), dict(kernel_size=5)),
    ("max_pool1d", (0, 10), dict(kernel_size=1)),
    ("max_pool1d", (0, 1, 49), dict(kernel_size=2, stride=50, padding=-1, return_indices=True)),
    ("avg_pool1d", (0, 1, 49), dict(kernel_size=2, stride=50, padding=-1)),
    ("max_pool2d", (1, 1, 4, 4), dict(kernel_size=2, dilation=0)),
    ("avg_pool2d", (1, 1, 4, 4), dict(kernel_size=0, stride=1)),
    ("max_pool3d", (0, 1, 2, 10), dict(kernel_size=1)),
    ("avg_pool3d", (1, 4, 4, 4), dict(kernel_size=5)),
    ("adaptive_avg_pool1d", (1, 2, 3), dict(output_size=())),
    ("adaptive_avg_pool2d", (2, 2), dict(output_size=(2, 2))),
    ("adaptive_avg_pool3d", (1, 1, 1, 1, 1), dict(output_size=(-1, 0, 2))),
    ("adaptive_max_pool2d", (1, 1, 1, 1), dict(output_size=(-1, 0))),
    ("adaptive_max_pool3d", (1, 2, 3, 4), dict(output_size=())),
]


@pytest.mark.parametrize("name,shape,kw", _POOL_ERRS)
def test_pool_errors(name, shape, kw):
    x = torch.randn(shape)
    _raises_same(lambda: getattr(TF, name)(x, **kw), lambda: getattr(LF, name)(_tl(x), **kw))


def test_adaptive_max_pool_empty_output():
    x = torch.randn(1, 1, 3)
    r = TF.adaptive_max_pool1d(x, 0, return_indices=True)
    o = LF.adaptive_max_pool1d(_tl(x), 0, return_indices=True)
    assert [tuple(t.shape) for t in o] == [tuple(t.shape) for t in r]


@pytest.mark.parametrize("wshape,kw", [((1, 1, 2), dict(stride=(-1,))), ((1, 1, 2), dict(padding=(-1,))),
                                       ((1, 1, 2), dict(dilation=(-1,))), ((1, 2), {}),
                                       ((2, 2, 2), dict(groups=3)), ((2, 2, 2), dict(groups=0))])
def test_conv1d_errors(wshape, kw):
    x, w = torch.randn(1, 1, 4, dtype=torch.float64), torch.randn(wshape, dtype=torch.float64)
    _raises_same(lambda: TF.conv1d(x, w, **kw), lambda: LF.conv1d(_tl(x), _tl(w), **kw))


def test_conv_bias_dtype_error():
    x, w, b = torch.randn(1, 1, 4, dtype=torch.float64), torch.randn(1, 1, 2, dtype=torch.float64), torch.randn(1)
    _raises_same(lambda: TF.conv1d(x, w, b), lambda: LF.conv1d(_tl(x), _tl(w), _tl(b)))
