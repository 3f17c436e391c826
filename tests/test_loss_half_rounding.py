"""Half-type losses bit-equal to torch 2.13: torch's composite losses round each op's result to float16 /
bfloat16 (and an added Python scalar), its kernels compute in float32 and round once; the emulation must put
the roundings where torch's ops do (nll_loss: its kernel's cascade of partial sums in the input's type)."""
import warnings

import numpy as np
import pytest

import torchlike

torch = pytest.importorskip("torch")

_RS = np.random.RandomState(1)
X = (_RS.randn(64, 33) * 3).astype("float32")
Y = _RS.randn(64, 33).astype("float32")
P = 1 / (1 + np.exp(-X))
T01 = _RS.rand(64, 33).astype("float32")
W = _RS.rand(33).astype("float32")
COUNTS = np.abs(Y) * 3
LABELS = np.random.RandomState(3).randint(0, 33, 64)

CASES = {
    "bce_with_logits": lambda L, F, d: F.binary_cross_entropy_with_logits(L.tensor(X).to(d), L.tensor(T01).to(d)),
    "bce_with_logits weights": lambda L, F, d: F.binary_cross_entropy_with_logits(
        L.tensor(X).to(d), L.tensor(T01).to(d), weight=L.tensor(W).to(d), pos_weight=L.tensor(W * 3).to(d)),
    "poisson_nll": lambda L, F, d: F.poisson_nll_loss(L.tensor(X).to(d), L.tensor(COUNTS).to(d)),
    "poisson_nll rates full": lambda L, F, d: F.poisson_nll_loss(L.tensor(P * 3e-3).to(d), L.tensor(COUNTS).to(d),
                                                                 log_input=False, full=True),
    "gaussian_nll": lambda L, F, d: F.gaussian_nll_loss(L.tensor(X).to(d), L.tensor(Y).to(d), L.tensor(P).to(d)),
    "gaussian_nll full clamped": lambda L, F, d: F.gaussian_nll_loss(L.tensor(X).to(d), L.tensor(Y).to(d),
                                                                     L.tensor(P * 1e-3).to(d), full=True),
    "cross_entropy": lambda L, F, d: F.cross_entropy(L.tensor(X).to(d), L.tensor(LABELS)),
    "cross_entropy smoothing": lambda L, F, d: F.cross_entropy(L.tensor(X).to(d), L.tensor(LABELS),
                                                               label_smoothing=0.1),
    "cross_entropy weights ignore_index": lambda L, F, d: F.cross_entropy(
        L.tensor(X).to(d), L.tensor(LABELS), weight=L.tensor(W).to(d), ignore_index=3, label_smoothing=0.2),
    "nll_loss": lambda L, F, d: F.nll_loss(L.tensor(X).to(d), L.tensor(LABELS)),
    "nll_loss weights ignore_index 320 rows": lambda L, F, d: F.nll_loss(
        L.tensor(np.tile(X, (5, 1))).to(d), L.tensor(np.tile(LABELS, 5)), weight=L.tensor(W).to(d), ignore_index=3),
    "cross_entropy probabilities": lambda L, F, d: F.cross_entropy(L.tensor(X).to(d),
                                                                   L.tensor(P).to(d).softmax(1)),
    "cross_entropy probabilities smoothing": lambda L, F, d: F.cross_entropy(
        L.tensor(X).to(d), L.tensor(P).to(d).softmax(1), label_smoothing=0.1),
}


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_half_losses_bitwise(case, dtype, reduction):

    class Red:  # the functional namespace with this reduction
        def __init__(self, F):
            self.F = F

        def __getattr__(self, name):
            return lambda *a, **k: getattr(self.F, name)(*a, reduction=reduction, **k)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = CASES[case](torch, Red(torch.nn.functional), getattr(torch, dtype))
        got = CASES[case](torchlike, Red(torchlike.nn.functional), getattr(torchlike, dtype))
    assert got.dtype.itemsize == want.dtype.itemsize and tuple(got.shape) == tuple(want.shape)
    np.testing.assert_array_equal(np.asarray(got.float().tolist()), want.float().numpy())
