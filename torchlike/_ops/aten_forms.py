"""``torchlike.X`` where torch's ``torch.X`` is the aten op and ``torch.nn.functional.X`` a Python function of
another signature: ``torch.dropout(input, p, train)`` (all required, no ``inplace``), ``torch.batch_norm(input,
weight, bias, running_mean, running_var, training, momentum, eps, cudnn_enabled)`` (another order than
``F.batch_norm``'s), the losses' ``reduction`` as an int (0 none, 1 mean, 2 sum), ``torch.adaptive_max_pool1d``
returning (values, indices), ``torch.embedding(weight, indices)``.

Each form is an op table entry of the torch namespace only (the F function's entry has the nn.functional one), with
torch's schema as its signature: it takes torch's parameters (a call that does not fit them is Python's arity error,
which the table's wrapper turns into torch's parser message) and runs the F function's body; on any failure the
call's arguments are checked against the schema, so a wrong-typed argument is torch's TypeError naming the op.

    >>> import torchlike as torch
    >>> torch.dropout(torch.ones(2), 0.5, False)
    tensor([1., 1.])
    >>> try:
    ...     torch.selu(torch.ones(2), True)
    ... except TypeError as e:
    ...     print(e)
    selu() takes 1 positional argument but 2 were given
"""
import operator
import warnings

from . import dropout as _dropout
from .. import _dtype
from .._errors import broadcast_shape
from .registry import TABLE, register
from .signatures import SIGNATURES

_REDUCTION = {0: "none", 1: "mean", 2: "sum"}
FORMS = []  # the names declared here


def _F(name):
    """The declared function of ``torch.nn.functional.<name>`` (its package loads after this module)."""
    return TABLE["nn.functional", name].fn


def _reduction(r):
    """aten's int reduction as F's word (any int but 1 and 2 is no reduction there); a non-int is the parser's
    error (the table wrapper raises it for this TypeError)."""
    if r is True or r is False:
        raise TypeError("reduction")
    return _REDUCTION.get(operator.index(r), "none")


def _form(*schema, name=None):
    """Declare ``torch.<name>`` with torch's overloads ``schema`` (see signatures.py)."""
    def deco(fn):
        n = name or fn.__name__
        SIGNATURES["torch", n] = list(schema)
        fn.__code__ = fn.__code__.replace(co_name=n, co_qualname=n)  # (Python's arity errors name the op)
        fn.__name__ = fn.__qualname__ = n
        fn.__doc__ = (f"``torch.{n}({' | '.join(schema)})``: aten's op, where ``torch.nn.functional.{n}`` is a "
                      "Python function of another signature (see the module's docstring for an example).")
        FORMS.append(n)
        return register(n, method=False)(fn)
    return deco


def _check_p(p):
    if not 0 <= p <= 1:  # (aten's check: a RuntimeError, where F's is a ValueError)
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {p:g}")  # (C++'s <<)


@_form("Tensor input, float p, bool train")
def dropout(input, p, train):
    _check_p(p)
    return _dropout.dropout(input, p, train)


@_form("Tensor input, float p, bool train")
def alpha_dropout(input, p, train):
    _check_p(p)
    return _dropout.alpha_dropout(input, p, train)


@_form("Tensor input, float p, bool train")
def feature_alpha_dropout(input, p, train):
    _check_p(p)
    return _dropout.feature_alpha_dropout(input, p, train)


@_form("Tensor self")
def selu(input):
    return _F("selu")(input)


@_form("Tensor self, Scalar alpha=1.")
def celu(input, alpha=1.0):
    return _F("celu")(input, alpha)


@_form("Tensor self, Scalar threshold, Scalar value")
def threshold(input, threshold, value):
    return _F("threshold")(input, threshold, value)


@_form("Tensor self, int[1] output_size")
def adaptive_max_pool1d(input, output_size):
    return _F("adaptive_max_pool1d")(input, output_size, True)


def _max_pool(name):
    @_form(f"Tensor self, int[{name[-2]}] kernel_size, int[{name[-2]}] stride=[], int[{name[-2]}] padding=0, "
           f"int[{name[-2]}] dilation=1, bool ceil_mode=False", name=name)
    def form(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
        return _F(name)(input, kernel_size, stride if stride != () and stride != [] else None, padding, dilation,
                    ceil_mode)
    return form


for _n in ("max_pool1d", "max_pool2d", "max_pool3d"):
    _max_pool(_n)


@_form("Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, Tensor? running_var, bool training, "
       "float momentum, float eps, bool cudnn_enabled")
def batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps, cudnn_enabled):
    return _F("batch_norm")(input, running_mean, running_var, weight, bias, training, momentum, eps)


@_form("Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, Tensor? running_var, "
       "bool use_input_stats, float momentum, float eps, bool cudnn_enabled")
def instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps, cudnn_enabled):
    return _F("instance_norm")(input, running_mean, running_var, weight, bias, use_input_stats, momentum, eps)


@_form("Tensor input, int num_groups, Tensor? weight=None, Tensor? bias=None, float eps=1e-05, "
       "bool cudnn_enabled=True")
def group_norm(input, num_groups, weight=None, bias=None, eps=1e-05, cudnn_enabled=True):
    return _F("group_norm")(input, num_groups, weight, bias, eps)


@_form("Tensor input, int[] normalized_shape, Tensor? weight=None, Tensor? bias=None, float eps=1e-05, "
       "bool cudnn_enable=True")
def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05, cudnn_enable=True):
    return _F("layer_norm")(input, normalized_shape, weight, bias, eps)


@_form("Tensor weight, Tensor indices, int padding_idx=-1, bool scale_grad_by_freq=False, bool sparse=False")
def embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    return _F("embedding")(indices, weight, None if padding_idx == -1 else padding_idx,
                                scale_grad_by_freq=scale_grad_by_freq, sparse=sparse)


@_form("Tensor weight, Tensor indices, Tensor offsets, bool scale_grad_by_freq, int mode, bool sparse, "
       "Tensor? per_sample_weights, bool include_last_offset, int? padding_idx",
       "Tensor weight, Tensor indices, Tensor offsets, bool scale_grad_by_freq=False, int mode=0, "
       "bool sparse=False, Tensor? per_sample_weights=None, bool include_last_offset=False")
def embedding_bag(weight, indices, offsets, scale_grad_by_freq=False, mode=0, sparse=False, per_sample_weights=None,
                  include_last_offset=False, padding_idx=None):
    raise NotImplementedError("torch.embedding_bag (aten's form and its four results: output, offset2bag, bag_size, "
                              "max_indices) is not implemented in torchlike; torch.nn.functional.embedding_bag is "
                              "(see docs/differences.md)")


@_form("Tensor self, Tensor target, Tensor? weight=None, Tensor? pos_weight=None, "
       "int reduction=at::Reduction::Mean")
def binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None, reduction=0):
    ts = getattr(target, "shape", None)
    if ts is not None and getattr(input, "shape", ts) != ts:  # (aten's (1 - target).mul_(input): the loss has
        if not (input.dtype.is_floating_point or input.dtype.is_complex):  # (its log_sigmoid(input) fails first)
            raise NotImplementedError(f'"log_sigmoid_cpu" not implemented for \'{_dtype._CAP[input.dtype.name]}\'')
        b = broadcast_shape(tuple(ts), tuple(input.shape))  # target's shape, input broadcast to it; F's
        if b != tuple(ts):  # ValueError for unequal shapes is its Python's)
            raise RuntimeError(f"output with shape {list(ts)} doesn't match the broadcast shape {list(b)}")
        if pos_weight is not None:  # (its log_sigmoid(input).mul_((pos_weight - 1).mul(target) + 1): input's shape)
            w = broadcast_shape(tuple(pos_weight.shape), b)
            if broadcast_shape(tuple(input.shape), w) != tuple(input.shape):
                raise RuntimeError(f"output with shape {list(input.shape)} doesn't match the broadcast shape "
                                   f"{list(broadcast_shape(tuple(input.shape), w))}")
        input = input.expand(b)
    return _F("binary_cross_entropy_with_logits")(input, target, weight, reduction=_reduction(reduction),
                                                  pos_weight=pos_weight)


@_form("Tensor self, Tensor target, int reduction=at::Reduction::Mean, *, bool log_target=False")
def kl_div(input, target, reduction=0, *, log_target=False):
    if _reduction(reduction) != "mean":
        return _F("kl_div")(input, target, reduction=_reduction(reduction), log_target=log_target)
    with warnings.catch_warnings():  # (F's warning for 'mean' is its Python's; aten's kl_div gives none)
        warnings.filterwarnings("ignore", "reduction: 'mean' divides")
        return _F("kl_div")(input, target, reduction="mean", log_target=log_target)


@_form("Tensor input, Tensor target, bool log_input, bool full, float eps, int reduction")
def poisson_nll_loss(input, target, log_input, full, eps, reduction):
    return _F("poisson_nll_loss")(input, target, log_input, full, eps=eps, reduction=_reduction(reduction))


@_form("Tensor input1, Tensor input2, Tensor target, float margin=0., int reduction=at::Reduction::Mean")
def margin_ranking_loss(input1, input2, target, margin=0.0, reduction=0):
    return _F("margin_ranking_loss")(input1, input2, target, margin, reduction=_reduction(reduction))


@_form("Tensor input1, Tensor input2, Tensor target, float margin=0., int reduction=at::Reduction::Mean")
def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction=0):
    return _F("cosine_embedding_loss")(input1, input2, target, margin, reduction=_reduction(reduction))


@_form("Tensor self, Tensor target, float margin=1., int reduction=at::Reduction::Mean")
def hinge_embedding_loss(input, target, margin=1.0, reduction=0):
    return _F("hinge_embedding_loss")(input, target, margin, reduction=_reduction(reduction))


@_form("Tensor anchor, Tensor positive, Tensor negative, float margin=1., float p=2., float eps=1e-06, "
       "bool swap=False, int reduction=at::Reduction::Mean")
def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2.0, eps=1e-06, swap=False, reduction=0):
    return _F("triplet_margin_loss")(anchor, positive, negative, margin, p, eps, swap,
                                            reduction=_reduction(reduction))


_CTC = "int blank=0, int reduction=at::Reduction::Mean, bool zero_infinity=False"


@_form(f"Tensor log_probs, Tensor targets, int[] input_lengths, int[] target_lengths, {_CTC}",
       f"Tensor log_probs, Tensor targets, Tensor input_lengths, Tensor target_lengths, {_CTC}")
def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction=0, zero_infinity=False):
    return _F("ctc_loss")(log_probs, targets, input_lengths, target_lengths, blank, _reduction(reduction),
                         zero_infinity)
