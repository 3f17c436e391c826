"""The fuser methods ``fuse_modules`` picks by the member modules' types (torch's default table):
eval-mode Conv/Linear + BatchNorm fold the statistics into the weights (``nn.utils.fusion``); QAT mode and
activations keep the members in a ``torch.ao.nn.intrinsic`` container.

>>> import torchlike
>>> conv, bn = torchlike.nn.Conv2d(1, 2, 3).eval(), torchlike.nn.BatchNorm2d(2).eval()
>>> type(fuse_conv_bn(False, conv, bn)).__name__
'Conv2d'
"""
from __future__ import annotations

from ... import nn
from ...ao.nn import intrinsic as nni
from ...nn.utils.fusion import fuse_conv_bn_eval, fuse_linear_bn_eval

__all__ = ["fuse_conv_bn", "fuse_conv_bn_relu", "fuse_linear_bn", "fuse_convtranspose_bn", "get_fuser_method",
           "get_fuser_method_new"]

_QAT_CONV_BN = {nn.Conv1d: nni.ConvBn1d, nn.Conv2d: nni.ConvBn2d, nn.Conv3d: nni.ConvBn3d}
_QAT_CONV_BN_RELU = {nn.Conv1d: nni.ConvBnReLU1d, nn.Conv2d: nni.ConvBnReLU2d, nn.Conv3d: nni.ConvBnReLU3d}
_CONV_RELU = {nn.Conv1d: nni.ConvReLU1d, nn.Conv2d: nni.ConvReLU2d, nn.Conv3d: nni.ConvReLU3d}


def _check_qat_bn(conv, bn, what="Output channel of Conv2d", out=None):
    if conv.training != bn.training:
        raise AssertionError("Conv and BN both must be in the same mode (train or eval).")
    n = conv.out_channels if out is None else out
    if bn.num_features != n:
        raise AssertionError(f"{what} must match num_features of BatchNorm2d." if out is None else
                             f"{what} must match num_features of BatchNorm1d")
    if not bn.affine:
        raise AssertionError("Only support fusing BatchNorm2d with affine set to True")
    if not bn.track_running_stats:
        raise AssertionError("Only support fusing BatchNorm2d with tracking_running_stats set to True")


def fuse_conv_bn(is_qat, conv, bn):
    """Conv + BatchNorm: a ``ConvBn*d`` for QAT, else the conv with the statistics folded in (eval only)."""
    if is_qat:
        _check_qat_bn(conv, bn)
        cls = _QAT_CONV_BN.get(type(conv))
        if cls is None:
            raise NotImplementedError(f"Cannot fuse train modules: {(conv, bn)}")
        return cls(conv, bn)
    return fuse_conv_bn_eval(conv, bn)


def fuse_conv_bn_relu(is_qat, conv, bn, relu):
    """Conv + BatchNorm + ReLU: a ``ConvBnReLU*d`` for QAT, else ``ConvReLU*d`` of the folded conv."""
    if is_qat:
        _check_qat_bn(conv, bn)
        cls = _QAT_CONV_BN_RELU.get(type(conv))
        if cls is None:
            raise NotImplementedError(f"Cannot fuse train modules: {(conv, bn, relu)}")
        return cls(conv, bn, relu)
    cls = _CONV_RELU.get(type(conv))
    if cls is None:
        raise NotImplementedError(f"Cannot fuse eval modules: {(conv, bn, relu)}")
    return cls(fuse_conv_bn_eval(conv, bn), relu)


def fuse_linear_bn(is_qat, linear, bn):
    """Linear + BatchNorm1d: a ``LinearBn1d`` for QAT, else the linear with the statistics folded in."""
    if is_qat:
        _check_qat_bn(linear, bn, "Output features of Linear", linear.out_features)
        return nni.LinearBn1d(linear, bn)
    return fuse_linear_bn_eval(linear, bn)


def fuse_convtranspose_bn(is_qat, convt, bn):
    """ConvTranspose + BatchNorm (eval only): the transposed conv with the statistics folded in."""
    if is_qat:
        raise Exception("Fusing ConvTranspose+BatchNorm not yet supported in QAT.")  # (torch's type)
    return fuse_conv_bn_eval(convt, bn, transpose=True)


def _wrap(cls):
    def fuse(is_qat, *modules):
        return cls(*modules)
    fuse.__name__ = fuse.__qualname__ = f"fuse_{cls.__name__}"
    return fuse


_DEFAULT_OP_LIST_TO_FUSER_METHOD = {
    (nn.Conv1d, nn.BatchNorm1d): fuse_conv_bn, (nn.Conv1d, nn.BatchNorm1d, nn.ReLU): fuse_conv_bn_relu,
    (nn.Conv2d, nn.BatchNorm2d): fuse_conv_bn, (nn.Conv2d, nn.BatchNorm2d, nn.ReLU): fuse_conv_bn_relu,
    (nn.Conv3d, nn.BatchNorm3d): fuse_conv_bn, (nn.Conv3d, nn.BatchNorm3d, nn.ReLU): fuse_conv_bn_relu,
    (nn.Conv1d, nn.ReLU): _wrap(nni.ConvReLU1d), (nn.Conv2d, nn.ReLU): _wrap(nni.ConvReLU2d),
    (nn.Conv3d, nn.ReLU): _wrap(nni.ConvReLU3d),
    (nn.Linear, nn.BatchNorm1d): fuse_linear_bn, (nn.Linear, nn.ReLU): _wrap(nni.LinearReLU),
    (nn.BatchNorm2d, nn.ReLU): _wrap(nni.BNReLU2d), (nn.BatchNorm3d, nn.ReLU): _wrap(nni.BNReLU3d),
    (nn.ConvTranspose1d, nn.BatchNorm1d): fuse_convtranspose_bn,
    (nn.ConvTranspose2d, nn.BatchNorm2d): fuse_convtranspose_bn,
    (nn.ConvTranspose3d, nn.BatchNorm3d): fuse_convtranspose_bn,
}


def get_fuser_method(op_list, additional_fuser_method_mapping=None):
    """The fuser method for the tuple of module types ``op_list`` (``additional_fuser_method_mapping`` first)."""
    table = {**_DEFAULT_OP_LIST_TO_FUSER_METHOD, **(additional_fuser_method_mapping or {})}
    method = table.get(op_list)
    if method is None:
        raise AssertionError(f"did not find fuser method for: {op_list} ")
    return method


get_fuser_method_new = get_fuser_method
