"""``torch.nn.attention.bias``: causal attention biases for ``scaled_dot_product_attention``.

A ``CausalBias`` is the boolean mask it stands for (True: attend), so passing it as ``attn_mask`` gives
torch's result with torchlike's one SDPA implementation.

>>> import torchlike
>>> from torchlike.nn.attention.bias import causal_lower_right
>>> causal_lower_right(2, 3).tolist()
[[True, True, False], [True, True, True]]
"""
from __future__ import annotations

from enum import IntEnum, auto
from warnings import warn

from ... import _dtype
from ..._creation import ones
from ..._ops.rearrange import tril
from ...tensor import Tensor
from ..._torch_function import disabled_torch_function_impl as _disabled_torch_function_impl

__all__ = ["causal_upper_left", "causal_lower_right", "CausalVariant", "CausalBias"]


class CausalVariant(IntEnum):
    """``UPPER_LEFT``: ``tril(ones(q, kv))``; ``LOWER_RIGHT``: the triangle aligned to the lower right corner."""
    UPPER_LEFT = auto()
    LOWER_RIGHT = auto()


class CausalBias(Tensor):
    """A causal (triangular) attention bias of ``seq_len_q`` x ``seq_len_kv`` (see :class:`CausalVariant`)."""
    __torch_function__ = _disabled_torch_function_impl  # torchlike's own subclass: ops see a plain Tensor

    def __new__(cls, variant, seq_len_q, seq_len_kv):
        if not isinstance(variant, CausalVariant):
            raise AssertionError(f"variant must be a CausalVariant, got {type(variant).__name__}")
        offset = 0 if variant == CausalVariant.UPPER_LEFT else seq_len_kv - seq_len_q
        return tril(ones(seq_len_q, seq_len_kv, dtype=_dtype.bool), diagonal=offset).as_subclass(cls)

    def __init__(self, variant, seq_len_q: int, seq_len_kv: int) -> None:
        self.variant = variant
        self.seq_len_q = seq_len_q
        self.seq_len_kv = seq_len_kv
        if seq_len_q > seq_len_kv and variant == CausalVariant.LOWER_RIGHT:
            warn("Lower right causal bias will produce NaNs in the output when seq_len_q > seq_len_kv!", stacklevel=2)

    def _materialize(self, device=None):
        """The mask as a plain boolean tensor."""
        t = self.as_subclass(Tensor)
        return t if device is None else t.to(device)

    def __repr__(self) -> str:
        return self._materialize().__repr__()


def causal_upper_left(*size) -> CausalBias:
    """The UPPER_LEFT causal bias of ``size`` (q, kv): what ``is_causal=True`` means."""
    if len(size) != 2:
        raise AssertionError("causal_upper_left only supports 2D tensors")
    return CausalBias(CausalVariant.UPPER_LEFT, *size)


def causal_lower_right(*size) -> CausalBias:
    """The LOWER_RIGHT causal bias of ``size`` (q, kv): the triangle aligned to the lower right corner."""
    if len(size) != 2:
        raise AssertionError("causal_lower_right only supports 2D tensors")
    return CausalBias(CausalVariant.LOWER_RIGHT, *size)
