"""torchlike.autograd.functional: jacobian, hessian, vjp, jvp, hvp, vhp over the tape."""
from __future__ import annotations

import numpy as np

from .. import _creation, _grad_mode as grad_mode
from .. import autograd as _autograd  # the package (same layer): grad() is defined there
from ..tensor import Tensor
from .._ops.shape import stack

__all__ = ["jacobian", "hessian", "vjp", "jvp", "hvp", "vhp"]


def _tup(x):
    return (x,), False if isinstance(x, Tensor) else (tuple(x), True)


def _as_tuple(x):
    if isinstance(x, Tensor):
        return (x,), False
    return tuple(x), True


def _prep(inputs, create_graph):
    return tuple(i.detach().requires_grad_(True) if not create_graph or not i.requires_grad
                 else i.view_as(i) for i in inputs)


def _grad(outs, ins, gos, create_graph):
    return _autograd.grad(outs, ins, gos, retain_graph=True, create_graph=create_graph, allow_unused=True,
                          materialize_grads=True)


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), v^T J).

    >>> import torchlike
    >>> torchlike.autograd.functional.vjp(lambda x: x * 2, torchlike.ones(2), torchlike.ones(2))[1]
    tensor([2., 2.])
    """
    ins, was_tuple = _as_tuple(inputs)
    with grad_mode.enable_grad():
        ins = _prep(ins, create_graph)
        out = func(*ins)
        outs, out_tuple = _as_tuple(out)
        vs = (None,) * len(outs) if v is None else _as_tuple(v)[0]
        g = _grad(outs, ins, vs, create_graph)
    if not create_graph:
        out = tuple(o.detach() for o in outs) if out_tuple else outs[0].detach()
        g = tuple(x.detach() for x in g)
    return out, (g if was_tuple else g[0])


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), J v) by the double-vjp trick."""
    ins, was_tuple = _as_tuple(inputs)
    vs = _as_tuple(v)[0] if v is not None else tuple(_creation.ones_like(i) for i in ins)
    with grad_mode.enable_grad():
        ins = _prep(ins, create_graph)
        out = func(*ins)
        outs, out_tuple = _as_tuple(out)
        us = tuple(_creation.zeros_like(o).requires_grad_(True) for o in outs)
        g = _grad(outs, ins, us, True)
        jv = _grad(g, us, vs, create_graph)
    if not create_graph:
        outs = tuple(o.detach() for o in outs)
        jv = tuple(x.detach() for x in jv)
    return (outs if out_tuple else outs[0]), (jv if out_tuple else jv[0])


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False, strategy="reverse-mode"):
    """The Jacobian of ``func`` at ``inputs`` (shape out.shape + in.shape per pair)."""
    ins, in_tuple = _as_tuple(inputs)
    with grad_mode.enable_grad():
        ins = _prep(ins, create_graph)
        out = func(*ins)
        outs, out_tuple = _as_tuple(out)
        rows = []
        for o in outs:
            flat = o.reshape(-1)
            per_in = [[] for _ in ins]
            for k in range(flat.numel()):
                onehot = np.zeros(flat.numel(), dtype=flat.dtype.np)
                onehot[k] = 1
                e = _creation.tensor(onehot, device=flat.device)
                g = _grad((flat,), ins, (e,), create_graph)
                for j, gj in enumerate(g):
                    per_in[j].append(gj)
            jac = []
            for j, i in enumerate(ins):
                if per_in[j]:
                    jj = stack(per_in[j]).reshape(tuple(o.shape) + tuple(i.shape))
                else:
                    jj = _creation.zeros(tuple(o.shape) + tuple(i.shape), dtype=i.dtype)
                jac.append(jj if create_graph else jj.detach())
            rows.append(tuple(jac) if in_tuple else jac[0])
    return tuple(rows) if out_tuple else rows[0]


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False, outer_jacobian_strategy="reverse-mode"):
    """The Hessian of scalar ``func`` at ``inputs``."""
    ins, in_tuple = _as_tuple(inputs)

    def grad_fn(*xs):
        with grad_mode.enable_grad():
            out = func(*xs)
            return _grad((out,), xs, (None,), True)

    res = jacobian(grad_fn, ins, create_graph=create_graph)
    if not in_tuple:
        return res[0][0]
    return res


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    ins, was_tuple = _as_tuple(inputs)
    vs = _as_tuple(v)[0]
    with grad_mode.enable_grad():
        ins = _prep(ins, create_graph)
        out = func(*ins)
        g = _grad((out,), ins, (None,), True)
        h = _grad(g, ins, vs, create_graph)
    if not create_graph:
        out, h = out.detach(), tuple(x.detach() for x in h)
    return out, (h if was_tuple else h[0])


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), H @ v)``: the Hessian is symmetric for twice-differentiable ``func``, so this is ``vhp``.

    >>> import torchlike as torch
    >>> hvp(lambda x: (x ** 3).sum(), torch.tensor([1.0, 2.0]), torch.tensor([1.0, 1.0]))[1]
    tensor([ 6., 12.])
    """
    return vhp(func, inputs, v, create_graph, strict)
