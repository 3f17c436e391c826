"""The tape (layer 0: knows no Tensor): nodes (``grad_fn``) whose pullbacks are cached, jitted ``jax.vjp`` of the op's own function.

A node keeps the op's JAX function and static arguments, the input arrays it was called with and
the edges to its inputs' nodes.  Its pullback is ``jax.jit(lambda primals, cts: vjp(f)(cts))`` built
once per (function, static arguments, which inputs/outputs are differentiable) and reused, so a
training loop pays jit dispatch, never an eager ``jax.vjp``.
"""
from __future__ import annotations

import functools
import itertools
import weakref
from collections import OrderedDict

import jax
import jax.extend.core as jex
import jax.numpy as jnp

from . import _jit_cache
from ._hooks import add_hook

__all__ = ["Node", "AccumulateGrad", "pullback_fn", "node_class", "edges", "torch_name", "relabel",
           "WRAPS_SCALARS", "TORCH_NAMES", "primals_read", "pullback_reads"]

_seq = itertools.count()


def _conj_if_complex(x):
    return jnp.conj(x) if jnp.iscomplexobj(x) else x


def _vjp(f, statics, diff_in, diff_out, primals, cts):
    """Cotangents of the differentiable inputs of ``f`` (torch's conjugate convention for complex)."""
    def g(*d):
        full = list(primals)
        for i, v in zip(diff_in, d):
            full[i] = v
        out = f(*full, **statics)
        if not isinstance(out, (tuple, list)):
            out = (out,)
        return tuple(out[j] for j in diff_out)

    _, pull = jax.vjp(g, *[primals[i] for i in diff_in])
    cts = tuple(_conj_if_complex(c) for c in cts)
    return tuple(_conj_if_complex(r) for r in pull(cts))


_pullbacks = _jit_cache.Cache("pullback")  # (f, statics, diff_in, diff_out) -> Entry (bounded, see _jit_cache)


def pullback_fn(f, statics, diff_in, diff_out):
    """The jitted pullback for ``f`` with static kwargs ``statics`` (a tuple of pairs), as a callable
    cache entry."""
    key = (f, statics, diff_in, diff_out)
    e = _pullbacks.get(key)
    if e is None:
        kw = dict(statics)
        e = _pullbacks.add_tiered(key, lambda primals, cts: _vjp(f, kw, diff_in, diff_out, primals, cts))
    return e


def pullback_impl(*arrays, f, statics, diff_in, diff_out, n_primals):
    """The pullback as an op function of (primals..., cts...), so create_graph can record it."""
    return _vjp(f, dict(statics), diff_in, diff_out, arrays[:n_primals], arrays[n_primals:])


def primals_read(node, diff_in):
    """Indices of ``node``'s primals whose values its pullback for the inputs ``diff_in`` (a subset of the
    node's) reads (not only their shapes).

    torch's backward formula saves just those, so a recorded backward (``create_graph``) has edges to them
    only: ``a + b``'s has none, ``x * y``'s the other factor (torch computes only the gradients the pass
    needs, so ``x``'s gradient of ``x * y`` does not read ``x``).  Linking every primal instead would put the
    forward graph under linear ops' gradients, and a later backward through them would traverse (and
    free) forward nodes torch never reaches.
    """
    return pullback_reads(node.f, node.statics, diff_in, node.diff_out, node.primals, node.out_meta)


def pullback_reads(f, statics, diff_in, diff_out, primals, out_meta, unknown=None):
    """Indices of ``primals`` whose values the pullback of ``f`` (for inputs ``diff_in``, cotangents of the
    outputs ``diff_out`` shaped as ``out_meta``'s (shape, dtype) pairs) reads; cached by shapes.  Where that
    cannot be traced (an unhashable constant, a pullback that needs concrete values): ``unknown``, or all."""
    avals, consts = [], []
    for p in primals:
        if hasattr(p, "shape") and hasattr(p, "dtype"):
            avals.append((tuple(p.shape), jnp.dtype(p.dtype)))
            consts.append(None)
        else:
            avals.append(None)
            consts.append(p)
    cts = tuple((tuple(s), jnp.dtype(d)) for s, d in out_meta)
    try:
        return _primals_read(f, statics, tuple(diff_in), tuple(diff_out), tuple(avals), tuple(consts), cts)
    except TypeError:  # an unhashable constant, or a pullback that needs concrete values
        return frozenset(range(len(primals))) if unknown is None else unknown


@functools.lru_cache(maxsize=1024)
def _primals_read(f, statics, diff_in, diff_out, avals, consts, cts):
    traced = [i for i, a in enumerate(avals) if a is not None]

    def pull(*xs):
        prims = list(consts)
        for i, x in zip(traced, xs[:len(traced)]):
            prims[i] = x
        return _vjp(f, dict(statics), diff_in, diff_out, prims, xs[len(traced):])

    args = [jax.ShapeDtypeStruct(*avals[i]) for i in traced] + [jax.ShapeDtypeStruct(*c) for c in cts]
    jaxpr = jax.make_jaxpr(pull)(*args).jaxpr
    live = {v for v in jaxpr.outvars if isinstance(v, jex.Var)}
    for eqn in reversed(jaxpr.eqns):  # a backward liveness walk (an equation with a sub-jaxpr counts whole)
        if any(v in live for v in eqn.outvars):
            live.update(v for v in eqn.invars if isinstance(v, jex.Var))
    return frozenset(i for i, v in zip(traced, jaxpr.invars) if v in live)


class Node:
    """A recorded operation (``tensor.grad_fn``).

    ``next_functions`` are ``(node, output_index)`` pairs for each input, ``None`` where the input
    needs no gradient, as in torch.
    """
    __slots__ = ("f", "statics", "primals", "inputs", "diff_in", "diff_out", "out_meta", "saved",
                 "seq", "_name", "_hooks", "_pre_hooks", "_tensor_hooks", "_retained", "_md",
                 "_freed", "saves_outputs", "packed", "__weakref__")

    def __init__(self, f, statics, primals, inputs, diff_in, diff_out, out_meta, name, saved=()):
        self.f = f
        self.statics = statics
        self.primals = primals  # arrays the forward saw (immutable, so later writes can't corrupt them)
        self.inputs = inputs  # per primal: (node, idx) edge or None
        self.diff_in = diff_in
        self.diff_out = diff_out
        self.out_meta = out_meta  # per differentiable output: (shape, np dtype)
        self.saved = saved  # (tensor, version[, primal index, .data writes]) entries checked at backward
        self.seq = next(_seq)
        self._name = name
        self._hooks = None
        self._pre_hooks = None
        self._tensor_hooks = None  # {output index: [hooks]} from Tensor.register_hook on non-leaves
        self._retained = None  # {output index: weakref to tensor} for retain_grad
        self._md = None  # ``metadata``'s dict, made when first read
        self._freed = False
        self.saves_outputs = False  # the saved tensors are this node's outputs (torch's formula uses the result)
        self.packed = None  # saved_tensors_hooks: [(primal index or None, packed object, unpack hook)]

    apply_recorded = None  # op nodes' recorded backward (create_graph) is autograd.engine's; Function nodes' their own
    _display = None  # torch's name() where it differs from the class name (torch::autograd::CopySlices)

    def name(self):
        return type(self)._display or self._name

    @property
    def metadata(self):
        """torch's ``node.metadata``: a dict kept with the node (made when first read: most nodes never are)."""
        m = getattr(self, "_md", None)
        if m is None:
            m = self._md = {}
        return m

    def __repr__(self):
        return f"<{type(self).__name__} object at {hex(id(self))}>"

    @property
    def next_functions(self):
        return _next_functions(self)

    @property
    def requires_grad(self):
        return True

    def _sequence_nr(self):
        return self.seq

    def register_hook(self, fn):
        """``fn(grad_inputs, grad_outputs)`` runs after this node computes its input gradients."""
        if self._hooks is None:
            self._hooks = OrderedDict()
        return add_hook(self._hooks, fn)

    def register_prehook(self, fn):
        """``fn(grad_outputs)`` runs before this node; may return replacement gradients."""
        if self._pre_hooks is None:
            self._pre_hooks = OrderedDict()
        return add_hook(self._pre_hooks, fn)

    def _add_tensor_hook(self, idx, fn):
        if self._tensor_hooks is None:
            self._tensor_hooks = {}
        return add_hook(self._tensor_hooks.setdefault(idx, OrderedDict()), fn)

    def _check_saved(self):
        if self.packed is not None:  # (saved_tensors_hooks: torch checks no versions then, it unpacks)
            self._unpack()
            return
        if self._freed:
            _check_not_freed(self)
        written = None
        for k, e in enumerate(self.saved):
            t, v = e[0], e[1]
            w = t._ver  # (``t._version`` inlined for a plain version list; any other form asks the property)
            if type(w) is list and (w[0] if len(w) == 1 else w[0] - w[1]) == v:
                if len(w) == 2 and len(e) == 4 and w[1] != e[3]:  # written through .data since recorded
                    written = [e] if written is None else written + [e]
                continue
            if t._version != v:
                raise RuntimeError(
                    "one of the variables needed for gradient computation has been modified by an inplace "
                    f"operation: [{t.type()} {list(t.shape)}]{self._origin_of_saved(k, t)} is at version "
                    f"{t._version}; expected version {v} instead. Hint: enable anomaly detection to find the "
                    "operation that failed to compute its gradient, with "
                    "torch.autograd.set_detect_anomaly(True, check_nan=False).")
        if written is not None:
            self._read_data_writes(written)

    def _read_data_writes(self, written):
        """A saved tensor written through ``.data`` after it was saved (no version bump, so no error): torch's
        backward reads the saved tensor's storage, so it sees the new values; the pullback reads them too."""
        primals = list(self.primals)
        for t, _, i, _ in written:
            new = t._value
            old = primals[i]
            if getattr(old, "shape", None) == new.shape and getattr(old, "dtype", None) == new.dtype:
                primals[i] = new
        self.primals = tuple(primals)

    def _unpack(self):
        """Run the unpack hooks of the tensors packed when this node was recorded; their values become the
        primals the pullback reads (a saved output's is unpacked and not read: the pullback needs the inputs)."""
        _check_not_freed(self)
        primals = list(self.primals)
        for pos, obj, unpack in self.packed:
            t = unpack(obj)
            if not hasattr(t, "_value"):
                raise TypeError("Output of saved tensor unpack_hook expected to be a Tensor but got result of type "
                                f"{type(t).__name__}")
            if pos is not None:
                primals[pos] = t._value
        self.primals = tuple(primals)

    def _origin_of_saved(self, k, t):
        """torch's ", which is output N of Op," for saved tensor ``t`` (the ``k``-th saved): the node that saved
        its own output, or the saved input's grad_fn now (none for a leaf or a tensor without grad)."""
        if getattr(self, "saves_outputs", False):
            node, idx = self, k
        elif t._grad_fn is not None:
            node, idx = t._grad_fn, t._oi
        else:
            return ""
        return f", which is output {idx} of {op_name(node.name())},"

    def apply(self, cts):
        """Input cotangents (arrays) for output cotangents ``cts`` (arrays or None, one per diff output)."""
        cts = [c if c is not None else jnp.zeros(m[0], m[1]) for c, m in zip(cts, self.out_meta)]
        return pullback_fn(self.f, self.statics, self.diff_in, self.diff_out)(self.primals, tuple(cts))

    def free(self):
        self.primals = None
        self.saved = ()
        self.packed = None
        self._freed = True


_NODE_CLASSES: dict = {}


def node_class(name):
    """The ``Node`` subclass named ``name`` (``MulBackward0``, ...), made once and cached, so that
    ``type(t.grad_fn).__name__`` is torch's backward node name."""
    cls = _NODE_CLASSES.get(name)
    if cls is None:
        ident, full = torch_name(name)
        ident = ident if ident.isidentifier() else "".join(c if c.isalnum() else "_" for c in ident)
        cls = _NODE_CLASSES[name] = type(ident, (Node,), {"__slots__": (), "__module__": "builtins",
                                                           "_display": full})
    return cls


def _next_functions(node):
    return edges(node)


def _no_derivative(self, cts):
    # raised here, before any JAX call, so the error reaches the user as torch's engine raises it
    raise RuntimeError(f"derivative for aten::{self.f.aten_op} is not implemented")


# torch's node for an op without a derivative formula (bincount's weights, histogram, heaviside, floor_divide):
# ``f`` carries the ATen name (_dispatch records it)
_NODE_CLASSES["NotImplemented"] = type("NotImplemented", (Node,), {
    "__slots__": (), "__module__": "builtins", "_display": "torch::autograd::NotImplemented",
    "apply": _no_derivative, "apply_recorded": _no_derivative})


class AccumulateGrad(Node):
    """The node at a leaf tensor: accumulates incoming gradients into ``variable.grad``."""

    __slots__ = ("variable", "_meta")
    seq = 2 ** 64 - 1  # torch's (UINT64_MAX): a leaf accumulates as soon as its gradient is complete

    def __init__(self, variable):
        self.variable = variable
        self.inputs = ()
        self.diff_in = ()
        self.diff_out = (0,)
        self._meta = None  # out_meta, read from the variable when first asked (a leaf's node is made per graph)
        self.saved = ()
        self._name = "torch::autograd::AccumulateGrad"
        self._hooks = self._pre_hooks = self._tensor_hooks = self._retained = self._md = None
        self._freed = False
        self.primals = ()

    @property
    def out_meta(self):
        m = self._meta
        if m is None:
            v = self.variable
            m = self._meta = ((tuple(v.shape), v.dtype.np),)
        return m

    @out_meta.setter
    def out_meta(self, value):
        self._meta = value

    def name(self):
        return "torch::autograd::AccumulateGrad"

    def __repr__(self):
        return f"<AccumulateGrad object at {hex(id(self))}>"

    def _check_saved(self):
        pass

    def free(self):
        pass


class NoGradViewSink(AccumulateGrad):
    """The leaf node of a view made under no_grad of a tensor that requires grad: torch lets it require grad,
    and the gradients that reach it go nowhere (neither its ``.grad`` nor its base's)."""

    __slots__ = ()


# ---- torch's names and next_functions edges for the tape's nodes -------------------------------------
# torch's backward-node structure for the tape's nodes: class names and ``next_functions`` edges.
#
# A node's ``inputs`` hold, per argument of the op's JAX function, the edge ``(node, index)`` of a tensor
# that requires grad, ``(None, 0)`` for a float tensor that does not, and ``None`` for anything else (a
# Python number, an index tensor, an absent optional tensor).  torch's ``next_functions`` list the
# differentiable tensor arguments of the ATen op, in its order: binary arithmetic wraps a Python number
# into a tensor (``x * 2`` has two edges, the second ``(None, 0)``), absent optional weights/biases are
# ``(None, 0)`` edges, and ``linear`` is ``addmm(bias, input, weight.t())``.  Those shapes are rebuilt
# here when ``next_functions`` is read, so recording a node costs nothing extra.

_NONE = (None, 0)

# Nodes whose ATen op takes a Python number as a wrapped tensor argument (an edge (None, 0)).
WRAPS_SCALARS = frozenset({
    "AddBackward0", "SubBackward0", "MulBackward0", "DivBackward0", "DivBackward2",
})

# Names the ops record under that torch spells differently (torch.special's own ATen ops carry a
# ``Special`` prefix; aliases record their target's node; ``name:variant`` marks a node whose edges
# are rebuilt below).  Applied once, when a name's class is made.
TORCH_NAMES = {
    "I0EBackward0": "SpecialI0EBackward0", "I1Backward0": "SpecialI1Backward0", "I1EBackward0": "SpecialI1EBackward0",
    "Xlog1PyBackward0": "SpecialXlog1PyBackward0", "EntrBackward0": "SpecialEntrBackward0",
    "NdtriBackward0": "SpecialNdtriBackward0", "LogNdtrBackward0": "SpecialLogNdtrBackward0",
    "ErfcxBackward0": "SpecialErfcxBackward0", "ExpitBackward0": "SigmoidBackward0",
    "SquareBackward0": "PowBackward0", "CopyBackwards": "torch::autograd::CopyBackwards",
    "CopySlices": "torch::autograd::CopySlices",
    "AddmmBackward0:linear": "AddmmBackward0", "MmBackward0:linear": "MmBackward0",
}


def torch_name(name):
    """(class name, ``name()``) of the node recorded under ``name``."""
    full = TORCH_NAMES.get(name, name)
    return full.rsplit("::", 1)[-1], full


def _opt(n):
    """The first ``n`` arguments are tensor edges, absent ones ``(None, 0)`` (weight=None, bias=None)."""
    return lambda node, ins: tuple(_NONE if e is None else e for e in ins[:n])


_T_CACHE: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _transposed(node, e):
    """The ``TBackward0`` node torch records for ``weight.t()`` inside linear (made when first walked)."""
    if e is None or e[0] is None:
        return _NONE
    t = _T_CACHE.get(node)
    if t is None:
        t = _T_CACHE[node] = node_class("TBackward0")(None, (), None, (e,), (0,), (0,), (), "TBackward0")
    return (t, 0)


_EDGES = {
    "RsubBackward0": lambda node, ins: (ins[1], ins[0]),
    "RsubBackward1": lambda node, ins: tuple(e for e in ins[::-1] if e is not None),
    "AddmmBackward0:linear": lambda node, ins: (_NONE if ins[2] is None else ins[2], ins[0] or _NONE,
                                                _transposed(node, ins[1])),
    "MmBackward0:linear": lambda node, ins: (ins[0] or _NONE, _transposed(node, ins[1])),
    "NativeLayerNormBackward0": _opt(3), "NativeBatchNormBackward0": _opt(3),
    "NativeGroupNormBackward0": _opt(3), "ConvolutionBackward0": _opt(3),
}


def edges(node):
    """``node.next_functions``: a tuple of (node or None, output index) pairs, as torch's."""
    ins = node.inputs
    if ins is None:
        return ()
    name = node._name
    spec = _EDGES.get(name)
    if spec is not None:
        return spec(node, ins)
    if name in WRAPS_SCALARS:
        return tuple(_NONE if e is None else e for e in ins)
    return tuple(e for e in ins if e is not None)


def relabel(result, name, only=None):
    """Give the node that produced ``result`` (a tensor or a tuple of them) torch's name ``name`` (a str,
    or a function of the node's current class name), for ops composed of others whose ATen op is one node
    (``t_copy`` -> ``TBackward0_copy``).  ``only``: relabel only nodes of that class name."""
    for t in (result if isinstance(result, tuple) else (result,)):
        node = getattr(t, "_grad_fn", None)
        if node is None or (only is not None and type(node).__name__ != only):
            continue
        new = name if isinstance(name, str) else name(type(node).__name__)
        node.__class__, node._name = node_class(new), new
    return result


def op_name(node_name):
    """The op a node's class name stands for, as torch's autograd messages print it (``SigmoidBackward0`` ->
    ``Sigmoid``)."""
    base = node_name.rstrip("0123456789")
    return base[:-len("Backward")] if base.endswith("Backward") else node_name


# autograd anomaly detection (torch.autograd.detect_anomaly): [enabled, check_nan]; the dispatcher records each
# node's forward stack while it is on, the engine checks every node's gradients for NaN and names the node
# torch.autograd.graph.saved_tensors_hooks: the (pack_hook, unpack_hook) pairs entered, innermost last; and the
# messages of the disable_saved_tensors_hooks blocks entered
SAVED_HOOKS: list = []
SAVED_HOOKS_DISABLED: list = []


def pack_saved(tensors):
    """The innermost pack hook run on each of ``tensors`` (with the hooks off meanwhile, so the hook's own ops
    pack nothing): ``[(packed, unpack_hook)]``."""
    pack, unpack = SAVED_HOOKS[-1]
    hooks = SAVED_HOOKS[:]
    SAVED_HOOKS.clear()
    try:
        return [(pack(t), unpack) for t in tensors]
    finally:
        SAVED_HOOKS[:] = hooks


def _check_not_freed(node):
    if node._freed:
        raise RuntimeError(
            "Trying to backward through the graph a second time (or directly access saved tensors after "
            "they have already been freed). Saved intermediate values of the graph are freed when you "
            "call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward "
            "through the graph a second time or if you need to access saved tensors after calling "
            "backward.")


ANOMALY = [False, True]

# forward-mode AD (torch.autograd.forward_ad): while a dual level is entered, the object whose ``op(f, statics,
# args, arrays, outs)`` and ``view(t, out)`` give results the tangents of their inputs (the dispatcher and view_step
# call them); None otherwise, so eager ops pay one list read
FORWARD_AD = [None]
