"""Identity, Linear, Bilinear and LazyLinear, initialised as torch initialises them.

>>> import torchlike as torch
>>> torch.nn.Linear(3, 2, bias=False)
Linear(in_features=3, out_features=2, bias=False)
"""
from __future__ import annotations

import math

from ... import _creation
from ...autograd import grad_mode
from .. import functional as F
from .. import init
from ..parameter import Parameter, UninitializedParameter
from .lazy import LazyModuleMixin
from .module import Module

__all__ = ["Identity", "Linear", "Bilinear", "LazyLinear"]


def _blank(shape, device, dtype):
    """An uninitialised Parameter; ``reset_parameters`` fills it."""
    return Parameter(_creation.empty(shape, device=device, dtype=dtype))


def _set_bias(module, wanted, size, device, dtype):
    # an absent bias is still a registered (None) parameter, as in torch
    if wanted:
        module.bias = _blank((size,), device, dtype)
    else:
        module.register_parameter("bias", None)


def _uniform_pm(tensor, bound):
    init.uniform_(tensor, -bound, bound)


class Identity(Module):
    """Returns its input unchanged; any constructor arguments are ignored.

    >>> import torchlike as torch
    >>> torch.nn.Identity(54, unused="x")(torch.ones(2)).tolist()
    [1.0, 1.0]
    """

    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input


class Linear(Module):
    """``y = x W^T + b`` over the last dimension.

    W (out x in) starts kaiming-uniform with ``a = sqrt(5)``, i.e. U(-1/sqrt(in), 1/sqrt(in)), and b
    uniform on the same interval.

    >>> import torchlike as torch
    >>> torch.nn.Linear(3, 2)(torch.zeros(5, 3)).shape
    torch.Size([5, 2])
    """

    __constants__ = ["in_features", "out_features"]

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.in_features, self.out_features = in_features, out_features
        self.weight = _blank((out_features, in_features), device, dtype)
        _set_bias(self, bias, out_features, device, dtype)
        self.reset_parameters()

    def reset_parameters(self):
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is None:
            return
        fan_in = init._calculate_fan_in_and_fan_out(self.weight)[0]
        _uniform_pm(self.bias, 1 / math.sqrt(fan_in) if fan_in > 0 else 0)

    def forward(self, input):
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self):
        return f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}"


class NonDynamicallyQuantizableLinear(Linear):
    """Linear under another name (torch uses it inside MultiheadAttention)."""


class Bilinear(Module):
    """``y_k = x1^T A_k x2 + b_k``; A and b start U(-1/sqrt(in1), 1/sqrt(in1)).

    >>> import torchlike as torch
    >>> torch.nn.Bilinear(3, 4, 5)(torch.ones(2, 3), torch.ones(2, 4)).shape
    torch.Size([2, 5])
    """

    __constants__ = ["in1_features", "in2_features", "out_features"]

    def __init__(self, in1_features, in2_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.in1_features = in1_features
        self.in2_features = in2_features
        self.out_features = out_features
        self.weight = _blank((out_features, in1_features, in2_features), device, dtype)
        _set_bias(self, bias, out_features, device, dtype)
        self.reset_parameters()

    def reset_parameters(self):
        limit = 1 / math.sqrt(self.weight.size(1))
        for tensor in (self.weight, self.bias):
            if tensor is not None:
                _uniform_pm(tensor, limit)

    def forward(self, input1, input2):
        return F.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self):
        return (f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
                f"out_features={self.out_features}, bias={self.bias is not None}")


class LazyLinear(LazyModuleMixin, Linear):
    """A Linear whose ``in_features`` is taken from the last dimension of the first input.

    >>> import torchlike as torch
    >>> m = torch.nn.LazyLinear(2)
    >>> _ = m(torch.ones(1, 6)); m.in_features, type(m).__name__
    (6, 'Linear')
    """

    cls_to_become = Linear
    weight: UninitializedParameter
    bias: UninitializedParameter

    def __init__(self, out_features, bias=True, device=None, dtype=None):
        # build an empty Linear, then swap in placeholders for the real shapes
        super().__init__(0, 0, False)
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_features = out_features
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def reset_parameters(self):
        if self.in_features != 0 and not self.has_uninitialized_params():
            super().reset_parameters()

    def initialize_parameters(self, input):
        if not self.has_uninitialized_params():
            return
        with grad_mode.no_grad():
            self.in_features = input.shape[-1]
            self.weight.materialize((self.out_features, self.in_features))
            if self.bias is not None:
                self.bias.materialize((self.out_features,))
            self.reset_parameters()
