"""Row buckets: an op whose leading dimension keeps changing runs a program compiled for a padded size.

A boolean mask makes a data-dependent row count (``x[mask]`` has ``mask.sum()`` rows), and every op after
it meets a new shape each step: an XLA compilation per op and per count (nflows' rational-quadratic
splines: ~250 programs per training step).  Once an eager forward or pullback has compiled ``PAD_AFTER``
shapes, a call whose arrays differ from a compiled call only in their leading dimension (``n`` rows, the
same ``n`` for each array that changed) runs the program of the next power of two ``B >= n`` instead:
those arrays are padded on the host to ``B`` rows by repeating their last row, and the outputs' row axes
are sliced back to ``n``.  The user sees the exact shapes and values.

That is only done for functions where it is exact, decided once per function and signature by reading
the function's jaxpr traced with a symbolic row count ``N`` (``jax.export`` shape polymorphism): every
equation must compute row ``i`` of its outputs from row ``i`` of its inputs alone (elementwise ops,
broadcasts, reductions/scans/sorts/pads/slices along other axes, gathers and scatters whose row axes are
batch or full-window axes, matrix products that do not contract rows and take them from the left operand's free
or batch axes), or combine rows where repeating
the last row changes nothing (``max``/``min``/``any``/``all``/argmax/argmin over rows, ``scatter``
(assignment) of rows into a fixed array: the padding rows rewrite row ``n - 1``'s value at row
``n - 1``'s index).  Sums over rows, scatter-adds and anything not recognised keep one program per
shape, as before.  Only arrays on JAX's CPU device are padded (the host copies are the cheap part there).

>>> bucket(5), bucket(600), bucket(3)
(8, 1024, 8)
"""
from __future__ import annotations

import functools
import weakref

import jax
import numpy as np

from . import _jit_cache
from ._device import host_to_jax

__all__ = ["bucket", "Rows", "rowwise_outputs", "PAD_AFTER", "SETTLE"]

PAD_AFTER = 2  # compiled shapes of one function before its new row counts are padded
SETTLE = 512  # consecutive calls at compiled shapes that end the routing (the hot path is one test again)
# entry -> the streak that ends its routing next time: doubled at each end, as the new shape that starts the
# routing again compiles (an op called at fixed shapes ~SETTLE times between two masked calls compiled each time)
_settle_at: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_MIN_BUCKET = 8
# eager per-op programs, the engine's gradient sums and view reads (optimizers, fused backwards: not routed)
_CACHES = frozenset(("forward", "pullback", "gradient sum", "view read", "view read one step"))
_CPU = "cpu"

# (entry key, the signature with the changing leading dims as "N") -> per output leaf its row axes, or None
_VERDICTS: dict = {}


def bucket(n):
    """The padded row count for ``n`` rows: the next power of two, at least 8."""
    return max(_MIN_BUCKET, 1 << (n - 1).bit_length())


class Rows:
    """Per routed entry: the signatures it compiled at their exact shapes, per argument structure (the
    signature without leading dimensions) the latest such call's leaves (the reference a new call's shapes
    are compared with), and the streak of calls at compiled signatures."""

    __slots__ = ("exact", "refs", "streak", "settle")

    def __init__(self, settle=SETTLE):
        self.exact, self.refs, self.streak, self.settle = set(), {}, 0, settle

    def route(self, e, args):
        """``e``'s result for ``args`` from the padded program, or None to call ``e`` as usual."""
        sig = _jit_cache.signature(args)
        if sig in self.exact:
            self.streak += 1
            if self.streak >= self.settle:
                e.pad = None
                try:
                    _settle_at[e] = min(self.settle * 2, 1 << 24)
                except TypeError:  # (not weakly referenceable)
                    pass
            return None
        self.streak = 0
        if not _jit_cache.top_level():
            return None
        leaves, tree = jax.tree_util.tree_flatten(args)
        try:
            ref = self.refs.get(_rowless(leaves, tree))
        except TypeError:
            return None
        if ref is None:
            return None
        n, rows, key = None, [], []
        # a pullback's cotangents (the leaves after its primals) are padded with zeros, its primals by repeating
        # their last row: a zero cotangent row adds nothing where the pullback scatter-adds rows
        zero_from = len(jax.tree_util.tree_leaves(args[0])) if e.owner.name == "pullback" and len(args) == 2 \
            else len(leaves)
        for i, (a, r) in enumerate(zip(leaves, ref)):
            shape = getattr(a, "shape", None)
            if type(r) is not tuple:  # a non-array argument (a Python number)
                key.append(r)
                continue
            if shape == r[0]:
                key.append(r)
                continue
            if r[2] or (n is not None and shape[0] != n):
                return None
            n = shape[0]
            rows.append(i)
            key.append(("N", shape[1:], r[1], i >= zero_from))
        if n is None or n == 0:
            return None
        b = bucket(n)
        if b == n:
            return None
        vkey = (e.key, tree, tuple(key))
        try:
            out_axes, masked = _VERDICTS[vkey]
        except KeyError:
            masked = []
            out_axes = rowwise_outputs(_traceable(e), leaves, tree, rows, [i for i in rows if i >= zero_from],
                                       masked=masked)
            masked = masked[0] if masked else None
            _VERDICTS[vkey] = out_axes, masked
        except TypeError:  # an unhashable key part
            return None
        if out_axes is None:
            return None
        device = None
        for a in leaves:
            if isinstance(a, jax.Array):
                if not a.is_fully_addressable or len(a.devices()) != 1:
                    return None
                d = next(iter(a.devices()))
                if d.platform != _CPU or device is not None and d != device:
                    return None
                device = d
        padded = list(leaves)
        for i in rows:
            h = leaves[i]
            host = isinstance(h, np.ndarray)  # (an index array the op made on the host: padded as such)
            h = np.asarray(h)
            fill = np.zeros((b - n,) + h.shape[1:], h.dtype) if i >= zero_from else \
                np.broadcast_to(h[-1:], (b - n,) + h.shape[1:])
            h = np.concatenate([h, fill])
            padded[i] = h if host else host_to_jax(h, copy=False)
        if masked is None:
            out = _jit_cache.call(e, *jax.tree_util.tree_unflatten(tree, padded))
            outs, otree = jax.tree_util.tree_flatten(out)
        else:  # the function's jaxpr at b rows, with the rows from n on masked out of its row reductions
            closed, otree = masked
            m = _masked.get((vkey, b))
            if m is None:
                m = _masked.add((vkey, b), jax.jit(functools.partial(_masked_eval, closed=closed, b=b)))
            try:
                outs = _jit_cache.call(m, np.int32(n), *padded)
            except Exception:  # noqa: BLE001 - an equation the interpreter cannot run at b rows: the exact program
                _VERDICTS[vkey] = None, None
                _masked.discard((vkey, b))
                return None
        if len(outs) != len(out_axes):
            return None
        res = []
        for o, axes in zip(outs, out_axes):
            if axes:
                h = np.asarray(o)
                idx = tuple(slice(0, n) if k in axes else slice(None) for k in range(h.ndim))
                o = host_to_jax(np.ascontiguousarray(h[idx]))
            res.append(o)
        return jax.tree_util.tree_unflatten(otree, res)


def _traceable(e):
    """The function entry ``e`` compiles (a jit, traceable inside ``make_jaxpr``)."""
    t = e.tiers
    if t is not None:
        return t.hi
    return e.raw if e.raw is not None else e.fn


def _after_compile(e, args):
    """``_jit_cache`` hook, on the miss path: note a compiled exact signature; start routing an eager
    forward or pullback once it holds ``PAD_AFTER`` shapes."""
    if e.owner.name not in _CACHES:
        return
    p = e.pad
    if p is None:
        if e.n < PAD_AFTER:
            return
        p = e.pad = Rows(_settle_at.get(e, SETTLE))
        p.exact.update(g[2] for g in e.sigs or ())  # (the shapes it compiled before, as _jit_cache noted them)
    try:
        sig = _jit_cache.signature(args)
        hash(sig)
    except TypeError:
        return
    p.exact.add(sig)
    if len(p.exact) > 4096:
        p.exact.clear()
    leaves, tree = jax.tree_util.tree_flatten(args)
    try:
        rowless = _rowless(leaves, tree)
    except TypeError:
        return
    ref = []
    for a in leaves:
        shape = getattr(a, "shape", None)
        ref.append(type(a) if shape is None else (tuple(shape), a.dtype, bool(getattr(a, "weak_type", False))))
    if len(p.refs) >= 256:
        p.refs.clear()
    p.refs[rowless] = ref


def _rowless(leaves, tree):
    """A call's structure with the leading dimensions left out (calls that differ only in those match)."""
    out = [tree]
    for a in leaves:
        shape = getattr(a, "shape", None)
        if shape is None:
            out.append(type(a))
        elif not isinstance(a, (jax.Array, np.ndarray)):
            raise TypeError("not an array")
        else:
            out.append((len(shape), tuple(shape[1:]), a.dtype, bool(getattr(a, "weak_type", False))))
    return tuple(out)


_jit_cache.on_compiled.append(_after_compile)


# ---- the row analysis -------------------------------------------------------------------------------
_ELEMENTWISE = frozenset("""
abs acos acosh add add_any and asin asinh atan atan2 atanh bessel_i0e bessel_i1e cbrt ceil clamp clz complex conj
convert_element_type copy copy_p cos cosh digamma div eq erf erf_inv erfc exp exp2 expm1 floor ge gt igamma igammac
imag integer_pow is_finite le lgamma log log1p logistic lt max min mul ne neg nextafter not or polygamma
population_count pow real reduce_precision rem round rsqrt select_n shift_left shift_right_arithmetic
shift_right_logical sign sin sinh sqrt square stop_gradient sub tan tanh xor zeta optimization_barrier
""".split())
_CALLS = frozenset("jit pjit closed_call core_call custom_jvp_call custom_vjp_call custom_vjp_call_jaxpr remat "
                   "checkpoint".split())
_SAFE_ANYWAY = frozenset("broadcast_in_dim squeeze expand_dims transpose".split())
_IDEMPOTENT_REDUCE = frozenset("reduce_max reduce_min reduce_and reduce_or argmax argmin".split())
_AXES_REDUCE = frozenset("reduce_sum reduce_prod reduce_xor".split())
_AXIS_OPS = frozenset("cumsum cumprod cummax cummin cumlogsumexp".split())


def rowwise_outputs(fn, leaves, tree, rows, zeros=(), masked=None):
    """Per output leaf of ``fn(*unflatten(tree, leaves))`` the axes holding the row count, where padding
    the leading axis of the leaves at positions ``rows`` (by repeating their last row; with zero rows for
    those also in ``zeros``) and slicing those axes back gives the unpadded call's result exactly; None where
    that is not established.  Given a list ``masked``, row sums and matrix products over rows and the row count
    read as a value are accepted too, and ``(closed jaxpr, output tree)`` is appended to it for
    :func:`_masked_eval`, which runs the function with the padding rows masked out of those."""
    try:
        from jax import export  # lazy: shape polymorphism is loaded for the first routed function only
        sym, = export.symbolic_shape("N")
        specs = []
        for i, a in enumerate(leaves):
            if hasattr(a, "shape"):
                shape = ((sym,) + tuple(a.shape[1:])) if i in rows else tuple(a.shape)
                specs.append(jax.ShapeDtypeStruct(shape, a.dtype, weak_type=bool(getattr(a, "weak_type", False))))
            else:
                specs.append(a)
        closed, shapes = jax.make_jaxpr(fn, return_shape=True)(*jax.tree_util.tree_unflatten(tree, specs))
    except Exception:  # noqa: BLE001 - not traceable with a symbolic row count: one program per shape
        return None
    try:
        invars = closed.jaxpr.invars
        zero = {invars[i]: False for i in zeros} if len(invars) == len(leaves) else {}
        needs = [] if masked is not None else None
        if not _jaxpr_ok(closed.jaxpr, zero, None, needs):
            return None
    except Exception:  # noqa: BLE001 - an equation this reading does not understand
        return None
    out = []
    for v in closed.jaxpr.outvars:
        shape = getattr(getattr(v, "aval", None), "shape", ())
        kinds = [_dim(d) for d in shape]
        if "bad" in kinds or kinds.count("N") > 1:
            return None
        out.append(frozenset(k for k, d in enumerate(kinds) if d == "N"))
    if needs:
        masked.append((closed, jax.tree_util.tree_structure(shapes)))
    return out


def _dim(d):
    if type(d) is int or isinstance(d, (int, np.integer)):
        return "const"
    return "N" if str(d) == "N" else "bad"


def _n_axes(v):
    shape = getattr(getattr(v, "aval", None), "shape", None)
    if shape is None:
        return None
    kinds = [_dim(d) for d in shape]
    if "bad" in kinds or kinds.count("N") > 1:  # (two row axes: rows paired with other rows, an outer product)
        raise ValueError("a row count expression")
    return frozenset(k for k, d in enumerate(kinds) if d == "N")


def _sub_jaxprs(eqn):
    for p in eqn.params.values():
        j = getattr(p, "jaxpr", None)
        if j is not None and hasattr(j, "eqns"):
            yield j
        elif hasattr(p, "eqns"):
            yield p


def _jaxpr_ok(jaxpr, zero=None, mixed=None, needs=None):
    """Whether every equation of ``jaxpr`` keeps the rows apart (see the module docstring).  ``zero``: the
    variables whose padding rows are known zeros (a pullback's padded cotangents and what keeps them zero);
    ``mixed``: those whose padding rows are neither zeros nor repeats of a row (computed from zero rows and
    repeated rows together); both grow as the equations are read.  A row-combining op that relies on repeated
    rows (max over rows, an assignment of rows) refuses operands of either set."""
    zero = {} if zero is None else zero  # variable -> whether it is zero throughout (made of literal zeros)
    mixed = set() if mixed is None else mixed
    for eqn in jaxpr.eqns:
        ins = [_n_axes(v) for v in eqn.invars]
        outs = [_n_axes(v) for v in eqn.outvars]
        name = eqn.primitive.name
        if name in _CALLS:
            subs = list(_sub_jaxprs(eqn))
            if len(subs) == 1 and len(subs[0].invars) == len(eqn.invars):  # padding kinds carried through the call
                inz = {w: _all_zero(v, zero) for v, w in zip(eqn.invars, subs[0].invars) if _is_zero(v, zero)}
                inm = {w for v, w in zip(eqn.invars, subs[0].invars) if not hasattr(v, "val") and v in mixed}
                if not _jaxpr_ok(subs[0], inz, inm, needs):
                    return False
                if len(subs[0].outvars) == len(eqn.outvars):
                    zero.update((v, _all_zero(w, inz)) for v, w in zip(eqn.outvars, subs[0].outvars)
                                if _is_zero(w, inz))
                    mixed.update(v for v, w in zip(eqn.outvars, subs[0].outvars) if w in inm)
                continue
            if any(_not_repeats(v, zero, mixed) for v in eqn.invars) or \
                    not all(_jaxpr_ok(j, None, None, needs) for j in subs):
                return False
            continue
        if _keeps_zero(name, eqn, zero):
            whole = all(_all_zero(v, zero) for v in eqn.invars[1 if name == "select_n" else 0:])
            zero.update((v, whole) for v in eqn.outvars)
        elif any(r and _not_repeats(v, zero, mixed) for v, r in zip(eqn.invars, ins)):
            mixed.update(eqn.outvars)
        if name == "dim_as_value" and _dim(p_dim := eqn.params["dim"]) != "const":
            if needs is None or _dim(p_dim) != "N":  # the row count as a value: the masked program passes n
                return False
            needs.append(name)
            continue
        if not any(ins + outs):  # no row axis here (a sub-jaxpr of a loop may still have one)
            if any(True for _ in _sub_jaxprs(eqn)) and not all(_no_rows(j) for j in _sub_jaxprs(eqn)):
                return False
            continue
        repeats = not any(r and _not_repeats(v, zero, mixed) for v, r in zip(eqn.invars, ins))
        if needs is not None and _masked_ok(name, eqn, ins):
            needs.append(name)
            continue
        if not _eqn_ok(name, eqn, ins, outs, zero, repeats):
            return False
    return True


# ops whose result is zero wherever all their operands are (their padding rows stay zero rows)
_ZERO_UNARY = frozenset("""
neg convert_element_type copy copy_p real imag conj reduce_precision broadcast_in_dim reshape squeeze expand_dims
transpose abs sign stop_gradient optimization_barrier
""".split())
_ZERO_BINARY = frozenset("add sub add_any mul".split())


def _is_zero(v, zero):
    """Whether ``v`` is a variable with zero padding rows, or a literal zero."""
    if hasattr(v, "val"):  # a literal
        try:
            return not np.any(np.asarray(v.val))
        except Exception:  # noqa: BLE001 - not a number
            return False
    return v in zero


def _all_zero(v, zero):
    """Whether ``v`` is zero throughout (a literal zero, or made of them): its padding rows repeat a row too."""
    return _is_zero(v, zero) and (hasattr(v, "val") or zero.get(v) is True)


def _not_repeats(v, zero, mixed):
    """Whether ``v``'s padding rows may differ from every row (zero padding rows of nonzero data, or mixed)."""
    if hasattr(v, "val"):  # a literal (unhashable)
        return False
    return v in mixed or (v in zero and zero[v] is not True)


def _keeps_zero(name, eqn, zero):
    if name in _ZERO_UNARY or name in _ZERO_BINARY:
        return all(_is_zero(v, zero) for v in eqn.invars)
    if name == "select_n":
        return all(_is_zero(v, zero) for v in eqn.invars[1:])
    return False


def _no_rows(jaxpr):
    for eqn in jaxpr.eqns:
        if any(_n_axes(v) for v in list(eqn.invars) + list(eqn.outvars)):
            return False
        if not all(_no_rows(j) for j in _sub_jaxprs(eqn)):
            return False
    return True


def _eqn_ok(name, eqn, ins, outs, zero=None, repeats=True):
    """Whether equation ``eqn`` keeps rows apart; ``repeats``: its operands' padding rows repeat a row."""
    p = eqn.params
    zero = {} if zero is None else zero
    if name in _ELEMENTWISE or name in _SAFE_ANYWAY:
        return True
    if name in _IDEMPOTENT_REDUCE:  # a repeated row changes no max, min, any, all, nor the first index of an extreme
        return repeats or not (set(p["axes"]) & ins[0])
    if name in _AXES_REDUCE:
        return not (set(p["axes"]) & ins[0])
    if name in _AXIS_OPS:
        return p["axis"] not in ins[0]
    if name == "sort":
        return p["dimension"] not in ins[0]
    if name == "top_k":
        return (len(eqn.invars[0].aval.shape) - 1) not in ins[0]
    if name == "iota":
        return p["dimension"] not in outs[0]
    if name == "rev":
        return not (set(p["dimensions"]) & ins[0])
    if name == "concatenate":
        return p["dimension"] not in outs[0]
    if name == "split":
        return p["axis"] not in ins[0]
    if name == "pad":
        return all(tuple(p["padding_config"][k]) == (0, 0, 0) for k in ins[0])
    if name == "slice":
        st, lim, strides = p["start_indices"], p["limit_indices"], p["strides"]
        return all(st[k] == 0 and _dim(lim[k]) == "N" and (strides is None or strides[k] == 1) for k in ins[0])
    if name == "dynamic_slice":
        return all(_dim(p["slice_sizes"][k]) == "N" for k in ins[0])
    if name == "dynamic_update_slice":
        upd = eqn.invars[1].aval.shape
        return all(_dim(upd[k]) == "N" for k in ins[0]) and ins[1] <= ins[0]
    if name == "reshape":
        return _reshape_ok(eqn, p)
    if name == "dot_general":
        (lc, rc), (lb, rb) = p["dimension_numbers"]
        if set(lc) & ins[0] or set(rc) & ins[1]:
            return False
        # rows of the right operand's free axes (a Linear's weight, its out_features) are not padded: XLA's CPU
        # dot picks its kernel by that output width, and 96 columns computed as 128 differ in the last bits of
        # most elements (a call's value then hung on the shapes before it); the left operand's free rows and
        # batch rows give the unpadded values
        return not (ins[1] - set(rb)) and all((a in ins[0]) == (b in ins[1]) for a, b in zip(lb, rb))
    if name == "gather":
        return _gather_ok(eqn, p, ins)
    if name in ("scatter", "scatter_add", "scatter-add", "scatter_mul", "scatter_min", "scatter_max", "scatter_sub"):
        # a scatter-add of updates whose padding rows are zeros into a fixed array of zeros (a gather's
        # pullback): each padding row adds +0 to a sum that started at +0 (never -0), which changes nothing
        adds_zero = name in ("scatter_add", "scatter-add") and _is_zero(eqn.invars[2], zero) and \
            _all_zero(eqn.invars[0], zero) and not ins[0]
        if not (adds_zero or repeats) and name != "scatter-add" and name != "scatter_add":
            return False  # (zero or mixed padding rows assigned into a fixed array would write their values)
        return _scatter_ok("scatter" if adds_zero else name, eqn, p, ins)
    return False


def _reshape_ok(eqn, p):
    if p.get("dimensions") is not None:
        return False
    src, dst = eqn.invars[0].aval.shape, eqn.outvars[0].aval.shape
    si = [k for k, d in enumerate(src) if _dim(d) == "N"]
    di = [k for k, d in enumerate(dst) if _dim(d) == "N"]
    if len(si) != 1 or len(di) != 1:
        return False
    return int(np.prod(src[:si[0]], dtype=np.int64)) == int(np.prod(dst[:di[0]], dtype=np.int64))


def _gather_ok(eqn, p, ins):
    dn = p["dimension_numbers"]
    op_rows, idx_rows = ins[0], ins[1]
    nidx = len(eqn.invars[1].aval.shape)
    if (nidx - 1) in idx_rows:  # the index vector itself
        return False
    pairs = dict(zip(dn.operand_batching_dims, dn.start_indices_batching_dims))
    for a in op_rows:
        if a in pairs:
            if pairs[a] not in idx_rows:
                return False
        elif a in dn.start_index_map or a in dn.collapsed_slice_dims or _dim(p["slice_sizes"][a]) != "N":
            return False
    for k in idx_rows:
        if k in dn.start_indices_batching_dims:
            a = dn.operand_batching_dims[list(dn.start_indices_batching_dims).index(k)]
            if a not in op_rows:
                return False
    return True


def _scatter_ok(name, eqn, p, ins):
    dn = p["dimension_numbers"]
    op_rows, idx_rows, upd_rows = ins[0], ins[1], ins[2]
    nidx = len(eqn.invars[1].aval.shape)
    if (nidx - 1) in idx_rows:
        return False
    pairs = dict(zip(dn.operand_batching_dims, dn.scatter_indices_batching_dims))
    window_of = [a for a in range(len(eqn.invars[0].aval.shape))
                 if a not in dn.inserted_window_dims and a not in dn.operand_batching_dims]
    upd_shape = eqn.invars[2].aval.shape
    for a in op_rows:
        if a in pairs:
            if pairs[a] not in idx_rows:
                return False
        elif a in dn.scatter_dims_to_operand_dims or a not in window_of:
            return False
        else:  # a window axis: the update's window must cover the rows
            w = dn.update_window_dims[window_of.index(a)]
            if _dim(upd_shape[w]) != "N":
                return False
    window_rows = {dn.update_window_dims[window_of.index(a)] for a in op_rows if a not in pairs}
    scattered = [k for k in idx_rows if k not in dn.scatter_indices_batching_dims]
    if any(_dim(upd_shape[w]) == "N" for w in dn.update_window_dims if w not in window_rows):
        return False
    if scattered and op_rows:
        return False
    if scattered or (upd_rows - window_rows - _batch_update_axes(dn, idx_rows, nidx)):
        # rows written into rows of a fixed array: exact only for assignment and min/max (a repeated last row
        # writes row n - 1's own value again at row n - 1's index)
        return name in ("scatter", "scatter_min", "scatter_max")
    return True


def _batch_update_axes(dn, idx_rows, nidx):
    """The update axes that are the indices' batch axes holding rows (the update's scatter axes follow the
    indices' batch axes in order)."""
    scatter_axes = [w for w in range(len(dn.update_window_dims) + nidx - 1) if w not in dn.update_window_dims]
    idx_batch = [k for k in range(nidx - 1)]
    return {w for w, k in zip(scatter_axes, idx_batch) if k in idx_rows}


# ---- masked programs: row sums, products over rows and the row count, with the padding rows left out -------
_masked = _jit_cache.Cache("row bucket")


def _masked_ok(name, eqn, ins):
    """Whether ``eqn`` combines rows in a way :func:`_masked_eval` makes exact by masking the padding rows."""
    if name in ("reduce_sum", "reduce_prod"):
        return bool(set(eqn.params["axes"]) & ins[0])
    if name == "dot_general":  # rows contracted with rows, and no other row axis on either side
        (lc, rc), _ = eqn.params["dimension_numbers"]
        lrows = [k for k, a in enumerate(lc) if a in ins[0]]
        return bool(lrows) and ins[0] <= set(lc) and ins[1] <= set(rc) and \
            lrows == [k for k, a in enumerate(rc) if a in ins[1]]
    return False


def _subst(p, b):
    """An equation parameter with the symbolic row count replaced by ``b`` (shapes, sizes)."""
    t = type(p)
    if t is tuple or t is list:
        return t(_subst(q, b) for q in p)
    if hasattr(p, "_evaluate"):
        return int(p._evaluate({"N": b}))
    return p


def _fill(x, rows, value):
    """``x`` with the rows from ``n`` on (along its row axis) replaced by ``value``."""
    k, n = rows
    keep = jax.lax.broadcasted_iota(np.int32, x.shape, k) < n
    return jax.numpy.where(keep, x, jax.numpy.asarray(value, x.dtype))


def _neg_zero(dtype):
    # -0.0 adds nothing to any sum (+0.0 would turn a sum of -0.0 into +0.0)
    dt = np.dtype(dtype)
    return complex(-0.0, -0.0) if dt.kind == "c" else -0.0 if dt.kind == "f" else 0


def _closed_sub(eqn):
    for p in eqn.params.values():
        if hasattr(p, "jaxpr") and hasattr(p.jaxpr, "eqns"):
            return p.jaxpr, getattr(p, "consts", ())
        if hasattr(p, "eqns"):
            return p, ()
    raise ValueError("no sub-jaxpr")


def _masked_eval(n, *args, closed, b):
    """The jaxpr ``closed`` (traced with ``N`` rows) run on arrays padded to ``b`` rows, of which the first ``n`` are
    real: its row sums and products and its matrix products over rows leave the padding rows out, and the row count
    read as a value is ``n``."""
    return _eval(closed.jaxpr, closed.consts, args, n, b)


def _eval(jaxpr, consts, args, n, b):
    env = {}

    def read(v):
        return v.val if hasattr(v, "val") else env[v]

    env.update(zip(jaxpr.constvars, consts))
    env.update(zip(jaxpr.invars, args))
    for eqn in jaxpr.eqns:
        ins = [read(v) for v in eqn.invars]
        name = eqn.primitive.name
        if name in _CALLS:
            sub, sub_consts = _closed_sub(eqn)
            outs = _eval(sub, sub_consts, ins, n, b)
        elif name == "dim_as_value":
            d = eqn.params["dim"]
            value = n if _dim(d) == "N" else _subst(d, b)
            outs = [jax.numpy.asarray(value).astype(eqn.outvars[0].aval.dtype)]
        else:
            rows = [_n_axes(v) for v in eqn.invars]
            if name in ("reduce_sum", "reduce_prod") and set(eqn.params["axes"]) & rows[0]:
                (k,) = rows[0]
                ins[0] = _fill(ins[0], (k, n), _neg_zero(ins[0].dtype) if name == "reduce_sum" else 1)
            elif name == "dot_general" and rows[0] and rows[1]:
                # rows of -0.0 times rows of +0.0: products of -0.0, which add nothing
                (k0,), (k1,) = rows[0], rows[1]
                ins[0] = _fill(ins[0], (k0, n), _neg_zero(ins[0].dtype))
                ins[1] = _fill(ins[1], (k1, n), 0)
            params = {k: _subst(v, b) for k, v in eqn.params.items()}
            out = eqn.primitive.bind(*ins, **params)
            outs = out if eqn.primitive.multiple_results else [out]
        env.update(zip(eqn.outvars, outs))
    return [read(v) for v in jaxpr.outvars]
