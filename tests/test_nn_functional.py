"""torchlike.nn.functional vs torch: values, dtypes, input gradients, error types."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")
import torch.nn.functional as TF  # noqa: E402

import torchlike  # noqa: E402
import torchlike.nn.functional as F  # noqa: E402
from conftest import assert_same, raises_like_torch, same_as_torch, to_tl  # noqa: E402

RNG = np.random.default_rng(0)


def check(fn_ours, fn_theirs, arrays, rg_mask=None, rtol=1e-5, atol=1e-6, grad=True):
    """``same_as_torch`` for a torchlike function and its torch twin on the same arrays (``rg_mask``: which
    arrays require grad)."""
    rg = None if rg_mask is None else {i for i, r in enumerate(rg_mask) if r}
    return same_as_torch(lambda m, *xs: (fn_theirs if m is torch else fn_ours)(*xs), *[np.array(a) for a in arrays],
                         grad=grad, grad_inputs=rg, rtol=rtol, atol=atol, grad_rtol=rtol, grad_atol=atol)


def randn(*shape, dtype=np.float32):
    return RNG.standard_normal(shape).astype(dtype)


# values that hit the kinks exactly, to check torch's gradient conventions there
KINKS = np.array([-3.0, -1.0, -0.5, 0.0, 0.5, 1.0, 3.0, 6.0, 2.5, -2.0], dtype=np.float32)

ACTS = [
    ("relu", {}), ("relu6", {}), ("leaky_relu", {"negative_slope": 0.2}), ("elu", {"alpha": 1.5}),
    ("selu", {}), ("celu", {"alpha": 0.7}), ("gelu", {}), ("gelu", {"approximate": "tanh"}), ("silu", {}),
    ("mish", {}), ("sigmoid", {}), ("tanh", {}), ("hardtanh", {}), ("hardtanh", {"min_val": -0.5, "max_val": 2.5}),
    ("hardsigmoid", {}), ("hardswish", {}), ("hardshrink", {}), ("softshrink", {"lambd": 1.0}), ("tanhshrink", {}),
    ("softplus", {}), ("softplus", {"beta": 2.0, "threshold": 1.0}), ("softsign", {}), ("logsigmoid", {}),
]


@pytest.mark.parametrize("name,kw", ACTS, ids=[f"{n}-{k}" for n, k in ACTS])
def test_activations(name, kw):
    x = np.concatenate([KINKS, randn(14) * 3]).astype(np.float32)
    check(lambda a: getattr(F, name)(a, **kw), lambda a: getattr(TF, name)(a, **kw), [x])


@pytest.mark.parametrize("name", ["gelu", "softplus", "elu", "hardswish"])
def test_activations_float64(name):
    x = np.concatenate([KINKS, randn(14) * 3]).astype(np.float64)
    check(getattr(F, name), getattr(TF, name), [x])


def test_threshold_and_rrelu_eval_and_prelu():
    x = np.concatenate([KINKS, randn(6)])
    check(lambda a: F.threshold(a, 0.5, -2.0), lambda a: TF.threshold(a, 0.5, -2.0), [x])
    check(lambda a: F.rrelu(a, training=False), lambda a: TF.rrelu(a, training=False), [x])
    xs = randn(2, 3, 4)
    xs[0, 0, 0] = 0.0
    check(F.prelu, TF.prelu, [xs, np.array([0.1, 0.2, -0.3], np.float32)])
    check(F.prelu, TF.prelu, [xs, np.array([0.25], np.float32)])


def test_rrelu_training_bounds():
    x = torchlike.from_numpy(-np.abs(randn(1000)) - 0.1)
    y = F.rrelu(x, 0.1, 0.3, training=True)
    ratio = np.asarray(y._value) / np.asarray(x._value)
    assert ratio.min() >= 0.1 - 1e-6 and ratio.max() <= 0.3 + 1e-6


def test_int_activations_dtype_and_errors():
    x = torchlike.arange(-2, 3)
    xt = torch.arange(-2, 3)
    assert_same(F.relu(x), TF.relu(xt))
    assert_same(F.hardtanh(x), TF.hardtanh(xt))
    assert_same(F.sigmoid(x), torch.sigmoid(xt))
    for n in ["elu", "gelu", "silu", "softplus", "leaky_relu", "hardswish", "mish"]:
        with pytest.raises(NotImplementedError) as e1:
            getattr(F, n)(x)
        with pytest.raises(NotImplementedError) as e2:
            getattr(TF, n)(xt)
        assert str(e1.value) == str(e2.value)


@pytest.mark.parametrize("fn", ["softmax", "log_softmax", "softmin"])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_softmax_family(fn, dim):
    x = randn(3, 4, 5)
    check(lambda a: getattr(F, fn)(a, dim=dim), lambda a: getattr(TF, fn)(a, dim=dim), [x])
    check(lambda a: getattr(F, fn)(a, dim=dim, dtype=torchlike.float64),
          lambda a: getattr(TF, fn)(a, dim=dim, dtype=torch.float64), [x])


@pytest.mark.parametrize("dt,vals", [("uint8", [1, 200, 7]), ("int8", [1, -128, 5])])
def test_softmin_negates_integers_in_their_own_dtype(dt, vals):
    # torch's softmin is (-input).softmax(dim, dtype): -200 wraps to 56 in uint8, -(-128) stays -128 in int8
    out = [L.nn.functional.softmin(L.tensor(vals, dtype=getattr(L, dt)), 0, dtype=L.float64) for L in (torch, torchlike)]
    assert_same(out[1], out[0], rtol=1e-12, atol=0)
    raises_like_torch(lambda L, t: L.nn.functional.softmin(t, 0, dtype=L.float32), np.array([True, False]))


def test_softmax_implicit_dim_and_half():
    x = randn(3, 4)
    with pytest.warns(UserWarning):
        o = F.softmax(torchlike.from_numpy(x))
    assert_same(o, TF.softmax(torch.from_numpy(x), dim=1))
    h = torchlike.from_numpy(x).half()
    assert_same(F.softmax(h, -1), TF.softmax(torch.from_numpy(x).half(), -1), rtol=1e-3, atol=1e-3)


def test_glu_and_errors():
    check(lambda a: F.glu(a, 1), lambda a: TF.glu(a, 1), [randn(2, 6)])
    with pytest.raises(RuntimeError, match="Halving dimension must be even"):
        F.glu(torchlike.zeros(3))


def test_inplace_activation_returns_self():
    x = torchlike.tensor([-1.0, 2.0])
    assert F.relu(x, inplace=True) is x
    assert x.tolist() == [0.0, 2.0]
    y = torchlike.tensor([-1.0, 2.0])
    F.leaky_relu_(y, 0.5)
    assert y.tolist() == [-0.5, 2.0]


def test_linear_bilinear():
    check(F.linear, TF.linear, [randn(4, 3), randn(5, 3), randn(5)], rtol=1e-5, atol=1e-5)
    check(F.linear, TF.linear, [randn(2, 4, 3), randn(5, 3)], atol=1e-5)
    check(F.linear, TF.linear, [randn(3), randn(5, 3), randn(5)], atol=1e-5)
    check(F.bilinear, TF.bilinear, [randn(4, 3), randn(4, 2), randn(5, 3, 2), randn(5)], atol=1e-5)
    with pytest.raises(RuntimeError) as e1:
        F.linear(torchlike.zeros(4, 3), torchlike.zeros(5, 2))
    with pytest.raises(RuntimeError) as e2:
        TF.linear(torch.zeros(4, 3), torch.zeros(5, 2))
    assert str(e1.value) == str(e2.value)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("shapes", [((3,), (4,), (5, 3, 4), (5,)), ((6, 3), (6, 4), (5, 3, 4), None),
                                    ((2, 3, 7), (2, 3, 6), (4, 7, 6), (4,))])
def test_bilinear_half_rounds_like_torchs_two_matmuls(dtype, shapes):
    """torch's bilinear (_trilinear) sums over input1's dim, stores that in the half type, then sums over
    input2's and stores again before the bias: one einsum rounded once was off by an ulp on ~40% of elements."""
    x1, x2, w, b = (None if s is None else torch.from_numpy(randn(*s) * 2).to(getattr(torch, dtype))
                    for s in shapes)
    assert_same(F.bilinear(*(None if t is None else to_tl(t) for t in (x1, x2, w, b))),
                TF.bilinear(x1, x2, w, b), rtol=0, atol=0)


# ---- losses -------------------------------------------------------------------------------------
RED = ["mean", "none"]  # "sum" is covered by a few explicit calls


@pytest.mark.parametrize("reduction", RED)
def test_regression_losses(reduction):
    x, y = randn(4, 5), randn(4, 5)
    x[0, 0] = y[0, 0]  # kink of l1
    x[0, 1] = y[0, 1] + 1.0  # huber/smooth_l1 boundary
    for n, kw in [("l1_loss", {}), ("mse_loss", {}), ("huber_loss", {"delta": 1.0}), ("huber_loss", {"delta": 0.5}),
                  ("smooth_l1_loss", {"beta": 1.0}), ("smooth_l1_loss", {"beta": 0.0}), ("soft_margin_loss", {})]:
        check(lambda a, b: getattr(F, n)(a, b, reduction=reduction, **kw),
              lambda a, b: getattr(TF, n)(a, b, reduction=reduction, **kw), [x, y], [True, n != "soft_margin_loss"])
    w = np.abs(randn(4, 5))
    for n in ["l1_loss", "mse_loss", "huber_loss"]:
        check(lambda a, b, c: getattr(F, n)(a, b, reduction=reduction, weight=c),
              lambda a, b, c: getattr(TF, n)(a, b, reduction=reduction, weight=c), [x, y, w])


@pytest.mark.parametrize("reduction", RED)
def test_bce_family(reduction):
    p = 1 / (1 + np.exp(-randn(3, 4)))
    t = (RNG.random((3, 4)) > 0.5).astype(np.float32)
    w = np.abs(randn(4))
    check(lambda a, b: F.binary_cross_entropy(a, b, reduction=reduction),
          lambda a, b: TF.binary_cross_entropy(a, b, reduction=reduction), [p, t], atol=1e-5)
    check(lambda a, b, c: F.binary_cross_entropy(a, b, c, reduction=reduction),
          lambda a, b, c: TF.binary_cross_entropy(a, b, c, reduction=reduction), [p, t, w], [True, False, False],
          atol=1e-5)
    x = randn(3, 4) * 4
    check(lambda a, b: F.binary_cross_entropy_with_logits(a, b, reduction=reduction),
          lambda a, b: TF.binary_cross_entropy_with_logits(a, b, reduction=reduction), [x, t], atol=1e-5)
    pw = np.abs(randn(4)) + 0.5
    check(lambda a, b, c, d: F.binary_cross_entropy_with_logits(a, b, c, reduction=reduction, pos_weight=d),
          lambda a, b, c, d: TF.binary_cross_entropy_with_logits(a, b, c, reduction=reduction, pos_weight=d),
          [x, t, w, pw], [True, False, False, False], atol=1e-5)
    with pytest.raises(ValueError):
        F.binary_cross_entropy_with_logits(torchlike.zeros(3), torchlike.zeros(2))


@pytest.mark.parametrize("reduction", RED + ["batchmean"])
@pytest.mark.parametrize("log_target", [False, True])
def test_kl_div(reduction, log_target):
    x = np.log(np.abs(randn(3, 4)) + 0.1)
    t = np.abs(randn(3, 4))
    t[0, 0] = 0.0
    if log_target:
        t = np.log(t + 0.1)
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(lambda a, b: F.kl_div(a, b, reduction=reduction, log_target=log_target),
              lambda a, b: TF.kl_div(a, b, reduction=reduction, log_target=log_target), [x, t], atol=1e-5)


@pytest.mark.parametrize("reduction", RED)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("smoothing", [0.0, 0.2])
def test_cross_entropy_index(reduction, weighted, smoothing):
    x = randn(6, 5)
    t = np.array([0, 4, 2, -100, 1, 3])
    w = np.abs(randn(5)) + 0.1 if weighted else None
    args = [x, t] + ([w] if weighted else [])

    def ours(a, b, c=None):
        return F.cross_entropy(a, b, c, reduction=reduction, label_smoothing=smoothing)

    def theirs(a, b, c=None):
        return TF.cross_entropy(a, b, c, reduction=reduction, label_smoothing=smoothing)
    check(ours, theirs, args, [True, False, False], atol=1e-5)


def test_cross_entropy_kdim_probs_and_unbatched():
    x = randn(2, 4, 3, 3)
    t = RNG.integers(0, 4, (2, 3, 3))
    check(lambda a, b: F.cross_entropy(a, b, ignore_index=1), lambda a, b: TF.cross_entropy(a, b, ignore_index=1),
          [x, t], atol=1e-5)
    p = np.exp(randn(5, 4))
    p = (p / p.sum(1, keepdims=True)).astype(np.float32)
    for ls in [0.0, 0.3]:
        check(lambda a, b: F.cross_entropy(a, b, label_smoothing=ls),
              lambda a, b: TF.cross_entropy(a, b, label_smoothing=ls), [randn(5, 4), p], [True, True], atol=1e-5)
    check(lambda a, b: F.cross_entropy(a, b), lambda a, b: TF.cross_entropy(a, b), [randn(4), np.array(2)],
          atol=1e-5)


def test_cross_entropy_errors():
    with pytest.raises(IndexError, match="Target 5 is out of bounds."):
        F.cross_entropy(torchlike.zeros(2, 3), torchlike.tensor([0, 5]))
    with pytest.raises(ValueError, match=r"Expected input batch_size \(2\) to match target batch_size \(3\)"):
        F.nll_loss(torchlike.zeros(2, 3), torchlike.tensor([0, 1, 2]))
    with pytest.raises(ValueError, match="is not a valid value for reduction"):
        F.mse_loss(torchlike.zeros(2), torchlike.zeros(2), reduction="avg")


@pytest.mark.parametrize("reduction", RED)
def test_nll_and_margin_losses(reduction):
    x = randn(4, 5)
    t = np.array([1, 0, 4, 2])
    w = np.abs(randn(5)) + 0.1
    check(lambda a, b, c: F.nll_loss(a, b, c, reduction=reduction),
          lambda a, b, c: TF.nll_loss(a, b, c, reduction=reduction), [x, t, w], [True, False, False])
    for p in (1, 2):
        check(lambda a, b, c: F.multi_margin_loss(a, b, p=p, margin=0.7, weight=c, reduction=reduction),
              lambda a, b, c: TF.multi_margin_loss(a, b, p=p, margin=0.7, weight=c, reduction=reduction),
              [x, t, w], [True, False, False], atol=1e-5)
    mt = np.array([[3, 0, -1, 1, 2], [1, 2, 3, -1, 0], [0, 1, 2, 3, 4], [-1, 1, 1, 1, 1]])
    check(lambda a, b: F.multilabel_margin_loss(a, b, reduction=reduction),
          lambda a, b: TF.multilabel_margin_loss(a, b, reduction=reduction), [x, mt], atol=1e-5)
    lt = (RNG.random((4, 5)) > 0.5).astype(np.float32)
    check(lambda a, b, c: F.multilabel_soft_margin_loss(a, b, c, reduction=reduction),
          lambda a, b, c: TF.multilabel_soft_margin_loss(a, b, c, reduction=reduction), [x, lt, w],
          [True, False, False], atol=1e-5)


@pytest.mark.parametrize("reduction", RED)
def test_embedding_style_losses(reduction):
    a, b = randn(4, 6), randn(4, 6)
    y = np.array([1.0, -1.0, 1.0, -1.0], np.float32)
    check(lambda p, q, r: F.cosine_embedding_loss(p, q, r, margin=0.1, reduction=reduction),
          lambda p, q, r: TF.cosine_embedding_loss(p, q, r, margin=0.1, reduction=reduction), [a, b, y],
          [True, True, False], atol=1e-5)
    x1, x2 = randn(5), randn(5)
    y5 = np.array([1.0, -1.0, 1.0, -1.0, 1.0], np.float32)
    check(lambda p, q, r: F.margin_ranking_loss(p, q, r, margin=0.3, reduction=reduction),
          lambda p, q, r: TF.margin_ranking_loss(p, q, r, margin=0.3, reduction=reduction), [x1, x2, y5],
          [True, True, False])
    check(lambda p, r: F.hinge_embedding_loss(p, r, margin=0.5, reduction=reduction),
          lambda p, r: TF.hinge_embedding_loss(p, r, margin=0.5, reduction=reduction), [x1, y5], [True, False])
    n = randn(4, 6)
    for p, swap in [(2, False), (1, True), (3, False)]:
        check(lambda u, v, w: F.triplet_margin_loss(u, v, w, p=p, swap=swap, reduction=reduction),
              lambda u, v, w: TF.triplet_margin_loss(u, v, w, p=p, swap=swap, reduction=reduction), [a, b, n],
              atol=1e-5)
    check(lambda u, v, w: F.triplet_margin_with_distance_loss(u, v, w, swap=True, reduction=reduction),
          lambda u, v, w: TF.triplet_margin_with_distance_loss(u, v, w, swap=True, reduction=reduction), [a, b, n],
          atol=1e-5)


@pytest.mark.parametrize("reduction", RED)
def test_nll_likelihood_losses(reduction):
    x, t = randn(3, 4), np.abs(randn(3, 4)) * 3
    for log_input, full in [(True, False), (False, True), (True, True)]:
        xi = x if log_input else np.abs(x) + 0.1
        check(lambda a, b: F.poisson_nll_loss(a, b, log_input=log_input, full=full, reduction=reduction),
              lambda a, b: TF.poisson_nll_loss(a, b, log_input=log_input, full=full, reduction=reduction),
              [xi, t], atol=1e-5)
    v = np.abs(randn(3, 4)) + 0.05
    v[0, 0] = 1e-8  # clamped to eps
    check(lambda a, b, c: F.gaussian_nll_loss(a, b, c, full=True, reduction=reduction),
          lambda a, b, c: TF.gaussian_nll_loss(a, b, c, full=True, reduction=reduction), [x, t, v],
          rtol=1e-4, atol=1e-4)
    check(lambda a, b, c: F.gaussian_nll_loss(a, b, c, reduction=reduction),
          lambda a, b, c: TF.gaussian_nll_loss(a, b, c, reduction=reduction), [x, t, np.abs(randn(3)) + 0.1],
          atol=1e-5)


def test_ctc_loss():
    T, N, C, S = 12, 3, 5, 4
    lp = TF.log_softmax(torch.from_numpy(randn(T, N, C)), -1).numpy()
    targets = RNG.integers(1, C, (N, S))
    il = np.array([12, 10, 7])
    tl = np.array([4, 2, 3])
    for reduction, zi in [("mean", False), ("none", True)]:
        if True:
            check(lambda a, b, c, d: F.ctc_loss(a, b, c, d, reduction=reduction, zero_infinity=zi),
                  lambda a, b, c, d: TF.ctc_loss(a, b, c, d, reduction=reduction, zero_infinity=zi),
                  [lp, targets, il, tl], [True, False, False, False], rtol=1e-4, atol=1e-4)
    # concatenated 1-D targets and tuple lengths
    flat = np.concatenate([targets[i, :tl[i]] for i in range(N)])
    o = F.ctc_loss(torchlike.from_numpy(lp), torchlike.from_numpy(flat), tuple(il), tuple(tl))
    t = TF.ctc_loss(torch.from_numpy(lp), torch.from_numpy(flat), tuple(il), tuple(tl))
    assert_same(o, t, 1e-4, 1e-4)
    # impossible alignment: inf, or 0 with zero_infinity
    imp = np.array([[1, 1, 1, 1]])
    lp1 = lp[:3, :1]
    for zi in (False, True):
        o = F.ctc_loss(torchlike.from_numpy(lp1), torchlike.from_numpy(imp), (3,), (4,), reduction="sum",
                       zero_infinity=zi)
        t = TF.ctc_loss(torch.from_numpy(lp1), torch.from_numpy(imp), (3,), (4,), reduction="sum",
                        zero_infinity=zi)
        assert_same(o, t)


# ---- dropout ------------------------------------------------------------------------------------
def test_dropout_semantics():
    x = torchlike.ones(2000, requires_grad=True)
    y = F.dropout(x, 0.25)
    a = np.asarray(y.detach()._value)
    assert np.all(np.isclose(a, 0) | np.isclose(a, 1 / 0.75))
    assert 0.2 < (a == 0).mean() < 0.3
    y.sum().backward()
    np.testing.assert_allclose(np.asarray(x.grad._value), a)
    z = torchlike.ones(3)
    assert F.dropout(z, 0.5, training=False) is z
    assert F.dropout(z, 0.0) is z
    assert F.dropout(z, 1.0).tolist() == [0.0, 0.0, 0.0]
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1, but got 1.5"):
        F.dropout(z, 1.5)
    c = np.asarray(F.dropout2d(torchlike.ones(4, 8, 3, 3), 0.5)._value)
    assert np.all(c.min(axis=(2, 3)) == c.max(axis=(2, 3)))  # whole channels
    c1 = np.asarray(F.dropout1d(torchlike.ones(8, 5), 0.5)._value)
    assert np.all(c1.min(axis=1) == c1.max(axis=1))


def test_alpha_dropout_moments():
    x = torchlike.from_numpy(randn(200000))
    y = np.asarray(F.alpha_dropout(x, 0.2, training=True)._value)
    assert abs(y.mean()) < 0.02 and abs(y.std() - 1) < 0.02


# ---- embedding / one_hot / distances ------------------------------------------------------------
def test_embedding():
    w = randn(10, 3)
    idx = np.array([[1, 2, 0, 2], [9, 0, 1, 1]])
    check(lambda a, b: F.embedding(b, a), lambda a, b: TF.embedding(b, a), [w, idx], [True, False])
    check(lambda a, b: F.embedding(b, a, padding_idx=2), lambda a, b: TF.embedding(b, a, padding_idx=2), [w, idx],
          [True, False])
    check(lambda a, b: F.embedding(b, a, scale_grad_by_freq=True),
          lambda a, b: TF.embedding(b, a, scale_grad_by_freq=True), [w, idx], [True, False])
    wo, wt = torchlike.from_numpy(w * 3), torch.from_numpy(w * 3)
    yo = F.embedding(torchlike.from_numpy(idx), wo, max_norm=1.0)
    yt = TF.embedding(torch.from_numpy(idx), wt, max_norm=1.0)
    assert_same(yo, yt, 1e-5, 1e-5)
    assert_same(wo, wt, 1e-5, 1e-5)  # renormalised in place
    with pytest.raises(IndexError, match="index out of range in self"):
        F.embedding(torchlike.tensor([10]), torchlike.zeros(10, 2))


def test_one_hot():
    t = np.array([[0, 3], [2, 1]])
    assert_same(F.one_hot(torchlike.from_numpy(t)), TF.one_hot(torch.from_numpy(t)))
    assert_same(F.one_hot(torchlike.from_numpy(t), 6), TF.one_hot(torch.from_numpy(t), 6))
    with pytest.raises(RuntimeError, match="Class values must be smaller than num_classes."):
        F.one_hot(torchlike.tensor([3]), 2)


def test_distances():
    a, b = randn(4, 5), randn(4, 5)
    b[0] = a[0]  # zero vector difference: torch's zero gradient, not NaN
    for p in [2.0, 1.0, 3.0, float("inf")]:
        check(lambda x, y: F.pairwise_distance(x, y, p=p), lambda x, y: TF.pairwise_distance(x, y, p=p), [a, b],
              atol=1e-5)
    check(lambda x, y: F.pairwise_distance(x, y, keepdim=True),
          lambda x, y: TF.pairwise_distance(x, y, keepdim=True), [a, b], atol=1e-5)
    check(lambda x, y: F.cosine_similarity(x, y, dim=1), lambda x, y: TF.cosine_similarity(x, y, dim=1), [a, b],
          atol=1e-5)
    check(lambda x, y: F.cosine_similarity(x, y, dim=-1), lambda x, y: TF.cosine_similarity(x, y, dim=-1),
          [randn(3, 1, 4), randn(2, 4)], atol=1e-5)
    z = randn(4, 3)
    z[2] = z[1]
    check(lambda x: F.pdist(x), lambda x: TF.pdist(x), [z], atol=1e-5)
    check(lambda x: F.pdist(x, p=1), lambda x: TF.pdist(x, p=1), [z], atol=1e-5)
    n = randn(3, 4)
    n[1] = 0
    check(lambda x: F.normalize(x, dim=1), lambda x: TF.normalize(x, dim=1), [n], atol=1e-5)
    check(lambda x: F.normalize(x, p=1, dim=0), lambda x: TF.normalize(x, p=1, dim=0), [n], atol=1e-5)


def test_gumbel_softmax():
    logits = torchlike.from_numpy(randn(6, 4)).requires_grad_(True)
    y = F.gumbel_softmax(logits, tau=0.5)
    np.testing.assert_allclose(np.asarray(y.detach()._value).sum(-1), 1, rtol=1e-5)
    h = F.gumbel_softmax(logits, hard=True)
    hv = np.asarray(h.detach()._value)
    assert set(np.unique(hv)) <= {0.0, 1.0} and np.all(hv.sum(-1) == 1)
    h.sum().backward()
    assert logits.grad is not None


def test_sum_reduction_values():
    x, y = randn(4, 5), randn(4, 5)
    t = np.array([1, 0, 4, 2])
    for n, args in [("l1_loss", [x, y]), ("mse_loss", [x, y]), ("smooth_l1_loss", [x, y]), ("cross_entropy", [x, t]),
                    ("nll_loss", [x, t]), ("multi_margin_loss", [x, t]), ("soft_margin_loss", [x, np.sign(y)]),
                    ("multilabel_soft_margin_loss", [x, (y > 0).astype(np.float32)])]:
        o = getattr(F, n)(*[torchlike.from_numpy(a) for a in args], reduction="sum")
        r = getattr(TF, n)(*[torch.from_numpy(a) for a in args], reduction="sum")
        assert_same(o, r, 1e-5, 1e-5)


# === conformance fixes: empty batches, max_unpool, ctc_loss, pooling/conv errors (was test_nnf_fixes.py) ===
def test_unfold_fold_empty_batch():
    x = torch.randn(0, 1, 5, 5)
    assert F.unfold(to_tl(x), 2, 1, 1, (1, 2)).shape == TF.unfold(x, 2, 1, 1, (1, 2)).shape
    y = torch.randn(0, 4, 9)
    assert F.fold(to_tl(y), (4, 4), 2).shape == TF.fold(y, (4, 4), 2).shape


@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_empty_1d(training):
    e = torch.randn(0)
    r = TF.batch_norm(e, torch.randn(0), torch.randn(0), training=training)
    o = F.batch_norm(to_tl(e), to_tl(torch.randn(0)), to_tl(torch.randn(0)), training=training)
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
    xl = torchlike.tensor(x).requires_grad_(True)
    tfn, lfn = getattr(TF, f"max_unpool{n}d"), getattr(F, f"max_unpool{n}d")
    g = rng.standard_normal((1, 2) + out)
    tfn(xt, torch.tensor(ind), 2, output_size=out).backward(torch.tensor(g))
    lfn(xl, torchlike.tensor(ind), 2, output_size=out).backward(torchlike.tensor(g))
    np.testing.assert_allclose(xl.grad.numpy(), xt.grad.numpy())


def test_max_unpool_errors():
    x = RNG.standard_normal((1, 1, 4, 4)).astype(np.float32)
    raises_like_torch(lambda m, x: m.nn.functional.max_unpool2d(x, m.zeros(1, 1, 4, 1, dtype=m.long), 3, 2), x)
    y = RNG.standard_normal((1, 1, 4)).astype(np.float32)
    raises_like_torch(lambda m, y: m.nn.functional.max_unpool1d(y, m.zeros(1, 1, 4, dtype=m.int32), 2), y)
    raises_like_torch(lambda m: m.nn.functional.max_unpool3d(m.ones(2, 2, 2), m.zeros(2, 2, 2, dtype=m.long), 2))


def test_ctc_loss_concat_targets_and_compile():
    rng = np.random.default_rng(0)
    T, N, C = 12, 3, 5
    lp = torch.tensor(rng.standard_normal((T, N, C))).log_softmax(-1)
    tlens, ilens = [3, 0, 4], [12, 10, 12]
    tg = torch.tensor(rng.integers(1, C, size=sum(tlens)))
    ref = TF.ctc_loss(lp, tg, ilens, tlens, reduction="none")
    got = F.ctc_loss(to_tl(lp), to_tl(tg), torchlike.tensor(ilens), torchlike.tensor(tlens), reduction="none")
    np.testing.assert_allclose(got.numpy(), ref.numpy(), rtol=1e-10)
    f = torchlike.compile(lambda x, t, i, l: F.ctc_loss(x, t, i, l, reduction="none"), fullgraph=True)
    out = f(to_tl(lp), to_tl(tg), torchlike.tensor(ilens), torchlike.tensor(tlens))
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
    x = RNG.standard_normal(shape).astype(np.float32)
    raises_like_torch(lambda m, x: getattr(m.nn.functional, name)(x, **kw), x)


def test_adaptive_max_pool_empty_output():
    x = torch.randn(1, 1, 3)
    r = TF.adaptive_max_pool1d(x, 0, return_indices=True)
    o = F.adaptive_max_pool1d(to_tl(x), 0, return_indices=True)
    assert [tuple(t.shape) for t in o] == [tuple(t.shape) for t in r]


@pytest.mark.parametrize("wshape,kw", [((1, 1, 2), dict(stride=(-1,))), ((1, 1, 2), dict(padding=(-1,))),
                                       ((1, 1, 2), dict(dilation=(-1,))), ((1, 2), {}),
                                       ((2, 2, 2), dict(groups=3)), ((2, 2, 2), dict(groups=0))])
def test_conv1d_errors(wshape, kw):
    x, w = RNG.standard_normal((1, 1, 4)), RNG.standard_normal(wshape)
    raises_like_torch(lambda m, x, w: m.nn.functional.conv1d(x, w, **kw), x, w)


def test_conv_bias_dtype_error():
    x, w, b = RNG.standard_normal((1, 1, 4)), RNG.standard_normal((1, 1, 2)), RNG.standard_normal(1).astype(np.float32)
    raises_like_torch(lambda m, x, w, b: m.nn.functional.conv1d(x, w, b), x, w, b)


# --- embedding_bag of half weights: weighed and summed in float32, rounded once -----------------------------
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("mode", ["sum", "mean"])
def test_embedding_bag_half_accumulates_in_float32(dtype, mode):
    g = torch.Generator().manual_seed(6)
    w = (torch.randn(10, 5, generator=g) * 9).to(dtype)
    idx, off = torch.tensor([1, 5, 4, 5, 9, 2]), torch.tensor([0, 3])
    psw = (torch.randn(6, generator=g) * 5).to(dtype) if mode == "sum" else None
    tol = {"rtol": None, "atol": None} if mode == "mean" and dtype is torch.bfloat16 else {"rtol": 0, "atol": 0}
    assert_same(F.embedding_bag(to_tl(idx), to_tl(w), to_tl(off), mode=mode,
                                per_sample_weights=None if psw is None else to_tl(psw)),
                TF.embedding_bag(idx, w, off, mode=mode, per_sample_weights=psw), **tol)


# --- 0-d, integer and bool inputs that once differed from torch (functional and tensor ops) -------
# --- bug fixes ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("case", range(14))
def test_fixes(case):
    F = lambda m: m.nn.functional  # noqa: E731
    fns = [
        lambda m: F(m).normalize(m.tensor(2.), dim=0),
        lambda m: F(m).cosine_similarity(m.tensor(2.), m.tensor(3.), dim=0),
        lambda m: F(m).softmin(m.tensor(2.), 0),
        lambda m: m.div(m.tensor([[5, -7], [1, 2]]), m.tensor([2, 3]), rounding_mode="trunc"),
        lambda m: m.addr(m.tensor([[True, False], [False, False]]), m.tensor([True, False]), m.tensor([True, True])),
        lambda m: m.addr(m.tensor([[True, False], [False, True]]), m.tensor([True, False]), m.tensor([True, True]),
                         beta=False, alpha=True),
        lambda m: F(m).avg_pool3d(m.arange(-9, 18).reshape(1, 3, 3, 3), 2, 1),
        lambda m: F(m).avg_pool1d(m.tensor([[[-1, -2, 4, -7, 9, -3]]]), 2),
        lambda m: F(m).pad(m.arange(12.).reshape(1, 3, 4), (-1, 2), mode="circular"),
        lambda m: F(m).pad(m.arange(24.).reshape(1, 2, 3, 4), (2, -1, 1, 1), mode="circular"),
        lambda m: m.tensor(True).sum_to_size(()),
        lambda m: F(m).local_response_norm(m.arange(8).reshape(1, 2, 4), 2),
        lambda m: m.frexp(m.tensor([8., 0.3, -5., 0.])).mantissa,
        lambda m: m.combinations(m.tensor([1., 2.]), 3),
    ]
    assert_same(fns[case](torchlike), fns[case](torch), 1e-6, 1e-6)


@pytest.mark.parametrize("a,b,dim", [((2, 3), (4, 3), 1), ((2, 1, 3), (5, 4, 3), -1), ((3,), (2, 4), 0),
                                     ((2, 3), (4, 3), 5), ((2, 3, 4), (3, 3, 5), 0)])
def test_cosine_similarity_broadcast_error_like_torch(a, b, dim):
    """torch names the right-most clashing dimension, and checks broadcasting before ``dim``."""
    raises_like_torch(lambda T: T.nn.functional.cosine_similarity(T.zeros(a), T.zeros(b), dim=dim))


@pytest.mark.parametrize("kw", [dict(dim=(-2, -1)), dict(dim=(0, 2), p=1), dict(dim=[0, 1], p=float("inf")),
                                dict(dim=(1,)), dict(dim=(2, 0), p=3), dict(dim=()), dict(dim=None)],
                         ids=str)
def test_normalize_over_several_dims_like_torch(kw):
    """F.normalize takes torch.norm's dims: a tuple/list is one norm over them (pytorch_optimizer's
    SpectralSphere normalizes matrices with dim=(-2, -1)), () and None every dim; values and gradients."""
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4) - 5
    same_as_torch(lambda m, t: m.nn.functional.normalize(t, **kw), x, rtol=1e-5, atol=1e-6)
    zero_d_dim = kw["dim"] if kw["dim"] in ((), None) else (0,)  # a 0-d input: one element along dim 0
    same_as_torch(lambda m, t: m.nn.functional.normalize(t, dim=zero_d_dim), np.array(3.0, np.float32), grad=False)


@pytest.mark.parametrize("dim", ["a", 1.5, (0, 1.5), (0, 0), (0, 5), True], ids=str)
def test_normalize_dim_errors_like_torch(dim):
    raises_like_torch(lambda m: m.nn.functional.normalize(m.ones(2, 3, 4), dim=dim))


@pytest.mark.parametrize("dt", ["float16", "bfloat16"])
@pytest.mark.parametrize("name", ["tanhshrink", "softsign"])
def test_half_composite_activations_round_each_op_as_torch(name, dt):
    # torch's tanhshrink (x - tanh(x)) and softsign (x / (1 + |x|)) are composites: in a half type each op's
    # result is stored in the type, forward and backward (rounding once differed on 16,406 / 10,074 of the
    # 40,706 float16 values in [-30, 30]; their gradients on about half the elements)
    bits = torch.arange(-32768, 32768, dtype=torch.int32).to(torch.int16).view(getattr(torch, dt))
    x0 = bits[torch.isfinite(bits) & (bits.abs() <= 30) & ((bits.abs() > 1e-30) | (bits == 0))].float().numpy()
    g0 = RNG.standard_normal(x0.shape).astype(np.float32)
    res = []
    for L in (torch, torchlike):
        x = L.tensor(x0).to(getattr(L, dt)).requires_grad_()
        y = getattr(L.nn.functional, name)(x)
        y.backward(L.tensor(g0).to(getattr(L, dt)))
        assert str(y.dtype) == str(x.grad.dtype) == f"torch.{dt}"
        res.append((y.detach().float().numpy(), x.grad.float().numpy()))
    np.testing.assert_array_equal(res[1][0], res[0][0])
    np.testing.assert_array_equal(res[1][1], res[0][1])


# --- embedding_bag's scale_grad_by_freq (dense): torch's CPU kernel divides the k-th distinct index's gradients by
# the count of the k-th smallest index (sorted, duplicates included) -- torchlike did not scale at all ---------------
@pytest.mark.parametrize("mode", ["sum", "mean"])
@pytest.mark.parametrize("inp,off,pad", [([1, 1, 2, 1, 3], [0, 2], None), ([4, 0, 4, 2, 2, 2, 0], [0, 3, 3], None),
                                         ([1, 1, 2, 1, 3], [0, 2], 1), ([3, 3, 0, 1], [0, 1], None)])
def test_embedding_bag_scale_grad_by_freq_like_torch(mode, inp, off, pad):
    def run(m):
        w = m.arange(10.0).reshape(5, 2).requires_grad_()
        out = m.nn.functional.embedding_bag(m.tensor(inp), w, m.tensor(off), mode=mode, scale_grad_by_freq=True,
                                            padding_idx=pad)
        (out * m.arange(1.0, 1 + out.numel()).reshape(out.shape)).sum().backward()
        return out.detach(), w.grad
    same_as_torch(run, grad=False)


def test_embedding_bag_scale_grad_by_freq_2d_input_and_weights_like_torch():
    def run(m):
        w = m.arange(10.0).reshape(5, 2).requires_grad_()
        a = m.nn.functional.embedding_bag(m.tensor([[1, 1, 2], [2, 3, 3]]), w, mode="sum", scale_grad_by_freq=True)
        b = m.nn.functional.embedding_bag(m.tensor([1, 2, 1]), w, m.tensor([0, 1]), mode="sum", scale_grad_by_freq=True,
                                          per_sample_weights=m.tensor([2.0, 3.0, 4.0]))
        (a.sum() + b.sum()).backward()
        return w.grad
    same_as_torch(run, grad=False)
