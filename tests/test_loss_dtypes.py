"""Losses over the dtypes torch accepts beyond float: complex inputs (``l1_loss`` is real), integer and
bool inputs (pairwise/triplet distances, margin ranking, cosine embedding), and NaN kept through
``clamp_min`` in the hinge losses, with gradients; ``poisson_nll_loss`` of integer or mixed-dtype inputs;
compared with torch."""
import pytest

torch = pytest.importorskip("torch", reason="torch is the oracle for these tests")
import torchlike  # noqa: E402
import torchlike.nn.functional as LF  # noqa: E402
from conftest import assert_same, to_tl  # noqa: E402

F = torch.nn.functional


# --- losses: complex inputs, integer inputs, NaN through clamp_min ------------------------------------
def test_l1_loss_complex_is_real():
    g = torch.Generator().manual_seed(0)
    for dt in (torch.complex64, torch.complex128):
        a, b = torch.randn(3, 4, generator=g, dtype=dt), torch.randn(3, 4, generator=g, dtype=dt)
        for red in ("mean", "sum", "none"):
            assert_same(LF.l1_loss(to_tl(a), to_tl(b), reduction=red), F.l1_loss(a, b, reduction=red),
                        rtol=None, atol=None)


@pytest.mark.parametrize("dtype", [torch.complex64, torch.uint8, torch.int8, torch.int64, torch.float32])
def test_pairwise_and_triplet_distance_dtypes(dtype):
    g = torch.Generator().manual_seed(1)
    if dtype.is_complex:
        a, p, n = (torch.randn(4, 5, generator=g, dtype=dtype) for _ in range(3))
    else:  # uint8 differences wrap in torch (x1 - x2 is taken in the inputs' dtype)
        a, p, n = (torch.randint(0, 120, (4, 5), generator=g).to(dtype) for _ in range(3))
    assert_same(LF.pairwise_distance(to_tl(a), to_tl(p)), F.pairwise_distance(a, p), rtol=1e-5, atol=1e-5)
    assert_same(LF.pairwise_distance(to_tl(a), to_tl(p), p=1.0), F.pairwise_distance(a, p, p=1.0), rtol=1e-5, atol=1e-5)
    for swap in (False, True):
        assert_same(LF.triplet_margin_loss(to_tl(a), to_tl(p), to_tl(n), swap=swap),
                    F.triplet_margin_loss(a, p, n, swap=swap), rtol=1e-5, atol=1e-5)
    assert_same(LF.triplet_margin_with_distance_loss(to_tl(a), to_tl(p), to_tl(n), reduction="none"),
                F.triplet_margin_with_distance_loss(a, p, n, reduction="none"), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("dtype", [torch.int64, torch.int16, torch.uint8])
def test_margin_ranking_loss_integer_inputs(dtype):
    a = torch.tensor([1, 5, 3, 2, 9]).to(dtype)
    b = torch.tensor([2, 1, 0, 2, 4]).to(dtype)
    t = torch.tensor([1, 1, 1, 1, 1]).to(dtype) if dtype is torch.uint8 else torch.tensor([1, -1, 1, -1, 1]).to(dtype)
    for red in ("none", "mean", "sum"):
        for margin in (0.0, 0.5):
            assert_same(LF.margin_ranking_loss(to_tl(a), to_tl(b), to_tl(t), margin=margin, reduction=red),
                        F.margin_ranking_loss(a, b, t, margin=margin, reduction=red), rtol=None, atol=None)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_cosine_embedding_loss_half_rounds_like_torch(dtype):
    # torch's composite formula stores each op's result in the half type: |x1|^2 * |x2|^2 past 65504
    # overflows float16 to inf (cos = 0), products and sums round (module_db's CosineEmbeddingLoss samples)
    g = torch.Generator().manual_seed(3)
    a, b = (torch.randn(15, 10, generator=g) * 6).to(dtype), (torch.randn(15, 10, generator=g) * 6).to(dtype)
    t = torch.tensor([1, -1] * 7 + [1])
    for red in ("none", "mean", "sum"):
        for margin in (0.0, 0.3):
            assert_same(LF.cosine_embedding_loss(to_tl(a), to_tl(b), to_tl(t), margin=margin, reduction=red),
                        F.cosine_embedding_loss(a, b, t, margin=margin, reduction=red), rtol=None, atol=None)


@pytest.mark.parametrize("dtype", [torch.int64, torch.int8, torch.uint8, torch.bool])
def test_cosine_embedding_loss_integer_inputs(dtype):
    g = torch.Generator().manual_seed(2)
    hi = 2 if dtype is torch.bool else 30
    a, b = (torch.randint(0, hi, (4, 6), generator=g).to(dtype) for _ in range(2))
    t = torch.tensor([1, -1, 1, -1])
    for red in ("none", "mean"):
        assert_same(LF.cosine_embedding_loss(to_tl(a), to_tl(b), to_tl(t), reduction=red),
                    F.cosine_embedding_loss(a, b, t, reduction=red), rtol=None, atol=None)


def test_hinge_losses_keep_nan_like_clamp_min():
    x = torch.tensor([0.5, float("nan"), -2.0, 3.0], dtype=torch.float64)
    y = torch.tensor([1.0, -1.0, -1.0, 1.0], dtype=torch.float64)
    assert_same(LF.margin_ranking_loss(to_tl(x), to_tl(x.flip(0)), to_tl(y), reduction="none"),
                F.margin_ranking_loss(x, x.flip(0), y, reduction="none"), rtol=None, atol=None)
    assert_same(LF.hinge_embedding_loss(to_tl(x), to_tl(y), reduction="sum"), F.hinge_embedding_loss(x, y, reduction="sum"),
                rtol=None, atol=None)
    # the NaN's gradient is 0 (clamp_min's mask is False for NaN)
    xt = x.clone().requires_grad_()
    F.margin_ranking_loss(xt, torch.zeros(4, dtype=torch.float64), y, reduction="sum").backward()
    lx = to_tl(x, requires_grad=True)
    LF.margin_ranking_loss(lx, torchlike.zeros(4, dtype=torchlike.float64), to_tl(y), reduction="sum").backward()
    assert_same(lx.grad, xt.grad, rtol=None, atol=None)


# --- poisson_nll_loss of integer or mixed-dtype inputs is floating (exp/log) ----------------------
@pytest.mark.parametrize("dtypes", [("int64", "int64"), ("float32", "float64"), ("int64", "float32"),
                                    ("float64", "int64")])
@pytest.mark.parametrize("kw", [{}, {"log_input": False}, {"full": True}, {"reduction": "none"}])
def test_poisson_nll_loss_result_dtype_matches_torch(dtypes, kw):
    i, t = [[1, 2], [3, 4]], [[2, 2], [1, 0]]

    def run(lib):
        return lib.nn.functional.poisson_nll_loss(lib.tensor(i, dtype=getattr(lib, dtypes[0])),
                                                  lib.tensor(t, dtype=getattr(lib, dtypes[1])), **kw)
    assert_same(run(torchlike), run(torch), rtol=2e-6, atol=0)


# --- losses of float16/bfloat16: rounded where torch's kernels round, bit for bit --------------------------
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("name,kw", [("mse_loss", {}), ("l1_loss", {}), ("huber_loss", {"delta": 0.7}),
                                     ("smooth_l1_loss", {"beta": 0.6}), ("soft_margin_loss", {}),
                                     ("mse_loss", {"weight": True}), ("l1_loss", {"weight": True}),
                                     ("huber_loss", {"weight": True})])
def test_half_pointwise_losses_round_like_torch(name, kw, dtype):
    # mse: the difference and its square each rounded (was one rounding: 1 ulp off on a third of elements);
    # huber float16 / smooth_l1 bfloat16 computed in float32 with the unrounded delta/beta, their other
    # dtype op by op; a weighted mean divides the rounded sums
    g = torch.Generator().manual_seed(0)
    x, y = (torch.randn(3000, generator=g) * 3).to(dtype), (torch.randn(3000, generator=g) * 3).to(dtype)
    if name == "soft_margin_loss":
        y = y.sign()
    kw = dict(kw)
    if kw.pop("weight", None):
        kw["weight"] = torch.rand(3000, generator=g).to(dtype)
    lkw = {k: to_tl(v) if torch.is_tensor(v) else v for k, v in kw.items()}
    for red in ("none", "mean", "sum"):
        assert_same(getattr(LF, name)(to_tl(x), to_tl(y), reduction=red, **lkw),
                    getattr(F, name)(x, y, reduction=red, **kw), rtol=0, atol=0)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_half_multilabel_soft_margin_loss_keeps_each_rounding_under_jit(dtype):
    # the OpInfo sample that failed: inside the one compiled program XLA dropped the rounding of
    # target * logsigmoid(input) before the add (and multiplied by 1/C instead of dividing)
    g = torch.Generator().manual_seed(3)
    x, t = (torch.randn(6, 5, generator=g) * 4).to(dtype), (torch.randn(6, 5, generator=g) * 4).to(dtype)
    w = torch.rand(6, 5, generator=g).to(dtype)
    for red in ("none", "mean", "sum"):
        assert_same(LF.multilabel_soft_margin_loss(to_tl(x), to_tl(t), reduction=red),
                    F.multilabel_soft_margin_loss(x, t, reduction=red), rtol=0, atol=0)
        assert_same(LF.multilabel_soft_margin_loss(to_tl(x[0]), to_tl(t[0]), weight=to_tl(w[0]), reduction=red),
                    F.multilabel_soft_margin_loss(x[0], t[0], weight=w[0], reduction=red), rtol=0, atol=0)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_half_hinge_embedding_loss_rounds_the_margin_like_torch(dtype):
    # torch's C++ formula turns the double margin into the input's type before margin - x (bfloat16: 8.396
    # becomes 8.375), and rounds margin - x and the sum
    g = torch.Generator().manual_seed(4)
    x = (torch.randn(40, generator=g) * 5).to(dtype)
    t = torch.where(torch.rand(40, generator=g) > 0.5, 1.0, -1.0).to(dtype)
    for red in ("none", "mean", "sum"):
        assert_same(LF.hinge_embedding_loss(to_tl(x), to_tl(t), margin=8.396163642458497, reduction=red),
                    F.hinge_embedding_loss(x, t, margin=8.396163642458497, reduction=red), rtol=0, atol=0)
