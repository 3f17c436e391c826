"""Transformer, TransformerEncoder/Decoder and their layers, following torch's module structure,
parameter names, initialisation and forward (post-norm by default, ``norm_first`` for pre-norm).

>>> import torchlike as torch
>>> layer = torch.nn.TransformerEncoderLayer(d_model=8, nhead=2, dim_feedforward=16, batch_first=True)
>>> enc = torch.nn.TransformerEncoder(layer, num_layers=2)
>>> enc(torch.zeros(3, 5, 8)).shape
torch.Size([3, 5, 8])
"""
from __future__ import annotations

import copy
import warnings

import numpy as np

from ... import _creation, _dtype, _errors, _profiler_state as _prof
from ...autograd import grad_mode
from .. import functional as F
from .. import init
from .activation import GELU, ReLU
from ..functional._attention import _mask_type_check, _mismatched_masks
from .activation_attn import MultiheadAttention
from .container import ModuleList
from .dropout import Dropout
from .linear import Linear
from .module import Module
from .normalization import LayerNorm

__all__ = ["Transformer", "TransformerEncoder", "TransformerDecoder", "TransformerEncoderLayer",
           "TransformerDecoderLayer"]


def _generate_square_subsequent_mask(sz, device=None, dtype=None):
    m = np.triu(np.full((sz, sz), -np.inf, np.float64), k=1)  # torch.full's dtype: the default, not float64
    return _creation.tensor(m, device=device, dtype=dtype if dtype is not None else _dtype.get_default_dtype())


def _get_clones(module, N):
    return ModuleList([copy.deepcopy(module) for _ in range(N)])


def _get_activation_fn(activation):
    if activation == "relu":
        return F.relu
    if activation == "gelu":
        return F.gelu
    raise RuntimeError(f"activation should be relu/gelu, not {activation}")


def _detect_is_causal_mask(mask, is_causal=None, size=None):
    make_causal = is_causal is True
    if is_causal is None and mask is not None:
        sz = size if size is not None else mask.size(-2)
        causal = _generate_square_subsequent_mask(sz, dtype=mask.dtype)
        if tuple(mask.size()) == tuple(causal.size()):
            make_causal = bool((mask == causal).all())
        else:
            make_causal = False
    return make_causal


class TransformerEncoderLayer(Module):
    """Self-attention + feed-forward block (post-norm unless ``norm_first``)."""
    __constants__ = ["norm_first"]

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation=F.relu, layer_norm_eps=1e-5,
                 batch_first=False, norm_first=False, bias=True, device=None, dtype=None):
        super().__init__()
        fk = dict(device=device, dtype=dtype)
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first,
                                            **fk)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, **fk)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, **fk)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **fk)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **fk)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        if isinstance(activation, str):
            activation = _get_activation_fn(activation)
        self.activation_relu_or_gelu = (1 if activation is F.relu or isinstance(activation, ReLU) else
                                        2 if activation is F.gelu or isinstance(activation, GELU) else 0)
        self.activation = activation

    def __setstate__(self, state):
        super().__setstate__(state)
        if not hasattr(self, "activation"):
            self.activation = F.relu

    def forward(self, src, src_mask=None, src_key_padding_mask=None, is_causal=False):
        _mask_type_check(src_key_padding_mask, "src_key_padding_mask")  # (torch's F._canonical_mask of each)
        _mask_type_check(src_mask, "src_mask")
        src_key_padding_mask, src_mask = _mismatched_masks(src_key_padding_mask, "src_key_padding_mask", src_mask,
                                                          "src_mask", src.dtype)
        if _prof._COLLECTING and self._torch_fast_path(src):
            sa, mask = self.self_attn, src_key_padding_mask if src_key_padding_mask is not None else src_mask
            args = (src, sa.embed_dim, sa.num_heads, sa.in_proj_weight, sa.in_proj_bias, sa.out_proj.weight,
                    sa.out_proj.bias, self.activation_relu_or_gelu == 2, self.norm_first, self.norm1.eps,
                    self.norm1.weight, self.norm1.bias, self.norm2.weight, self.norm2.bias, self.linear1.weight,
                    self.linear1.bias, self.linear2.weight, self.linear2.bias)
            if mask is not None:
                args += (mask, 1 if mask is src_key_padding_mask else 0)
            return _prof.run_fused("_transformer_encoder_layer_fwd", args,
                                   lambda: self._forward(src, src_mask, src_key_padding_mask, is_causal))
        return self._forward(src, src_mask, src_key_padding_mask, is_causal)

    def _torch_fast_path(self, src):
        """Whether torch runs this layer as its fused ``_transformer_encoder_layer_fwd``: eval mode without
        grad, batch-first, ReLU/GELU, no module hooks (its ``why_not_sparsity_fast_path`` is empty)."""
        sa = self.self_attn
        if src.dim() != 3 or self.training or not sa.batch_first or sa.in_proj_bias is None:
            return False
        if not sa._qkv_same_embed_dim or not self.activation_relu_or_gelu or self.norm1.eps != self.norm2.eps:
            return False
        if sa.num_heads % 2 or any(m._forward_hooks or m._forward_pre_hooks for m in self.modules()):
            return False
        args = (src, sa.in_proj_weight, sa.in_proj_bias, sa.out_proj.weight, sa.out_proj.bias, self.norm1.weight,
                self.norm1.bias, self.norm2.weight, self.norm2.bias, self.linear1.weight, self.linear1.bias,
                self.linear2.weight, self.linear2.bias)
        return not (grad_mode.is_grad_enabled() and any(t is not None and t.requires_grad for t in args))

    def _forward(self, src, src_mask, src_key_padding_mask, is_causal):
        x = src
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), src_mask, src_key_padding_mask, is_causal=is_causal)
            x = x + self._ff_block(self.norm2(x))
        else:
            x = self.norm1(x + self._sa_block(x, src_mask, src_key_padding_mask, is_causal=is_causal))
            x = self.norm2(x + self._ff_block(x))
        return x

    def _sa_block(self, x, attn_mask, key_padding_mask, is_causal=False):
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask, need_weights=False,
                           is_causal=is_causal)[0]
        return self.dropout1(x)

    def _ff_block(self, x):
        x = self.linear2(self.dropout(self.activation(self.linear1(x))))
        return self.dropout2(x)


class TransformerDecoderLayer(Module):
    """Self-attention, cross-attention over ``memory`` and feed-forward block."""
    __constants__ = ["norm_first"]

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation=F.relu, layer_norm_eps=1e-5,
                 batch_first=False, norm_first=False, bias=True, device=None, dtype=None):
        super().__init__()
        fk = dict(device=device, dtype=dtype)
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, batch_first=batch_first, bias=bias,
                                            **fk)
        self.multihead_attn = MultiheadAttention(d_model, nhead, dropout=dropout, batch_first=batch_first,
                                                 bias=bias, **fk)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, **fk)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, **fk)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **fk)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **fk)
        self.norm3 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **fk)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        self.dropout3 = Dropout(dropout)
        if isinstance(activation, str):
            self.activation = _get_activation_fn(activation)
        else:
            self.activation = activation

    def __setstate__(self, state):
        if "activation" not in state:
            state["activation"] = F.relu
        super().__setstate__(state)

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=False, memory_is_causal=False):
        x = tgt
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), tgt_mask, tgt_key_padding_mask, tgt_is_causal)
            x = x + self._mha_block(self.norm2(x), memory, memory_mask, memory_key_padding_mask, memory_is_causal)
            x = x + self._ff_block(self.norm3(x))
        else:
            x = self.norm1(x + self._sa_block(x, tgt_mask, tgt_key_padding_mask, tgt_is_causal))
            x = self.norm2(x + self._mha_block(x, memory, memory_mask, memory_key_padding_mask, memory_is_causal))
            x = self.norm3(x + self._ff_block(x))
        return x

    def _sa_block(self, x, attn_mask, key_padding_mask, is_causal=False):
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask, is_causal=is_causal,
                           need_weights=False)[0]
        return self.dropout1(x)

    def _mha_block(self, x, mem, attn_mask, key_padding_mask, is_causal=False):
        x = self.multihead_attn(x, mem, mem, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                                is_causal=is_causal, need_weights=False)[0]
        return self.dropout2(x)

    def _ff_block(self, x):
        x = self.linear2(self.dropout(self.activation(self.linear1(x))))
        return self.dropout3(x)


class TransformerEncoder(Module):
    """A stack of ``num_layers`` deep copies of ``encoder_layer`` (``layers``) plus an optional ``norm``."""
    __constants__ = ["norm"]

    def __init__(self, encoder_layer, num_layers, norm=None, enable_nested_tensor=True, mask_check=True):
        super().__init__()
        self.layers = _get_clones(encoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm
        self.enable_nested_tensor = enable_nested_tensor
        self.use_nested_tensor = enable_nested_tensor
        self.mask_check = mask_check
        why_not = ""  # torch's reasons, word for word
        if not isinstance(encoder_layer, TransformerEncoderLayer):
            why_not = "encoder_layer was not TransformerEncoderLayer"
        elif encoder_layer.norm_first:
            why_not = "encoder_layer.norm_first was True"
        elif not encoder_layer.self_attn.batch_first:
            why_not = "encoder_layer.self_attn.batch_first was not True(use batch_first for better inference performance)"
        elif not encoder_layer.self_attn._qkv_same_embed_dim:
            why_not = "encoder_layer.self_attn._qkv_same_embed_dim was not True"
        elif encoder_layer.self_attn.in_proj_bias is None:
            why_not = "encoder_layer.self_attn was passed bias=False"
        elif not encoder_layer.activation_relu_or_gelu:
            why_not = "encoder_layer.activation_relu_or_gelu was not True"
        elif encoder_layer.norm1.eps != encoder_layer.norm2.eps:
            why_not = "encoder_layer.norm1.eps was not equal to encoder_layer.norm2.eps"
        elif encoder_layer.self_attn.num_heads % 2 == 1:
            why_not = "encoder_layer.self_attn.num_heads is odd"
        if enable_nested_tensor and why_not:
            warnings.warn(f"enable_nested_tensor is True, but self.use_nested_tensor is False because {why_not}",
                          stacklevel=2)
            self.use_nested_tensor = False

    def forward(self, src, mask=None, src_key_padding_mask=None, is_causal=None):
        _mask_type_check(src_key_padding_mask, "src_key_padding_mask")
        _mask_type_check(mask, "mask")
        src_key_padding_mask, mask = _mismatched_masks(src_key_padding_mask, "src_key_padding_mask", mask, "mask",
                                                      src.dtype)
        seq_len = src.shape[1] if (self.layers[0].self_attn.batch_first and src.dim() == 3) else src.shape[0]
        is_causal = _detect_is_causal_mask(mask, is_causal, seq_len)
        # torch runs padded batches as nested tensors on its inference fast path: padded rows come out as 0
        nested = (self.use_nested_tensor and not self.training and src.dim() == 3 and mask is None
                  and src_key_padding_mask is not None and src_key_padding_mask.dtype.name == "bool"
                  and not (grad_mode.is_grad_enabled() and (src.requires_grad or
                                                            any(p.requires_grad for p in self.parameters()))))
        if nested:  # torch's TORCH_WARN_ONCE when that nested tensor is made
            _errors.torch_warn("The PyTorch API of nested tensors is in prototype stage and will change in the near "
                               "future. We recommend specifying layout=torch.jagged when constructing a nested "
                               "tensor, as this layout receives active development, has better operator coverage, "
                               "and works with torch.compile.", "aten/src/ATen/NestedTensorImpl.cpp:177", once=True)
        output = src
        for mod in self.layers:
            output = mod(output, src_mask=mask, is_causal=is_causal, src_key_padding_mask=src_key_padding_mask)
        if nested:
            output = output.masked_fill(src_key_padding_mask.unsqueeze(-1), 0.0)
        if self.norm is not None:
            output = self.norm(output)
        return output


class TransformerDecoder(Module):
    """A stack of ``num_layers`` deep copies of ``decoder_layer`` plus an optional ``norm``."""
    __constants__ = ["norm"]

    def __init__(self, decoder_layer, num_layers, norm=None):
        super().__init__()
        self.layers = _get_clones(decoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=None, memory_is_causal=False):
        output = tgt
        first = self.layers[0]
        batch_first = first.self_attn.batch_first
        seq_len = tgt.shape[1] if (batch_first and tgt.dim() == 3) else tgt.shape[0]
        tgt_is_causal = _detect_is_causal_mask(tgt_mask, tgt_is_causal, seq_len)
        for mod in self.layers:
            output = mod(output, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                         tgt_key_padding_mask=tgt_key_padding_mask, memory_key_padding_mask=memory_key_padding_mask,
                         tgt_is_causal=tgt_is_causal, memory_is_causal=memory_is_causal)
        if self.norm is not None:
            output = self.norm(output)
        return output


class Transformer(Module):
    """The encoder-decoder Transformer of "Attention Is All You Need"."""

    def __init__(self, d_model=512, nhead=8, num_encoder_layers=6, num_decoder_layers=6, dim_feedforward=2048,
                 dropout=0.1, activation=F.relu, custom_encoder=None, custom_decoder=None, layer_norm_eps=1e-5,
                 batch_first=False, norm_first=False, bias=True, device=None, dtype=None):
        super().__init__()
        fk = dict(device=device, dtype=dtype)
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            layer = TransformerEncoderLayer(d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps,
                                            batch_first, norm_first, bias, **fk)
            self.encoder = TransformerEncoder(layer, num_encoder_layers,
                                              LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **fk))
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            layer = TransformerDecoderLayer(d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps,
                                            batch_first, norm_first, bias, **fk)
            self.decoder = TransformerDecoder(layer, num_decoder_layers,
                                              LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **fk))
        self._reset_parameters()
        self.d_model = d_model
        self.nhead = nhead
        self.batch_first = batch_first

    def forward(self, src, tgt, src_mask=None, tgt_mask=None, memory_mask=None, src_key_padding_mask=None,
                tgt_key_padding_mask=None, memory_key_padding_mask=None, src_is_causal=None, tgt_is_causal=None,
                memory_is_causal=False):
        is_batched = src.dim() == 3
        if not self.batch_first and src.size(1) != tgt.size(1) and is_batched:
            raise RuntimeError("the batch number of src and tgt must be equal")
        if self.batch_first and src.size(0) != tgt.size(0) and is_batched:
            raise RuntimeError("the batch number of src and tgt must be equal")
        if src.size(-1) != self.d_model or tgt.size(-1) != self.d_model:
            raise RuntimeError("the feature number of src and tgt must be equal to d_model")
        memory = self.encoder(src, mask=src_mask, src_key_padding_mask=src_key_padding_mask,
                              is_causal=src_is_causal)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                            tgt_key_padding_mask=tgt_key_padding_mask,
                            memory_key_padding_mask=memory_key_padding_mask, tgt_is_causal=tgt_is_causal,
                            memory_is_causal=memory_is_causal)

    @staticmethod
    def generate_square_subsequent_mask(sz, device=None, dtype=None):
        """A float (sz, sz) mask: -inf above the diagonal, 0 elsewhere."""
        return _generate_square_subsequent_mask(sz, device=device, dtype=dtype)

    def _reset_parameters(self):
        for p in self.parameters():
            if p.dim() > 1:
                init.xavier_uniform_(p)
