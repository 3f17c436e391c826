"""The losses' input checks torch's CPU kernels make, which a new user meets first: class-index losses of a
non-floating input (a model's integer output, a forgotten ``.float()``), ``binary_cross_entropy`` of values
outside [0, 1] (a forgotten sigmoid), of NaN, or of a target of another dtype. torch raises; torchlike had
returned a number (or leaked JAX's dtype error for bool)."""
import pytest

from conftest import raises_like_torch, same_as_torch, torch  # noqa: F401

SHAPES = [((3,), ()), ((2, 3), (2,)), ((2, 3, 4), (2, 4)), ((1, 3, 2, 2), (1, 2, 2)), ((1, 3, 2, 2, 2), (1, 2, 2, 2))]
DTYPES = ["int64", "int32", "uint8", "bool", "complex64"]


@pytest.mark.parametrize("loss", ["nll_loss", "cross_entropy"])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shapes", SHAPES, ids=[str(len(s[0])) + "d" for s in SHAPES])
def test_class_index_loss_of_a_non_floating_input_raises_like_torch(loss, dtype, shapes):
    shape, tshape = shapes
    raises_like_torch(lambda T: getattr(T.nn.functional, loss)(T.ones(shape, dtype=getattr(T, dtype)),
                                                                T.zeros(tshape, dtype=T.long)))


BCE_BAD = {
    "input above 1": ([1.5, 0.5], [1.0, 0.0], "float32"),
    "input below 0": ([-0.1, 0.5], [1.0, 0.0], "float32"),
    "input nan": ([float("nan"), 0.5], [1.0, 0.0], "float32"),
    "target above 1": ([0.5, 0.5], [2.0, 0.0], "float32"),
    "float64 input above 1": ([1.3], [1.0], "float64"),
}


@pytest.mark.parametrize("case", sorted(BCE_BAD))
def test_binary_cross_entropy_of_values_outside_0_1_raises_like_torch(case):
    x, y, dt = BCE_BAD[case]
    raises_like_torch(lambda T: T.nn.functional.binary_cross_entropy(T.tensor(x, dtype=getattr(T, dt)),
                                                                      T.tensor(y, dtype=getattr(T, dt))))
    raises_like_torch(lambda T: T.nn.BCELoss()(T.tensor(x, dtype=getattr(T, dt)), T.tensor(y, dtype=getattr(T, dt))))


@pytest.mark.parametrize("dts", [("float32", "int64"), ("float32", "float64"), ("int64", "float32")])
def test_binary_cross_entropy_of_mixed_dtypes_raises_like_torch(dts):
    raises_like_torch(lambda T: T.nn.functional.binary_cross_entropy(T.tensor([1], dtype=getattr(T, dts[0])) * 0.5
                                                                      if dts[0] != "int64" else T.tensor([1]),
                                                                      T.tensor([1], dtype=getattr(T, dts[1]))))


def test_valid_losses_still_match_torch():
    same_as_torch(lambda T: T.nn.functional.binary_cross_entropy(T.tensor([0.0, 0.3, 1.0]), T.tensor([0.0, 1.0, 1.0])))
    same_as_torch(lambda T: T.nn.functional.nll_loss(T.tensor([[-1.0, -2.0], [-0.5, -3.0]], dtype=T.float16),
                                                     T.tensor([0, 1])))
    same_as_torch(lambda T: T.nn.functional.cross_entropy(T.ones(1, 3, 2, 2, dtype=T.float64), T.zeros(1, 2, 2,
                                                                                                         dtype=T.long)))


# Arguments torch has no gradient formula for: under grad mode it refuses one that requires grad (a weight made
# a Parameter, a target computed from the model's output); torchlike had returned a loss.
NOT_DIFFERENTIABLE = {
    "soft_margin target": lambda T, r: T.nn.functional.soft_margin_loss(T.zeros(4, 3), r(4, 3)),
    "bce weight": lambda T, r: T.nn.functional.binary_cross_entropy(T.full((4, 3), 0.5), T.ones(4, 3), weight=r(3)),
    "bce_with_logits weight": lambda T, r: T.nn.functional.binary_cross_entropy_with_logits(
        T.zeros(4, 3), T.ones(4, 3), weight=r(3)),
    "bce_with_logits pos_weight": lambda T, r: T.nn.functional.binary_cross_entropy_with_logits(
        T.zeros(4, 3), T.ones(4, 3), pos_weight=r(3)),
    "nll weight": lambda T, r: T.nn.functional.nll_loss(T.zeros(4, 3), T.zeros(4, dtype=T.long), weight=r(3)),
    "nll2d weight": lambda T, r: T.nn.functional.nll_loss(T.zeros(2, 3, 2), T.zeros(2, 2, dtype=T.long),
                                                          weight=r(3)),
    "cross_entropy weight": lambda T, r: T.nn.CrossEntropyLoss(weight=r(3))(T.zeros(4, 3), T.zeros(4, dtype=T.long)),
    "multi_margin weight": lambda T, r: T.nn.functional.multi_margin_loss(T.zeros(4, 3), T.zeros(4, dtype=T.long),
                                                                          weight=r(3)),
    "batch_norm running_mean": lambda T, r: T.nn.functional.batch_norm(T.zeros(4, 3), r(3), T.ones(3)),
    "batch_norm running_var": lambda T, r: T.nn.functional.batch_norm(T.zeros(4, 3), T.zeros(3), r(3) + 1,
                                                                       training=True),
}


@pytest.mark.parametrize("case", sorted(NOT_DIFFERENTIABLE))
def test_argument_without_a_gradient_formula_that_requires_grad_raises_like_torch(case):
    raises_like_torch(lambda T: NOT_DIFFERENTIABLE[case](T, lambda *s: T.rand(*s, requires_grad=True)))


@pytest.mark.parametrize("case", sorted(NOT_DIFFERENTIABLE))
def test_argument_without_a_gradient_formula_is_fine_under_no_grad(case):
    def run(T):
        with T.no_grad():
            return NOT_DIFFERENTIABLE[case](T, lambda *s: T.full(s, 0.5).requires_grad_())
    same_as_torch(run, grad=False)


@pytest.mark.parametrize("shape", [(0,), (2, 0), (3, 0), (1, 2, 3)])
def test_multilabel_margin_loss_shape_check_like_torch(shape):
    """torch's shape check: a non-empty vector or matrix (optional empty batch); a 3-d input leaked a JAX
    broadcasting error before."""
    raises_like_torch(lambda m: m.nn.functional.multilabel_margin_loss(m.zeros(shape), m.zeros(shape, dtype=m.long)))


CTC_LENGTH_ERRORS = {  # (targets, input_lengths, target_lengths) against log_probs (5, 2, 3)
    "padded targets narrower than a target length": ([[1, 2], [1, 1]], [5, 5], [3, 2]),
    "concatenated targets shorter than the lengths' sum": ([1, 2, 1], [5, 5], [2, 2]),
    "padded targets of another batch size": ([[1, 2], [1, 1], [2, 2]], [5, 5], [2, 2]),
    "negative target length": ([[1, 2], [1, 1]], [5, 5], [-1, 2]),
    "negative input length": ([1, 2, 1, 1], [5, -1], [2, 2]),
    "input length past T": ([[1, 2], [1, 1]], [6, 5], [2, 2]),
}


@pytest.mark.parametrize("case", list(CTC_LENGTH_ERRORS))
def test_ctc_loss_length_checks_like_torch(case):
    """torch's ctc_loss_allocate_outputs checks, in its order (a padded target narrower than its length computed
    a loss from past the row's end here)."""
    targets, il, tl = CTC_LENGTH_ERRORS[case]

    def fn(m):
        m.manual_seed(0)
        lp = m.randn(5, 2, 3).log_softmax(2)
        return m.nn.functional.ctc_loss(lp, m.tensor(targets), il, tl)
    raises_like_torch(fn)


def test_ctc_loss_unbatched_targets_are_concatenated_like_torch():
    def fn(m):
        lp = m.randn(5, 3).log_softmax(1)
        return m.nn.functional.ctc_loss(lp, m.tensor([1, 2]), [5], [3])
    raises_like_torch(fn)
