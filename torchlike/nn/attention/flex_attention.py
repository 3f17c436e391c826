"""torchlike.nn.attention.flex_attention: attention with user score/mask functions (torch's flex_attention).

torch compiles ``score_mod``/``mask_mod`` into a block-sparse kernel; torchlike evaluates them densely by
calling them once on broadcast index tensors (``b`` of shape ``(B,1,1,1)``, ``h`` ``(1,H,1,1)``, ``q_idx``
``(1,1,Q,1)``, ``kv_idx`` ``(1,1,1,KV)``), so any elementwise function of the indices works and XLA fuses
the result.  Numerics match ``scaled_dot_product_attention`` with the same mask.

>>> import torchlike
>>> from torchlike.nn.attention.flex_attention import create_block_mask, flex_attention
>>> causal = lambda b, h, q_idx, kv_idx: q_idx >= kv_idx
>>> bm = create_block_mask(causal, None, None, 4, 4, device="cpu")
>>> q = torchlike.ones(1, 2, 4, 8)
>>> flex_attention(q, q, q, block_mask=bm).shape
torch.Size([1, 2, 4, 8])
"""
from __future__ import annotations

import math
from typing import NamedTuple, Optional, TypedDict

from ... import _dtype, cuda
from ..._creation_ranges import arange
from ..._ops.reduction import logsumexp
from ..._ops.special import softmax

__all__ = ["FlexKernelOptions", "AuxRequest", "AuxOutput", "BlockMask", "create_block_mask", "create_mask", "flex_attention", "and_masks", "or_masks",
           "noop_mask", "_DEFAULT_SPARSE_BLOCK_SIZE"]

_DEFAULT_SPARSE_BLOCK_SIZE = 128


class AuxRequest(NamedTuple):
    """Which auxiliary outputs ``flex_attention(..., return_aux=...)`` computes."""
    lse: bool = False
    max_scores: bool = False


class AuxOutput(NamedTuple):
    """Auxiliary outputs of flex_attention (None where not requested)."""
    lse: Optional[object] = None
    max_scores: Optional[object] = None


def noop_mask(b, h, q_idx, kv_idx):
    """A mask_mod that keeps every position."""
    return q_idx.new_ones((), dtype=_dtype.bool)


def _noop_score(score, b, h, q_idx, kv_idx):
    return score


def and_masks(*mask_mods):
    """The mask_mod keeping a position only where every one of ``mask_mods`` keeps it."""
    def mask(b, h, q_idx, kv_idx):
        out = noop_mask(b, h, q_idx, kv_idx)
        for m in mask_mods:
            out = out & m(b, h, q_idx, kv_idx)
        return out
    return mask


def or_masks(*mask_mods):
    """The mask_mod keeping a position where any of ``mask_mods`` keeps it."""
    def mask(b, h, q_idx, kv_idx):
        out = ~noop_mask(b, h, q_idx, kv_idx)
        for m in mask_mods:
            out = out | m(b, h, q_idx, kv_idx)
        return out
    return mask


def _index_grids(B, H, Q, KV, device=None):
    kw = {"device": device} if device is not None else {}
    return (arange(B, **kw).view(B, 1, 1, 1), arange(H, **kw).view(1, H, 1, 1),
            arange(Q, **kw).view(1, 1, Q, 1), arange(KV, **kw).view(1, 1, 1, KV))


def create_mask(mod_fn, B, H, Q_LEN, KV_LEN, device="cpu"):
    """The dense boolean mask ``(B, H, Q_LEN, KV_LEN)`` of a mask_mod (``B``/``H`` None mean 1)."""
    B, H = 1 if B is None else B, 1 if H is None else H
    b, h, q, kv = _index_grids(B, H, Q_LEN, KV_LEN, device)
    return mod_fn(b, h, q, kv).expand(B, H, Q_LEN, KV_LEN)


class BlockMask:
    """The mask of a flex_attention call: its ``mask_mod``, shape and (here dense) boolean mask."""

    def __init__(self, mask_mod, shape, dense_mask, BLOCK_SIZE=(_DEFAULT_SPARSE_BLOCK_SIZE,) * 2):
        self.mask_mod, self._shape, self._dense = mask_mod, tuple(shape), dense_mask
        self.BLOCK_SIZE = BLOCK_SIZE if isinstance(BLOCK_SIZE, tuple) else (BLOCK_SIZE, BLOCK_SIZE)
        self.seq_lengths = self._shape[-2:]

    @property
    def shape(self):
        return self._shape

    def to_dense(self):
        return self._dense

    def to(self, device):
        return BlockMask(self.mask_mod, self._shape, self._dense.to(device), self.BLOCK_SIZE)

    def sparsity(self) -> float:
        return 100.0 * (1.0 - float(self._dense.float().mean().item()))

    def __repr__(self):
        return f"BlockMask(shape={self._shape}, sparsity={self.sparsity():.2f}%)"


def create_block_mask(mask_mod, B, H, Q_LEN, KV_LEN, device="cuda", BLOCK_SIZE=_DEFAULT_SPARSE_BLOCK_SIZE,
                      _compile=False):
    """A :class:`BlockMask` for ``mask_mod`` over ``(B, H, Q_LEN, KV_LEN)`` (``B``/``H`` None broadcast)."""
    dev = device if device != "cuda" or cuda.is_available() else "cpu"
    dense = create_mask(mask_mod, B, H, Q_LEN, KV_LEN, dev)
    return BlockMask(mask_mod, (1 if B is None else B, 1 if H is None else H, Q_LEN, KV_LEN), dense, BLOCK_SIZE)


def flex_attention(query, key, value, score_mod=None, block_mask=None, scale=None, enable_gqa=False,
                   return_lse=False, kernel_options=None, *, return_aux=None):
    """``softmax(score_mod(q k^T * scale)) v`` over the positions ``block_mask`` keeps."""
    B, Hq, Q, D = query.shape
    Hkv, KV = key.shape[1], key.shape[2]
    if Hq != Hkv:
        if not enable_gqa or Hq % Hkv:
            raise ValueError(f"Expect query and key/value to have the same number of heads but got Hq={Hq} and "
                             f"Hkv={Hkv}. Try setting enable_gqa=True for GQA.")
        key = key.repeat_interleave(Hq // Hkv, dim=1)
        value = value.repeat_interleave(Hq // Hkv, dim=1)
    sc = 1.0 / math.sqrt(D) if scale is None else scale
    scores = (query @ key.transpose(-2, -1)) * sc
    if score_mod is not None:
        b, h, q, kv = _index_grids(B, Hq, Q, KV, query.device)
        scores = score_mod(scores, b, h, q, kv)
    if block_mask is not None:
        scores = scores.masked_fill(~block_mask.to_dense(), float("-inf"))
    lse = logsumexp(scores.float(), dim=-1)
    probs = softmax(scores.float(), dim=-1).nan_to_num(0.0).to(query.dtype)
    out = probs @ value
    if return_aux is not None:
        return out, AuxOutput(lse=lse if return_aux.lse else None,
                              max_scores=scores.float().amax(dim=-1) if return_aux.max_scores else None)
    if return_lse:
        return out, lse
    return out


class FlexKernelOptions(TypedDict, total=False):
    """Kernel tuning options torch's Triton flex-attention kernels read (``kernel_options=``); torchlike's
    one XLA implementation accepts and ignores them."""
    num_warps: int
    num_stages: int
    BLOCK_M: int
    BLOCK_N: int
    BLOCK_M1: int
    BLOCK_N1: int
    BLOCK_M2: int
    BLOCK_N2: int
    PRESCALE_QK: bool
    ROWS_GUARANTEED_SAFE: bool
    BLOCKS_ARE_CONTIGUOUS: bool
    WRITE_DQ: bool
    FORCE_USE_FLEX_ATTENTION: bool
    USE_TMA: bool
    kpack: int
    matrix_instr_nonkdim: int
    waves_per_eu: int
    BACKEND: str
