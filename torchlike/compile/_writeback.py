"""Writing a compiled program's effects back into the caller's tensors, as eager code would have.

Tensor arguments enter the program once per storage they share (their root), so writes through
aliases and views of arguments land where they would in eager mode; pre-existing tensors the trace
wrote (closures, module state, globals) are found by ``Trace`` and written after each call, together
with metadata changes (``requires_grad_``, ``.data =``, ``.grad = None``).
"""
from __future__ import annotations

from .. import _grad_mode as grad_mode, _views
from .._mutation import view_of_root
from ..tensor import _NUMPY_CHAIN, _SHARED_CHAIN, Tensor
from . import _trace
from ._errors import GraphBreak

__all__ = ["ArgPlan", "pre_existing_writes", "apply_meta"]

_I_GRAD = _trace._SLOTS.index("_grad")
_I_RG = _trace._SLOTS.index("_rg")
_I_VBASE = _trace._SLOTS.index("_vbase")


def pre_existing_writes(tr):
    """(tensors whose array the trace replaced, metadata writes) among the tensors that existed before."""
    mutated, meta = [], []
    for t in tr.order:
        snap = tr.snap[id(t)]
        vb0 = snap[_I_VBASE]
        vb0 = None if vb0 is _trace._MISSING else vb0
        if t._vbase is None:
            if vb0 is not None:  # ``.data = ...`` detached a view from its root
                meta.append(("detach", t, t._dev))
            if t._x is not snap[_trace.SNAP_X]:
                mutated.append(t)
        elif vb0 is None:
            raise GraphBreak("a tensor was turned into a view of a new storage")
        rg0 = snap[_I_RG]
        if rg0 is not _trace._MISSING and t._rg != rg0:
            meta.append(("rg", t, t._rg))
        g0 = snap[_I_GRAD]
        if t._grad is None and g0 is not None and g0 is not _trace._MISSING:
            meta.append(("gradnone", t, None))
    return mutated, meta


def apply_meta(meta, before):
    """Metadata writes: ``requires_grad`` flags ``before`` the program runs (so its outputs join the
    tape as in eager), the rest after it."""
    for kind, r, v in meta:
        t = r()
        if t is None or (kind == "rg") != before:
            continue
        if kind == "detach":
            t._vbase, t._chain, t._dev = None, None, v
            t._ver = [t._version]
        elif kind == "rg":
            t._rg = v
        else:
            t._grad = None


class ArgPlan:
    """How tensor arguments become program inputs (one input per distinct storage, their root) and,
    after the trace, which arguments were written.  A gradient the program computes for an argument
    is accumulated into its ``.grad`` after the call (inside the program the argument's ``.grad``
    starts as None)."""

    def __init__(self, leaves, tensor_pos):
        self.slots = []  # per root: (leaf index, through _vbase)
        self.slot_of = {}  # leaf index -> root slot
        ids = {}
        for i in tensor_pos:
            x = leaves[i]
            b = x._vbase
            # a tensor whose storage is a numpy array or a shared mapping is an alias of a hidden root that
            # never requires grad: the tensor itself stands for that storage (its .grad, its grad_fn)
            own = b is None or x._chain is _NUMPY_CHAIN or x._chain is _SHARED_CHAIN
            r = x if b is None else b
            s = ids.get(id(r))
            if s is None:
                s = ids[id(r)] = len(self.slots)
                self.slots.append((i, not own))
            elif own and self.slots[s][1]:
                self.slots[s] = (i, False)
            self.slot_of[i] = s
        self.views = [i for i in tensor_pos if leaves[i]._vbase is not None and not self._stands_for(i)]
        # slots an alias stands for: a ``.data =`` on it in the program detaches it from the array, as in eager
        self.alias_slots = {s for s, (i, via) in enumerate(self.slots) if not via and leaves[i]._vbase is not None}
        # a grad-requiring leaf sharing another tensor's storage (a Parameter of a view, ``p.data = flat[a:b]``)
        # reads and writes that storage through its root's slot, and has an input of its own, after the roots',
        # that its gradient goes to (``_trace._leaf_alias_value``): slot (leaf index, None), the leaf itself
        self.grad_slot_of = {}
        for i in self.views:
            x = leaves[i]
            if x._rg and x._grad_fn is None:
                self.grad_slot_of[i] = len(self.slots)
                self.slots.append((i, None))
        self.writes = []  # ("x", slot) / ("detach", leaf) / ("grad", slot): one output each
        self.meta = []  # ("rg", slot, flag) / ("leafrg", leaf, flag)

    def _stands_for(self, i):
        """Whether argument ``i`` is the tensor that stands for its storage slot (enters the program as is)."""
        return self.slots[self.slot_of[i]] == (i, False)

    def roots(self, leaves):
        return [leaves[i]._vbase if via else leaves[i] for i, via in self.slots]

    def tensors(self, leaves):
        return self.roots(leaves)

    def arrays(self, leaves):
        return [t._value for t in self.roots(leaves)]

    def build(self, leaves, arrays):
        """The argument leaves as seen inside the trace (fresh tensors over the traced arrays)."""
        roots = self.roots(leaves)
        rts = []
        for r, a in zip(roots, arrays):
            t = Tensor._wrap(a, r._dev)
            t._rg = r.requires_grad
            rts.append(t)
        new_leaves = list(leaves)
        for i, s in self.slot_of.items():
            src = leaves[i]
            if src._vbase is None or self._stands_for(i):
                new_leaves[i] = rts[s]
                continue
            rt = rts[s]
            v = Tensor._wrap(_views.chain_fn(src._chain)(rt._x), src._dev)
            v._vbase, v._chain, v._ver, v._seen = rt, src._chain, rt._ver, rt._ver[0]
            v._rg = src._rg
            if src._grad_fn is not None and rt.requires_grad and src._chain[0][0] != "alias":
                fresh = view_of_root(rt, src._chain)
                v._grad_fn, v._oi = fresh._grad_fn, fresh._oi
            if src._grad_fn is not None and v._grad_fn is None and grad_mode.is_grad_enabled():
                # (a view made of a leaf that shares another tensor's storage, ``p.reshape(1, 4)`` of a Parameter of
                # a view: its gradient goes to that leaf, which the program has no input for)
                raise GraphBreak("a view argument whose gradient goes to a tensor that is not an argument")
            new_leaves[i] = v
            g = self.grad_slot_of.get(i)
            if g is not None:
                tr = _trace.current()
                tr.leaf_alias.setdefault(id(rt), []).append((id(v), v._chain, arrays[g], rt._x))
                rts[g] = v
        self._init = (rts, list(arrays), [t._rg for t in rts], {i: new_leaves[i]._rg for i in self.views},
                      [t._ver for t in rts])
        return rts, new_leaves

    def finish(self, new_leaves):
        """After the traced call: the arrays to write back into the arguments (in ``writes`` order)."""
        rts, arrays, rg0, vrg0, vers = self._init
        self._init = None
        out = []
        for s, (rt, a, rg) in enumerate(zip(rts, arrays, rg0)):
            if self.slots[s][1] is None:  # (a leaf's gradient input: the leaf is one of the views)
                continue
            if rt._vbase is not None:
                raise GraphBreak("an argument was turned into a view of another tensor")
            if s in self.alias_slots and rt._ver is not vers[s]:  # ``.data =`` (it gives a new version counter)
                self.writes.append(("detach", self.slots[s][0], rt._dev))
                out.append(rt._x)
            elif rt._x is not a:
                self.writes.append(("x", s, rt._grad_fn is not None))
                out.append(rt._x)
            if rt._rg != rg:
                self.meta.append(("rg", s, rt._rg))
        for i in self.views:
            v = new_leaves[i]
            if v._vbase is None:  # ``.data = ...`` detached the view from its root
                self.writes.append(("detach", i, v._dev))
                out.append(v._x)
            if v._rg != vrg0[i]:
                self.meta.append(("leafrg", i, v._rg))
        for s, rt in enumerate(rts):
            g = rt._grad
            if isinstance(g, Tensor):
                self.writes.append(("grad", s, g._dev))
                out.append(g._value)
        return out

    def apply(self, leaves, values, out_tensors=None):
        """Write the program's argument outputs back into the caller's tensors."""
        roots = self.roots(leaves)
        for k, (w, new) in enumerate(zip(self.writes, values)):
            kind = w[0]
            if kind == "x":
                r = roots[w[1]]
                r._store(new)
                r._ver[0] += 1
                if w[2] and out_tensors is not None:
                    r._grad_fn, r._oi = out_tensors[k]._grad_fn, out_tensors[k]._oi
            elif kind == "detach":
                t = leaves[w[1]]
                t._x, t._dev, t._vbase, t._chain = new, w[2], None, None
                t._ver = [t._version + 1]
            else:
                r = roots[w[1]]
                g = r._grad
                if g is None:
                    r._grad = Tensor._wrap(new, w[2])
                else:  # accumulate, as backward does
                    r._grad = Tensor._wrap(g._value + new, w[2])

    def apply_flags(self, leaves):
        """``requires_grad_`` done by the program on arguments (before it runs, see ``apply_meta``)."""
        for kind, i, flag in self.meta:
            if kind == "rg":
                self.roots(leaves)[i]._rg = flag
            else:
                leaves[i]._rg = flag
