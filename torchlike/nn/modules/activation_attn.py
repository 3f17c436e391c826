"""nn.MultiheadAttention with torch's parameters (in_proj_weight or q/k/v_proj_weight, in_proj_bias,
bias_k/bias_v, out_proj), init and forward conventions.

>>> import torchlike as torch
>>> mha = torch.nn.MultiheadAttention(8, 2, batch_first=True)
>>> x = torch.zeros(3, 5, 8)
>>> out, w = mha(x, x, x)
>>> out.shape, w.shape
(torch.Size([3, 5, 8]), torch.Size([3, 5, 5]))
"""
from __future__ import annotations

from ... import _creation, _profiler_state as _prof
from ...autograd import grad_mode
from .. import init
from ..functional._attention import _mismatched_masks, multi_head_attention_forward
from ..parameter import Parameter
from .linear import NonDynamicallyQuantizableLinear
from .module import Module

__all__ = ["MultiheadAttention"]


class MultiheadAttention(Module):
    """Multi-head attention: ``softmax(Q K^T / sqrt(d)) V`` per head, then an output projection."""
    __constants__ = ["batch_first"]

    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True, add_bias_kv=False, add_zero_attn=False,
                 kdim=None, vdim=None, batch_first=False, device=None, dtype=None):
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(f"embed_dim and num_heads must be greater than 0, got embed_dim={embed_dim} and "
                             f"num_heads={num_heads} instead")
        super().__init__()
        fk = dict(device=device, dtype=dtype)
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.batch_first = batch_first
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != self.embed_dim:
            raise AssertionError("embed_dim must be divisible by num_heads")
        if not self._qkv_same_embed_dim:
            self.q_proj_weight = Parameter(_creation.empty((embed_dim, embed_dim), **fk))
            self.k_proj_weight = Parameter(_creation.empty((embed_dim, self.kdim), **fk))
            self.v_proj_weight = Parameter(_creation.empty((embed_dim, self.vdim), **fk))
            self.register_parameter("in_proj_weight", None)
        else:
            self.in_proj_weight = Parameter(_creation.empty((3 * embed_dim, embed_dim), **fk))
            self.register_parameter("q_proj_weight", None)
            self.register_parameter("k_proj_weight", None)
            self.register_parameter("v_proj_weight", None)
        if bias:
            self.in_proj_bias = Parameter(_creation.empty(3 * embed_dim, **fk))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias, **fk)
        if add_bias_kv:
            self.bias_k = Parameter(_creation.empty((1, 1, embed_dim), **fk))
            self.bias_v = Parameter(_creation.empty((1, 1, embed_dim), **fk))
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _reset_parameters(self):
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            init.xavier_uniform_(self.q_proj_weight)
            init.xavier_uniform_(self.k_proj_weight)
            init.xavier_uniform_(self.v_proj_weight)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)
        if self.bias_k is not None:
            init.xavier_normal_(self.bias_k)
        if self.bias_v is not None:
            init.xavier_normal_(self.bias_v)

    def __setstate__(self, state):
        if "_qkv_same_embed_dim" not in state:
            state["_qkv_same_embed_dim"] = True
        super().__setstate__(state)

    def forward(self, query, key, value, key_padding_mask=None, need_weights=True, attn_mask=None,
                average_attn_weights=True, is_causal=False):
        key_padding_mask, attn_mask = _mismatched_masks(key_padding_mask, "key_padding_mask", attn_mask, "attn_mask",
                                                       query.dtype)
        if _prof._COLLECTING and self._torch_fast_path(query, key, value):
            args = (query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight, self.in_proj_bias,
                    self.out_proj.weight, self.out_proj.bias)
            mask = key_padding_mask if key_padding_mask is not None else attn_mask
            if mask is not None or not need_weights:
                args += (mask, need_weights)
            return _prof.run_fused("_native_multi_head_attention", args, lambda: self._forward(
                query, key, value, key_padding_mask, need_weights, attn_mask, average_attn_weights, is_causal))
        return self._forward(query, key, value, key_padding_mask, need_weights, attn_mask, average_attn_weights,
                             is_causal)

    def _torch_fast_path(self, query, key, value):
        """Whether torch runs this call as its fused ``_native_multi_head_attention`` (its
        ``why_not_fast_path`` is empty): batched self-attention in eval mode without grad."""
        if query.dim() != 3 or query is not key or key is not value or self.training or not self.batch_first:
            return False
        if self.in_proj_weight is None or not self._qkv_same_embed_dim or self.num_heads % 2:
            return False
        if self.bias_k is not None or self.bias_v is not None or self.add_zero_attn:
            return False
        if query.dtype is not self.in_proj_weight.dtype or (self.in_proj_bias is not None and
                                                             query.dtype is not self.in_proj_bias.dtype):
            return False
        args = (query, self.in_proj_weight, self.in_proj_bias, self.out_proj.weight, self.out_proj.bias)
        return not (grad_mode.is_grad_enabled() and any(t is not None and t.requires_grad for t in args))

    def _forward(self, query, key, value, key_padding_mask, need_weights, attn_mask, average_attn_weights,
                 is_causal):
        is_batched = query.dim() == 3
        if self.batch_first and is_batched:  # as torch: q, k and v that were one tensor stay one
            if key is value:
                if query is key:
                    query = key = value = query.transpose(1, 0)
                else:
                    query, key = (x.transpose(1, 0) for x in (query, key))
                    value = key
            else:
                query, key, value = (x.transpose(1, 0) for x in (query, key, value))
        kw = dict(training=self.training, key_padding_mask=key_padding_mask, need_weights=need_weights,
                  attn_mask=attn_mask, average_attn_weights=average_attn_weights, is_causal=is_causal)
        if not self._qkv_same_embed_dim:
            out, w = multi_head_attention_forward(
                query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight, self.in_proj_bias,
                self.bias_k, self.bias_v, self.add_zero_attn, self.dropout, self.out_proj.weight,
                self.out_proj.bias, use_separate_proj_weight=True, q_proj_weight=self.q_proj_weight,
                k_proj_weight=self.k_proj_weight, v_proj_weight=self.v_proj_weight, **kw)
        else:
            out, w = multi_head_attention_forward(
                query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight, self.in_proj_bias,
                self.bias_k, self.bias_v, self.add_zero_attn, self.dropout, self.out_proj.weight,
                self.out_proj.bias, **kw)
        if self.batch_first and is_batched:
            return out.transpose(1, 0), w
        return out, w

    def merge_masks(self, attn_mask, key_padding_mask, query):
        """``(merged mask, mask type)`` for the fused kernel: 1 a key-padding mask, 2 an attention mask
        (expanded to ``(batch, heads, L, L)``, the padding mask added)."""
        mask_type, merged = None, None
        if key_padding_mask is not None:
            mask_type, merged = 1, key_padding_mask
        if attn_mask is not None:
            batch_size, seq_len, _ = query.shape
            mask_type = 2
            if attn_mask.dim() == 3:
                merged = attn_mask.view(batch_size, -1, seq_len, seq_len)
            else:
                merged = attn_mask.view(1, 1, seq_len, seq_len).expand(batch_size, self.num_heads, -1, -1)
            if key_padding_mask is not None:
                merged = merged + key_padding_mask.view(batch_size, 1, 1, seq_len).expand(-1, self.num_heads, -1,
                                                                                          -1)
        return merged, mask_type
