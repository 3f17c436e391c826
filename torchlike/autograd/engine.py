"""The backward engine: one reverse topological walk over the recorded nodes.

Gradients travel as raw ``jax.Array`` (fast path, jitted pullbacks) or, with ``create_graph=True``,
as Tensors through the dispatcher so the backward pass is itself recorded.  A plain graph's whole
backward runs as one compiled program instead once its structure recurs (``_fused.py``).
"""
from __future__ import annotations

import jax
import jax.numpy as jnp

from .. import _grad_mode as grad_mode, _jit_cache, _profiler_state as _prof
from .._device import CPU, of_array
from .._dispatch import dispatch
from .._errors import warn_at_caller
from .._tape import ANOMALY, AccumulateGrad, NoGradViewSink, primals_read, pullback_impl
from ._fused import try_fused
from ._graph_api import GradientEdge
from ._ready_queue import ReadyQueue, Through, torch_edge_order
from ..tensor import ANY_GRAD_DTYPE, Tensor

__all__ = ["run_backward", "on_backward"]

# Called (no arguments) when a backward pass starts; upper layers register here instead of the engine
# looking them up: compile marks a traced step that runs backward (compile/_trace.py).
on_backward: list = []


def _apply(node, cts, create_graph, wanted):
    """The node's pullback: raw arrays, or with ``create_graph`` a recorded (differentiable) backward of the
    gradients for its inputs ``wanted`` (None: all; the others come back None). While a dispatch mode is
    active, the node's backward as the aten calls torch makes (``_profiler_state.MODE_BACKWARD``), Tensors."""
    if _prof.MODES and _prof.MODE_BACKWARD[0] is not None:
        return _prof.MODE_BACKWARD[0].apply(node, cts, create_graph, wanted, _apply_unseen)
    return _apply_unseen(node, cts, create_graph, wanted)


def _apply_unseen(node, cts, create_graph, wanted):
    if create_graph:
        rec = node.apply_recorded  # a custom Function's own; None for an op's node
        return rec(cts) if rec is not None else _apply_recorded(node, cts, wanted)
    return node.apply(cts)


def _edge_of(t):
    if isinstance(t, GradientEdge):
        return t.node, t.output_nr
    gf = t.grad_fn
    if gf is not None:
        return gf, t._oi
    if t._rg:
        acc = t._accumulator()
        if type(acc) is NoGradViewSink:
            return NoGradViewSink(t), 0  # (torch: no graph reaches a no_grad view, so it is unused)
        return acc, 0
    return None


def run_backward(tensors, grads, *, retain_graph, create_graph, inputs=None, capture=False,
                 allow_unused=False, accumulate=True):
    """Propagate ``grads`` from ``tensors`` backwards.

    With ``capture=True`` returns the gradients at ``inputs`` (autograd.grad) instead of accumulating.
    """
    for hook in on_backward:
        hook()
    roots = []
    for i, (t, g) in enumerate(zip(tensors, grads)):
        e = _edge_of(t)
        if e is None:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not have a grad_fn")
        roots.append((e, g))

    targets = None
    if inputs is not None:
        targets = {}
        for k, t in enumerate(inputs):
            if not isinstance(t, (Tensor, GradientEdge)):
                raise RuntimeError(f"all inputs have to be Tensors or GradientEdges, but got {type(t).__name__}")
            e = _edge_of(t)
            if e is None:
                if capture:
                    raise RuntimeError("One of the differentiated Tensors does not require grad")
                raise RuntimeError("One of the differentiated Tensors does not require grad")
            targets.setdefault((id(e[0]), e[1]), []).append(k)
        target_nodes = {}
        for t in inputs:
            e = _edge_of(t)
            target_nodes[id(e[0])] = e[0]

    # discover the graph (the general engine counts its dependencies below: a fused pass needs no counts)
    nodes, needed = {}, {}
    stack = [e[0] for e, _ in roots]
    for n in stack:
        nodes[id(n)] = n
    order = []
    seen = set()
    while stack:
        n = stack.pop()
        if id(n) in seen:
            continue
        seen.add(id(n))
        order.append(n)
        ins = n.inputs
        for i in n.diff_in:
            e = ins[i]
            if e is None:
                continue
            m = e[0]
            if id(m) not in nodes:
                nodes[id(m)] = m
                stack.append(m)
    below = None
    if targets is not None:
        # a node is needed if a target is reachable from it (post-order over the discovered DAG); it runs
        # (and frees its saved values) only if a target lies strictly below it: a target's own node only
        # hands over its incoming gradient, as torch's engine does (a later grad() may still go through it)
        below = set()
        for n in sorted(order, key=lambda n: -1 if isinstance(n, AccumulateGrad) else n.seq):  # leaves first
            nd = False
            for i in n.diff_in:
                e = n.inputs[i]
                if e is not None and needed.get(id(e[0])):
                    nd = True
                    break
            if nd:
                below.add(id(n))
            needed[id(n)] = nd or id(n) in target_nodes

    if targets is None and not create_graph and accumulate and not _prof._COLLECTING and not ANOMALY[0] \
            and try_fused(roots, order, retain_graph, _accumulate):
        return None  # the whole pass ran as one program (autograd/_fused.py)
    deps = _dependencies(order)

    # while a dispatch mode watches, gradients travel as Tensors (as with create_graph) and the mode sees
    # the aten calls torch's engine makes: each node's formula, the InputBuffer sums, AccumulateGrad's
    seen = _prof.MODE_BACKWARD[0] if _prof.MODES else None
    tensors = create_graph or seen is not None
    buffers = {}
    for (node, idx), g in roots:
        if seen is not None and not isinstance(g, Tensor):
            g = Tensor._wrap_where(g)
        buf = buffers.setdefault(id(node), [None] * len(node.diff_out))
        buf[idx] = g if buf[idx] is None else _sum(seen, buf[idx], g)

    results = [None] * (len(inputs) if inputs is not None else 0)
    heap, queued = ReadyQueue(), set()
    for n in (e[0] for e, _ in roots):
        if deps.get(id(n), 0) == 0 and id(n) not in queued:
            queued.add(id(n))
            heap.push(n)
    as_tensor = (lambda g: g) if tensors else (lambda g: Tensor._wrap_where(g) if g is not None else None)

    prev = grad_mode._state.enabled
    grad_mode._state.enabled = create_graph
    try:
        while heap:
            node = heap.pop()
            if type(node) is Through:  # linear's TBackward0: the weight's gradient goes on now
                if node.grad is not None:   # (a dispatch mode watches: the node's own aten calls now)
                    g = node.grad.run()
                    buf = buffers.setdefault(id(node.target), [None] * len(node.target.diff_out))
                    buf[node.slot] = g if buf[node.slot] is None else _sum(seen, buf[node.slot], g)
                _arrive(node.target, deps, heap, queued)
                continue
            cts = buffers.pop(id(node), [None] * len(node.diff_out))
            if targets is not None and not needed.get(id(node)):
                _release(node, deps, heap, queued)
                continue
            if targets is not None and id(node) in below:
                # a target's node that runs: torch captures the gradient before the tensor hooks
                for idx, g in enumerate(cts):
                    for k in targets.get((id(node), idx), ()):
                        results[k] = g
            cts = _tensor_hooks(node, cts, as_tensor, tensors)
            if targets is not None and id(node) not in below:
                for idx, g in enumerate(cts):
                    for k in targets.get((id(node), idx), ()):
                        results[k] = g
                if not isinstance(node, AccumulateGrad):
                    _release(node, deps, heap, queued)   # a target's node with no target under it: not run
                    continue
            if node._pre_hooks:
                tcts = tuple(as_tensor(g) for g in cts)
                for h in tuple(node._pre_hooks.values()):
                    r = h(tcts)
                    if r is not None:
                        tcts = r
                cts = [(_raw(g) if not tensors else g) for g in tcts]
            if isinstance(node, AccumulateGrad):
                if accumulate and (targets is None or (id(node), 0) in targets) and cts[0] is not None:
                    if seen is not None:
                        seen.accumulate(node, cts[0], create_graph)
                    else:
                        _accumulate(node, cts[0], create_graph)
                continue
            if all(g is None for g in cts):
                _release(node, deps, heap, queued)
                continue
            wanted = None
            if targets is not None and create_graph:  # only the inputs a target lies under
                wanted = {i for i in node.diff_in if needed.get(id(node.inputs[i][0]))}
            if ANOMALY[0]:
                grads_in = _run_anomalous(node, cts, create_graph, as_tensor, wanted, tensors)
            else:
                grads_in = _run_node(node, cts, create_graph, as_tensor, wanted, tensors)
            if not retain_graph:
                node.free()
            order = torch_edge_order(node, grads_in)
            for i, g, through in (order or ((i, g, False) for i, g in zip(node.diff_in, grads_in))):
                m, idx = node.inputs[i]
                later = seen is not None and seen.is_later(g)   # a gradient torch hands on from a later node
                if later or through:
                    heap.push(Through(node, m, g if later else None, idx))
                    if later:
                        continue
                buf = buffers.setdefault(id(m), [None] * len(m.diff_out))
                if g is not None:
                    buf[idx] = g if buf[idx] is None else _sum(seen, buf[idx], g)
                if through:
                    continue
                _arrive(m, deps, heap, queued)
    finally:
        grad_mode._state.enabled = prev
        if _prof._COLLECTING:
            _prof.observe_backward_end()

    if inputs is not None and capture:
        out = []
        for k, (t, r) in enumerate(zip(inputs, results)):
            if r is None and not allow_unused:
                raise RuntimeError(f"The differentiated Tensor at index {k} appears to not have been used in "
                                   "the graph. Set allow_unused=True if this is the desired behavior.")
            out.append(None if r is None else r if create_graph or isinstance(r, Tensor) else
                       Tensor._wrap(r, t._dev) if isinstance(t, Tensor) else Tensor._wrap_where(r))
        return tuple(out)
    return None


def _sum(seen, old, new):
    """Two gradients for one input summed (torch's InputBuffer::accumulate)."""
    if seen is not None:
        return seen.buffer_sum(old, new)
    if isinstance(old, jax.Array) and isinstance(new, jax.Array):
        return grad_add(old, new)
    return old + new


_sums = _jit_cache.Cache("gradient sum")


def _add(a, b):
    return a + b


def grad_add(a, b):
    """``a + b`` of two gradient arrays by one cached program: its shapes are counted against the cache bound,
    and a sum whose row count keeps changing (the cotangents of a boolean-mask selection) runs the program of
    its row bucket (``_row_buckets``) instead of compiling jnp's addition per shape."""
    e = _sums.get(_add)
    if e is None:
        e = _sums.add(_add, jax.jit(_add))
    return e(a, b)


def _run_node(node, cts, create_graph, as_tensor, wanted=None, tensors=None):
    """The node's input gradients for output gradients ``cts``: its pullback, then its hooks."""
    node._check_saved()
    if _prof._COLLECTING:   # a profiler is recording: the node's pullback as torch names it
        tok = _prof.begin_range(f"autograd::engine::evaluate_function: {node.name()}")
        inner = _prof.begin_range(node.name())
        _prof.observe_node(node)
        grads_in = _apply(node, cts, create_graph, wanted)
        _prof.end_range(inner)
        _prof.end_range(tok)
    else:
        grads_in = _apply(node, cts, create_graph, wanted)
    if node._hooks:
        gi = tuple(as_tensor(g) for g in grads_in)
        for h in tuple(node._hooks.values()):
            r = h(gi, tuple(as_tensor(g) if g is not None else None for g in cts))
            if r is not None:
                gi = tuple(r)
        grads_in = [(_raw(g) if not (create_graph if tensors is None else tensors) else g) for g in gi]
    return grads_in


def _run_anomalous(node, cts, create_graph, as_tensor, wanted=None, tensors=None):
    """``_run_node`` under detect_anomaly: a NaN gradient is an error naming the node, and an error is
    preceded by torch's warning showing the forward call that made the node."""
    try:
        grads_in = _run_node(node, cts, create_graph, as_tensor, wanted, tensors)
        if ANOMALY[1]:
            for i, g in zip(node.diff_in, grads_in):
                a = getattr(g, "_value", g)
                if a is not None and jnp.issubdtype(a.dtype, jnp.inexact) and bool(jnp.isnan(a).any()):
                    raise RuntimeError(f"Function '{node.name()}' returned nan values in its {i}th output.")
    except Exception:
        stack = node.metadata.get("traceback_")
        if stack:
            warn_at_caller(f"Error detected in {node.name()}. Traceback of forward call that caused the error:\n"
                           + "".join(stack))
        else:
            warn_at_caller(f"Error detected in {node.name()}. No forward pass information available. Enable "
                           "detect anomaly during forward pass for more information.")
        raise
    return grads_in


def _apply_recorded(node, cts, wanted):
    """An op node's input cotangents through the dispatcher, so the backward is itself recorded.

    As torch's nodes, it computes only the gradients the pass needs (``wanted``): the recorded gradient of
    ``x * y`` for ``x`` reads ``y`` only, so it has no edge to ``x``."""
    diff_in = node.diff_in if wanted is None else tuple(i for i in node.diff_in if i in wanted)
    if not diff_in:
        return (None,) * len(node.diff_in)
    if None in cts:
        cts = _zero_cotangents(node, cts)
    prims = []
    read = primals_read(node, diff_in)
    for k, (a, e) in enumerate(zip(node.primals, node.inputs)):
        if a is None or isinstance(a, (bool, int, float, complex)):
            prims.append(a)  # an argument the op took as a number, not a tensor (of no device)
            continue
        t = Tensor._wrap_where(a)
        if k in read and e is not None and e[0] is not None:
            n, idx = e
            if isinstance(n, AccumulateGrad):
                t = n.variable
            else:
                t._grad_fn, t._oi = n, idx
        prims.append(t)
    statics = (("f", node.f), ("statics", node.statics), ("diff_in", diff_in),
               ("diff_out", node.diff_out), ("n_primals", len(prims)))
    out = dispatch(pullback_impl, tuple(prims) + tuple(cts), statics, name=node._name + "Backward")
    got = dict(zip(diff_in, out if isinstance(out, tuple) else (out,)))
    return tuple(got.get(i) for i in node.diff_in)


def _zero_cotangents(node, cts):
    """Zeros for the outputs that got no cotangent, on the device of those that did (else of the op's inputs):
    a 'cpu' zero beside GPU cotangents would be an op across devices."""
    dev = next((c._dev for c in cts if c is not None), None)
    if dev is None:
        dev = next((of_array(a) for a in node.primals if isinstance(a, jax.Array)), CPU)
    out = []
    for c, (shape, dt) in zip(cts, node.out_meta):
        if c is None:
            z = jnp.zeros(shape, dt)
            c = Tensor._wrap(z if dev.type == "cpu" else jax.device_put(z, dev.jax_device()), dev)
        out.append(c)
    return out


def _raw(g):
    return g._value if isinstance(g, Tensor) else g


def _dependencies(order):
    """{id(node): how many edges of the discovered nodes ``order`` lead to it}: a node runs once all of them
    have delivered its gradient."""
    deps = {}
    for n in order:
        ins = n.inputs
        for i in n.diff_in:
            e = ins[i]
            if e is not None:
                k = id(e[0])
                deps[k] = deps.get(k, 0) + 1
    return deps


def _arrive(m, deps, heap, queued):
    """One more of ``m``'s consumers has handed its gradient over: ``m`` is ready once all have."""
    deps[id(m)] -= 1
    if deps[id(m)] == 0 and id(m) not in queued:
        queued.add(id(m))
        heap.push(m)


def _release(node, deps, heap, queued):
    for i in node.diff_in:
        e = node.inputs[i]
        if e is None:
            continue
        _arrive(e[0], deps, heap, queued)


def _check_hook_result(hook, g, r):
    """torch's checks of the gradient a tensor hook returned: a Tensor of the gradient's type, then its size."""
    if not isinstance(r, Tensor):
        raise TypeError(f"expected Variable, but hook returned '{type(r).__name__}'")
    name = getattr(hook, "__name__", type(hook).__name__)
    if r.dtype is not g.dtype:
        raise RuntimeError(f"hook '{name}' has changed the type of value (was {g.type()} got {r.type()})")
    if tuple(r.shape) != tuple(g.shape):
        raise RuntimeError(f"hook '{name}' has changed the size of value")


def _tensor_hooks(node, cts, as_tensor, create_graph):
    th, ret = node._tensor_hooks, node._retained
    if not th and not ret:
        return cts
    cts = list(cts)
    for idx in range(len(cts)):
        if cts[idx] is None:
            continue
        g = None  # one tensor object through the hooks, as torch: a hook may set attributes a later one reads
        for h in tuple((th or {}).get(idx, {}).values()):
            g = as_tensor(cts[idx]) if g is None else g
            r = h(g)
            if r is not None:
                _check_hook_result(h, g, r)
                g = r
                cts[idx] = r if create_graph else _raw(r)
        if ret and idx in ret:
            t = ret[idx]()
            if t is not None:
                g = as_tensor(cts[idx])
                if create_graph:
                    t._grad = g if t._grad is None else t._grad + g
                else:
                    t._grad = g.detach() if t._grad is None else t._grad.__class__._wrap(t._grad._value + g._value, t._grad._dev)
    return cts


def _accumulate(node, g, create_graph):
    if type(node) is NoGradViewSink:
        return  # (torch: a no_grad view's gradient goes nowhere)
    v = node.variable
    if v._gdt is not None and v._gdt is not ANY_GRAD_DTYPE:  # (grad_dtype set: accumulated in that dtype)
        g = g.to(v._gdt) if create_graph else jnp.asarray(g).astype(v._gdt.np)
    if create_graph:
        v._grad = g if v._grad is None else v._grad + g
    elif v._grad is None:
        v._grad = Tensor._wrap(g, v._dev)
        if v._st is not None:  # torch's layout contract: a dense parameter's gradient takes its strides
            v._grad._st = v._st
    else:
        old = v._grad
        total = grad_add(old._value, g) if isinstance(g, jax.Array) else old._value + g
        if old.requires_grad:
            v._grad = Tensor._wrap(total, v._dev)
        else:
            old._set_value(total)
    if node._hooks:
        for h in tuple(node._hooks.values()):
            h((), ())
