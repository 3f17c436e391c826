"""The backward pass as a ``TorchDispatchMode`` sees it: the aten calls torch's autograd engine makes.

torchlike computes a node's input gradients with one compiled pullback, which no mode would see. While a
mode is active the engine asks this module instead (``_profiler_state.MODE_BACKWARD``): the common nodes run
torch's backward formula op by op, at torch's granularity, so each call reaches the mode with torch's name and
arguments and the mode's results are the gradients that travel on:

- the seed of ``loss.backward()``: ``aten.ones_like``;
- products: ``MmBackward0`` (``t`` + ``mm`` per input, torch's column-major variants), ``AddmmBackward0``,
  ``BmmBackward0`` (``transpose`` + ``bmm``), ``linear`` and N-D ``matmul`` as torch's chain of nodes
  (``view``, ``t``/``TBackward0``, ``expand``), their later nodes run in torch's order;
- reductions and arithmetic: ``SumBackward0/1`` (``unsqueeze`` + ``expand``), ``MeanBackward0/1`` (``+ div``),
  ``Add``/``Sub``/``Mul``/``Div``/``NegBackward0``, then torch's ``sum_to`` (``sum.dim_IntList`` + ``view``)
  where an input was broadcast;
- nodes torch differentiates with one aten kernel: ``threshold_backward``, ``gelu_backward``, ``silu_backward``,
  ``tanh_backward``, ``sigmoid_backward``, ``_softmax_backward_data``, ``_log_softmax_backward_data``,
  ``nll_loss_backward``, ``mse_loss_backward``, ``embedding_dense_backward``, ``native_layer_norm_backward``,
  ``convolution_backward``, ``_scaled_dot_product_flash_attention_for_cpu_backward`` (the node's own
  pullback computes them), each after the ``detach`` torch makes when it unpacks a saved result;
- gradient sums (``add.Tensor``) and ``AccumulateGrad``
  (``detach`` of a gradient it can keep, else ``new_empty_strided`` + ``copy_``; ``add_`` into ``.grad``).

``_aten_backward_kernels`` adds the rules of more nodes (normalization, pooling, indexing, ...). Other nodes run
their pullback unseen (docs/differences.md). In a ``create_graph=True`` backward the same calls are made and
recorded: the formulas read the saved inputs and results in their place in the graph, and a one-kernel call's
values come from the node's recorded pullback, so second-order gradients flow through them.
"""
from __future__ import annotations

import weakref

import jax.numpy as jnp

from .. import _profiler_state as _prof
from .._creation import empty_strided
from .._layout import strided
from .._memory_format import preserve_format
from .._tape import AccumulateGrad, Node, NoGradViewSink, pullback_fn
from ..tensor import Tensor
from ..nn.functional import _linear as _linear_mod
from ..nn.functional._attention import _sdpa_impl
from ..nn.functional._conv import _conv_impl
from ..nn.functional._loss import _ce_index, _nll
from ..nn.functional._norm import _ln_impl
from .._ops.addmm import _axpby_impl
from .._ops.matmul import _matmul_impl
from .._ops.division import _div_impl
from .._ops.pointwise import _alpha_impl
from .._ops.reduction import _mean_impl, _sum_impl
from .._ops.special import _softmax_impl
from . import _aten_calls
from ._flop_rules import _flash_declines, _should_fold

__all__ = ["Later", "install", "extend"]

_op = _aten_calls._overload   # an aten op by name (torchlike runs no kernel under most backward ops' names)
_REDUCTION = {"none": 0, "mean": 1, "sum": 2}


def call(func, compute, *args, **kwargs):
    """``compute(*args, **kwargs)`` as the aten call ``func``: each active mode sees it in turn."""
    if _PASS.subclass:   # a node above a __torch_dispatch__ subclass: a kernel computes from what it is passed
        compute = _plain_kernel(func, compute)
    if not _prof.MODES:
        return compute(*args, **kwargs)
    return _aten_calls._CALL_MODE[0](func, args, kwargs, lambda *a, **k: call(func, compute, *a, **k))


def _t(x):
    return call(_op("t"), lambda a: a.t(), x)


def _transpose(x, d0, d1):
    return call(_op("transpose", "int"), lambda a, i, j: a.transpose(i, j), x, d0, d1)


def _view(x, shape):
    return call(_op("view"), lambda a, s: a.reshape(s), x, list(shape))


def _expand(x, shape):
    return call(_op("expand"), lambda a, s: a.expand(s), x, list(shape))


def _unsqueeze(x, d):
    return call(_op("unsqueeze"), lambda a, i: a.unsqueeze(i), x, d)


def _detach(x):
    return call(_op("detach"), lambda a: a.detach(), x)


def _mul_scalar(x, s):
    return call(_op("mul", "Scalar"), lambda a, v: a * v, x, s)


def _div_scalar(x, s):
    return call(_op("div", "Scalar"), lambda a, v: a / v, x, s)


def sum_to(g, shape):
    """torch's ``at::sum_to`` (the engine's validate_outputs): ``sum.dim_IntList(keepdim)`` + ``view`` (``sum``
    to a scalar)."""
    shape = tuple(shape)
    if tuple(g.shape) == shape:
        return g
    if not shape:   # to a scalar: one sum over everything
        return g.sum()
    lead = g.ndim - len(shape)
    dims = list(range(lead)) + [i for i in range(lead, g.ndim) if shape[i - lead] == 1 and g.shape[i] != 1]
    if dims:
        g = g.sum(dims, keepdim=True)
    return _view(g, shape) if lead > 0 else g


class Later:
    """A gradient that torch hands on from a node it runs after this one (``TBackward0`` of linear's weight, the
    ``ViewBackward0`` of a folded matmul operand): ``run()`` makes that node's calls when the engine reaches it,
    ``depth`` orders it among this node's inner nodes (a greater depth runs later)."""
    __slots__ = ("depth", "fn", "args")

    def __init__(self, depth, fn, *args):
        self.depth, self.fn, self.args = depth, fn, args

    def run(self):
        return self.fn(*self.args)


# --- products --------------------------------------------------------------------------------------------------
def _column_major(t):
    s = t.stride()
    return t.ndim == 2 and s[0] == 1 and s[1] == t.shape[0]


def _mm_mat1(g, mat2, mat1):
    if _column_major(mat1):   # torch returns a column-major input's gradient column-major
        return _t(mat2.mm(_t(g)))
    return g.mm(_t(mat2))


def _mm_mat2(g, mat1, mat2):
    if _column_major(mat2):
        return _t(_t(g).mm(mat1))
    return _t(mat1).mm(g)


def _mm(g, a, b, want0, want1):
    """MmBackward0: mat2's gradient first, then self's (torch's generated order)."""
    return {1: _mm_mat2(g, a, b) if want1 else None, 0: _mm_mat1(g, b, a) if want0 else None}


def _bmm(g, a, b, want0, want1):
    gb = _transpose(a, 1, 2).bmm(g) if want1 else None
    ga = g.bmm(_transpose(b, 1, 2)) if want0 else None
    return {1: gb, 0: ga}


def _prod(xs):
    n = 1
    for v in xs:
        n *= v
    return n


def _matmul(node, prims, cts, want):
    a, b = prims[:2]
    g = cts[0]
    if a.ndim == 2 and b.ndim == 2:
        return _mm(g, a, b, 0 in want, 1 in want)
    if a.ndim == 3 and b.ndim == 3 and a.shape[0] == b.shape[0]:
        return _bmm(g, a, b, 0 in want, 1 in want)
    if a.ndim >= 3 and b.ndim == 2 and _should_fold(a, b):   # view(a) + mm + _unsafe_view
        a2 = a.reshape(_prod(a.shape[:-1]), a.shape[-1])
        out = _mm(_view(g, [a2.shape[0], b.shape[-1]]), a2, b, 0 in want, 1 in want)
        if out[0] is not None:
            out[0] = Later(0.5, _view, out[0], a.shape)
        return out
    if a.ndim < 2 or b.ndim < 2:
        return None
    batch = list(g.shape[:-2])
    n = _prod(batch)
    a3 = a.expand(batch + list(a.shape[-2:])).reshape([n] + list(a.shape[-2:]))
    b3 = b.expand(batch + list(b.shape[-2:])).reshape([n] + list(b.shape[-2:]))
    out = _bmm(_view(g, [n] + list(g.shape[-2:])), a3, b3, 0 in want, 1 in want)
    back = (lambda t, x, full: sum_to(_view(t, full), x.shape))
    if out[1] is not None:   # b's view and expand nodes were made after a's: they run first
        out[1] = Later(0.25, back, out[1], b, batch + list(b.shape[-2:]))
    if out[0] is not None:
        out[0] = Later(0.5, back, out[0], a, batch + list(a.shape[-2:]))
    return out


def _addmm(node, prims, cts, want):
    st = dict(node.statics)
    if st.get("kind") != "mm":
        return None
    c, m1, m2, beta, alpha = prims
    g = cts[0]
    out = {}
    if 0 in want:
        out[0] = g if beta == 1 else _mul_scalar(g, beta)
    if 1 in want:
        gm = _mm_mat1(g, m2, m1)
        out[1] = gm if alpha == 1 else _mul_scalar(gm, alpha)
    if 2 in want:
        gm = _mm_mat2(g, m1, m2)
        out[2] = gm if alpha == 1 else _mul_scalar(gm, alpha)
    return out


def _linear(node, prims, cts, want):
    """at::linear: ``addmm(bias, input, weight.t())`` (``view``s around it for N-D input), ``mm`` without a bias:
    the product's node, then ``TBackward0`` of the weight and ``ViewBackward0`` of the input in torch's order."""
    x, w, b = prims[:3]
    g = cts[0]
    if x.ndim < 2 or w.ndim != 2:
        return None
    nd = x.ndim
    x2 = x if nd == 2 else x.reshape(_prod(x.shape[:-1]), x.shape[-1])
    wt = w.t()
    if nd > 2:
        g = _view(g, [x2.shape[0], w.shape[0]])
    out = {}
    if b is not None:   # AddmmBackward0: self, mat1, mat2; then self's sum_to
        gx = _mm_mat1(g, wt, x2) if 0 in want else None
        gw = _mm_mat2(g, x2, wt) if 1 in want else None
        if 2 in want:
            out[2] = sum_to(g, b.shape)
        t_depth, v_depth = 0.25, 0.5   # forward: view(x), t(w), addmm
    else:               # MmBackward0: mat2, then self
        gw = _mm_mat2(g, x2, wt) if 1 in want else None
        gx = _mm_mat1(g, wt, x2) if 0 in want else None
        t_depth, v_depth = 0.5, 0.25   # forward: t(w), view(x), mm
    if nd == 2:
        t_depth = 0.5
    if gw is not None:
        out[1] = Later(t_depth, _t, gw)
    if gx is not None:
        out[0] = gx if nd == 2 else Later(v_depth, _view, gx, x.shape)
    return out


# --- reductions and arithmetic -----------------------------------------------------------------------------------
def _reduced_back(g, x, dims, keepdim):
    if dims is not None and not keepdim:
        for d in sorted(d % x.ndim for d in dims):
            g = _unsqueeze(g, d)
    return _expand(g, x.shape)


def _sum(node, prims, cts, want):
    st = dict(node.statics)
    return {0: _reduced_back(cts[0], prims[0], st.get("dims"), st.get("keepdim"))}


def _mean(node, prims, cts, want):
    st = dict(node.statics)
    x, dims = prims[0], st.get("dims")
    n = x.numel() if dims is None else _prod(x.shape[d] for d in dims)
    return {0: _div_scalar(_reduced_back(cts[0], x, dims, st.get("keepdim")), n)}


def _add(node, prims, cts, want):
    st = dict(node.statics)
    g, alpha = cts[0], st.get("alpha", 1)
    out = {}
    if 0 in want:
        out[0] = g
    if 1 in want:
        other = -g if st.get("sub") else g
        out[1] = other if alpha == 1 else _mul_scalar(other, alpha)
    return out


def _mul(node, prims, cts, want):
    if getattr(node.f, "__name__", "") != "mul_impl":
        return None
    a, b = prims[:2]
    g = cts[0]
    out = {}
    if 1 in want:
        out[1] = g * a
    if 0 in want:
        out[0] = g * b
    return out


def _div(node, prims, cts, want):
    if dict(node.statics).get("mode") is not None:
        return None
    a, b = prims[:2]
    g = cts[0]
    out = {}
    if 1 in want:   # torch: -grad * ((self / other) / other), the quotient first
        q = (a / b) / b
        out[1] = -g * q
    if 0 in want:
        out[0] = g / b
    return out


def _neg(node, prims, cts, want):
    if getattr(node.f, "__name__", "") != "neg_impl":
        return None
    return {0: -cts[0]}


# --- nodes torch differentiates with one aten kernel ---------------------------------------------------------------
def _result(node, prims):
    """The forward's result, as the saved variable torch unpacks (``detach``); in a ``create_graph`` backward it
    keeps its place in the graph (its node is this one), as torch's unpacked output does."""
    if node.saves_outputs and node.saved:
        r = node.saved[0][0]
    else:
        arrays = [p._value if isinstance(p, Tensor) else p for p in prims]
        r = node.f(*arrays, **dict(node.statics))
    if not isinstance(r, Tensor):
        r = Tensor._wrap_where(r[0] if isinstance(r, tuple) else r)
    if not _PASS.create_graph:
        return _detach(r)
    r = Tensor._wrap(r._value, r._dev)
    r._grad_fn, r._oi = node, 0
    return call(_op("detach"), lambda a: r, r)


class _Pass:
    """The backward pass running: with ``create_graph`` formulas are recorded and a node's own pullback (the
    values of a one-kernel call) runs as the engine's recorded backward (``unseen``)."""
    __slots__ = ("create_graph", "unseen", "wanted", "subclass")

    def __init__(self):
        self.create_graph, self.unseen, self.wanted, self.subclass = False, None, None, False


_PASS = _Pass()


def pull(node, cts):
    """The node's input gradients (Tensors, in ``diff_in`` order, None where not computed) for the output
    gradients ``cts`` (Tensors or None): its compiled pullback, or the recorded one in a create_graph pass."""
    dev = next((c._dev for c in cts if c is not None), None)
    if _PASS.create_graph:
        out = _aten_calls._without_modes(_PASS.unseen, node, list(cts), True, _PASS.wanted)
        return [g if g is None or isinstance(g, Tensor) else Tensor._wrap_where(g) for g in out]
    return [None if g is None else Tensor._wrap(g, dev)
            for g in node.apply([None if c is None else c._value for c in cts])]


def _kernel(node, func, args, kwargs, slots, single=False, strides=None):
    """``func(*args, **kwargs)`` computed by the node's pullback for the gradient ``args[0]``: torch's outputs
    (one tensor, or one per input in ``slots``, None where not computed) mapped back to the node's inputs."""
    diff_in = node.diff_in

    def compute(g, *_, **__):
        got = dict(zip(diff_in, pull(node, [g])))
        outs = []
        for j in slots:
            t = got.get(j)
            if t is not None and strides is not None:
                t._st = strides(t)
            outs.append(t)
        return outs[0] if single else tuple(outs)
    r = call(func, compute, *args, **kwargs)
    r = (r,) if single else r
    return {j: t for j, t in zip(slots, r) if j is not None and t is not None}


# subclass nodes (utils/_subclass_dispatch.py): a node function whose rule wins over the node's name (views), and
# aten kernel name -> its computation on plain tensors, for a kernel a subclass runs on what it wraps
F_FIRST: dict = {}
PLAIN_KERNELS: dict = {}


def _on_subclass(node):
    """Whether ``node`` was recorded above a ``__torch_dispatch__`` subclass (its primals are instances)."""
    return any(type(p) in _prof.SUBCLASSES for p in getattr(node, "primals", None) or ())


def _plain_kernel(func, compute):
    """What runs one of a subclass node's backward calls: a one-kernel call (``threshold_backward``), whose
    ``compute`` would read the node's saved arrays (placeholders here), runs ``PLAIN_KERNELS``' computation on
    the arguments the subclass passes; other calls (``t``, ``mm``, ...) compute from their arguments already."""
    if getattr(compute, "plain", False):   # computes from its arguments (a subclass view's backward)
        return compute
    name = str(func)
    fn = PLAIN_KERNELS.get(name)
    if fn is not None:
        return fn
    if "_backward" in name:
        def unsupported(*_, **__):
            raise NotImplementedError(f"torchlike: {name} on a __torch_dispatch__ tensor subclass is not supported "
                                      f"(see docs/differences.md)")
        return unsupported
    return compute


def _unary_kernel(func, saved_result=False, extra=(), **kw):
    def rule(node, prims, cts, want):
        x = _result(node, prims) if saved_result else prims[0]
        kwargs = {k: f(node) for k, f in kw.items() if f(node) is not None}
        return _kernel(node, func, (cts[0], x, *extra), kwargs, (0,), single=True)
    return rule


def _softmax(node, prims, cts, want):
    st = dict(node.statics)
    if st.get("neg") or st.get("dt") is not None:
        return None
    func = _op("_log_softmax_backward_data") if st.get("log") else _op("_softmax_backward_data")
    x = prims[0]
    return _kernel(node, func, (cts[0], _result(node, prims), st["dim"], x.dtype), {}, (0,), single=True)


def _total_weight(t, w, ignore_index):
    valid = (t._value != ignore_index)
    tw = jnp.where(valid, 1.0 if w is None else w._value[jnp.clip(t._value, 0)], 0.0).sum()
    return Tensor._wrap(tw.astype(jnp.float32 if w is None else w._value.dtype))


def _nll_call(g, x, t, w, ignore_index, reduction, compute):
    return call(_op("nll_loss_backward"), compute, g, x, t, w, _REDUCTION[reduction], ignore_index,
                _total_weight(t, w, ignore_index))


def _nll_loss(node, prims, cts, want):
    st = dict(node.statics)
    x, t, w, ignore_index = prims[:4]
    if x.ndim > 2:
        return None
    return {0: _nll_call(cts[0], x, t, w, ignore_index, st["reduction"],
                         lambda g, *_: pull(node, [g])[0])}


def _cross_entropy(node, prims, cts, want):
    """torch's cross_entropy is ``_log_softmax`` + ``nll_loss_forward``: their two backward kernels."""
    st = dict(node.statics)
    x, t, w, ignore_index = prims[:4]
    if st.get("smoothing") or x.ndim > 2 or _PASS.create_graph:
        return None
    cdim = st["cdim"]
    lsm = Tensor._wrap(_softmax_impl(x._value, dim=cdim, dt=None, log=True, neg=False))
    nll_statics = (("reduction", st["reduction"]), ("cdim", cdim), ("checked", st.get("checked", False)))

    def nll_back(g, *_):
        pull = pullback_fn(_nll, nll_statics, (0,), (0,))
        return Tensor._wrap(pull((lsm._value, t._value, None if w is None else w._value, ignore_index),
                                 (g._value,))[0], g._dev)
    g = _nll_call(cts[0], lsm, t, w, ignore_index, st["reduction"], nll_back)
    sm_statics = (("dim", cdim), ("dt", None), ("log", True), ("neg", False))

    def lsm_back(gl, *_):
        return Tensor._wrap(pullback_fn(_softmax_impl, sm_statics, (0,), (0,))((x._value,), (gl._value,))[0],
                            gl._dev)
    return {0: call(_op("_log_softmax_backward_data"), lsm_back, g, _detach(lsm), cdim, x.dtype)}


def _mse(node, prims, cts, want):
    st = dict(node.statics)
    if st.get("kind") != "mse" or prims[2] is not None or 1 in want:
        return None
    return _kernel(node, _op("mse_loss_backward"), (cts[0], prims[0], prims[1], _REDUCTION[st["reduction"]]),
                   {}, (0,), single=True)


def _embedding(node, prims, cts, want):
    st = dict(node.statics)
    w, idx = prims[:2]
    return _kernel(node, _op("embedding_dense_backward"),
                   (cts[0], idx, w.shape[0], st["padding_idx"], st["scale_by_freq"]), {}, (0,), single=True)


def _layer_norm(node, prims, cts, want):
    x, w, b = prims[:3]
    nd = dict(node.statics)["nd"]
    axes = tuple(range(x.ndim - nd, x.ndim))
    xf = x._value.astype(jnp.float32) if x._value.dtype.itemsize < 4 else x._value
    mean = jnp.mean(xf, axis=axes, keepdims=True)
    rstd = 1.0 / jnp.sqrt(jnp.mean(jnp.square(xf - mean), axis=axes, keepdims=True) + prims[3])
    mean, rstd = (Tensor._wrap(a.astype(x._value.dtype)) for a in (mean, rstd))
    mask = [0 in want, 1 in want, 2 in want]
    return _kernel(node, _op("native_layer_norm_backward"),
                   (cts[0], x, list(x.shape[x.ndim - nd:]), mean, rstd, w, b, mask), {}, (0, 1, 2))


def _conv(node, prims, cts, want):
    st = dict(node.statics)
    if st.get("unbatched"):
        return None
    (x, w, b, stride, padding, dilation, transposed, out_pad, groups), _, _ = _aten_calls._conv_args(prims, st)
    bias_sizes = [0] if b is None else [b.shape[0]]
    mask = [0 in want, 1 in want, 2 in want]
    return _kernel(node, _op("convolution_backward"),
                   (cts[0], x, w, bias_sizes, stride, padding, dilation, transposed, out_pad, groups, mask), {},
                   (0, 1, 2))


def _blhe(t):
    """torch's CPU flash kernel's gradients: (B, H, L, E) tensors laid out as (B, L, H, E)."""
    B, H, L, E = t.shape
    return (L * H * E, E, H * E, 1)


def _sdpa(node, prims, cts, want):
    q, k, v, mask, keep, scale = prims[:6]
    st = dict(node.statics)
    if mask is not None or _flash_declines(q, k, v, keep) or st.get("gqa"):
        return None
    out = _result(node, prims)
    s = (q._value @ jnp.swapaxes(k._value, -1, -2)) * scale
    if st.get("is_causal"):
        L, S = s.shape[-2:]
        s = jnp.where(jnp.tril(jnp.ones((L, S), bool)), s, -jnp.inf)
    lse = jnp.swapaxes(jnp.swapaxes(jax_logsumexp(s), -1, -2), -1, -2)
    lse_t = Tensor._wrap(lse.astype(jnp.float32))
    lse_t._st = (lse.shape[1] * lse.shape[2], 1, lse.shape[1])   # torch's (B, L, H) layout
    kw = {"attn_mask": None}
    if abs(scale - q.shape[-1] ** -0.5) > 1e-9 * scale:
        kw["scale"] = scale
    return _kernel(node, _op("_scaled_dot_product_flash_attention_for_cpu_backward"),
                   (cts[0], q, k, v, out, lse_t, 0.0, bool(st.get("is_causal"))), kw, (0, 1, 2), strides=_blhe)


def jax_logsumexp(s):
    m = jnp.max(s, axis=-1, keepdims=True)
    return (m + jnp.log(jnp.sum(jnp.exp(s - m), axis=-1, keepdims=True)))[..., 0]


# --- view nodes (recorded for autograd only; torch runs each view's backward as one aten view op) ---------------
def _step(node):
    return dict(node.statics).get("step") or ()


def _view_back(node, prims, cts, want):
    if tuple(prims[0].shape) == tuple(cts[0].shape):   # torchlike's node for expand to the same shape
        return {0: cts[0]}
    return {0: _view(cts[0], prims[0].shape)}


def _t_back(node, prims, cts, want):
    return {0: _t(cts[0])}


def _transpose_back(node, prims, cts, want):
    step = _step(node)
    perm = step[1] if step[:1] == ("permute",) else None
    if perm is None:
        return None
    swapped = [i for i, p in enumerate(perm) if i != p]
    if len(swapped) != 2:
        return {0: _view(cts[0], prims[0].shape)} if not swapped else None
    return {0: _transpose(cts[0], *swapped)}


def _permute_back(node, prims, cts, want):
    step = _step(node)
    if step[:1] != ("permute",):
        return None
    inverse = [0] * len(step[1])
    for i, p in enumerate(step[1]):
        inverse[p] = i
    return {0: call(_op("permute"), lambda a, dims: a.permute(dims), cts[0], inverse)}


def _unsqueeze_back(node, prims, cts, want):
    step = _step(node)
    if len(step) < 3 or step[2][:1] != ("unsqueeze",):
        return None
    return {0: call(_op("squeeze", "dim"), lambda a, d: a.squeeze(d), cts[0], step[2][1])}


def _expand_back(node, prims, cts, want):
    return {0: sum_to(cts[0], prims[0].shape)}


def _named(fname):
    """The rule applies to nodes of the JAX function named ``fname`` only (a node name can have several)."""
    def deco(rule):
        def checked(node, prims, cts, want):
            return rule(node, prims, cts, want) if getattr(node.f, "__name__", "") == fname else None
        return checked
    return deco


@_named("log_impl")
def _log(node, prims, cts, want):
    return {0: cts[0] / prims[0]}


@_named("abs_impl")
def _abs(node, prims, cts, want):
    return {0: cts[0] * prims[0].sgn()}


@_named("sqrt_impl")
def _sqrt(node, prims, cts, want):
    r = _result(node, prims)
    return {0: cts[0] / _mul_scalar(r, 2)}


def _pow_scalar(node, prims, cts, want):
    name = getattr(node.f, "__name__", "")
    if name not in ("_pow_scalar_impl", "_square_impl"):
        return None
    e = dict(node.statics).get("e", 2)
    if e == 0 or isinstance(e, complex):
        return None
    return {0: cts[0] * _mul_scalar(prims[0].pow(float(e - 1) if isinstance(e, int) else e - 1), float(e))}


def _identity(node, prims, cts, want):
    return {0: cts[0]}


@_named("_cat_impl")
def _cat(node, prims, cts, want):
    dim = dict(node.statics)["dim"]
    out, start = {}, 0
    for i, p in enumerate(prims):
        n = p.shape[dim] if hasattr(p, "shape") and p.ndim else 0
        if i in want:
            out[i] = call(_op("slice", "Tensor"), lambda a, d, s0, e0: a.narrow(d, s0, e0 - s0), cts[0], dim,
                          start, start + n)
        start += n
    return out


def _exp(node, prims, cts, want):
    if getattr(node.f, "__name__", "") != "exp_impl":
        return None
    return {0: cts[0] * _result(node, prims)}


_BY_F = {_matmul_impl: _matmul, _axpby_impl: _addmm, _linear_mod._linear: _linear, _sum_impl: _sum,
         _mean_impl: _mean, _alpha_impl: _add, _div_impl: _div,
         _softmax_impl: _softmax, _nll: _nll_loss, _ce_index: _cross_entropy, _ln_impl: _layer_norm,
         _conv_impl: _conv, _sdpa_impl: _sdpa}
_approximate = (lambda node: dict(node.statics).get("approximate") if dict(node.statics).get("approximate")
                not in (None, "none") else None)
_BY_NAME = {"ReluBackward0": _unary_kernel(_op("threshold_backward"), saved_result=True, extra=(0,)),
            "GeluBackward0": _unary_kernel(_op("gelu_backward"), approximate=_approximate),
            "SiluBackward0": _unary_kernel(_op("silu_backward")),
            "TanhBackward0": _unary_kernel(_op("tanh_backward"), saved_result=True),
            "SigmoidBackward0": _unary_kernel(_op("sigmoid_backward"), saved_result=True),
            "TBackward0": _t_back, "TransposeBackward0": _transpose_back, "PermuteBackward0": _permute_back,
            "ViewBackward0": _view_back, "UnsqueezeBackward0": _unsqueeze_back, "ExpandBackward0": _expand_back,
            "ExpBackward0": _exp, "LogBackward0": _log, "AbsBackward0": _abs, "SqrtBackward0": _sqrt,
            "PowBackward0": _pow_scalar, "SquareBackward0": _pow_scalar, "CloneBackward0": _identity, "CatBackward0": _cat, "MulBackward0": _mul, "NegBackward0": _neg, "MseLossBackward0": _mse, "EmbeddingBackward0": _embedding}
_SPECIAL_NAMES = {"NllLossBackward0"}   # _nll/_ce_index also serve other nodes (nll_loss2d): only this one


# --- the engine's side ---------------------------------------------------------------------------------------------
class _Seen:
    """What the engine calls while a mode is active (installed as ``_profiler_state.MODE_BACKWARD[0]``)."""

    def __init__(self):
        # gradients a formula handed to two inputs (torch: use_count > 1), by id (a WeakSet compares Tensors with ==)
        self._shared = weakref.WeakValueDictionary()

    def apply(self, node, cts, create_graph, wanted, unseen):
        rule = F_FIRST.get(node.f) or _BY_NAME.get(node._name) or _BY_F.get(node.f)
        if rule is _nll_loss or rule is _cross_entropy:
            rule = rule if node._name in _SPECIAL_NAMES else None
        if rule is not None and type(node).apply is _PLAIN_APPLY and node.apply_recorded is None:
            prims = [_primal(p, e, create_graph) for p, e in zip(node.primals, node.inputs)]
            full = [c if c is not None else Tensor._wrap(jnp.zeros(m[0], m[1]))
                    for c, m in zip(cts, node.out_meta)]
            want = set(node.diff_in if wanted is None else wanted) & set(node.diff_in)
            _PASS.create_graph, _PASS.unseen, _PASS.wanted = create_graph, unseen, wanted
            _PASS.subclass = bool(_prof.SUBCLASSES) and _on_subclass(node)
            try:
                grads = rule(node, prims, full, want)
            finally:
                _PASS.create_graph, _PASS.unseen, _PASS.wanted, _PASS.subclass = False, None, None, False
            if grads is not None:
                return self._validated(node, prims, grads)
        if _prof.SUBCLASSES and _on_subclass(node):   # its pullback would read placeholders
            raise NotImplementedError(f"torchlike: the backward of {node.name()} on a __torch_dispatch__ tensor "
                                      f"subclass is not supported (see docs/differences.md)")
        raw = [c if create_graph or c is None else c._value for c in cts]
        out = _aten_calls._without_modes(unseen, node, raw, create_graph, wanted)
        return [g if g is None or isinstance(g, Tensor) else Tensor._wrap_where(g) for g in out]

    def _validated(self, node, prims, grads):
        """The node's gradients in its inputs' order, each reduced to its input's shape (torch's sum_to)."""
        out, seen_ids = [], {}
        for i in node.diff_in:
            g = grads.get(i)
            if isinstance(g, Tensor):
                p = prims[i]
                if hasattr(p, "shape") and tuple(g.shape) != tuple(p.shape):
                    g = sum_to(g, p.shape)
                if id(g) in seen_ids:
                    self._shared[id(g)] = g
                seen_ids[id(g)] = g
            out.append(g)
        return out

    @staticmethod
    def is_later(g):
        return type(g) is Later

    def _stealable(self, t):
        return (0 not in t.stride() and self._shared.get(id(t)) is not t and not t.requires_grad
                and _dense(t))

    @staticmethod
    def buffer_sum(old, new):
        """torch's InputBuffer::accumulate (``aten.add.Tensor``: torch 2.13 sums out of place here)."""
        return old + new

    def accumulate(self, node, g, create_graph):
        """AccumulateGrad: keep the gradient (``detach``) when its layout is the parameter's, else copy it into a
        tensor of the parameter's strides; later gradients add into ``.grad``."""
        if type(node) is NoGradViewSink:
            return
        v = node.variable
        if v._grad is None:
            if not create_graph and self._stealable(g) and _same_layout(g, v):
                v._grad = _detach(g)
            else:
                size, stride = list(v.shape), list(v.stride())
                empty = call(_op("new_empty_strided"),
                             lambda src, sz, sd, **kw: empty_strided(sz, sd, dtype=kw["dtype"], device=kw["device"]),
                             g, size, stride, dtype=v.dtype, layout=strided, device=v.device)
                v._grad = empty.copy_(g)
        elif create_graph or v._grad.requires_grad:
            v._grad = v._grad + g
        else:
            v._grad.add_(g)
        if node._hooks:
            for h in tuple(node._hooks.values()):
                h((), ())

    @staticmethod
    def ones_like(o, g):
        from_mode = call(_op("ones_like"), lambda t, **kw: g, o, pin_memory=False,
                         memory_format=preserve_format)
        return from_mode


_TRANSPOSES = frozenset({"TBackward0", "TransposeBackward0", "PermuteBackward0"})


def _primal(p, edge, create_graph=False):
    """A saved input as a Tensor; a matrix that was a transposed view of another (its edge says so) gets the
    column-major strides torch's formulas look at (the tape keeps values, not strides). In a create_graph pass
    it keeps its place in the graph (the edge's node), so the recorded formula reaches the inputs."""
    if not (hasattr(p, "shape") and hasattr(p, "dtype")) or isinstance(p, Tensor):  # (a subclass node's instance)
        return p
    t = Tensor._wrap_where(p)
    if t.ndim == 2 and edge is not None and edge[0] is not None and type(edge[0]).__name__ in _TRANSPOSES:
        t._st = (1, t.shape[0])
    if create_graph and edge is not None and edge[0] is not None:
        n, idx = edge
        if type(n) is AccumulateGrad:
            return n.variable
        t._grad_fn, t._oi = n, idx
    return t


def _dense(t):
    """Non-overlapping and dense: the strides, sorted, are those of a contiguous tensor."""
    dims = sorted((st, sz) for st, sz in zip(t.stride(), t.shape) if sz != 1)
    expected = 1
    for st, sz in dims:
        if st != expected:
            return False
        expected *= sz
    return True


def _same_layout(g, v):
    """torch's ``obeys_layout_contract``: the gradient's strides are the parameter's (dims of size 1 aside)."""
    if not _dense(v):
        return _dense(g)
    return all(sz == 1 or a == b for sz, a, b in zip(g.shape, g.stride(), v.stride()))


_PLAIN_APPLY = Node.apply


def extend(by_f, by_name):
    """Add rules: ``by_f`` keyed by a node's JAX function, ``by_name`` by its node name (which wins)."""
    _BY_F.update(by_f)
    _BY_NAME.update(by_name)


def install():
    """Show the engine's calls to the active modes."""
    _prof.MODE_BACKWARD[0] = _Seen()
