"""``torch.nn.grad``: the gradients of a convolution with respect to its input and its weight, given the
gradient of its output (what a hand-written conv backward or a custom autograd Function needs).

>>> import torchlike as torch
>>> x, w = torch.ones(1, 1, 4, 4), torch.ones(1, 1, 3, 3)
>>> go = torch.ones(1, 1, 2, 2)
>>> torch.nn.grad.conv2d_input(x.shape, w, go)[0, 0, 1].tolist()
[2.0, 4.0, 4.0, 2.0]
>>> torch.nn.grad.conv2d_weight(x, w.shape, go).shape
torch.Size([1, 1, 3, 3])
"""
from __future__ import annotations

from .. import _creation
from ..autograd import grad as _grad, grad_mode
from . import functional as F

__all__ = ["conv1d_input", "conv1d_weight", "conv2d_input", "conv2d_weight", "conv3d_input", "conv3d_weight"]


def _input_grad(conv, input_size, weight, grad_output, stride, padding, dilation, groups):
    create = weight.requires_grad or grad_output.requires_grad
    with grad_mode.enable_grad():
        x = _creation.zeros(tuple(input_size), dtype=grad_output.dtype, requires_grad=True)
        w = weight if create else weight.detach()
        y = conv(x, w, None, stride, padding, dilation, groups)
        return _grad(y, x, grad_output, create_graph=create)[0]


def _weight_grad(conv, input, weight_size, grad_output, stride, padding, dilation, groups):
    create = input.requires_grad or grad_output.requires_grad
    with grad_mode.enable_grad():
        w = _creation.zeros(tuple(weight_size), dtype=grad_output.dtype, requires_grad=True)
        x = input if create else input.detach()
        y = conv(x, w, None, stride, padding, dilation, groups)
        return _grad(y, w, grad_output, create_graph=create)[0]


def conv1d_input(input_size, weight, grad_output, stride=1, padding=0, dilation=1, groups=1):
    """Gradient of ``conv1d`` with respect to an input of shape ``input_size``."""
    return _input_grad(F.conv1d, input_size, weight, grad_output, stride, padding, dilation, groups)


def conv1d_weight(input, weight_size, grad_output, stride=1, padding=0, dilation=1, groups=1):
    """Gradient of ``conv1d`` with respect to a weight of shape ``weight_size``."""
    return _weight_grad(F.conv1d, input, weight_size, grad_output, stride, padding, dilation, groups)


def conv2d_input(input_size, weight, grad_output, stride=1, padding=0, dilation=1, groups=1):
    """Gradient of ``conv2d`` with respect to an input of shape ``input_size``."""
    return _input_grad(F.conv2d, input_size, weight, grad_output, stride, padding, dilation, groups)


def conv2d_weight(input, weight_size, grad_output, stride=1, padding=0, dilation=1, groups=1):
    """Gradient of ``conv2d`` with respect to a weight of shape ``weight_size``."""
    return _weight_grad(F.conv2d, input, weight_size, grad_output, stride, padding, dilation, groups)


def conv3d_input(input_size, weight, grad_output, stride=1, padding=0, dilation=1, groups=1):
    """Gradient of ``conv3d`` with respect to an input of shape ``input_size``."""
    return _input_grad(F.conv3d, input_size, weight, grad_output, stride, padding, dilation, groups)


def conv3d_weight(input, weight_size, grad_output, stride=1, padding=0, dilation=1, groups=1):
    """Gradient of ``conv3d`` with respect to a weight of shape ``weight_size``."""
    return _weight_grad(F.conv3d, input, weight_size, grad_output, stride, padding, dilation, groups)
