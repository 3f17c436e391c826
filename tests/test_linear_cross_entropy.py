"""nn.LinearCrossEntropyLoss / F.linear_cross_entropy / nn.LinearCrossEntropyOptions vs torch 2.13."""
import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import torchlike  # noqa: E402
import torchlike.nn.functional as F  # noqa: E402
from conftest import assert_same  # noqa: E402

RNG = np.random.default_rng(3)


def _both(a, rg=False):
    t, o = torch.from_numpy(np.array(a)), torchlike.from_numpy(np.array(a))
    if rg:
        t.requires_grad_(True)
        o.requires_grad_(True)
    return o, t


OPTIONS = [None, {}, {"batch_chunk_size": 2}, {"batch_chunk_size": 3}, {"chunking_method": "aspect_ratio:4"}]


@pytest.mark.parametrize("opts", OPTIONS)
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("extra", ["plain", "bias", "weight", "ignore"])
def test_functional_matches_torch(opts, reduction, extra):
    n, fin, c = 7, 5, 6
    x_o, x_t = _both(RNG.standard_normal((n, fin)), rg=True)
    w_o, w_t = _both(RNG.standard_normal((c, fin)), rg=True)
    tgt = RNG.integers(0, c, n)
    tgt[0] = 1
    t_o, t_t = _both(tgt)
    kw_o, kw_t = {"reduction": reduction}, {"reduction": reduction}
    if extra == "bias":
        b_o, b_t = _both(RNG.standard_normal(c), rg=True)
        kw_o["linear_bias"], kw_t["linear_bias"] = b_o, b_t
    if extra == "weight":
        cw = RNG.uniform(0.5, 2, c)
        kw_o["weight"], kw_t["weight"] = _both(cw)
    if extra == "ignore":
        kw_o["ignore_index"] = kw_t["ignore_index"] = 1
    if opts is not None:
        kw_o["options"] = torchlike.nn.LinearCrossEntropyOptions(allow_retain_graph=True, **opts)
        kw_t["options"] = torch.nn.LinearCrossEntropyOptions(allow_retain_graph=True, **opts)
    yo = F.linear_cross_entropy(x_o, w_o, t_o, **kw_o)
    yt = torch.nn.functional.linear_cross_entropy(x_t, w_t, t_t, **kw_t)
    assert_same(yo, yt, 1e-10, 1e-10)
    g = RNG.standard_normal(tuple(yt.shape))
    yo.backward(torchlike.from_numpy(g))
    yt.backward(torch.from_numpy(g))
    assert_same(x_o.grad, x_t.grad, 1e-10, 1e-10)
    assert_same(w_o.grad, w_t.grad, 1e-10, 1e-10)
    if extra == "bias":
        assert_same(kw_o["linear_bias"].grad, kw_t["linear_bias"].grad, 1e-10, 1e-10)


@pytest.mark.parametrize("out_features", [(), (3, 2)])
@pytest.mark.parametrize("probs", [False, True])
def test_module_matches_torch(out_features, probs):
    torch.manual_seed(0)
    kw = dict(out_features=out_features, bias=True, label_smoothing=0.1)
    mt = torch.nn.LinearCrossEntropyLoss(4, 5, **kw)
    mo = torchlike.nn.LinearCrossEntropyLoss(4, 5, **kw)
    assert list(mo.state_dict()) == list(mt.state_dict())
    mo.load_state_dict({k: torchlike.from_numpy(v.detach().numpy().copy()) for k, v in mt.state_dict().items()})
    assert repr(mo) == repr(mt)
    x_o, x_t = _both(RNG.standard_normal((6, 4)).astype(np.float32), rg=True)
    if probs:
        target = RNG.uniform(0, 1, (6, 5, *out_features)).astype(np.float32)
    else:
        target = RNG.integers(0, 5, (6, *out_features))
    t_o, t_t = _both(target)
    lo, lt = mo(x_o, t_o), mt(x_t, t_t)
    assert_same(lo, lt, 1e-5, 1e-6)
    lo.backward()
    lt.backward()
    assert_same(x_o.grad, x_t.grad, 1e-5, 1e-6)
    assert_same(mo.linear.weight.grad, mt.linear.weight.grad, 1e-5, 1e-6)
    assert_same(mo.linear.bias.grad, mt.linear.bias.grad, 1e-5, 1e-6)


def test_unbatched_and_fallback_warning():
    x_o, x_t = _both(RNG.standard_normal(3))
    w_o, w_t = _both(RNG.standard_normal((4, 3)))
    opts_o, opts_t = torchlike.nn.LinearCrossEntropyOptions(), torch.nn.LinearCrossEntropyOptions()
    yo = F.linear_cross_entropy(x_o, w_o, torchlike.tensor(2), options=opts_o, reduction="none")
    yt = torch.nn.functional.linear_cross_entropy(x_t, w_t, torch.tensor(2), options=opts_t, reduction="none")
    assert_same(yo, yt, 1e-10, 1e-10)
    # label smoothing is outside the chunked path: both warn and use the reference path
    with pytest.warns(UserWarning, match="options.. ignored"):
        yo = F.linear_cross_entropy(x_o, w_o, torchlike.tensor(2), options=opts_o, label_smoothing=0.2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yt = torch.nn.functional.linear_cross_entropy(x_t, w_t, torch.tensor(2), options=opts_t,
                                                      label_smoothing=0.2)
    assert_same(yo, yt, 1e-10, 1e-10)


@pytest.mark.parametrize("kwargs", [
    {"acc_policy": "fast"}, {"chunking_method": "rows"}, {"chunking_method": "aspect_ratio:0"},
    {"batch_chunk_size": 0}, {"acc_dtype": "int64"},
])
def test_options_validation(kwargs):
    tkw = {k: (torch.int64 if v == "int64" else v) for k, v in kwargs.items()}
    okw = {k: (torchlike.int64 if v == "int64" else v) for k, v in kwargs.items()}
    with pytest.raises(ValueError) as et:
        torch.nn.LinearCrossEntropyOptions(**tkw)
    with pytest.raises(ValueError) as eo:
        torchlike.nn.LinearCrossEntropyOptions(**okw)
    assert str(eo.value).split(",")[0].replace("torchlike", "torch") == str(et.value).split(",")[0]


def test_conflicting_chunk_size_and_method():
    args = [np.zeros((8, 4)), np.zeros((16, 4)), np.zeros(8, dtype=np.int64)]
    with pytest.raises(ValueError, match="give different chunk sizes") as et:
        torch.nn.functional.linear_cross_entropy(
            *map(torch.from_numpy, args),
            options=torch.nn.LinearCrossEntropyOptions(batch_chunk_size=3, chunking_method="aspect_ratio"))
    with pytest.raises(ValueError, match="give different chunk sizes") as eo:
        F.linear_cross_entropy(
            *map(torchlike.from_numpy, args),
            options=torchlike.nn.LinearCrossEntropyOptions(batch_chunk_size=3, chunking_method="aspect_ratio"))
    assert str(eo.value) == str(et.value)


@pytest.mark.parametrize("case", ["dims", "weight_dims", "features", "probs_ignore", "kdim_unbatched", "bias"])
def test_errors_match_torch(case):
    z = np.zeros
    args, kw = {
        "dims": ([z((2, 3, 3)), z((2, 3)), z((3, 2))], {}),
        "weight_dims": ([z((2, 3)), z(2), z((2, 2))], {}),
        "features": ([z((2, 3)), z((2, 4)), z((2, 2))], {}),
        "probs_ignore": ([z((2, 3)), z((2, 3)), z((2, 2))], {"ignore_index": 0}),
        "kdim_unbatched": ([z(3), z((2, 4, 3)), z((2, 4))], {}),
        "bias": ([z((2, 3)), z((4, 3)), z(2, dtype=np.int64)], {"linear_bias": z(3)}),
    }[case]
    with pytest.raises(RuntimeError) as et:
        torch.nn.functional.linear_cross_entropy(*map(torch.from_numpy, args),
                                                 **{k: torch.from_numpy(v) if isinstance(v, np.ndarray) else v
                                                    for k, v in kw.items()})
    with pytest.raises(RuntimeError) as eo:
        F.linear_cross_entropy(*map(torchlike.from_numpy, args),
                               **{k: torchlike.from_numpy(v) if isinstance(v, np.ndarray) else v
                                  for k, v in kw.items()})
    assert str(eo.value) == str(et.value)


def test_compiled_chunked_matches_eager():
    m = torchlike.nn.LinearCrossEntropyLoss(4, 9, options=torchlike.nn.LinearCrossEntropyOptions(batch_chunk_size=2))
    x = torchlike.randn(5, 4)
    t = torchlike.tensor([0, 8, 3, 3, 1])
    compiled = torchlike.compile(m)
    np.testing.assert_allclose(compiled(x, t).detach().numpy(), m(x, t).detach().numpy(), rtol=1e-6)
