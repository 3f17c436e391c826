"""Attention: scaled_dot_product_attention and multi_head_attention_forward, each one jitted function.

Dropout masks are drawn from torchlike's generator before the call and passed in as arrays, so the
jitted function stays pure and is differentiated by ``jax.vjp``.
"""
from __future__ import annotations

import functools
import math
import warnings

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from ..._aten_vec_sums import reduced_map2_sum
from ..._errors import broadcast_error, tp_name
from ..._dispatch import dispatch
from ..._ops.matmul import matmul_shape_error
from ..._global_settings import matmul_precision as _mm_prec
from ..._ops.registry import functional as _functional
from ...tensor import Tensor
from ... import _autocast as _amp
from ... import _creation, _dtype
from ..._random import draw
from ._linear import _xwt

__all__ = ["scaled_dot_product_attention", "multi_head_attention_forward"]



def _mm(a, b):
    return jnp.matmul(a, b, precision=_mm_prec())


def _qkt(q, k):
    """``q @ k^T`` over the last two dims; with equal batch dims one dot_general that contracts the
    feature dims directly (no transposed copy of ``k`` made or saved for the backward)."""
    if q.shape[:-2] == k.shape[:-2] and q.dtype == k.dtype:
        nb = tuple(range(q.ndim - 2))
        return lax.dot_general(q, k, (((q.ndim - 1,), (k.ndim - 1,)), (nb, nb)), precision=_mm_prec())
    return _mm(q, jnp.swapaxes(k, -1, -2))


def _safe_softmax(s):
    # torch's math SDPA returns 0 (not NaN) for rows whose every score is -inf
    m = jnp.max(s, axis=-1, keepdims=True)
    full = jnp.isneginf(m)
    e = jnp.exp(s - jnp.where(full, 0, m))
    d = jnp.sum(e, axis=-1, keepdims=True)
    return jnp.where(full, 0, e / jnp.where(full, 1, d))


def _bias_from_mask(mask, dt):
    if mask is None:
        return None
    if mask.dtype == jnp.bool_:
        return jnp.where(mask, jnp.array(0, dt), jnp.array(-jnp.inf, dt))
    return mask.astype(dt)


def _sdpa_core(q, k, v, mask, keep, scale, is_causal, gqa, safe=True, flash=False):
    acc = jnp.promote_types(q.dtype, jnp.float32)
    L, S = q.shape[-2], k.shape[-2]
    if gqa and k.shape[-3] != q.shape[-3]:
        r = q.shape[-3] // k.shape[-3]
        k, v = jnp.repeat(k, r, axis=-3), jnp.repeat(v, r, axis=-3)
    s = _qkt(q.astype(acc), k.astype(acc)) * scale
    if is_causal:
        s = jnp.where(jnp.asarray(np.tril(np.ones((L, S), bool))), s, -jnp.inf)
    b = _bias_from_mask(mask, acc)
    if b is not None:
        s = s + b
    if flash:
        # torch's CPU flash kernel for half types: the exponentials are rounded to the half type for the product
        # with v, and their float32 sum divides after it. Bit-equal where torch's kernel takes the scalar exp
        # (rows shorter than a vector); longer rows use its vectorized exp approximation and blocks of 512
        # keys, so 1-ulp differences remain there (a quarter to a tenth of those of one rounding)
        m = jnp.max(s, axis=-1, keepdims=True)
        full = jnp.isneginf(m)
        e = jnp.exp(s - jnp.where(full, 0, m))
        d = jnp.where(full, 1, jnp.sum(e, axis=-1, keepdims=True))
        out = _mm(e.astype(q.dtype).astype(acc), v.astype(acc)) / d
        return jnp.where(full, 0, out).astype(q.dtype), jnp.where(full, 0, e / d)
    w = _safe_softmax(s) if safe else jax.nn.softmax(s, axis=-1)
    if keep is not None:
        w = w * keep
    return _mm(w, v.astype(acc)).astype(q.dtype), w


def _sdpa_impl(q, k, v, mask, keep, scale, is_causal, gqa, flash=False):
    if flash and keep is None and k.shape[-3] == q.shape[-3]:
        return _flash_half(q, k, v, _bias_from_mask(mask, jnp.float32), scale, is_causal)
    return _sdpa_core(q, k, v, mask, keep, scale, is_causal, gqa, flash=flash)[0]


@functools.partial(jax.custom_vjp, nondiff_argnums=(5,))
def _flash_half(q, k, v, bias, scale, is_causal):
    """Half-type SDPA on torch's CPU flash kernel: the forward of ``_sdpa_core(flash=True)``, and a backward
    that follows ``cpu_flash_attention_backward``'s roundings (the differentiated forward kept ``grad_s`` in
    float32 and rounded ``q``/``k``/``v``'s gradients differently: bf16 autocast training drifted)."""
    return _sdpa_core(q, k, v, bias, None, scale, is_causal, False, flash=True)[0]


def _flash_half_fwd(q, k, v, bias, scale, is_causal):
    out = _flash_half(q, k, v, bias, scale, is_causal)
    s = _qkt(q.astype(jnp.float32), k.astype(jnp.float32)) * scale
    if is_causal:
        s = jnp.where(jnp.asarray(np.tril(np.ones(s.shape[-2:], bool))), s, -jnp.inf)
    if bias is not None:
        s = s + bias
    m = jnp.max(s, axis=-1, keepdims=True)
    lse = m + jnp.log(jnp.sum(jnp.exp(s - jnp.where(jnp.isneginf(m), 0, m)), axis=-1, keepdims=True))
    return out, (q, k, v, bias, scale, out, lse)


def _flash_half_bwd(is_causal, res, g):
    # torch: attn = exp(scale q k^T + mask - lse) in float32, rounded to the half type for grad_v = attn^T g;
    # grad_attn = attn (g v^T - rowsum(g * out)), rounded for grad_q = scale grad_attn k and grad_k =
    # scale grad_attn^T q. Each gemm accumulates in float32 and adds into the half-type gradient block by
    # block (query blocks of 32/64/256 rows by length, key blocks of 512), rounding after every block
    q, k, v, bias, scale, out, lse = res
    dt, f = q.dtype, jnp.float32
    L, S = q.shape[-2], k.shape[-2]
    qf, kf, vf, gf = (a.astype(f) for a in (q, k, v, g))
    s = _qkt(qf, kf) * scale
    if bias is not None:
        s = s + bias
    attn = jnp.where(jnp.isneginf(lse), 0, jnp.exp(s - lse))
    if is_causal:
        attn = jnp.where(jnp.asarray(np.tril(np.ones((L, S), bool))), attn, 0)
    dsum = reduced_map2_sum(gf * out.astype(f))[..., None]  # (torch's map2_reduce_all: its lanes' order)
    ds = attn * (_qkt(gf, vf) - dsum)
    attn_r, ds_r = attn.astype(dt).astype(f), ds.astype(dt).astype(f)
    qs = min(256 if L >= 768 else 64 if L >= 192 else 32, L)
    ks = min(512, S)
    gq = [None] * len(range(0, L, qs))
    gk, gv = [None] * len(range(0, S, ks)), [None] * len(range(0, S, ks))

    def add(acc, x):
        return x.astype(dt) if acc is None else (acc.astype(f) + x).astype(dt)

    for a, m0 in enumerate(range(0, L, qs)):
        m1 = min(m0 + qs, L)
        for b, n0 in enumerate(range(0, min(m1, S) if is_causal else S, ks)):
            n1 = min(n0 + ks, S)
            at, d = attn_r[..., m0:m1, n0:n1], ds_r[..., m0:m1, n0:n1]
            gv[b] = add(gv[b], _mm(jnp.swapaxes(at, -1, -2), gf[..., m0:m1, :]))
            gq[a] = add(gq[a], _mm(d, kf[..., n0:n1, :]) * scale)
            gk[b] = add(gk[b], _mm(jnp.swapaxes(d, -1, -2), qf[..., m0:m1, :]) * scale)
    zero = jnp.zeros(k.shape[:-2] + (0, k.shape[-1]), dt)
    gk = [zero if x is None else x for x in gk]
    gv = [zero if x is None else x for x in gv]
    # (keys past the last query's diagonal get no block: zero gradient, as torch's zero-initialised buffers)
    gk = jnp.concatenate(gk, axis=-2)
    gv = jnp.concatenate(gv, axis=-2)
    pad = [(0, 0)] * (k.ndim - 2) + [(0, S - gk.shape[-2]), (0, 0)]
    gk, gv = jnp.pad(gk, pad), jnp.pad(gv, pad)
    gb = None
    if bias is not None:
        axes = tuple(i for i in range(ds.ndim) if i < ds.ndim - bias.ndim or
                     (bias.shape[i - ds.ndim + bias.ndim] == 1 and ds.shape[i] != 1))
        gb = jnp.sum(ds, axis=axes).reshape(bias.shape).astype(bias.dtype)
    return jnp.concatenate(gq, axis=-2), gk, gv, gb, jnp.zeros_like(scale)


_flash_half.defvjp(_flash_half_fwd, _flash_half_bwd)


def _keep_mask(shape, p, dt):
    """Inverted-dropout multipliers (0 or 1/(1-p)) drawn from the default generator."""
    if p >= 1:
        return jnp.zeros(shape, dt)
    return draw("bernoulli", shape, dt, None, (1.0 - p,)) / jnp.asarray(1.0 - p, dt)


@_functional()
@_amp.lower
def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None,
                                 enable_gqa=False):
    """``softmax(q k^T * scale + mask) v`` over the last two dims (torch's math reference).

    >>> import torchlike
    >>> import torchlike.nn.functional as F
    >>> q = torchlike.ones(1, 2, 3, 4)
    >>> F.scaled_dot_product_attention(q, q, q, is_causal=True).shape
    torch.Size([1, 2, 3, 4])
    """
    for n, t in (("query", query), ("key", key), ("value", value)):
        if not isinstance(t, Tensor):
            raise TypeError(f"scaled_dot_product_attention(): argument '{n}' must be Tensor, not "
                            f"{tp_name(t)}")
    if not (query.dtype is key.dtype is value.dtype):
        raise RuntimeError(f"Expected query, key, and value to have the same dtype, but got query.dtype: "
                           f"{_cname(query)} key.dtype: {_cname(key)} and value.dtype: {_cname(value)} instead.")
    if isinstance(attn_mask, Tensor) and attn_mask.dtype.name not in ("bool", "float32", query.dtype.name):
        raise RuntimeError(f"Expected attn_mask dtype to be bool or float or to match query dtype, but got "
                           f"attn_mask.dtype: {_cname(attn_mask)} and  query.dtype: {_cname(query)} instead.")
    if is_causal and attn_mask is not None:
        raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True")
    if not (query.dtype.is_floating_point or query.dtype.is_complex):  # (torch's math kernel's own check)
        raise RuntimeError(f"expected scalar type Float but found {_dtype._CAP[query.dtype.name]}")
    if query.shape[-1] != key.shape[-1]:  # torch's math path fails in its q @ k^T
        matmul_shape_error(tuple(query.shape), tuple(key.shape[:-2]) + (key.shape[-1], key.shape[-2]))
    if not enable_gqa and query.ndim >= 3 and key.ndim >= 3 and query.shape[-3] != key.shape[-3] and \
            key.shape[-3] != 1:
        raise RuntimeError(f"The size of tensor a ({query.shape[-3]}) must match the size of tensor b "
                           f"({key.shape[-3]}) at non-singleton dimension {query.ndim - 3}")
    sc = 1.0 / math.sqrt(query.shape[-1]) if scale is None else float(scale)
    keep = None
    if dropout_p > 0:
        shp = tuple(query.shape[:-1]) + (key.shape[-2],)
        keep = _keep_mask(shp, float(dropout_p), np.dtype(np.promote_types(query.dtype.np, np.float32)))
    statics = (("is_causal", bool(is_causal)), ("gqa", bool(enable_gqa)))
    if keep is None and query.dtype.itemsize == 2 and query.dtype.is_floating_point and query.ndim == 4 \
            and query._dev.type == "cpu":  # (torch's CPU flash kernel: its rounding, see _sdpa_core)
        statics += (("flash", True),)
    try:
        return dispatch(_sdpa_impl, (query, key, value, attn_mask, keep, sc), statics,
                        name="ScaledDotProductAttentionBackward0")
    except RuntimeError:
        if isinstance(attn_mask, Tensor):  # torch adds the mask to q @ k^T in place: that broadcast's words
            err = broadcast_error([tuple(query.shape[:-1]) + (key.shape[-2],), tuple(attn_mask.shape)])
            if err is not None:
                raise err from None
        raise


def _linear(x, w, b):
    y = _xwt(x, w)
    return y if b is None else y + b


def _mha_impl(query, key, value, in_w, in_b, bias_k, bias_v, out_w, out_b, kpm, attn_mask, q_w, k_w, v_w,
              static_k, static_v, keep, *, H, add_zero_attn, need_weights, average, is_causal, separate, batched):
    dt = query.dtype
    if not batched:
        query, key, value = query[:, None], key[:, None], value[:, None]
        if kpm is not None:
            kpm = kpm[None]
    L, N, E = query.shape
    hd = E // H
    # masks become float biases; for MHA a True entry means "masked out" (the opposite of SDPA's bool mask)
    kpm = None if kpm is None else _bias_from_mask(~kpm if kpm.dtype == jnp.bool_ else kpm, dt)
    attn_mask = None if attn_mask is None else _bias_from_mask(
        ~attn_mask if attn_mask.dtype == jnp.bool_ else attn_mask, dt)
    if separate:
        bq = bk = bv = None
        if in_b is not None:
            bq, bk, bv = in_b[:E], in_b[E:2 * E], in_b[2 * E:]
        q, k, v = _linear(query, q_w, bq), _linear(key, k_w, bk), _linear(value, v_w, bv)
    else:
        ws = (in_w[:E], in_w[E:2 * E], in_w[2 * E:])
        bs = (None, None, None) if in_b is None else (in_b[:E], in_b[E:2 * E], in_b[2 * E:])
        q, k, v = _linear(query, ws[0], bs[0]), _linear(key, ws[1], bs[1]), _linear(value, ws[2], bs[2])
    if attn_mask is not None and attn_mask.ndim == 2:
        attn_mask = attn_mask[None]
    if bias_k is not None:
        k = jnp.concatenate([k, jnp.broadcast_to(bias_k.reshape(1, 1, E), (1, N, E))], 0)
        v = jnp.concatenate([v, jnp.broadcast_to(bias_v.reshape(1, 1, E), (1, N, E))], 0)
        if attn_mask is not None:
            attn_mask = jnp.pad(attn_mask, ((0, 0), (0, 0), (0, 1)))
        if kpm is not None:
            kpm = jnp.pad(kpm, ((0, 0), (0, 1)))
    q = q.reshape(L, N * H, hd).transpose(1, 0, 2)
    k = k.reshape(k.shape[0], N * H, hd).transpose(1, 0, 2) if static_k is None else static_k
    v = v.reshape(v.shape[0], N * H, hd).transpose(1, 0, 2) if static_v is None else static_v
    if add_zero_attn:
        k = jnp.concatenate([k, jnp.zeros((N * H, 1, hd), k.dtype)], 1)
        v = jnp.concatenate([v, jnp.zeros((N * H, 1, hd), v.dtype)], 1)
        if attn_mask is not None:
            attn_mask = jnp.pad(attn_mask, ((0, 0), (0, 0), (0, 1)))
        if kpm is not None:
            kpm = jnp.pad(kpm, ((0, 0), (0, 1)))
    S = k.shape[1]
    if kpm is not None:
        kb = jnp.broadcast_to(kpm.reshape(N, 1, 1, S), (N, H, 1, S)).reshape(N * H, 1, S)
        attn_mask = kb if attn_mask is None else attn_mask + kb
    if need_weights:
        s = _mm(q * math.sqrt(1.0 / hd), jnp.swapaxes(k, 1, 2))
        if attn_mask is not None:
            s = s + attn_mask
        w = jax.nn.softmax(s, axis=-1)
        if keep is not None:
            w = w * keep.reshape(w.shape)
        o = _mm(w, v)
        o = o.transpose(1, 0, 2).reshape(L * N, E)
        o = _linear(o, out_w, out_b).reshape(L, N, -1)  # out_proj may change the width (CLIP attention pool)
        w = w.reshape(N, H, L, S)
        if average:
            w = w.mean(1)
        if not batched:
            o, w = o[:, 0], w[0]
        return o, w
    if attn_mask is not None:
        attn_mask = attn_mask[None] if attn_mask.shape[0] == 1 else attn_mask.reshape(N, H, -1, S)
    o, _ = _sdpa_core(q.reshape(N, H, L, hd), k.reshape(N, H, S, hd), v.reshape(N, H, S, hd), attn_mask,
                      None if keep is None else keep.reshape(N, H, L, S), 1.0 / math.sqrt(hd),
                      is_causal and attn_mask is None, False)
    o = o.transpose(2, 0, 1, 3).reshape(L * N, E)
    o = _linear(o, out_w, out_b).reshape(L, N, -1)
    return o[:, 0] if not batched else o


def _cname(t):
    return _dtype.C_NAMES.get(t.dtype.name, t.dtype.name)


def _mismatched_masks(mask, mask_name, other, other_name, dtype):
    """torch's ``F._canonical_mask`` on a key-padding mask checked against an attention mask of another dtype
    (one bool, one float): its deprecation warning, then both as float masks of ``dtype`` (``-inf`` where a
    bool mask is True), so the layers below see one type and warn no more. Masks of one type pass unchanged.
    """
    if mask is None or other is None or mask.dtype is other.dtype:
        return mask, other
    warnings.warn(f"Support for mismatched {mask_name} and {other_name} is deprecated. Use same type for both "
                  f"instead.", stacklevel=3)

    def as_float(m):
        if m.dtype.is_floating_point:
            return m
        return _creation.zeros_like(m, dtype=dtype).masked_fill_(m, float("-inf"))
    return as_float(mask), as_float(other)


def _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads):
    """torch's ``F._mha_shape_check``: the ranks of the inputs and masks; whether the query is batched."""
    if query.ndim == 3:
        if key.ndim != 3 or value.ndim != 3:
            raise AssertionError("For batched (3-D) `query`, expected `key` and `value` to be 3-D but found "
                                 f"{key.ndim}-D and {value.ndim}-D tensors respectively")
        if key_padding_mask is not None and key_padding_mask.ndim != 2:
            raise AssertionError("For batched (3-D) `query`, expected `key_padding_mask` to be `None` or 2-D but "
                                 f"found {key_padding_mask.ndim}-D tensor instead")
        if attn_mask is not None and attn_mask.ndim not in (2, 3):
            raise AssertionError("For batched (3-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D but "
                                 f"found {attn_mask.ndim}-D tensor instead")
        return True
    if query.ndim == 2:
        if key.ndim != 2 or value.ndim != 2:
            raise AssertionError("For unbatched (2-D) `query`, expected `key` and `value` to be 2-D but found "
                                 f"{key.ndim}-D and {value.ndim}-D tensors respectively")
        if key_padding_mask is not None and key_padding_mask.ndim != 1:
            raise AssertionError("For unbatched (2-D) `query`, expected `key_padding_mask` to be `None` or 1-D but "
                                 f"found {key_padding_mask.ndim}-D tensor instead")
        if attn_mask is not None:
            if attn_mask.ndim not in (2, 3):
                raise AssertionError("For unbatched (2-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D "
                                     f"but found {attn_mask.ndim}-D tensor instead")
            want = (num_heads, query.shape[0], key.shape[0])
            if attn_mask.ndim == 3 and tuple(attn_mask.shape) != want:
                raise AssertionError(f"Expected `attn_mask` shape to be {want} but got {attn_mask.shape}")
        return False
    raise AssertionError(f"query should be unbatched 2D or batched 3D tensor but received {query.ndim}-D query "
                         f"tensor")


def _mask_type_check(mask, name):
    if mask is not None and mask.dtype.name != "bool" and not mask.dtype.is_floating_point:
        raise AssertionError(f"only bool and floating types of {name} are supported")


@_functional()
@_amp.lower  # torch's decomposition: in/out projections and bmm's, all on the lower-precision list
def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads, in_proj_weight, in_proj_bias,
                                 bias_k, bias_v, add_zero_attn, dropout_p, out_proj_weight, out_proj_bias,
                                 training=True, key_padding_mask=None, need_weights=True, attn_mask=None,
                                 use_separate_proj_weight=False, q_proj_weight=None, k_proj_weight=None,
                                 v_proj_weight=None, static_k=None, static_v=None, average_attn_weights=True,
                                 is_causal=False):
    """The functional core of ``nn.MultiheadAttention`` (sequence-first (L, N, E) inputs).

    >>> import torchlike
    >>> import torchlike.nn.functional as F
    >>> x = torchlike.ones(3, 2, 4)
    >>> o, w = F.multi_head_attention_forward(x, x, x, 4, 2, torchlike.ones(12, 4), None, None, None, False,
    ...                                        0.0, torchlike.ones(4, 4), None)
    >>> o.shape, w.shape
    (torch.Size([3, 2, 4]), torch.Size([2, 3, 3]))
    """
    batched = _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads)
    _mask_type_check(key_padding_mask, "key_padding_mask")
    key_padding_mask, attn_mask = _mismatched_masks(key_padding_mask, "key_padding_mask", attn_mask, "attn_mask",
                                                   query.dtype)
    E = query.shape[-1]
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the Transformer module "
                           "method `generate_square_subsequent_mask` to create this mask.")
    if is_causal and key_padding_mask is None and not need_weights:
        attn_mask = None  # the sdpa call applies the causal mask itself
    else:
        _mask_type_check(attn_mask, "attn_mask")
        if key_padding_mask is not None:
            is_causal = False
    if E != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but got {E}")
    if E % num_heads:
        raise AssertionError(f"embed_dim {E} not divisible by num_heads {num_heads}")
    ks, vs = (key.shape, value.shape) if batched else (key.unsqueeze(1).shape, value.unsqueeze(1).shape)
    if use_separate_proj_weight:  # (torch compares them batched: an unbatched key as (S, 1, E))
        if ks[:2] != vs[:2]:
            raise AssertionError(f"key's sequence and batch dims {ks[:2]} do not match value's {vs[:2]}")
    elif ks != vs:
        raise AssertionError(f"key shape {ks} does not match value shape {vs}")
    if use_separate_proj_weight:  # torch's _in_projection checks
        Eq, Ek, Ev = query.shape[-1], key.shape[-1], value.shape[-1]
        for what, w, want in (("query", q_proj_weight, (Eq, Eq)), ("key", k_proj_weight, (Eq, Ek)),
                              ("value", v_proj_weight, (Eq, Ev))):
            if w is not None and tuple(w.shape) != want:
                raise AssertionError(f"expecting {what} weights shape of {want}, but got {w.shape}")
    for i, t in enumerate((query, key, value)):  # the in-projection's linear steps (addmm's / mm's checks)
        w = (q_proj_weight, k_proj_weight, v_proj_weight)[i] if use_separate_proj_weight else in_proj_weight
        if w is not None and t.dtype is not w.dtype:
            if in_proj_bias is not None:
                raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got {_dtype._CAP[t.dtype.name]} "
                                   f"and {_dtype._CAP[w.dtype.name]}")
            raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {_dtype.C_NAMES[t.dtype.name]} "
                               f"!= {_dtype.C_NAMES[w.dtype.name]}")
    if not use_separate_proj_weight and key.shape[-1] != E:  # _in_projection_packed's linear of the keys
        n_w = 2 * E if key is value and query is not key else E
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({key.numel() // key.shape[-1]}x"
                           f"{key.shape[-1]} and {in_proj_weight.shape[1]}x{n_w})")
    if (bias_k is None) != (bias_v is None):
        raise AssertionError("bias_k and bias_v must both be given or both be None")
    L = query.shape[0]
    N = query.shape[1] if batched else 1
    S = key.shape[0]
    if attn_mask is not None:
        want = (L, S) if attn_mask.ndim == 2 else (N * num_heads, L, S)
        if tuple(attn_mask.shape) != want and attn_mask.ndim in (2, 3):
            sz = "2D" if attn_mask.ndim == 2 else "3D"
            raise RuntimeError(f"The shape of the {sz} attn_mask is torch.Size({list(attn_mask.shape)}), but "
                               f"should be {want}.")
    hd = E // num_heads
    if bias_k is not None and batched and key.shape[1] != N:  # (torch's cat of the keys and bias_k fails)
        raise RuntimeError(f"Sizes of tensors must match except in dimension 0. Expected size {key.shape[1]} but "
                           f"got size {N} for tensor number 1 in the list.")
    if static_k is None and batched and key.shape[1] != N:  # (torch's k.view(S, N * H, head_dim) fails)
        raise RuntimeError(f"shape '[{S + (bias_k is not None)}, {N * num_heads}, {hd}]' is invalid for input of "
                           f"size {(S + (bias_k is not None)) * key.shape[1] * E}")
    if key_padding_mask is not None:
        S_full = (S if static_k is None else static_k.shape[1]) + (bias_k is not None) + bool(add_zero_attn)
        kb, ks = (key_padding_mask.shape[0] if batched else 1), key_padding_mask.shape[-1]
        ks += (bias_k is not None) + bool(add_zero_attn)  # (torch pads the mask as it pads the keys)
        if kb != N:
            raise AssertionError(f"Expected key_padded_mask.shape[0] to be {N}, but got {kb}")
        if ks != S_full:
            raise AssertionError(f"Expected key_padded_mask.shape[1] to be {S_full}, but got {ks}")
    keep = None
    if training and dropout_p > 0:
        S_full = (S if static_k is None else static_k.shape[1]) + (bias_k is not None) + bool(add_zero_attn)
        keep = _keep_mask((N * num_heads, L, S_full), float(dropout_p), np.dtype(query.dtype.np))
    r = dispatch(_mha_impl, (query, key, value, in_proj_weight, in_proj_bias, bias_k, bias_v, out_proj_weight,
                             out_proj_bias, key_padding_mask, attn_mask, q_proj_weight, k_proj_weight,
                             v_proj_weight, static_k, static_v, keep),
                 (("H", int(num_heads)), ("add_zero_attn", bool(add_zero_attn)),
                  ("need_weights", bool(need_weights)), ("average", bool(average_attn_weights)),
                  ("is_causal", bool(is_causal)), ("separate", bool(use_separate_proj_weight)),
                  ("batched", batched)), name="MultiHeadAttentionBackward0")
    return r if need_weights else (r, None)
