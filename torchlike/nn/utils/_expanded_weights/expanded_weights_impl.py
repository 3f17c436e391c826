"""ExpandedWeight (``torch.nn.utils._expanded_weights``): a parameter seen as expanded over the batch, so that
``backward`` fills ``orig_weight.grad_sample`` with per-sample gradients instead of ``.grad``.

As in torch it is a ``__torch_function__`` subclass: the layer functions whose per-sample gradients are known
(linear, conv1d/2d/3d, embedding, group/layer/instance norm) run through an autograd Function; any other
function given an ExpandedWeight raises, since the batch dimension of its other arguments is unknown. torch
writes one backward formula per layer; here one backward serves all of them: the input gradient is the vjp of
the whole batch, the per-sample weight gradients the vjp of each sample, vmapped over the batch (each of these
layers treats the samples of a batch independently).

>>> import torchlike
>>> lin = torchlike.nn.Linear(3, 2)
>>> x = torchlike.randn(4, 3)
>>> w, b = (ExpandedWeight(p, 4, "sum") for p in (lin.weight, lin.bias))
>>> torchlike.nn.functional.linear(x, w, b).sum().backward()
>>> lin.weight.grad_sample.shape, lin.weight.grad is None
(torch.Size([4, 2, 3]), True)
"""
from __future__ import annotations

from ....autograd import Function
from ....func import vjp, vmap
from ....tensor import Tensor
from ... import functional as F

__all__ = ["ExpandedWeight", "HANDLED_FUNCTIONS"]


def _no_running_stats(args, kwargs):
    """instance_norm recomputed in backward must not update the running statistics a second time."""
    args = list(args)
    use_input_stats = kwargs.get("use_input_stats", args[5] if len(args) > 5 else True)
    if use_input_stats:
        for i, name in ((1, "running_mean"), (2, "running_var")):
            if name in kwargs:
                kwargs = {**kwargs, name: None}
            elif len(args) > i:
                args[i] = None
    return tuple(args), kwargs


# the functions with per-sample gradients -> how backward recomputes them (None: as called)
HANDLED_FUNCTIONS = {F.linear: None, F.conv1d: None, F.conv2d: None, F.conv3d: None, F.embedding: None,
                     F.group_norm: None, F.layer_norm: None, F.instance_norm: _no_running_stats}


class ExpandedWeight(Tensor):
    """``orig_weight`` expanded to ``batch_size`` samples for the layer functions it is passed to; after
    ``backward`` the per-sample gradients are in ``orig_weight.grad_sample`` (scaled by ``batch_size`` for a
    ``"mean"`` ``loss_reduction``), and ``orig_weight.grad`` stays untouched."""

    handled_functions = HANDLED_FUNCTIONS

    def __new__(cls, orig_weight, batch_size, loss_reduction):
        if not isinstance(orig_weight, Tensor):
            raise RuntimeError(f"Can only make Expanded Weights of Tensors, got {type(orig_weight).__name__}")
        if not orig_weight.requires_grad:
            raise RuntimeError("Can only build ExpandedWeights objects of tensors that requires_grad")
        return Tensor._make_subclass(cls, orig_weight, True)

    def __init__(self, orig_weight, batch_size, loss_reduction) -> None:
        self.batch_size = batch_size
        self.batch_first = True
        self.allow_smaller_batches = False
        self.orig_weight = orig_weight
        self.loss_reduction = loss_reduction

    @classmethod
    def __torch_function__(cls, func, _, args=(), kwargs=None):
        kwargs = kwargs or {}
        if func in cls.handled_functions:
            return _PerSampleGrad.apply(tuple(kwargs.keys()), func, *(tuple(args) + tuple(kwargs.values())))
        # no fallback: the batch dimension of a plain tensor argument (torch.add(t, ew)) is unknown
        name = getattr(func, "__name__", None) or type(func).__name__
        raise RuntimeError(f"Expanded Weights encountered but cannot handle function {name}")

    @property
    def dtype(self):
        return self.orig_weight.dtype

    @property
    def data(self):
        return self.orig_weight.data

    @property
    def shape(self):
        return self.orig_weight.shape

    @property
    def device(self):
        return self.orig_weight.device

    @property
    def is_cuda(self):
        return self.orig_weight.is_cuda

    def data_ptr(self):
        """The original weight's address."""
        return self.orig_weight.data_ptr()

    def get_device(self):
        """The original weight's device index."""
        return self.orig_weight.get_device()

    def set_allow_smaller_batches(self, is_allow_smaller_batches) -> None:
        """Accept inputs with fewer samples than ``batch_size`` (packed sequences)."""
        self.allow_smaller_batches = is_allow_smaller_batches

    def set_batch_first(self, is_batch_first=True) -> None:
        """Whether the batch is the first (else the second) dimension of the inputs."""
        self.batch_first = is_batch_first


def _name(func):
    return getattr(func, "__name__", str(func))


def _check_and_unexpand(func, args, kwargs):
    """torch's ``_check_and_unexpand_args``: the input carries the batch; the weights' batch sizes and loss
    reductions agree with it; returns the call with the original weights."""
    input = args[0]
    if isinstance(input, ExpandedWeight):
        raise RuntimeError("Expanded Weights do not support inputs that are also ExpandedWeights. "
                           f"Input must be a Tensor, got {type(input).__name__} in function {_name(func)}")
    if not isinstance(input, Tensor):
        raise RuntimeError("Expanded Weights requires a Tensor as the first input to get the batch dimension, "
                           f"got {type(input).__name__} in function {_name(func)}")
    if input.dim() == 0:
        raise RuntimeError("Expanded Weights requires a batch dimension but got an input of size 0 in function "
                           f"{_name(func)}")
    if input.shape[0] == 0:
        raise RuntimeError(f"0 is not a valid batch size for Expanded Weights but got input tensor of {input} in "
                           f"function {_name(func)}")
    expanded = [a for a in tuple(args) + tuple(kwargs.values()) if isinstance(a, ExpandedWeight)]
    for arg in expanded:
        batch_size = input.shape[0] if arg.batch_first else input.shape[1]
        if (arg.allow_smaller_batches and batch_size > arg.batch_size) or (
                not arg.allow_smaller_batches and arg.batch_size != batch_size):
            raise RuntimeError("Expected ExpandedWeights to have batch size matching input but got input batch "
                               f"size of {batch_size} with ExpandedWeight of batch size {arg.batch_size}")
    for arg in expanded[1:]:
        if arg.loss_reduction != expanded[0].loss_reduction:
            raise RuntimeError("Expected ExpandedWeights to all have the same loss_reduction argument but got one"
                               f"with {expanded[0].loss_reduction} and one with {arg.loss_reduction}")
    unexpand = lambda a: a.orig_weight if isinstance(a, ExpandedWeight) else a  # noqa: E731
    return tuple(unexpand(a) for a in args), {k: unexpand(v) for k, v in kwargs.items()}


def _set_grad_sample(ew, grad_sample):
    """torch's ``set_grad_sample_if_exists``: scale a ``"mean"`` reduction's gradients by the batch size, pad a
    smaller batch with zeros, add to an existing ``grad_sample``."""
    if ew.loss_reduction == "mean":
        grad_sample = grad_sample * ew.batch_size
    if ew.batch_size > grad_sample.shape[0]:
        grad_sample = F.pad(grad_sample, (0, 0) * (grad_sample.dim() - 1) + (0, ew.batch_size - grad_sample.shape[0]))
    orig = ew.orig_weight
    if getattr(orig, "grad_sample", None) is not None:
        orig.grad_sample = orig.grad_sample + grad_sample
    else:
        orig.grad_sample = grad_sample


def _split(kwarg_names, values):
    n = len(values) - len(kwarg_names)
    return tuple(values[:n]), dict(zip(kwarg_names, values[n:]))


class _PerSampleGrad(Function):
    """One handled function called with ExpandedWeights: the forward with the original weights; backward gives
    the input its gradient and each ExpandedWeight's original weight its per-sample gradients."""

    @staticmethod
    def forward(ctx, kwarg_names, func, *values):
        args, kwargs = _split(kwarg_names, values)
        if func is F.linear and args[0].dim() <= 1:
            raise RuntimeError("Input does not have a batch dimension. Expanded Weights expected input of at least "
                               f"rank 2, got of rank {args[0].dim()}")
        plain_args, plain_kwargs = _check_and_unexpand(func, args, kwargs)
        ctx.func, ctx.kwarg_names, ctx.values = func, kwarg_names, values
        return func(*plain_args, **plain_kwargs)

    @staticmethod
    def backward(ctx, grad_output):
        func, values = ctx.func, ctx.values
        slots = [i for i, v in enumerate(values) if isinstance(v, ExpandedWeight)]
        for i, v in enumerate(values):
            if i and isinstance(v, Tensor) and not isinstance(v, ExpandedWeight) and v.requires_grad:
                raise RuntimeError("ExpandedWeights currently does not support a mixture of ExpandedWeight "
                                   "parameters and normal Parameters. Please file and issue with pytorch/pytorch")
        plain = [v.orig_weight.detach() if isinstance(v, ExpandedWeight) else v for v in values]
        recompute = HANDLED_FUNCTIONS[func]

        def call(input, weights):
            vals = list(plain)
            vals[0] = input
            for i, w in zip(slots, weights):
                vals[i] = w
            args, kwargs = _split(ctx.kwarg_names, vals)
            if recompute is not None:
                args, kwargs = recompute(args, kwargs)
            return func(*args, **kwargs)

        input, weights = plain[0], [plain[i] for i in slots]
        grad_input = None
        if isinstance(values[0], Tensor) and values[0].requires_grad:
            _, back = vjp(lambda x: call(x, weights), input.detach())
            (grad_input,) = back(grad_output)
        bdim = 0 if all(values[i].batch_first for i in slots) else 1

        def one_sample(x, g):
            _, back = vjp(lambda *ws: call(x.unsqueeze(bdim), ws), *weights)
            return back(g.unsqueeze(bdim))

        per_sample = vmap(one_sample, in_dims=(bdim, bdim))(input.detach(), grad_output)
        for i, gs in zip(slots, per_sample):
            _set_grad_sample(values[i], gs)
        return (None, None, grad_input) + (None,) * (len(values) - 1)
