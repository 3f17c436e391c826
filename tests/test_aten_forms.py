"""torch.X where torch's is the aten op and torch.nn.functional.X a Python function of another signature
(torchlike/nn/functional/_aten_forms.py): values in torch's argument order and int reductions, and torch's parser
messages for calls that do not fit (arity, wrong types, in the parser's order: a given argument's type before the
required ones missing after it, an unknown keyword last)."""
import numpy as np
import pytest

import torchlike
from conftest import raises_like_torch, same_as_torch, torch

X = np.random.default_rng(0).standard_normal((2, 3, 4)).astype(np.float32)
Y = np.random.default_rng(1).standard_normal((2, 3, 4)).astype(np.float32)
T = np.sign(np.random.default_rng(2).standard_normal((2, 3, 4))).astype(np.float32)
W = np.random.default_rng(3).standard_normal((5, 3)).astype(np.float32)
C = np.random.default_rng(4).standard_normal(3).astype(np.float32)

VALUES = [
    lambda m, x, y, t: m.selu(x), lambda m, x, y, t: m.celu(x, 0.5), lambda m, x, y, t: m.threshold(x, 0.1, 2.0),
    lambda m, x, y, t: m.dropout(x, 0.5, False), lambda m, x, y, t: m.alpha_dropout(x, 0.3, False),
    lambda m, x, y, t: m.feature_alpha_dropout(x, 0.0, True),
    lambda m, x, y, t: m.adaptive_max_pool1d(x, 2), lambda m, x, y, t: m.max_pool1d(x, 2),
    lambda m, x, y, t: m.max_pool2d(x[None], 2, 1, 0, 1, True), lambda m, x, y, t: m.max_pool3d(x[None, None], 1),
    lambda m, x, y, t: m.group_norm(x, 3), lambda m, x, y, t: m.layer_norm(x, [4], None, None, 1e-5, True),
    lambda m, x, y, t: m.binary_cross_entropy_with_logits(x, y.sigmoid(), None, None, 0),
    lambda m, x, y, t: m.binary_cross_entropy_with_logits(x, y.sigmoid(), reduction=2),
    lambda m, x, y, t: m.kl_div(x, y, 1), lambda m, x, y, t: m.kl_div(x, y, 0, log_target=True),
    lambda m, x, y, t: m.poisson_nll_loss(x, y.abs(), True, False, 1e-8, 1),
    lambda m, x, y, t: m.margin_ranking_loss(x, y, t, 0.1, 2), lambda m, x, y, t: m.hinge_embedding_loss(x, t, 0.5, 1),
    lambda m, x, y, t: m.cosine_embedding_loss(x[0], y[0], t[0, :, 0], 0.2, 0),
    lambda m, x, y, t: m.triplet_margin_loss(x, y, x + 1, 1.0, 2.0, 1e-6, True, 1),
    # torch's parser reads the schema's default ``reduction=at::Reduction::Mean`` as 0: no reduction
    lambda m, x, y, t: m.kl_div(x, y), lambda m, x, y, t: m.hinge_embedding_loss(x, t),
    lambda m, x, y, t: m.margin_ranking_loss(x, y, t), lambda m, x, y, t: m.triplet_margin_loss(x, y, x + 1),
    lambda m, x, y, t: m.binary_cross_entropy_with_logits(x, y.sigmoid()),
    lambda m, x, y, t: m.ctc_loss(x.permute(2, 0, 1).log_softmax(2), m.tensor([[1, 2], [2, 2]]), [4, 4], [2, 2]),
    lambda m, x, y, t: m.ctc_loss(x.permute(2, 0, 1).log_softmax(2), m.tensor([[1, 2], [2, 2]]), m.tensor([4, 3]),
                                  m.tensor([2, 1]), 0, 2),
]


@pytest.mark.parametrize("k", range(len(VALUES)))
def test_values_in_torchs_argument_order(k):
    same_as_torch(VALUES[k], X, Y, T)


def test_norms_take_torchs_order():
    """torch.batch_norm/instance_norm: weight and bias before the running statistics (F's order is the reverse)."""
    same_as_torch(lambda m, x, w, b: m.batch_norm(x, w, b, None, None, True, 0.1, 1e-5, False), X, C, C + 1)
    same_as_torch(lambda m, x, w, b: m.instance_norm(x, w, b, None, None, True, 0.1, 1e-5, False), X, C, C + 1)
    for m in (torch, torchlike):  # running statistics updated in place, in their own positions
        rm, rv = m.zeros(3), m.ones(3)
        m.batch_norm(m.tensor(X), None, None, rm, rv, True, 0.5, 1e-5, False)
        if m is torch:
            expected = rm.numpy(), rv.numpy()
    np.testing.assert_allclose(rm.numpy(), expected[0], rtol=1e-5)
    np.testing.assert_allclose(rv.numpy(), expected[1], rtol=1e-5)


def test_embedding_takes_weight_first():
    idx = np.array([[0, 4], [2, 2]])
    same_as_torch(lambda m, w, i: m.embedding(w, i), W, idx, grad_inputs={0})
    same_as_torch(lambda m, w, i: m.embedding(w, i, 2), W, idx, grad_inputs={0})


def test_functional_forms_are_their_own():
    """Each aten form is torch.X where torch's torch.X is not its F.X, with the op's name; F.X keeps F's signature."""
    from torchlike._ops.aten_forms import FORMS
    assert len(FORMS) >= 24
    for n in FORMS:
        form = getattr(torchlike, n)
        assert getattr(torch, n) is not getattr(torch.nn.functional, n), n
        assert form is not getattr(torchlike.nn.functional, n), n
        assert form.__name__ == n and form.torch_signature.op == n and n not in dir(torchlike.Tensor), n
    same_as_torch(lambda m, x: m.nn.functional.selu(x.clone(), True), X, grad=False)


ERRORS = [
    lambda m: m.selu(m.ones(2), True), lambda m: m.selu(m.ones(2), inplace=True), lambda m: m.celu(m.ones(2), 1, 2),
    lambda m: m.threshold(m.ones(2), 0.5, 0.0, True), lambda m: m.dropout(m.ones(2), 0.5),
    lambda m: m.dropout(m.ones(2), "x", True), lambda m: m.dropout(m.ones(2), 1.5, True),
    lambda m: m.alpha_dropout(m.ones(2), -1.0, False), lambda m: m.dropout(m.ones(2), dim="x"),
    lambda m: m.adaptive_max_pool1d(m.ones(1, 2, 4), 2, True), lambda m: m.max_pool2d(m.ones(1, 4, 4), 2, 2, 0, 1,
                                                                                          False, True),
    lambda m: m.batch_norm(m.ones(2, 3), 0, "x"), lambda m: m.batch_norm(m.ones(2, 3), None),
    lambda m: m.instance_norm(m.ones(2, 3), "x"), lambda m: m.instance_norm("x"),
    lambda m: m.embedding_bag(m.ones(2, 3), "x"), lambda m: m.embedding_bag(m.ones(2, 3), 0, "x"),
    lambda m: m.binary_cross_entropy_with_logits(m.ones(2), None),
    lambda m: m.binary_cross_entropy_with_logits(m.ones(2), m.ones(2), reduction="mean"),
    lambda m: m.kl_div(m.ones(2), m.ones(2), "mean"), lambda m: m.margin_ranking_loss(m.ones(2), 0, "x"),
    lambda m: m.poisson_nll_loss(m.ones(2), m.ones(2), True), lambda m: m.group_norm(m.ones(2, 3), 1.5),
    lambda m: m.embedding(m.ones(3, 2), m.tensor([0]), foo=1), lambda m: m.ctc_loss(m.ones(2, 3), "a"),
    lambda m: m.dropout(m.ones(2), 1e20, True),
]


@pytest.mark.parametrize("k", range(len(ERRORS)))
def test_errors_are_torchs(k):
    raises_like_torch(ERRORS[k])
