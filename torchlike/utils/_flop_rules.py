"""Which matrix products torch's dispatcher runs for each torchlike op, for ``FlopCounterMode``.

torch counts the aten ops its dispatcher runs (``mm``, ``addmm``, ``bmm``, ``baddbmm``, ``convolution``,
``convolution_backward`` and the attention kernels it has formulas for). A torchlike op is often coarser:
``matmul``, ``linear``, ``einsum``, a recurrent layer or multi-head attention is one op. So each rule here
replays the decomposition torch would choose for the same call — ``matmul`` folding into ``mm`` or
expanding into ``bmm`` (by the operands' strides and ``requires_grad``), ``linear`` becoming ``addmm`` only for
a contiguous input with a bias, scaled-dot-product attention taking the (uncounted) CPU flash kernel unless
that kernel declines — and returns ``(forward, backward)``: the ``(aten op name, flops)`` pairs of the
forward, and those its backward will run for the inputs that require grad (an ``mm``/``bmm`` per input
gradient, ``convolution_backward`` as torch's formula counts it). A rule takes ``(args, statics, name, out)``:
the op's arguments, its statics as a dict, its node name and its result.
"""
from __future__ import annotations

import math

try:   # jax's dependency; torch takes its contraction path when it is installed
    import opt_einsum
except ImportError:   # pragma: no cover - jax requires it
    opt_einsum = None

from ..tensor import Tensor as _Tensor
from .._ops.addmm import _axpby_impl
from .._ops.matmul import _einsum_impl, _inner_impl, _matmul_impl, _multi_dot_impl, _tensordot_impl
from ..nn.functional import _rnn
from ..nn.functional._attention import _mha_impl, _sdpa_impl
from ..nn.functional._conv import _conv_impl, _convT_half_impl, _convT_impl
from ..nn.functional._linear import _linear
from ..nn.functional._recurrent import _onednn_lstm

__all__ = ["mm_flop", "bmm_flop", "conv_flop_count", "conv_backward_flop", "sdpa_flop_count", "RULES"]



# --- torch's formulas (torch.utils.flop_counter), on shapes -------------------------------------------------
def mm_flop(a_shape, b_shape, *args, out_shape=None, **kwargs) -> int:
    """``2 * m * k * n`` for an ``(m, k) @ (k, n)`` product."""
    m, k = a_shape
    return m * b_shape[1] * 2 * k


def bmm_flop(a_shape, b_shape, out_shape=None, **kwargs) -> int:
    b, m, k = a_shape
    return b * m * b_shape[2] * 2 * k


def conv_flop_count(x_shape, w_shape, out_shape, transposed=False) -> int:
    """A convolution's multiplications times two: per point of the output (of the input when transposed)."""
    conv_shape = (x_shape if transposed else out_shape)[2:]
    return math.prod(conv_shape) * math.prod(w_shape) * x_shape[0] * 2


def conv_backward_flop(grad_out_shape, x_shape, w_shape, transposed, output_mask) -> int:
    """``convolution_backward``: the input gradient as the opposite convolution, the weight gradient as a
    convolution of the input by the output gradient (batch and channel dims swapped)."""
    def t(shape):
        return [shape[1], shape[0]] + list(shape[2:])
    n = 0
    if output_mask[0]:
        n += conv_flop_count(grad_out_shape, w_shape, x_shape, not transposed)
    if output_mask[1]:
        if transposed:
            n += conv_flop_count(t(grad_out_shape), t(x_shape), t(w_shape), False)
        else:
            n += conv_flop_count(t(x_shape), t(grad_out_shape), t(w_shape), False)
    return n


def sdpa_flop_count(query_shape, key_shape, value_shape) -> int:
    """``q @ k^T`` and ``attn @ v`` of one attention call."""
    b, h, s_q, d_q = query_shape
    s_k, d_v = key_shape[-2], value_shape[-1]
    return 2 * b * h * s_q * s_k * d_q + 2 * b * h * s_q * s_k * d_v


# --- helpers ----------------------------------------------------------------------------------------------
def _rg(t):
    return isinstance(t, _Tensor) and t.requires_grad


def _shape(t):
    return tuple(t.shape)


def _product(op, flops, *needs_grad):
    """A product run once forward and once backward per operand that requires grad (torch's mm/bmm rule)."""
    return [(op, flops)], [(_BACKWARD_OP.get(op, op), flops)] * sum(bool(g) for g in needs_grad)


_BACKWARD_OP = {"addmm": "mm", "baddbmm": "bmm"}


def _bcast(a, b):
    out = []
    for x, y in zip(((1,) * (len(b) - len(a)) + tuple(a)), ((1,) * (len(a) - len(b)) + tuple(b))):
        out.append(y if x == 1 else x)
    return tuple(out)


def _strides(t, swap_last):
    try:
        st = list(t.stride())
    except (RuntimeError, AttributeError):   # a tensor without strides (sparse): torch would not fold either
        return None
    if swap_last:
        st[-1], st[-2] = st[-2], st[-1]
    return st


# --- matmul -----------------------------------------------------------------------------------------------
def _should_fold(a, b):
    """at::matmul's choice: fold the larger (>= 3-D) operand into a matrix and run mm/mv, or run bmm."""
    na, nb = a.ndim, b.ndim
    larger = na >= nb
    big, small = (na, nb) if larger else (nb, na)
    if not (big >= 3 and small <= 2):
        return False
    if (b if larger else a).requires_grad:   # folding spares the backward a batched gradient of the small one
        return True
    if na == 2:
        return False
    t1 = a if larger else b
    shape = list(t1.shape)
    if not larger:
        shape[-1], shape[-2] = shape[-2], shape[-1]
    if math.prod(shape) == 0:
        return True
    st = _strides(t1, not larger)
    if st is None:
        return False
    return all(st[i] == st[i + 1] * shape[i + 1] for i in range(big - 2))


def matmul_products(a, b, a_rg=None, b_rg=None):
    """The products of ``matmul(a, b)`` (a, b: Tensors)."""
    a_rg = a.requires_grad if a_rg is None else a_rg
    b_rg = b.requires_grad if b_rg is None else b_rg
    sa, sb = _shape(a), _shape(b)
    na, nb = len(sa), len(sb)
    if nb == 1 and na <= 2:   # dot, mv: not counted
        return [], []
    if na == 1 and nb == 2:
        return _product("mm", 2 * sa[0] * sb[1], a_rg, b_rg)
    if na == 2 and nb == 2:
        return _product("mm", mm_flop(sa, sb), a_rg, b_rg)
    n = sa[-2] if na > 1 else 1
    k = sa[-1]
    p = sb[-1] if nb > 1 else 1
    batch = math.prod(_bcast(sa[:-2], sb[:-2]))
    flops = 2 * batch * n * k * p
    if _should_fold(a, b):
        return ([], []) if min(na, nb) == 1 else _product("mm", flops, a_rg, b_rg)
    return _product("bmm", flops, a_rg, b_rg)


class _T:
    """A stand-in operand (shape, strides, requires_grad) for products torch runs on derived tensors."""

    def __init__(self, shape, requires_grad, strides=None):
        self.shape = tuple(shape)
        self.ndim = len(self.shape)
        self.requires_grad = requires_grad
        self._strides = strides

    def is_contiguous(self):
        return self._strides is None

    def stride(self):
        if self._strides is not None:
            return self._strides
        st, acc = [], 1
        for s in reversed(self.shape):
            st.append(acc)
            acc *= max(s, 1)
        return tuple(reversed(st))


def _weight_t(w):
    """``weight.t()`` as matmul's right operand."""
    s = _shape(w)
    return _T((s[1], s[0]), w.requires_grad, (1, s[1]))


def linear_products(x, w, b):
    """at::linear: addmm for a 2-D or contiguous N-D input with a bias, else matmul (then the bias added)."""
    if w.ndim != 2 or x.ndim == 0:
        return [], []
    if b is not None and (x.ndim == 2 or x.is_contiguous()):
        rows = math.prod(_shape(x)[:-1])
        return _product("addmm", 2 * rows * x.shape[-1] * w.shape[0], x.requires_grad, w.requires_grad)
    return matmul_products(x, _weight_t(w))


def _rule_matmul(args, statics, name, out):
    a, b = args
    if name.startswith("Bmm"):
        return _product("bmm", bmm_flop(_shape(a), _shape(b)), a.requires_grad, b.requires_grad)
    if name.startswith("Mm"):
        return _product("mm", mm_flop(_shape(a), _shape(b)), a.requires_grad, b.requires_grad)
    return matmul_products(a, b)


def _rule_linear(args, statics, name, out):
    return linear_products(*args)


def _rule_axpby(args, statics, name, out):
    inp, x, y = args[:3]
    kind = statics.get("kind")
    if kind == "mm" and x.ndim == 2:
        return _product("addmm", mm_flop(_shape(x), _shape(y)), x.requires_grad, y.requires_grad)
    if kind == "mm":
        return _product("baddbmm", bmm_flop(_shape(x), _shape(y)), x.requires_grad, y.requires_grad)
    if kind == "bmm_sum":   # addbmm: its forward kernel is not counted, its backward runs bmm's
        f = bmm_flop(_shape(x), _shape(y))
        return [], [("bmm", f)] * (x.requires_grad + y.requires_grad)
    return [], []


def _rule_tensordot(args, statics, name, out):
    a, b = args
    axes, shapes = statics["axes"], statics.get("shapes")
    sa, sb = shapes if shapes is not None else (_shape(a), _shape(b))
    k = math.prod(sa[d] for d in axes[0])
    m = math.prod(s for d, s in enumerate(sa) if d not in axes[0])
    n = math.prod(s for d, s in enumerate(sb) if d not in axes[1])
    return _product("mm", 2 * m * k * n, a.requires_grad, b.requires_grad)


def _rule_inner(args, statics, name, out):
    a, b = args
    if a.ndim == 0 or b.ndim == 0 or (a.ndim == 1 and b.ndim == 1):
        return [], []
    m = math.prod(_shape(a)[:-1])
    n = math.prod(_shape(b)[:-1])
    return _product("mm", 2 * m * a.shape[-1] * n, a.requires_grad, b.requires_grad)


def _chain_order(dims):
    """torch's linalg.multi_dot order: (i, j, k) splits, by the matrix-chain dynamic program."""
    n = len(dims) - 1
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = None
            for k in range(i, j):
                q = cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1]
                if cost[i][j] is None or q < cost[i][j]:
                    cost[i][j], split[i][j] = q, k
    return split


def _rule_multi_dot(args, statics, name, out):
    shapes = [list(_shape(t)) for t in args]
    if len(shapes[0]) == 1:
        shapes[0] = [1] + shapes[0]
    if len(shapes[-1]) == 1:
        shapes[-1] = shapes[-1] + [1]
    dims = [s[0] for s in shapes] + [shapes[-1][1]]
    rgs = [t.requires_grad for t in args]
    fwd, bwd = [], []

    def product(i, j, k):   # (i..k) @ (k+1..j): its flops, and whether its result requires grad
        f = 2 * dims[i] * dims[k + 1] * dims[j + 1]
        left, right = any(rgs[i:k + 1]), any(rgs[k + 1:j + 1])
        fwd.append(("mm", f))
        bwd.extend([("mm", f)] * (left + right))

    n = len(args)
    if n == 2:
        product(0, 1, 0)
    elif n == 3:   # torch compares the two orders itself: (AB)C unless A(BC) is strictly cheaper
        a, b, c, d = dims
        if a * c * (b + d) > b * d * (a + c):
            product(1, 2, 1)
            product(0, 2, 0)
        else:
            product(0, 1, 0)
            product(0, 2, 1)
    else:
        split = _chain_order(dims)

        def walk(i, j):
            if i == j:
                return
            k = split[i][j]
            walk(i, k)
            walk(k + 1, j)
            product(i, j, k)
        walk(0, n - 1)
    return fwd, bwd


# --- einsum -----------------------------------------------------------------------------------------------
def _einsum_terms(eq, shapes):
    """Each operand's labels (ellipsis dims as their own labels) and the output's."""
    lhs, arrow, rhs = eq.partition("->")
    subs = lhs.split(",")
    nell = max((len(s) - len(sub.replace("...", "")) for sub, s in zip(subs, shapes) if "..." in sub), default=0)
    ell = [chr(0x100 + i) for i in range(nell)]
    terms = []
    for sub, s in zip(subs, shapes):
        if "..." in sub:
            pre, post = sub.split("...")
            n = len(s) - len(pre) - len(post)
            sub = list(pre) + ell[nell - n:] + list(post)
        terms.append(list(sub))
    if arrow:
        out = list(rhs.replace("...", "".join(ell)))
    else:
        flat = [c for t in terms for c in t if c not in ell]
        out = ell + sorted(c for c in set(flat) if flat.count(c) == 1)
    return terms, out


def _einsum_path(eq, shapes):
    """The pairs torch contracts: opt_einsum's path for three or more operands, as torch uses it."""
    if len(shapes) < 3:
        return [(0, 1)]
    if opt_einsum is not None:
        try:
            return opt_einsum.contract_path(eq, *shapes, shapes=True, optimize="auto")[0]
        except ValueError:   # an equation it does not take (torch's own spelling): left to right
            pass
    return [(0, 1)] * (len(shapes) - 1)


def _rule_einsum(args, statics, name, out):
    eq = statics["eq"]
    shapes = [_shape(t) for t in args]
    if len(args) < 2:
        return [], []
    terms, out_labels = _einsum_terms(eq, shapes)
    size = {}
    for t, s in zip(terms, shapes):
        for c, n in zip(t, s):
            size[c] = max(size.get(c, 1), n)
    ops = [(list(t), rg) for t, rg in zip(terms, (a.requires_grad for a in args))]
    fwd, bwd = [], []
    for i, j in _einsum_path(eq, shapes):
        (left, lrg), (right, rrg) = ops[i], ops[j]
        ops = [o for k, o in enumerate(ops) if k not in (i, j)]
        later = set(out_labels).union(*(set(t) for t, _ in ops))
        labels = list(dict.fromkeys(left + right))
        summed = [c for c in labels if c in left and c in right and c not in later]
        if summed:
            lro = math.prod(size[c] for c in labels if c in left and c in right and c in later)
            lo = math.prod(size[c] for c in left if c not in right and c in later)
            ro = math.prod(size[c] for c in right if c not in left and c in later)
            f = 2 * lro * lo * math.prod(size[c] for c in summed) * ro
            fwd.append(("bmm", f))
            bwd.extend([("bmm", f)] * (lrg + rrg))
        ops.append(([c for c in labels if c in later], lrg or rrg))
    return fwd, bwd


# --- convolution ------------------------------------------------------------------------------------------
def _rule_conv(transposed):
    def rule(args, statics, name, out):
        x, w, b = args
        xs = _shape(x)
        if statics.get("unbatched"):
            xs = (1,) + xs
        os_ = _shape(out)
        if len(os_) < len(xs):
            os_ = (1,) + os_
        fwd = [("convolution", conv_flop_count(list(xs), list(_shape(w)), list(os_), transposed))]
        mask = (x.requires_grad, w.requires_grad)
        n = conv_backward_flop(list(os_), list(xs), list(_shape(w)), transposed, mask) if any(mask) else 0
        return fwd, ([("convolution_backward", n)] if (any(mask) or _rg(b)) else [])
    return rule


# --- attention --------------------------------------------------------------------------------------------
def _flash_declines(q, k, v, keep):
    """Where torch's CPU flash kernel does not run and its math path (bmm's) does."""
    return (keep is not None or q.ndim != 4 or k.ndim != 4 or v.ndim != 4
            or not (q.shape[-1] == k.shape[-1] == v.shape[-1])
            or q.shape[0] != k.shape[0] or k.shape[0] != v.shape[0]
            or (q.shape[1] != k.shape[1] and q.shape[1] % max(k.shape[1], 1) != 0)
            or k.shape[1] != v.shape[1])


def _attention_products(bh, lq, s, e, ev, q_rg, k_rg, v_rg, first="bmm"):
    """``q @ k^T`` (``first``: bmm, or baddbmm with a mask) and ``attn @ v`` for ``bh`` batched heads."""
    f1, f2 = 2 * bh * lq * e * s, 2 * bh * lq * s * ev
    fwd = [(first, f1), ("bmm", f2)]
    bwd = [("bmm", f1)] * (q_rg + k_rg) + [("bmm", f2)] * ((q_rg or k_rg) + v_rg)
    return fwd, bwd


def _rule_sdpa(args, statics, name, out):
    q, k, v, mask, keep = args[:5]
    if not _flash_declines(q, k, v, keep):
        return [], []
    bh = math.prod(_bcast(_shape(q)[:-2], _shape(k)[:-2]))
    return _attention_products(bh, q.shape[-2], k.shape[-2], q.shape[-1], v.shape[-1],
                               q.requires_grad, k.requires_grad or _rg(mask), v.requires_grad)


def _rule_mha(args, statics, name, out):
    (q, k, v, in_w, in_b, bias_k, bias_v, out_w, out_b, kpm, attn_mask, q_w, k_w, v_w,
     static_k, static_v, keep) = args
    st = statics
    H = st["H"]
    if not st["batched"]:
        q, k, v = (_T((t.shape[0], 1, t.shape[1]), t.requires_grad) for t in (q, k, v))
    L, N, E = _shape(q)
    fwd, bwd = [], []

    def add(products):
        fwd.extend(products[0])
        bwd.extend(products[1])

    def chunk(w, rows):
        return None if w is None else _T((rows, w.shape[1]), w.requires_grad)

    def bias(rows):   # (a slice of) in_proj_bias
        return None if in_b is None else _T((rows,), in_b.requires_grad)

    if st["separate"]:
        projs = ((q, q_w), (k, k_w), (v, v_w))
        for x, w in projs:
            add(linear_products(x, w, bias(E)))
        rg = [x.requires_grad or w.requires_grad or _rg(in_b) for x, w in projs]
    elif k is v and q is k:
        add(linear_products(q, in_w, bias(3 * E)))
        rg = [q.requires_grad or in_w.requires_grad or _rg(in_b)] * 3
    elif k is v:
        add(linear_products(q, chunk(in_w, E), bias(E)))
        add(linear_products(k, chunk(in_w, 2 * E), bias(2 * E)))
        rg = [x.requires_grad or in_w.requires_grad or _rg(in_b) for x in (q, k, k)]
    else:
        for x in (q, k, v):
            add(linear_products(x, chunk(in_w, E), bias(E)))
        rg = [x.requires_grad or in_w.requires_grad or _rg(in_b) for x in (q, k, v)]
    S = static_k.shape[1] if static_k is not None else k.shape[0]
    S += (bias_k is not None) + bool(st["add_zero_attn"])
    k_rg = rg[1] or _rg(bias_k) or _rg(static_k)
    v_rg = rg[2] or _rg(bias_v) or _rg(static_v)
    hd = E // H
    masked = attn_mask is not None or kpm is not None
    if st["need_weights"]:
        add(_attention_products(N * H, L, S, hd, hd, rg[0], k_rg, v_rg, "baddbmm" if masked else "bmm"))
    elif keep is not None:   # sdpa with dropout: its math path
        add(_attention_products(N * H, L, S, hd, hd, rg[0], k_rg, v_rg))
    attn_rg = rg[0] or k_rg or v_rg
    w2 = _T(_shape(out_w), out_w.requires_grad)
    add(linear_products(_T((L * N, E), attn_rg), w2, None if out_b is None else _T((E,), out_b.requires_grad)))
    return fwd, bwd


# --- recurrent layers -------------------------------------------------------------------------------------
def _rule_cell(args, statics, name, out):
    x, h, c, w_ih, w_hh, b_ih, b_hh = args
    rows = x.shape[0] if x.ndim == 2 else 1
    h_rg = _rg(h)
    op = "addmm" if b_ih is not None else "mm"
    f_ih = 2 * rows * math.prod(_shape(w_ih))
    f_hh = 2 * rows * math.prod(_shape(w_hh))
    fwd = [(op, f_ih), (op, f_hh)]
    bwd = [("mm", f_ih)] * (x.requires_grad + w_ih.requires_grad) + [("mm", f_hh)] * (h_rg + w_hh.requires_grad)
    return fwd, bwd


def _rule_rnn(args, statics, name, out):
    """A whole RNN/GRU layer stack (an LSTM that torch gives to oneDNN's fused kernel counts nothing)."""
    x, h0, c0, lengths, drop = args[:5]
    weights = args[5:]
    st = statics
    if st["mode"] == "LSTM" and not st["proj"] and _onednn_lstm(x.dtype):
        return [], []
    D = 2 if st["bidirectional"] else 1
    per = 2 + (2 if st["has_bias"] else 0) + (1 if st["proj"] else 0)
    op = "addmm" if st["has_bias"] else "mm"
    T, B = x.shape[0], x.shape[1] if x.ndim == 3 else 1
    steps = [B] * T
    if lengths is not None:
        lens = [int(n) for n in (lengths.tolist() if hasattr(lengths, "tolist") else lengths)]
        steps = [sum(1 for n in lens if n > t) for t in range(max(lens, default=0))]
    rows = sum(steps)
    fwd, bwd = [], []
    in_rg = x.requires_grad
    h0_rg = _rg(h0)
    for layer in range(st["num_layers"]):
        layer_rg = False
        for d in range(D):
            w = weights[(layer * D + d) * per:(layer * D + d + 1) * per]
            w_ih, w_hh = w[0], w[1]
            f_in = 2 * rows * math.prod(_shape(w_ih))
            fwd.append((op, f_in))
            bwd.extend([("mm", f_in)] * (in_rg + w_ih.requires_grad))
            state_rg = any(t.requires_grad for t in w) or in_rg or h0_rg   # the hidden state after a step
            for t, bs in enumerate(steps):
                f_h = 2 * bs * math.prod(_shape(w_hh))
                fwd.append((op, f_h))
                bwd.extend([("mm", f_h)] * ((h0_rg if t == 0 else state_rg) + w_hh.requires_grad))
                if st["proj"]:
                    f_p = 2 * bs * math.prod(_shape(w[-1]))
                    fwd.append(("mm", f_p))
                    bwd.extend([("mm", f_p)] * (state_rg + w[-1].requires_grad))
            layer_rg = layer_rg or state_rg
        in_rg = layer_rg
    return fwd, bwd


RULES = {
    _matmul_impl: _rule_matmul,
    _linear: _rule_linear,
    _axpby_impl: _rule_axpby,
    _tensordot_impl: _rule_tensordot,
    _inner_impl: _rule_inner,
    _multi_dot_impl: _rule_multi_dot,
    _einsum_impl: _rule_einsum,
    _conv_impl: _rule_conv(False),
    _convT_impl: _rule_conv(True),
    _convT_half_impl: _rule_conv(True),
    _sdpa_impl: _rule_sdpa,
    _mha_impl: _rule_mha,
    _rnn.cell_impl: _rule_cell,
    _rnn.rnn_impl: _rule_rnn,
}
