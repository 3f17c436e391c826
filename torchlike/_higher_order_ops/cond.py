"""``torch.cond(pred, true_fn, false_fn, operands)``.

>>> import torchlike
>>> x = torchlike.tensor([1.0, 2.0])
>>> torchlike.cond(x.sum() > 0, lambda x: x.sin(), lambda x: x.cos(), (x,)).tolist() == x.sin().tolist()
True
"""
from __future__ import annotations

import jax

from .._dispatch import dispatch
from .._dynamo.exc import UncapturedHigherOrderOpError
from .._grad_mode import enable_grad, is_grad_enabled
from .._tape import AccumulateGrad, _seq as _tape_seq
from ..autograd import Function
from ..autograd import grad as _grad
from ..func._common import eager_autograd
from .._ops.nonzero_where import where
from ..tensor import Tensor
from ._flat import array_fn, flatten, is_traced

__all__ = ["cond"]


def _pred_value(pred):
    if isinstance(pred, Tensor):
        if pred.numel() != 1:
            raise RuntimeError(f"Expected pred to be bool or single-element tensor, but got {pred}.")
        return pred
    if not isinstance(pred, (bool, int)):
        raise RuntimeError(f"Expected pred to be bool or single-element tensor, but got {pred}.")
    return bool(pred)


def cond(pred, true_fn, false_fn, operands=(), **kwargs):
    """Run ``true_fn(*operands)`` if ``pred`` else ``false_fn(*operands)``; both return Tensors of the same
    shapes and dtypes. Under ``torchlike.compile`` with a traced ``pred`` this is one ``jax.lax.cond``."""
    if kwargs:
        raise TypeError(f"cond() got an unexpected keyword argument '{next(iter(kwargs))}'")
    pred = _pred_value(pred)
    operands = tuple(operands)
    if not is_traced(pred):
        fn = true_fn if bool(pred) else false_fn
        if isinstance(pred, Tensor) and eager_autograd():  # not while compile or a func transform traces
            return _eager_node(pred, fn, operands)
        out = fn(*operands)
        if isinstance(pred, Tensor):
            _check_no_aliasing(out, operands)
        return out
    if not all(isinstance(o, Tensor) for o in operands):
        raise RuntimeError("Expect operands to be a tuple of possibly nested dict/list/tuple that only consists "
                           f"of tensor leaves, but got {operands}.")
    return _lax_cond(pred, true_fn, false_fn, operands)


def _root(t):
    return t._vbase if t._vbase is not None else t


def _check_no_aliasing(out, operands):
    """torch traces a tensor-predicated cond and refuses a branch output that is (a view of) an operand."""
    roots = [_root(o) for o in operands if isinstance(o, Tensor)]
    leaves = out if isinstance(out, (tuple, list)) else (out,)
    if any(isinstance(o, Tensor) and any(_root(o) is r for r in roots) for o in leaves):
        raise UncapturedHigherOrderOpError(
            "This higher order operator doesn't work unless it is captured completely with torch.compile. Got graph "
            "break/error:\n\nEncountered aliasing during higher order op tracing\n  Higher Order Operator: "
            "torch.cond\n  Explanation: Higher order ops do not support aliasing.")


class CondAutogradOp(Function):
    """The branch taken as one autograd node, torch's ``CondAutogradOpBackward``: its edges are the operands'
    and those of the leaf tensors the branch closes over (a module's parameters); its backward differentiates
    the branch's own graph, recorded on detached copies of the operands. Once differentiable, as torch's."""

    @staticmethod
    def forward(ctx, pred, inner, outs, *operands_and_closed):
        ctx.inner, ctx.outs = inner, outs
        ctx.closed = operands_and_closed[len(inner):]
        return tuple(o.detach() for o in outs)

    @staticmethod
    def backward(ctx, *grads):
        pairs = [(o, g) for o, g in zip(ctx.outs, grads) if o.requires_grad and g is not None]
        wrt = ctx.inner + ctx.closed
        wanted = [i for i, t in enumerate(wrt) if isinstance(t, Tensor) and t.requires_grad]
        got = _grad([o for o, _ in pairs], [wrt[i] for i in wanted], [g for _, g in pairs],
                    retain_graph=True, allow_unused=True) if pairs else ()
        res = [None] * len(wrt)
        for i, g in zip(wanted, got):
            res[i] = None if g is None else g.detach()
        return (None, None, None) + tuple(res)


def _closed_leaves(outs, inner, first_seq):
    """The leaf tensors requiring grad that the branch's graph (its nodes are numbered from ``first_seq``)
    reaches besides its operands' copies ``inner``, or None when it reaches a node made before the branch ran
    (a non-leaf tensor it closes over)."""
    own = {id(t) for t in inner}
    closed, seen, todo = {}, set(), [o.grad_fn for o in outs if o.grad_fn is not None]
    for o in outs:
        if o.requires_grad and o.grad_fn is None and id(o) not in own:  # the branch returned a closed-over leaf
            closed[id(o)] = o
    while todo:
        node = todo.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, AccumulateGrad):
            if id(node.variable) not in own:
                closed[id(node.variable)] = node.variable
            continue
        if node.seq < first_seq:
            return None
        todo.extend(n for n, _ in node.next_functions)
    return list(closed.values())


def _eager_node(pred, fn, operands):
    """Eager ``cond`` with a Tensor predicate under grad mode: one ``CondAutogradOpBackward`` node, as torch.
    A branch that closes over a non-leaf tensor requiring grad runs as it is instead (its outputs then carry the
    branch's own nodes; docs/differences.md)."""
    inner = tuple(o.detach().requires_grad_(o.requires_grad) if isinstance(o, Tensor) else o for o in operands)
    first_seq = next(_tape_seq)
    with enable_grad():
        out = fn(*inner)
    _check_no_aliasing(out, inner)
    leaves, rebuild = flatten(out)
    if not any(o.requires_grad for o in leaves):
        return out
    closed = _closed_leaves(leaves, [t for t in inner if isinstance(t, Tensor)], first_seq)
    if closed is None:
        out = fn(*operands)
        _check_no_aliasing(out, operands)
        return out
    return rebuild(list(CondAutogradOp.apply(pred, inner, tuple(leaves), *operands, *closed)))


def _lax_cond(pred, true_fn, false_fn, operands):
    device = pred.device
    spec, needs_grad = [], []
    branches = (array_fn(true_fn, device, spec, needs_grad), array_fn(false_fn, device, spec, needs_grad))
    jax.eval_shape(lambda *a: tuple(b(*a) for b in branches), *[o._value for o in operands])
    (rebuild, true_meta), (_, false_meta) = spec[:2]
    if false_meta != true_meta:
        raise RuntimeError("Expected true_fn and false_fn to return tensors of the same shapes and dtypes, but got "
                           f"{[m[0] for m in true_meta]} and {[m[0] for m in false_meta]}.")
    if needs_grad and is_grad_enabled():
        # a branch reads a tensor it closes over that requires grad (a module's parameters): gradients must
        # reach it, which a cond over the operands alone cannot give; select between both branches instead
        t_leaves, rebuild = flatten(true_fn(*operands))
        f_leaves, _ = flatten(false_fn(*operands))
        return rebuild([where(pred.reshape(()), a, b) for a, b in zip(t_leaves, f_leaves)])

    def lax_cond(p, *arrays):
        return jax.lax.cond(p.reshape(()).astype(bool), *branches, *arrays)

    out = dispatch(lax_cond, (pred,) + operands, name="CondAutogradOpBackward", jit=False)
    return rebuild(list(out) if isinstance(out, tuple) else [out])


cond.__module__ = "torchlike"  # torch.cond's home is torch itself
