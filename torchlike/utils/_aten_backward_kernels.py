"""More of the backward pass as a ``TorchDispatchMode`` sees it (the rest of ``_aten_backward``'s table).

Each rule turns one torchlike autograd node into the aten calls torch's engine makes for it, with torch's
arguments; the node's own pullback computes the values, so the mode's results are the gradients that travel on:

- normalization: ``native_batch_norm_backward`` (training, eval with running statistics; instance norm as
  torch runs it, a batch norm of a ``(1, N*C, ...)`` ``view``), ``native_group_norm_backward`` (after the
  ``detach`` of its saved mean/rstd and the ``clone`` of a gradient that is not contiguous);
- pooling: ``max_pool{2,3}d_with_indices_backward``, ``avg_pool{2,3}d_backward``,
  ``_adaptive_avg_pool{2,3}d_backward`` (a 1x1 2-D output is torch's ``mean``: ``expand`` + ``div``),
  ``adaptive_max_pool{2,3}d_backward``; a 1-D pool is the 2-D kernel between ``unsqueeze`` and ``squeeze``;
- upsampling: ``upsample_{nearest,bilinear,bicubic,...}Nd_backward``;
- losses and activations with one kernel: ``smooth_l1_loss_backward``, ``huber_loss_backward``,
  ``binary_cross_entropy_backward``, ``leaky_relu_backward``, ``elu_backward``, ``softplus_backward``,
  ``hardtanh_backward`` (``relu6`` too), ``hardswish_backward``, ``hardsigmoid_backward``, ``mish_backward``;
- indexing: ``index`` (``new_zeros`` + ``index_put(accumulate=True)``), ``index_select`` (``new_zeros`` +
  ``index_add``), ``gather`` (``new_zeros`` + ``scatter_add``), ``scatter_add`` (``gather`` of the source),
  ``scatter`` of a value (``scatter.value`` with 0), ``select``/``slice`` of a basic index (``select_backward``,
  ``slice_backward`` per indexed dimension, last first), ``stack`` (``select`` per input), ``constant_pad_nd``
  (a negative pad), ``masked_fill`` (``masked_fill.Scalar`` with 0), ``where`` (``scalar_tensor`` + ``where``);
- pointwise formulas: ``sin`` (``cos`` + ``mul``), ``cos`` (``sin`` + ``neg`` + ``mul``).

A node a rule does not cover (another variant of the op) returns None and runs its pullback unseen.
"""
from __future__ import annotations

import sys

import jax.numpy as jnp
import numpy as np

from ..tensor import Tensor
from .._layout import strided
from .._memory_format import contiguous_format
from .._ops.indexing import _adv_get_impl, _adv_put_impl
from .._ops.masking import _masked_fill_impl
from .._ops.nonzero_where import _where_impl
from .._ops.padding import _pad_impl
from .._ops.pointwise_composite import _clamp_impl
from .._ops.reduction import _dim_impl, _full_impl, _var_impl, vnorm_in
from .._ops.resample import _interp_impl
from .._ops.scatter import _gather_impl, _scatter_impl
from .._ops.shape import _stack_impl
from .._ops.take import _take_axis_impl
from .._views import dynamic_index
from ..nn.functional._activation import _elu, _hardsigmoid, _hardswish, _hardtanh, _leaky_relu, _mish, _softplus
from ..nn.functional._loss import _bce, _pointwise_loss
from ..nn.functional._norm import _bn_impl, _gn_impl
from ..nn.functional._adaptive_pooling import _adaptive_avg_impl, _adaptive_max_impl
from ..nn.functional._pooling import _avg_pool_impl, _max_pool_impl
from . import _aten_backward as _ab

__all__ = ["install"]

_op, call, _detach, _view, _unsqueeze = _ab._op, _ab.call, _ab._detach, _ab._view, _ab._unsqueeze


def _wrap(a, like):
    return Tensor._wrap(jnp.asarray(a), like._dev)


def _indices(a, like):
    return Tensor._wrap(jnp.asarray(a).astype(jnp.int64), like._dev)


def _grads(node, g, slots, shape=None):
    """The node's pullback of the gradient ``g`` (reshaped to the node's output first when ``shape``): its
    input gradients at ``slots`` (None where not computed)."""
    cts = [g if shape is None else g.reshape(shape)] + [None] * (len(node.out_meta) - 1)
    got = dict(zip(node.diff_in, _ab.pull(node, cts)))
    return [got.get(j) for j in slots]


def _single(node, func, args, kwargs=None, slot=0):
    """``func(*args)`` whose one result is the gradient of input ``slot`` for the gradient ``args[0]``."""
    return {slot: call(func, lambda g, *_, **__: _grads(node, g, (slot,))[0], *args, **(kwargs or {}))}


def _squeeze(x, d):
    return call(_op("squeeze", "dim"), lambda a, i: a.squeeze(i), x, d)


# --- normalization -------------------------------------------------------------------------------------------
def _stats(x, axes, eps):
    xf = x._value.astype(jnp.promote_types(x._value.dtype, jnp.float32))
    mean = xf.mean(axes)
    var = jnp.square(xf - xf.mean(axes, keepdims=True)).mean(axes)
    return _wrap(mean, x), _wrap(1.0 / jnp.sqrt(var + eps), x)


def _batch_norm(node, prims, cts, want):
    st = dict(node.statics)
    x, w, b, rm, rv, _, eps = prims[:7]
    g, mask = cts[0], [0 in want, 1 in want, 2 in want]
    func = _op("native_batch_norm_backward")
    if st["instance"]:   # torch: batch norm of x.view(1, N*C, ...), then a view back
        if w is not None or b is not None:
            return None
        shape = [1, x.shape[0] * x.shape[1], *x.shape[2:]]
        x4 = x.reshape(shape)
        mean, invstd = _stats(x4, tuple(i for i in range(x4.ndim) if i != 1), eps)
        r = call(func, lambda gg, *_: (_grads(node, gg, (0,), tuple(x.shape))[0].reshape(shape), None, None),
                 _view(g, shape), x4, None, None, None, mean, invstd, True, eps, mask)
        return {0: _view(r[0], x.shape)}
    if st["training"]:
        mean, invstd = _stats(x, tuple(i for i in range(x.ndim) if i != 1), eps)
    else:
        mean = invstd = Tensor._wrap(jnp.zeros((0,), x._value.dtype), x._dev)
    r = call(func, lambda gg, *_: tuple(_grads(node, gg, (0, 1, 2))), g, x, w, rm, rv, mean, invstd,
             bool(st["training"]), eps, mask)
    return dict(enumerate(r))


def _group_norm(node, prims, cts, want):
    x, w, b, eps = prims[:4]
    G = dict(node.statics)["G"]
    N, C = x.shape[:2]
    xg = x.reshape(N, G, -1)
    mean, rstd = (_detach(t.reshape(N, G)) for t in _stats(xg, (2,), eps))
    g = cts[0]
    if not g.is_contiguous():
        g = call(_op("clone"), lambda a, **_: a.contiguous(), g, memory_format=contiguous_format)
    hw = x.numel() // (N * C) if N * C else 0
    r = call(_op("native_group_norm_backward"), lambda gg, *_: tuple(_grads(node, gg, (0, 1, 2))),
             g, x, mean, rstd, w, N, C, hw, G, [0 in want, 1 in want, 2 in want])
    return dict(enumerate(r))


# --- pooling and upsampling -----------------------------------------------------------------------------------
def _as_2d(node, g, x, n, kernel):
    """A 1-D pool as torch runs it: the 2-D kernel on ``unsqueeze(-2)``'d tensors, then ``squeeze``.
    ``kernel(g4, x4, compute)`` makes the call; ``compute`` is the node's pullback in 4-D."""
    if n != 1:
        return kernel(g, x, lambda gg, *_: _grads(node, gg, (0,))[0])
    g4 = _unsqueeze(g, g.ndim - 1)
    x4 = x.unsqueeze(-2)
    r = kernel(g4, x4, lambda gg, *_: _grads(node, gg, (0,), tuple(g.shape))[0].unsqueeze(-2))
    return _squeeze(r, -2)


def _floor_out(S, k, s, p, d):
    return tuple((L + 2 * pp - dd * (kk - 1) - 1) // ss + 1 for L, kk, ss, pp, dd in zip(S, k, s, p, d))


def _lift(n, vals, fill):
    return [fill] + list(vals) if n == 1 else list(vals)


def _max_pool(node, prims, cts, want):
    st = dict(node.statics)
    k, s, p, d, S, out = (st[key] for key in ("k", "s", "p", "d", "S", "out"))
    n, x = len(k), prims[0]
    ceil = tuple(out) != _floor_out(S, k, s, p, d)
    idx = _indices(_max_pool_impl(x._value, k, s, p, d, S, out, True)[1], x)
    func = _op(f"max_pool{max(n, 2)}d_with_indices_backward")

    def kernel(g, xx, compute):
        ii = idx.unsqueeze(-2) if n == 1 else idx
        return call(func, compute, g, xx, _lift(n, k, 1), _lift(n, s, 1), _lift(n, p, 0), _lift(n, d, 1), ceil, ii)
    return {0: _as_2d(node, cts[0], x, n, kernel)}


def _avg_pool(node, prims, cts, want):
    st = dict(node.statics)
    k, s, p, S, out = (st[key] for key in ("k", "s", "p", "S", "out"))
    n, (x, divisor) = len(k), prims[:2]
    ceil = tuple(out) != _floor_out(S, k, s, p, (1,) * n)
    func = _op(f"avg_pool{max(n, 2)}d_backward")

    def kernel(g, xx, compute):
        return call(func, compute, g, xx, _lift(n, k, 1), _lift(n, s, 1), _lift(n, p, 0), ceil,
                    bool(st["count_include_pad"]), divisor)
    return {0: _as_2d(node, cts[0], x, n, kernel)}


def _adaptive_avg(node, prims, cts, want):
    st = dict(node.statics)
    x, n = prims[0], len(st["out"])
    if n == 2 and all(o == 1 for o in st["out"]):   # torch's adaptive_avg_pool2d to 1x1 is a mean
        return {0: _ab._div_scalar(_ab._expand(cts[0], x.shape), int(np.prod(st["S"])))}
    func = _op(f"_adaptive_avg_pool{max(n, 2)}d_backward")
    return {0: _as_2d(node, cts[0], x, n, lambda g, xx, compute: call(func, compute, g, xx))}


def _adaptive_max(node, prims, cts, want):
    st = dict(node.statics)
    x, n = prims[0], len(st["out"])
    idx = _indices(_adaptive_max_impl(x._value, st["S"], st["out"])[1], x)
    func = _op(f"adaptive_max_pool{max(n, 2)}d_backward")

    def kernel(g, xx, compute):
        return call(func, compute, g, xx, idx.unsqueeze(-2) if n == 1 else idx)
    return {0: _as_2d(node, cts[0], x, n, kernel)}


_UPSAMPLE = {"nearest": "nearest", "nearest-exact": "_nearest_exact", "linear": "linear", "bilinear": "bilinear",
             "bicubic": "bicubic", "trilinear": "trilinear"}


def _upsample(node, prims, cts, want):
    st = dict(node.statics)
    mode, out, x = st["mode"], list(st["out"]), prims[0]
    if mode not in _UPSAMPLE or mode == "area":
        return None
    n = len(out)
    scales = list(st.get("scales") or (None,) * n)
    base = _UPSAMPLE[mode]
    name = f"_upsample{base}{n}d_backward" if base.startswith("_") else f"upsample_{base}{n}d_backward"
    args = [cts[0], out, list(x.shape)]
    if not mode.startswith("nearest"):
        args.append(bool(st["align_corners"]))
    return _single(node, _op(name), (*args, *scales))


# --- losses and activations --------------------------------------------------------------------------------------
def _pointwise_loss_rule(node, prims, cts, want):
    st = dict(node.statics)
    x, y, w = prims[:3]
    if st["kind"] not in ("smooth_l1", "huber") or w is not None or 1 in want:
        return None
    return _single(node, _op(f"{st['kind']}_loss_backward"),
                   (cts[0], x, y, _ab._REDUCTION[st["reduction"]], float(prims[3])))


def _bce_rule(node, prims, cts, want):
    x, y, w = prims[:3]
    if 1 in want:
        return None
    red = _ab._REDUCTION[dict(node.statics)["reduction"]]
    return _single(node, _op("binary_cross_entropy_backward"), (cts[0], x, y, w) + ((red,) if red != 1 else ()))


def _activation(func, extra=lambda prims: (), before=False):
    """An activation torch differentiates with ``func(grad, self, *extra)`` (``func(grad, *extra, self)`` when
    ``before``)."""
    def rule(node, prims, cts, want):
        x = prims[0]
        more = tuple(extra(prims))
        return _single(node, _op(func), (cts[0], *more, x) if before else (cts[0], x, *more))
    return rule


# --- indexing ----------------------------------------------------------------------------------------------------
def _new_zeros(g, shape, full_kwargs=True):
    kw = {"dtype": g.dtype, "layout": strided, "device": g.device} if full_kwargs else {}
    return call(_op("new_zeros"), lambda a, s, **_: Tensor._wrap(jnp.zeros(tuple(s), a._value.dtype), a._dev),
                g, list(shape), **kw)


def _index(node, prims, cts, want):
    """IndexBackward0: ``new_zeros`` + ``index_put(zeros, indices, grad, accumulate=True)``."""
    x, pos, g = prims[0], dict(node.statics)["pos"], cts[0]
    if list(pos) != sorted(pos):
        return None
    indices = [None] * (max(pos) + 1)
    for p, i in zip(pos, prims[1:]):
        indices[p] = i
    zeros = _new_zeros(g, x.shape)
    return {0: call(_op("index_put"), lambda z, ii, gg, acc: _grads(node, gg, (0,))[0], zeros, indices, g, True)}


def _index_put(node, prims, cts, want):
    """IndexPutBackward0 (``index_put``/``self[indices] = values``): ``zeros`` + ``index_put`` for self, ``index``
    for the values."""
    st = dict(node.statics)
    values, pos = prims[1], st["pos"]
    if st["accumulate"] or list(pos) != sorted(pos):
        return None
    indices = [None] * (max(pos) + 1)
    for p, i in zip(pos, prims[2:]):
        indices[p] = i
    g, out = cts[0], {}
    if 0 in want:
        zeros = call(_op("zeros"), lambda s, **kw: Tensor._wrap(jnp.zeros(tuple(s), g._value.dtype), g._dev),
                     list(values.shape), dtype=g.dtype, layout=strided, device=g.device)
        out[0] = call(_op("index_put"), lambda gg, ii, z: _grads(node, gg, (0,))[0], g, indices, zeros)
    if 1 in want:
        out[1] = call(_op("index", "Tensor"), lambda gg, ii: _grads(node, gg, (1,))[0], g, indices)
    return out


def _index_select(node, prims, cts, want):
    x, idx = prims[:2]
    dim, g = dict(node.statics)["dim"], cts[0]
    zeros = _new_zeros(g, x.shape)
    return {0: call(_op("index_add"), lambda z, d, i, gg: _grads(node, gg, (0,))[0], zeros, dim, idx, g)}


def _gather(node, prims, cts, want):
    x, idx = prims[:2]
    dim, g = dict(node.statics)["dim"], cts[0]
    zeros = _new_zeros(g, x.shape, full_kwargs=False)
    return {0: call(_op("scatter_add"), lambda z, d, i, gg: _grads(node, gg, (0,))[0], zeros, dim, idx, g)}


def _scatter(node, prims, cts, want):
    st = dict(node.statics)
    x, idx, src = prims[:3]
    dim, g = st["dim"], cts[0]
    if st.get("reduce") == "sum" and st.get("include_self", True) and not st.get("scalar"):   # scatter_add
        out = {}
        if 0 in want:
            out[0] = g
        if 2 in want:
            out[2] = call(_op("gather"), lambda gg, d, i: _grads(node, gg, (2,))[0], g, dim, idx)
        return out
    if st.get("reduce") is None and st.get("scalar"):   # scatter(dim, index, value)
        return {0: call(_op("scatter", "value"), lambda gg, d, i, v: _grads(node, gg, (0,))[0], g, dim, idx, 0)}
    return None


def _basic_index(node, prims, cts, want):
    """SelectBackward0 / SliceBackward0 of a basic index: ``select_backward`` or ``slice_backward`` per indexed
    dimension, the last first (torch's chain of view nodes, run backwards)."""
    x, starts = prims[:2]
    spec = dict(node.statics)["spec"]
    if "n" in spec or node._name not in ("SelectBackward0", "SliceBackward0"):
        return None
    starts = [int(v) for v in np.asarray(starts._value if isinstance(starts, Tensor) else starts).reshape(-1)]
    steps, shape, k = [], list(x.shape), 0
    for d, e in enumerate(spec):   # forward: each dimension in turn, the shape before each step
        if e == "f":
            continue
        before = list(shape)
        if e == "i":
            steps.append(("select", before, _out_dim(spec, d), starts[k]))
            shape[d] = None
        else:
            size, step = e
            if size == x.shape[d] and step == 1:
                k += 1
                continue
            end = starts[k] + size * step
            steps.append(("slice", before, _out_dim(spec, d), starts[k], end if end < x.shape[d] else sys.maxsize,
                          step))
            shape[d] = size
        k += 1
    g = cts[0]
    for s in reversed(steps):
        before = [v for v in s[1] if v is not None]
        if s[0] == "select":
            func, args = _op("select_backward"), (before, s[2], s[3])
        else:
            func, args = _op("slice_backward"), (before, *s[2:])
        g = call(func, _placed(s[0]), g, *args)
    return {0: g}


def _out_dim(spec, d):
    """Dimension ``d`` of the input, counted among the dimensions the earlier selects keep."""
    return d - sum(1 for e in spec[:d] if e == "i")


def _placed(kind):
    """select/slice backward: the gradient placed into zeros of the size before that step."""
    def run(g, sizes, dim, *rest):
        z = jnp.zeros(tuple(sizes), g._value.dtype)
        if kind == "select":
            v = z.at[(slice(None),) * dim + (rest[0],)].set(g._value)
        else:
            start, end, step = rest
            v = z.at[(slice(None),) * dim + (slice(start, None if end == sys.maxsize else end, step),)].set(g._value)
        return Tensor._wrap(v, g._dev)
    return run


def _stack(node, prims, cts, want):
    dim = dict(node.statics)["dim"]
    g = cts[0]
    dim = dim % g.ndim
    out = {}
    for i in sorted(want):
        out[i] = call(_op("select", "int"), lambda a, d, j: a.select(d, j), g, dim, i)
    return out


def _pad(node, prims, cts, want):
    st = dict(node.statics)
    if st["mode"] != "constant":
        return None
    neg = [-v for pair in reversed(st["pads"]) for v in pair]
    return _single(node, _op("constant_pad_nd"), (cts[0], neg))


def _masked_fill(node, prims, cts, want):
    if want - {0}:
        return None
    return {0: call(_op("masked_fill", "Scalar"), lambda gg, m, v: _grads(node, gg, (0,))[0], cts[0], prims[1], 0)}


def _where(node, prims, cts, want):
    c, g, out = prims[0], cts[0], {}
    for i in (2, 1):   # torch's formula computes other's gradient first
        if i in want:
            z = call(_op("scalar_tensor"), lambda v, **kw: Tensor._wrap(jnp.zeros((), g._value.dtype), g._dev), 0,
                     dtype=g.dtype, layout=strided, device=g.device)
            args = (c, g, z) if i == 1 else (c, z, g)
            out[i] = call(_op("where", "self"), lambda cc, a, b, i=i: _grads(node, a if i == 1 else b, (i,))[0], *args)
    return out


def _max_dim(node, prims, cts, want):
    """MaxBackward0 / MinBackward0 of ``max(dim)``: torch's value_selecting_reduction_backward (``unsqueeze`` of
    the gradient and the indices, ``new_zeros``, ``scatter.src``)."""
    st = dict(node.statics)
    x, g = prims[0], cts[0]
    dim = st["dim"]
    if x.ndim == 0:
        return None
    idx = _indices(_dim_impl(x._value, dim, st["keepdim"], st["kind"])[1], x)
    if not st["keepdim"]:
        g = _unsqueeze(g, dim)
        idx = _unsqueeze(idx, dim)
    zeros = _new_zeros(g, x.shape, full_kwargs=False)
    return {0: call(_op("scatter", "src"), lambda z, d, i, gg: _grads(node, gg, (0,), tuple(cts[0].shape))[0], zeros, dim, idx, g)}


def _scalar_zero(g):
    return call(_op("scalar_tensor"), lambda v, **kw: Tensor._wrap(jnp.zeros((), g._value.dtype), g._dev), 0.0,
                dtype=g.dtype, layout=strided, device=g.device)


def _clamp(node, prims, cts, want):
    """ClampBackward1: ``where(self >= min & self <= max, grad, 0)``."""
    st = dict(node.statics)
    x, lo, hi = prims[:3]
    if isinstance(lo, Tensor) or isinstance(hi, Tensor) or node._name != "ClampBackward1":
        return None
    g = cts[0]
    zero = _scalar_zero(g)
    mask = x >= lo if st["has_lo"] else None
    if st["has_hi"]:
        upper = x <= hi
        mask = upper if mask is None else mask.logical_and_(upper)
    return {0: call(_op("where", "self"), lambda m, a, z: _grads(node, a, (0,))[0], mask, g, zero)}


def _rsqrt(node, prims, cts, want):
    """RsqrtBackward0: ``-0.5 * grad * result.pow(3)``."""
    cube = _ab._result(node, prims).pow(3)
    return {0: _ab._mul_scalar(cts[0], -0.5) * cube}


def _var(node, prims, cts, want):
    """VarBackward0: ``(2 / (N - correction)) * grad * (self - self.mean(dim, True))``."""
    st = dict(node.statics)
    x, c = prims[:2]
    if st["sq"] or st["with_mean"] or isinstance(c, Tensor) or st["dims"] is None:
        return None
    dims = [d % x.ndim for d in st["dims"]]
    g = cts[0]
    if not st["keepdim"]:
        for d in sorted(dims):
            g = _unsqueeze(g, d)
    n = int(np.prod([x.shape[d] for d in dims]))
    centered = x - x.mean(dims, keepdim=True)
    return {0: _ab._mul_scalar(g, 2.0 / max(n - c, 0)) * centered}


def _vector_norm(node, prims, cts, want):
    """LinalgVectorNormBackward0 of a 2-norm over all elements: ``self / norm``, zero where the norm is 0."""
    st = dict(node.statics)
    if st.get("kind") != "two" or st.get("dims") is not None:
        return None
    x = prims[0]
    r = _ab._result(node, prims)
    scaled = x / r
    scaled.masked_fill_(r == 0, 0)
    return {0: cts[0] * scaled}


def _evenly(node, prims, cts, want):
    """MaxBackward1 / MinBackward1 (full reduction): the gradient shared by the tied extrema (NaN-aware)."""
    x = prims[0]
    r = _ab._result(node, prims)
    mask = (x.isnan().logical_and(r.isnan())).logical_or_(x == r) if x.is_floating_point() else x == r
    return {0: mask * (cts[0] / mask.sum())}


def _sin(node, prims, cts, want):
    return {0: cts[0] * prims[0].cos()}


def _cos(node, prims, cts, want):
    return {0: cts[0] * -prims[0].sin()}


_BY_F = {_bn_impl: _batch_norm, _gn_impl: _group_norm, _max_pool_impl: _max_pool, _avg_pool_impl: _avg_pool,
         _adaptive_avg_impl: _adaptive_avg, _adaptive_max_impl: _adaptive_max, _interp_impl: _upsample,
         _pointwise_loss: _pointwise_loss_rule, _bce: _bce_rule,
         _leaky_relu: _activation("leaky_relu_backward", lambda p: (p[1], False)),
         _elu: _activation("elu_backward", lambda p: (p[1], p[2], p[3], False), before=True),
         _softplus: _activation("softplus_backward", lambda p: (p[1], p[2])),
         _hardtanh: _activation("hardtanh_backward", lambda p: (p[1], p[2])),
         _hardswish: _activation("hardswish_backward"), _hardsigmoid: _activation("hardsigmoid_backward"),
         _mish: _activation("mish_backward"),
         _adv_get_impl: _index, _adv_put_impl: _index_put, _take_axis_impl: _index_select, _gather_impl: _gather, _scatter_impl: _scatter,
         dynamic_index: _basic_index, _stack_impl: _stack, _pad_impl: _pad, _masked_fill_impl: _masked_fill,
         _where_impl: _where, _dim_impl: _max_dim, _clamp_impl: _clamp, _var_impl: _var, vnorm_in: _vector_norm,
         _full_impl: _evenly}
_BY_NAME = {"SinBackward0": _sin, "CosBackward0": _cos, "RsqrtBackward0": _rsqrt}


def install():
    """Add these rules to ``_aten_backward``'s tables (a node's own name first, then its JAX function)."""
    _ab.extend(_BY_F, _BY_NAME)
