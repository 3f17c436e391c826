"""torch.ao.nn.quantized's functional modules: ``FloatFunctional`` (float add/mul/cat that a model routes through
a module so that ``prepare`` can observe their outputs) and ``QFunctional``, what ``convert`` makes of it (the same
ops on quantized tensors, requantized to the observed scale and zero point).

>>> import torchlike
>>> from torchlike.ao.nn.quantized import FloatFunctional
>>> FloatFunctional().add(torchlike.tensor(3.0), torchlike.tensor(4.0))
tensor(7.)
"""
from __future__ import annotations

from ....._ops.shape import cat as _cat
from .....nn import functional as F
from .....nn.modules.linear import Identity
from .....nn.modules.module import Module
from .. import functional as qF
from .utils import load_qparams, save_qparams

__all__ = ["FloatFunctional", "FXFloatFunctional", "QFunctional"]


class FloatFunctional(Module):
    """State collector for float operations: ``add``, ``cat``, ``mul``, ``add_relu``, ``add_scalar``,
    ``mul_scalar``, ``matmul`` (their outputs pass through ``activation_post_process``)."""

    def __init__(self):
        super().__init__()
        self.activation_post_process = Identity()

    def forward(self, x):
        raise RuntimeError("FloatFunctional is not intended to use the 'forward'. Please use the underlying "
                           "operation")

    def add(self, x, y):
        return self.activation_post_process(x + y)

    def add_scalar(self, x, y):
        return x + y

    def mul(self, x, y):
        return self.activation_post_process(x * y)

    def mul_scalar(self, x, y):
        return x * y

    def cat(self, x, dim=0):
        return self.activation_post_process(_cat(x, dim=dim))

    def add_relu(self, x, y):
        return self.activation_post_process(F.relu(x + y))

    def matmul(self, x, y):
        return self.activation_post_process(x @ y)


class FXFloatFunctional(Module):
    """FloatFunctional for FX graph mode (no observer)."""

    def forward(self, x):
        raise RuntimeError("FloatFunctional is not intended to use the 'forward'. Please use the underlying "
                           "operation")

    def add(self, x, y):
        return x + y

    def add_scalar(self, x, y):
        return x + y

    def mul(self, x, y):
        return x * y

    def mul_scalar(self, x, y):
        return x * y

    def cat(self, x, dim=0):
        return _cat(x, dim=dim)

    def add_relu(self, x, y):
        return F.relu(x + y)

    def matmul(self, x, y):
        return x @ y


class QFunctional(Module):
    """The quantized FloatFunctional: the ops on quint8 tensors, outputs quantized with ``scale``/``zero_point``."""

    def __init__(self):
        super().__init__()
        self.scale = 1.0
        self.zero_point = 0
        self.activation_post_process = Identity()

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        super()._save_to_state_dict(destination, prefix, keep_vars)
        save_qparams(self, destination, prefix)

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs):
        load_qparams(self, state_dict, prefix)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, False, missing_keys, unexpected_keys,
                                      error_msgs)

    def _get_name(self):
        return "QFunctional"

    def extra_repr(self):
        return f"scale={self.scale}, zero_point={self.zero_point}"

    def forward(self, x):
        raise RuntimeError("Functional is not intended to use the 'forward'. Please use the underlying operation")

    def add(self, x, y):
        return self.activation_post_process(qF.add(x, y, self.scale, self.zero_point))

    def add_scalar(self, x, y):
        raise NotImplementedError("torch.ops.quantized.add_scalar (QFunctional.add_scalar) is not implemented in "
                                  "torchlike (see docs/differences.md)")

    def mul(self, x, y):
        return self.activation_post_process(qF.mul(x, y, self.scale, self.zero_point))

    def mul_scalar(self, x, y):
        raise NotImplementedError("torch.ops.quantized.mul_scalar (QFunctional.mul_scalar) is not implemented in "
                                  "torchlike (see docs/differences.md)")

    def cat(self, x, dim=0):
        return self.activation_post_process(qF.cat(x, dim, self.scale, self.zero_point))

    def add_relu(self, x, y):
        return self.activation_post_process(qF.add(x, y, self.scale, self.zero_point, relu=True))

    def matmul(self, x, y):
        raise NotImplementedError("torch.ops.quantized.matmul (QFunctional.matmul) is not implemented in "
                                  "torchlike (see docs/differences.md)")

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        if type(mod) is not FloatFunctional:
            raise AssertionError("QFunctional.from_float expects an instance of FloatFunctional")
        scale, zero_point = mod.activation_post_process.calculate_qparams()
        new_mod = QFunctional()
        new_mod.scale = float(scale)
        new_mod.zero_point = int(zero_point)
        return new_mod

