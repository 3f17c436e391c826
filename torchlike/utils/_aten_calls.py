"""How an op torchlike's dispatcher runs appears to a ``TorchDispatchMode``: the ``torch.ops.aten`` call(s)
torch's dispatcher would run for it, with aten's arguments.

Most torchlike ops are one aten op each; the op is named from its autograd node (``AddmmBackward0`` ->
``aten.addmm``, torch's grad_fn names; ``SoftmaxBackward0`` -> ``aten._softmax``), the overload chosen as torch
chooses it (``aten.mul.Tensor``, ``aten.gt.Scalar`` for a Python number, ``aten.sum.dim_IntList`` with dims)
and, for the ops counting tools read, the arguments laid out as aten's schema has them (``convolution``'s
nine, ``native_layer_norm``'s, ``_softmax``'s). Calling ``func`` inside the mode replays torchlike's own op
with the arguments the mode passes.

A few torchlike ops are coarser than torch's and run here as torch's decomposition, so the mode sees each
piece: ``linear`` (``t`` + ``addmm``, with ``view``s for N-D input; ``t`` + ``mm`` without a bias), ``matmul``
of N-D operands (``view``/``expand`` + ``mm``/``bmm`` + ``_unsafe_view``) and ``cross_entropy``
(``_log_softmax`` + ``nll_loss_forward``). View ops appear only inside these decompositions: torchlike's views
(``x.view``, ``x.t()`` in user code) reach the dispatcher only to record autograd nodes, and are not shown then
either, so a mode sees the same calls with and without gradients; factories (``randn``, ``zeros``) do not reach
it.
"""
from __future__ import annotations

import re

import jax.numpy as jnp

from .. import _dispatch, _dtype, _profiler_state as _prof, library
from .._layout import strided
from ..export import _aten as _export_aten
from ..nn import functional as F
from ..nn.functional import _linear as _linear_mod
from ..nn.functional._attention import _mha_impl
from ..nn.functional._loss import _ce_index, _pointwise_loss
from ..nn.functional._norm import _bn_impl, _gn_impl
from ..tensor import Tensor
from .._ops.matmul import _matmul_impl
from .._ops.views import _read_impl
from .._views import dynamic_index
from ._flop_rules import _flash_declines, _should_fold

__all__ = ["PENDING", "install", "handle", "tensors_in", "aten_op", "inplace_op", "inplace"]

PENDING = library.PENDING
aten = library.ops.aten
_CALL_MODE = [None]   # torchlike.utils._python_dispatch._call_mode


def install(call_mode):
    """Route ops to ``call_mode(func, args, kwargs, run)`` while a mode is active."""
    _CALL_MODE[0] = call_mode
    for k, fn in _export_aten.ATEN.items():
        library.OVERLOAD_IMPLS.setdefault(k, fn)
    _prof.MODE_HANDLER[0] = handle
    _prof.MODE_FUSED[0] = fused
    _prof.MODE_INPLACE[0] = inplace


def tensors_in(args, kwargs):
    for a in (*args, *kwargs.values()):
        if isinstance(a, Tensor):
            yield a
        elif isinstance(a, (list, tuple)):
            yield from (x for x in a if isinstance(x, Tensor))


# --- names --------------------------------------------------------------------------------------------------
_RENAME = {"softmax": "_softmax", "log_softmax": "_log_softmax", "nll_loss": "nll_loss_forward",
           "nll_loss2d": "nll_loss2d_forward", "unsafe_view": "_unsafe_view", "col2_im": "col2im",
           "im2_col": "im2col", "to_copy": "_to_copy", "adaptive_avg_pool2d": "_adaptive_avg_pool2d",
           "adaptive_avg_pool3d": "_adaptive_avg_pool3d", "prelu_kernel": "_prelu_kernel", "pdist": "_pdist_forward"}
_TENSOR_OVERLOAD = {"add", "sub", "mul", "div", "rsub"}   # Python numbers too: torch wraps them (aten.mul.Tensor)
_SCALAR_OR_TENSOR = {"eq", "ne", "lt", "le", "gt", "ge", "remainder", "fmod", "bitwise_and", "bitwise_or",
                     "bitwise_xor", "floor_divide", "masked_fill", "fill", "lerp"}
_VALUE_AT = {"masked_fill": 1, "lerp": 1, "index_fill": 2}   # where the Scalar-or-Tensor argument is (after self)
_DIM_OVERLOAD = {"all": "dims", "any": "dims", "sum": "dim_IntList", "mean": "dim", "max": "dim", "min": "dim", "prod": "dim_int",
                 "var": "correction", "std": "correction", "logsumexp": "default", "amax": "default",
                 "amin": "default", "argmax": "default", "argmin": "default", "norm": "ScalarOpt_dim"}
_NUM = (bool, int, float, complex)


def aten_op(f, name, args, statics):
    """The aten overload (``aten.addmm.default``) torch runs for dispatcher call ``f(args, statics)``."""
    op = _prof.aten_name(name, f)[len("aten::"):]
    op = re.sub(r"(\d)_d\b|(\d)_d_", lambda m: (m.group(1) or m.group(2)) + ("d" if m.group(1) else "d_"), op)
    st = dict(statics)
    if st.get("log") and op == "softmax":
        op = "log_softmax"
    elif op == "square":   # at::square is pow(self, 2)
        return aten.pow.Tensor_Scalar
    elif op == "allany":   # one torchlike function serves both
        op = st["kind"]
    op = _RENAME.get(op, op)
    if op == "scaled_dot_product_attention" and not _flash_declines(*args[:3], args[4]):
        op = "_scaled_dot_product_flash_attention_for_cpu"   # torch's CPU kernel for it (else its math path)
    if op in _TENSOR_OVERLOAD:
        overload = "Tensor"
    elif op in _SCALAR_OR_TENSOR:
        at = 1 + _VALUE_AT.get(op, 0)
        overload = "Scalar" if any(isinstance(a, _NUM) for a in args[at:at + 1]) else "Tensor"
    elif op == "pow":
        overload = "Tensor_Scalar" if "e" in st or isinstance(args[-1], _NUM) else \
            "Scalar" if isinstance(args[0], _NUM) else "Tensor_Tensor"
    elif op == "where":
        overload = "self"
    elif op == "clamp":   # clamp(Tensor, Scalar? min, Scalar? max), clamp.Tensor with tensor bounds
        overload = "Tensor" if any(isinstance(a, Tensor) for a in args[1:3]) else "default"
    elif op == "index":
        overload = "Tensor"
    elif op == "scatter" and st.get("reduce") is None:
        overload = "value" if st.get("scalar") else "src"
    elif op == "_adaptive_avg_pool2d" and all(o == 1 for o in st.get("out", ())):   # torch's is then a mean
        return aten.mean.dim
    elif op in ("max", "min") and st.get("dim") is not None:
        overload = "dim"
    elif op in _DIM_OVERLOAD and st.get("dims") is not None:
        overload = "dim" if op in ("all", "any") and len(st["dims"]) == 1 else _DIM_OVERLOAD[op]
    else:
        overload = "default"
    return _overload(op, overload)


def inplace_op(name, args, kwargs):
    """The aten overload of in-place method ``name`` (``add_``) called with ``args``/``kwargs`` after self."""
    base = name[:-1]
    values = [*args, *kwargs.values()]
    if base in _TENSOR_OVERLOAD:
        overload = "Tensor_mode" if base == "div" and kwargs.get("rounding_mode") is not None else "Tensor"
    elif base in _SCALAR_OR_TENSOR:
        at = _VALUE_AT.get(base, 0)
        overload = "Scalar" if len(args) > at and isinstance(args[at], _NUM) else "Tensor"
    elif base == "clamp":
        overload = "Tensor" if any(isinstance(a, Tensor) for a in values) else "default"
    elif base == "pow":
        overload = "Scalar" if args and isinstance(args[0], _NUM) else "Tensor"
    else:
        overload = "default"
    return _overload(name, overload)


def inplace(method, name, self, args, kwargs):
    """In-place ``method`` (torch's ``name``) under the innermost mode: one call of its in-place overload."""
    return _CALL_MODE[0](inplace_op(name, args, kwargs), (self, *args), dict(kwargs), method)


def _overload(op, overload="default"):
    try:
        packet = getattr(aten, op)
    except AttributeError:   # an op torchlike runs under another name only: the packet still names torch's
        packet = library._packet(f"aten::{op}", library._aten_unsupported(op))
    return getattr(packet, overload)


# --- aten's argument layouts for the ops tools read (op -> (args, statics) -> (aten args, kwargs, slots)) -------
def _pairs_low(p):
    return [int(x[0]) if isinstance(x, (tuple, list)) else int(x) for x in p]


def _conv_args(args, st):
    x, w, b = args[:3]
    n = w.ndim - 2
    if "pads" in st:   # conv_transpose: pads (lo, hi) of the dilated-input convolution
        k = w.shape[2:]
        d = st["dilation"]
        padding = [d[i] * (k[i] - 1) - st["pads"][i][0] for i in range(n)]
        out_pad = [st["pads"][i][1] - st["pads"][i][0] for i in range(n)]
        transposed = True
    else:
        padding, out_pad, transposed = _pairs_low(st["padding"]), [0] * n, False
    return ((x, w, b, list(st["stride"]), padding, list(st["dilation"]), transposed, out_pad, st["groups"]), {},
            (0, 1, 2))


def _layer_norm_args(args, st):
    x, w, b, eps = args[:4]
    return (x, list(x.shape[x.ndim - st["nd"]:]), w, b, eps), {}, (0, None, 1, 2)


def _softmax_args(args, st):
    return (args[0], st["dim"], False), {}, (0,)


def _reduction_args(args, st):
    if "out" in st:   # adaptive_avg_pool2d to 1x1: torch's mean over the last two dims
        return (args[0], [-1, -2], True), {}, (0,)
    if st.get("dims") is None:
        return (args[0],), {}, (0,)
    return (args[0], list(st["dims"]), bool(st.get("keepdim", False))), {}, (0,)


def _alpha_args(args, st):
    alpha = st.get("alpha", args[2] if len(args) > 2 else 1)   # a float alpha is an argument of the program
    if isinstance(alpha, Tensor):   # torch takes a one-element tensor as its Scalar
        alpha = alpha.item()
    return tuple(args[:2]), ({} if alpha == 1 else {"alpha": alpha}), (0, 1)


def _pow_args(args, st):
    if len(args) == 1 and "e" not in st:   # square
        return (args[0], 2), {}, (0,)
    return ((args[0], st["e"]), {}, (0,)) if "e" in st else (tuple(args), {}, tuple(range(len(args))))


def _axpby_args(args, st):
    kw = {k: v for k, v in zip(("beta", "alpha"), args[3:5]) if v != 1}
    return tuple(args[:3]), kw, (0, 1, 2)


def _flash_args(args, st):
    q, k, v, mask, keep, scale = args[:6]
    kw = {"is_causal": True} if st.get("is_causal") else {}
    if mask is not None:
        kw["attn_mask"] = mask
    if scale is not None and abs(scale - q.shape[-1] ** -0.5) > 1e-9 * scale:
        kw["scale"] = scale
    return (q, k, v), kw, (0, 1, 2)


def _index_args(args, st):
    pos = st["pos"]
    indices = [None] * (max(pos) + 1)
    for p, i in zip(pos, args[1:]):
        indices[p] = i if isinstance(i, Tensor) else Tensor._wrap_where(i)
    return (args[0], indices), {}, (0,)


def _index_put_args(args, st):
    x, values = args[:2]
    (_, indices), _, _ = _index_args((x, *args[2:]), st)
    return (x, indices, values) + ((True,) if st.get("accumulate") else ()), {}, (0, None, 1)


def _scatter_args(args, st):
    return (args[0], st["dim"], args[1], args[2]), {}, (0, None, 1, 2)


def _strip_defaults(args, defaults):
    """Python dispatch leaves out trailing arguments equal to the schema's defaults."""
    args = list(args)
    while defaults and len(args) > 1 and args[-1] == defaults[-1]:
        args.pop()
        defaults = defaults[:-1]
    return tuple(args)


def _ceil_mode(st, d):
    floor = tuple((L + 2 * p - dd * (k - 1) - 1) // s + 1 for L, k, s, p, dd in zip(st["S"], st["k"], st["s"],
                                                                                   st["p"], d))
    return tuple(st["out"]) != floor


def _max_pool_args(args, st):
    n = len(st["k"])
    full = (args[0], list(st["k"]), list(st["s"]), list(st["p"]), list(st["d"]), _ceil_mode(st, st["d"]))
    return _strip_defaults(full, (None, None, [], [0] * n, [1] * n, False)), {}, (0,)


def _avg_pool_args(args, st):
    n = len(st["k"])
    full = (args[0], list(st["k"]), list(st["s"]), list(st["p"]), _ceil_mode(st, (1,) * n),
            bool(st["count_include_pad"]), args[1])
    return _strip_defaults(full, (None, None, [], [0] * n, False, True, None)), {}, (0, None, None, None, None,
                                                                                  None, 1)


def _batch_norm_args(args, st):
    x, w, b, rm, rv, momentum, eps = args[:7]
    if st["instance"] and w is None and b is None:   # x is seen as torch's (1, N * C, ...) view
        x4 = Tensor._wrap(x._value.reshape(1, x.shape[0] * x.shape[1], *x.shape[2:]), x._dev)
        return (x4, w, b, rm, rv, bool(st["training"]), momentum, eps), {}, (None, 1, 2, 3, 4, None, 5, 6)
    return (x, w, b, rm, rv, bool(st["training"]), momentum, eps), {}, (0, 1, 2, 3, 4, None, 5, 6)


def _dim_first_args(args, st):   # gather, index_select, scatter_add: torchlike passes dim as a static
    return (args[0], st["dim"], *args[1:]), {}, (0, None) + tuple(range(1, len(args)))


def _pad_args(args, st):
    pad = [v for pair in reversed(st["pads"]) for v in pair]
    return (args[0], pad, float(args[1]) if args[0].dtype.is_floating_point else args[1]), {}, (0, None, 1)


def _upsample_args(args, st):
    n = len(st["out"])
    scales = list(st.get("scales") or (None,) * n)
    corners = () if st["mode"].startswith("nearest") else (bool(st["align_corners"]),)
    return _strip_defaults((args[0], list(st["out"]), *corners, *scales), (None, None, *corners, *[None] * n)), \
        {}, (0,)


def _adaptive_avg_args(args, st):
    return (args[0], list(st["out"])), {}, (0,)


def _max_dim_args(args, st):
    if st.get("dim") is None:
        return (args[0],), {}, (0,)
    return (args[0], st["dim"]) + ((True,) if st.get("keepdim") else ()), {}, (0,)


def _group_norm_args(args, st):
    x, w, b, eps = args[:4]
    n, c = x.shape[:2]
    hw = x.numel() // (n * c) if n * c else 0
    return (x, w, b, n, c, hw, st["G"], eps), {}, (0, 1, 2, None, None, None, None, 3)


_LAYOUT = {"adaptive_max_pool2d": _adaptive_avg_args, "adaptive_max_pool3d": _adaptive_avg_args,
           **{f"upsample_{m}": _upsample_args for m in ("nearest1d", "nearest2d", "nearest3d", "linear1d",
                                                         "bilinear2d", "bicubic2d", "trilinear3d")},
           "max_pool2d_with_indices": _max_pool_args, "max_pool3d_with_indices": _max_pool_args,
           "avg_pool2d": _avg_pool_args, "avg_pool3d": _avg_pool_args, "native_batch_norm": _batch_norm_args,
           "gather": _dim_first_args, "index_select": _dim_first_args, "scatter_add": _dim_first_args,
           "constant_pad_nd": _pad_args, "index": _index_args, "index_put": _index_put_args, "scatter": _scatter_args, "_adaptive_avg_pool2d": _adaptive_avg_args,
           "_adaptive_avg_pool3d": _adaptive_avg_args, "max": _max_dim_args, "min": _max_dim_args,
           "native_group_norm": _group_norm_args, "addmm": _axpby_args, "baddbmm": _axpby_args, "addmv": _axpby_args, "addbmm": _axpby_args,
           "addr": _axpby_args, "_scaled_dot_product_flash_attention_for_cpu": _flash_args, "convolution": _conv_args, "native_layer_norm": _layer_norm_args, "_softmax": _softmax_args,
           "_log_softmax": _softmax_args, "sum": _reduction_args, "mean": _reduction_args,
           "amax": _reduction_args, "amin": _reduction_args, "add": _alpha_args, "sub": _alpha_args,
           "pow": _pow_args}


# --- torch's decompositions of torchlike's coarser ops ---------------------------------------------------------
def _emit(func, compute, *args, **kwargs):
    """A view step of a decomposition (it does not reach the dispatcher): each active mode sees it in turn."""
    if not _prof.MODES:
        return compute(*args, **kwargs)
    return _CALL_MODE[0](func, args, kwargs, lambda *a, **k: _emit(func, compute, *a, **k))


def _view(x, shape, func=None):
    return _emit(func or aten.view.default, lambda t, s: t.reshape(s), x, list(shape))


def _linear(args, statics, replay):
    x, w, b = args
    if x.ndim < 2 or w.ndim != 2:
        return replay()
    if b is None:   # at::linear without a bias: matmul(x, w.t())
        return x.matmul(_emit(aten.t.default, lambda t: t.t(), w))
    if x.ndim == 2:
        return b.addmm(x, _emit(aten.t.default, lambda t: t.t(), w))
    lead = list(x.shape[:-1])
    x2 = _view(x, [-1 if not lead else _prod(lead), x.shape[-1]])
    y = b.addmm(x2, _emit(aten.t.default, lambda t: t.t(), w))
    return _view(y, lead + [w.shape[0]])


def _broadcast(a, b):
    n = max(len(a), len(b))
    a, b = [1] * (n - len(a)) + a, [1] * (n - len(b)) + b
    return [y if x == 1 else x for x, y in zip(a, b)]


def _prod(xs):
    n = 1
    for v in xs:
        n *= v
    return n


def _matmul(args, statics, replay):
    a, b = args[:2]
    if a.ndim <= 2 and b.ndim <= 2 or a.ndim == b.ndim == 3 and a.shape[0] == b.shape[0]:
        return replay()   # mm, mv, dot, bmm: one aten op as it is
    if b.ndim <= 2 and _should_fold(a, b):   # at::matmul folds the batch of a into mm's rows
        lead = list(a.shape[:-1])
        a2 = _view(a, [_prod(lead), a.shape[-1]])
        y = a2.mm(b) if b.ndim == 2 else a2.mv(b)
        return _view(y, lead + ([b.shape[-1]] if b.ndim == 2 else []), aten._unsafe_view.default)
    if a.ndim < 2 or b.ndim < 2:
        return replay()
    batch = _broadcast(list(a.shape[:-2]), list(b.shape[:-2]))
    n = _prod(batch)
    ea = _emit(aten.expand.default, lambda t, s: t.expand(s), a, batch + list(a.shape[-2:]))
    a3 = _view(ea, [n] + list(a.shape[-2:]))
    eb = _emit(aten.expand.default, lambda t, s: t.expand(s), b, batch + list(b.shape[-2:]))
    b3 = _view(eb, [n] + list(b.shape[-2:]))
    return _view(a3.bmm(b3), batch + [a.shape[-2], b.shape[-1]], aten._unsafe_view.default)


def _cross_entropy(args, statics, replay):
    st = dict(statics)
    if st.get("smoothing"):
        return replay()
    x, target, weight, ignore_index = args[:4]
    lsm = x.log_softmax(st.get("cdim", 1))
    return F.nll_loss(lsm, target, weight, ignore_index=ignore_index, reduction=st["reduction"])


def _in_projection(query, key, value, w, b, E):
    """F.multi_head_attention_forward's packed input projection: one linear for self-attention, q and a fused
    kv linear when key is value, else three."""
    if query is key and key is value:
        q, k, v = F.linear(query, w, b).unflatten(-1, (3, E)).unbind(-2)
    elif key is value:
        q = F.linear(query, w[:E], None if b is None else b[:E])
        k, v = F.linear(key, w[E:], None if b is None else b[E:]).unflatten(-1, (2, E)).unbind(-2)
    else:
        ws, bs = w.chunk(3), (None, None, None) if b is None else b.chunk(3)
        q, k, v = (F.linear(x, wi, bi) for x, wi, bi in zip((query, key, value), ws, bs))
    return q, k, v


def _multi_head_attention(args, statics, replay):
    """torch's F.multi_head_attention_forward for the common case (batched, packed weights, no masks, biases
    for k/v, zero attention or dropout): in-projection linears, bmm/_softmax/bmm or scaled_dot_product_attention,
    the out-projection linear."""
    (query, key, value, in_w, in_b, bias_k, _, out_w, out_b, kpm, attn_mask, _, _, _, static_k, static_v,
     keep) = args
    st = dict(statics)
    if any(x is not None for x in (bias_k, kpm, attn_mask, static_k, static_v, keep)) or st["add_zero_attn"] or \
            st["separate"] or st["is_causal"] or not st["batched"]:
        return replay()
    L, N, E = query.shape
    S, H = key.shape[0], st["H"]
    hd = E // H
    q, k, v = _in_projection(query, key, value, in_w, in_b, E)
    q, k, v = (x.reshape(n, N * H, hd).transpose(0, 1) for x, n in ((q, L), (k, S), (v, S)))
    if st["need_weights"]:
        w = (q * (1.0 / hd) ** 0.5).bmm(k.transpose(-2, -1)).softmax(dim=-1)
        o = w.bmm(v).transpose(0, 1).contiguous().view(L * N, E)
        o = F.linear(o, out_w, out_b).view(L, N, -1)
        w = w.view(N, H, L, S)
        return o, (w.mean(dim=1) if st["average"] else w)
    o = F.scaled_dot_product_attention(q.view(N, H, L, hd), k.view(N, H, S, hd), v.view(N, H, S, hd))
    o = o.permute(2, 0, 1, 3).contiguous().view(N * L, E)
    return F.linear(o, out_w, out_b).view(L, N, -1)


_VIEWS = {_read_impl, dynamic_index}
_REPLAYING = [0]   # depth of mode-forwarded calls running (handle's replay_with)
_DECOMPOSED = {_linear_mod._linear: _linear, _matmul_impl: _matmul, _ce_index: _cross_entropy,
               _mha_impl: _multi_head_attention}


def _gn_stats(x, eps, G):
    """native_group_norm's saved mean and rstd, (N, G) each."""
    xf = x._value.reshape(x.shape[0], G, -1)
    xf = xf.astype(jnp.promote_types(xf.dtype, jnp.float32))
    var = jnp.square(xf - xf.mean(2, keepdims=True)).mean(2)
    return Tensor._wrap(xf.mean(2), x._dev), Tensor._wrap(1.0 / jnp.sqrt(var + eps), x._dev)


def _batch_norm(args, statics, replay):
    """native_batch_norm after the ``empty`` torch's _batch_norm_impl_index allocates (its reserve)."""
    x, st = args[0], dict(statics)
    instance = st["instance"] and not st["update"] and args[1] is None and args[2] is None
    if instance:   # torch's instance_norm: a batch norm of x.view(1, N * C, ...), then a view back
        shape4 = [1, x.shape[0] * x.shape[1], *x.shape[2:]]
        _emit(aten.view.default, lambda t, s: Tensor._wrap(t._value.reshape(s), t._dev), x, shape4)
    _emit(aten.empty.memory_format, lambda s, **kw: Tensor._wrap(jnp.zeros(s, jnp.uint8), x._dev), [0],
          dtype=_dtype.uint8, layout=strided, device=x.device)
    out = replay()
    if instance:
        _emit(aten.view.default, lambda t, s: out, Tensor._wrap(out._value.reshape(shape4), out._dev), list(x.shape))
    return out


_DECOMPOSED[_bn_impl] = _batch_norm


def _l1_loss(args, statics, replay):
    """torch's l1_loss is ``(input - target).abs()`` then ``mean``/``sum`` (float32/float64, same shapes)."""
    st = dict(statics)
    x, y, w = args[:3]
    if st["kind"] != "l1" or w is not None or not isinstance(y, Tensor) or st["dt"] not in _FLOAT_NP or \
            x.dtype != y.dtype or tuple(x.shape) != tuple(y.shape):
        return replay()
    d = (x - y).abs()
    return d.mean() if st["reduction"] == "mean" else d.sum() if st["reduction"] == "sum" else d


_FLOAT_NP = (jnp.dtype(jnp.float32), jnp.dtype(jnp.float64))
_DECOMPOSED[_pointwise_loss] = _l1_loss


def _without_modes(run, *args):
    """``run(*args)`` with every mode off (the inside of a fused kernel, or a view, is shown to none)."""
    modes = _prof.MODES[:]
    del _prof.MODES[:]
    _prof.modes_changed()
    try:
        return run(*args)
    finally:
        _prof.MODES[:] = modes
        _prof.modes_changed()


def fused(op, args, run):
    """A region torch runs as the one fused aten op ``op`` (``_prof.run_fused``): each mode sees that call."""
    def inside(*_):
        with _prof.fused_kernel():
            return _without_modes(run)
    return _emit(_overload(op), inside, *args)


def handle(f, args, statics, name, diff, jit, saves):
    """Dispatcher call ``f(args, statics)`` under the innermost mode (``_profiler_state.MODE_HANDLER``)."""
    def replay_with(slots):
        def run(*new, **kwargs):
            call = list(args)
            for i, j in enumerate(slots):
                if j is not None and i < len(new):
                    call[j] = new[i]
            _REPLAYING[0] += 1
            try:
                return _dispatch.dispatch(f, tuple(call), statics, name=name, diff=diff, jit=jit, saves=saves)
            finally:
                _REPLAYING[0] -= 1
        run.torchlike = (f, args, statics, name, diff, slots)   # (a subclass's autograd node: _subclass_dispatch)
        return run

    def replay():
        func = aten_op(f, name, args, statics)
        layout = _LAYOUT.get(func._opname)
        a, kw, slots = tuple(args), {}, tuple(range(len(args)))   # torchlike's own arguments
        if layout is not None:
            try:
                a, kw, slots = layout(args, dict(statics))
            except (TypeError, ValueError, KeyError, IndexError, AttributeError):  # another kernel of the op
                pass
        return _CALL_MODE[0](func, a, kw, replay_with(slots))

    if f in _VIEWS:   # a view recorded for autograd: shown to no mode, as views without grad never dispatch
        return _without_modes(lambda: _dispatch.dispatch(f, args, statics, name=name, diff=diff, jit=jit,
                                                          saves=saves))
    replayed = _REPLAYING[0]   # an outer mode's turn at a call an inner mode forwarded: the inner one emits
    decomposed = _DECOMPOSED.get(f)
    out = decomposed(args, statics, replay) if decomposed is not None else replay()
    node = getattr(out, "_grad_fn", None)
    if node is not None and not replayed and type(node).__name__ in _SAVES_RESULT and node.f is f:
        _emit(aten.detach.default, lambda t: t.detach(), out)   # autograd saves the result: torch detaches it
    elif node is not None and not replayed and f is _gn_impl:   # it saves its mean and rstd outputs
        for t in _gn_stats(args[0], args[3], dict(statics)["G"]):
            _emit(aten.detach.default, lambda a: a.detach(), t)
    return out


# nodes whose torch formula uses the op's result: saving it for backward is an aten.detach torch's mode sees
_SAVES_RESULT = frozenset({"ReluBackward0", "TanhBackward0", "SigmoidBackward0", "SoftmaxBackward0",
                           "LogSoftmaxBackward0", "ExpBackward0", "SqrtBackward0",
                           "ScaledDotProductAttentionBackward0", "RsqrtBackward0", "LinalgVectorNormBackward0",
                           "MaxBackward1", "MinBackward1"})
