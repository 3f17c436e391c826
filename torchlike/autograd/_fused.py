"""A whole backward pass as one XLA program (the engine's fast path).

The tape's per-node pullbacks cost one compilation per op per new input shape (and one dispatch per
op at every step).  When a backward pass is plain — ``.backward()`` into leaves, no hooks, no custom
``Function`` nodes, no ``create_graph``, no ``inputs=``, no profiler — the engine instead runs every
node's pullback inside one jitted function, built once per graph *structure* (each node's op function,
static arguments, differentiable inputs/outputs and edges) and compiled by JAX per input shapes.  A
training step with a new batch size then compiles one backward program instead of one per op.

Nodes are processed in the engine's own order (descending sequence number) and gradients arriving
at the same node are summed in the same order, so the arithmetic is the one the per-node engine does.
Anything this path does not cover (a version-counter error, a freed graph, a hook) goes to the
general engine, which reports it at the node where torch does.
"""
from __future__ import annotations

import collections
import weakref

import jax
import jax.numpy as jnp

from .. import _grad_mode, _jit_cache
from .._tape import AccumulateGrad, Node, NoGradViewSink, _conj_if_complex
from ._ready_queue import leaf_order

__all__ = ["try_fused"]

_programs = _jit_cache.Cache("backward")  # graph structure -> Entry (bounded, see _jit_cache)
_NODE_APPLY = Node.apply
# A structure is fused from its second backward on: a graph seen once (data-dependent control flow, an
# RNN at a new length) reuses the per-node pullbacks already compiled instead of compiling a program.
SMALL_NODES = 48
# A larger graph's one program compiles for seconds (nanoGPT, 4 layers, ~100 nodes: ~4.6 s CPU; 12
# layers: ~6.3 s), where its per-node pullbacks are shared between repeated layers.  It is fused only
# once its structure has recurred LARGE_SIGHTINGS times (a training loop), and pays from then on: the
# 4-layer nanoGPT step's CPU time fell 231 -> 178 ms (fewer dispatches, no per-node recomputation of
# forward residuals, view copies fused away).  Graphs above MAX_NODES keep the per-node pullbacks.
LARGE_SIGHTINGS = 4
# Beyond HUGE_NODES (an unrolled solver: a 30-iteration Sinkhorn loop is ~700 nodes, 4,400 at 200) one compile
# takes ~10 s while each fused step saves ~25 ms: such a structure must recur proportionally more often
# (LARGE_SIGHTINGS per started HUGE_NODES) before it is compiled, so a short loop never pays for it.
HUGE_NODES = 512
MAX_NODES = 4096
# A graph that keeps meeting new shapes (nflows' splines select a data-dependent count of elements with a
# boolean mask each step, so the same graph arrives with other shapes every time) would compile the whole graph
# again each step (~30 s of CPU for sbi's neural spline flow on the 2-core machine), where the per-node pullbacks
# recompile only the nodes whose shapes changed (cached per op and shape, and padded to a bucket of rows where
# that is exact: _row_buckets).  A topology (the structure without its static arguments) compiles at most
# FUSED_SHAPES programs; from then on its new shapes run per node, and its compiled shapes stay fused.
FUSED_SHAPES = 3
_topo_of: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()  # program entry -> its topology
_sigs_of: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()  # program entry -> signatures compiled
_compiles: dict = {}  # topology -> fused programs compiled for it
_capped: set = set()  # topologies at FUSED_SHAPES
_seen: collections.OrderedDict = collections.OrderedDict()  # structure -> (backwards seen at one shape, that shape)
_SEEN_MAX = 512


def _pull(f, kw, diff_in, diff_out, primals, cts):
    """``_tape._vjp`` with missing output cotangents (None) taken as zeros of the output."""
    def g(*d):
        full = list(primals)
        for i, v in zip(diff_in, d):
            full[i] = v
        out = f(*full, **kw)
        if not isinstance(out, (tuple, list)):
            out = (out,)
        return tuple(out[j] for j in diff_out)

    outs, pull = jax.vjp(g, *[primals[i] for i in diff_in])
    cts = tuple(_conj_if_complex(c) if c is not None else jnp.zeros_like(o) for c, o in zip(cts, outs))
    return tuple(_conj_if_complex(r) for r in pull(cts))


def _program(spec, root_refs, n_leaves):
    """The backward of a graph (jitted by the cache, tiered): (per-node primals, root cotangents) -> per-leaf gradients."""
    kws = [dict(s[1]) for s in spec]

    def run(prims, root_cts):
        bufs = [[None] * len(s[3]) for s in spec]
        leaf = [None] * n_leaves
        for (k, j), g in zip(root_refs, root_cts):
            bufs[k][j] = g if bufs[k][j] is None else bufs[k][j] + g
        for k, (f, _, diff_in, diff_out, refs) in enumerate(spec):
            grads = _pull(f, kws[k], diff_in, diff_out, prims[k], bufs[k])
            bufs[k] = None
            for r, g in zip(refs, grads):
                if type(r) is int:  # a leaf
                    leaf[r] = g if leaf[r] is None else leaf[r] + g
                else:
                    m, j = r
                    b = bufs[m]
                    b[j] = g if b[j] is None else b[j] + g
        return tuple(leaf)

    return run


def _sightings_needed(nodes):
    """How many backwards of one graph structure run per node before it is compiled as one program."""
    if nodes <= SMALL_NODES:
        return 2
    return LARGE_SIGHTINGS * -(-nodes // HUGE_NODES)


def _note_compile(e, prims, root_cts):
    topo = _topo_of.get(e)
    if topo is None:
        return
    _sigs_of.setdefault(e, set()).add(_jit_cache.signature((prims, tuple(root_cts))))
    c = _compiles[topo] = _compiles.get(topo, 0) + 1
    if c >= FUSED_SHAPES:
        _capped.add(topo)
    if len(_compiles) > _SEEN_MAX:  # (forget old topologies, as the sightings do)
        _compiles.pop(next(iter(_compiles)))


def try_fused(roots, order, retain_graph, accumulate):
    """Run the backward of ``roots`` (``((node, index), grad)`` pairs) over the discovered nodes
    ``order`` as one program and accumulate into the leaves with ``accumulate(leaf_node, grad, False)`` (the
    engine's own, passed down: the engine imports this module); False (nothing done) when the graph needs
    the general engine."""
    if len(order) > MAX_NODES:
        return False
    ops = []
    for n in order:
        tn = type(n)
        if tn is AccumulateGrad or tn is NoGradViewSink:
            if n._pre_hooks or n._tensor_hooks or n._retained:
                return False
        elif tn.apply is not _NODE_APPLY or n.f is None or n._freed or n._hooks or n._pre_hooks or \
                n._tensor_hooks or n._retained:  # (a hook: the general engine)
            return False
        else:
            ops.append(n)
    if not ops:
        return False
    ops.sort(key=lambda n: -n.seq)
    index = {id(n): k for k, n in enumerate(ops)}
    leaves, lidx, spec = [], {}, []
    for n in ops:
        refs = []
        ins = n.inputs
        for i in n.diff_in:
            m, j = ins[i]
            if type(m) is AccumulateGrad or type(m) is NoGradViewSink:
                r = lidx.get(id(m))
                if r is None:
                    r = lidx[id(m)] = len(leaves)
                    leaves.append(m)
                refs.append(r)
            else:
                refs.append((index[id(m)], j))
        spec.append((n.f, n.statics, n.diff_in, n.diff_out, tuple(refs)))
    root_refs, root_cts = [], []
    for (node, idx), g in roots:
        k = index.get(id(node))
        if k is None or g is None:
            return False
        root_refs.append((k, idx))
        root_cts.append(g)
    spec, root_refs = tuple(spec), tuple(root_refs)
    key = (spec, root_refs)
    try:
        e = _programs.get(key)
    except TypeError:  # an unhashable static argument: the per-node pullbacks handle it
        return False
    if e is None:
        # sightings count backwards at one shape in a row: a graph whose shapes change between backwards (a data-
        # dependent count of rows) keeps running per node, whose pullbacks compile per op and shape, not per graph
        sig = _jit_cache.signature((tuple(n.primals for n in ops), tuple(root_cts)))
        seen, last = _seen.pop(key, (0, None))
        seen = seen + 1 if last == sig else 1
        if seen < _sightings_needed(len(ops)):
            _seen[key] = (seen, sig)
            if len(_seen) > _SEEN_MAX:
                _seen.popitem(last=False)
            return False
    try:
        for n in ops:
            n._check_saved()
    except RuntimeError:  # let the general engine raise it at the node where torch does
        return False
    prims = tuple(n.primals for n in ops)
    if e is None:
        topo = (tuple((s[0], s[2], s[3], s[4]) for s in spec), root_refs)
        if topo in _capped:
            return False
        e = _programs.add_tiered(key, _program(spec, root_refs, len(leaves)))
        _topo_of[e] = topo
    elif _capped and _topo_of.get(e) in _capped:  # (a one-shape loop's check: an empty set's truth)
        sigs = _sigs_of.get(e)
        if sigs is None or _jit_cache.signature((prims, tuple(root_cts))) not in sigs:
            return False
    n_before = e.n
    grads = _jit_cache.call(e, prims, tuple(root_cts))
    if e.n > n_before:  # a new shape compiled (the miss path): count it against its topology
        _note_compile(e, prims, root_cts)
    if not retain_graph:
        for n in ops:
            n.free()
    state = _grad_mode._state
    prev, state.enabled = state.enabled, False  # as in the general engine (hooks see no-grad)
    pairs = zip(leaves, grads)
    if any(leaf._hooks for leaf in leaves):  # hooks see the leaves in the order torch's engine reaches them
        at = {id(leaf): g for leaf, g in pairs}
        pairs = [(leaf, at[id(leaf)]) for leaf in leaf_order([node for (node, _), _ in roots], ops)]
    try:
        for leaf, g in pairs:
            accumulate(leaf, g, False)
    finally:
        state.enabled = prev
    return True
