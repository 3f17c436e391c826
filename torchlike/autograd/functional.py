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


def _tupled(x):
    if isinstance(x, Tensor):
        return (x,), False
    return tuple(x), True


def _prep(inputs, create_graph):
    return tuple(i.detach().requires_grad_(True) if not create_graph or not i.requires_grad
                 else i.view_as(i) for i in inputs)


def _grad(outs, ins, gos, create_graph):
    return _autograd.grad(outs, ins, gos, retain_graph=True, create_graph=create_graph, allow_unused=True,
                          materialize_grads=True)


def _checked(x, arg_name, fn_name):
    """``x`` as a tuple of Tensors and whether it was one; a list or a non-Tensor is torch's TypeError."""
    was_tuple, x = _as_tuple(x, arg_name, fn_name)
    return x, was_tuple


_OUT = "outputs of the user-provided function"


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), v^T J).

    >>> import torchlike
    >>> torchlike.autograd.functional.vjp(lambda x: x * 2, torchlike.ones(2), torchlike.ones(2))[1]
    tensor([2., 2.])
    """
    ins, was_tuple = _checked(inputs, "inputs", "vjp")
    with grad_mode.enable_grad():
        ins = _prep(ins, create_graph)
        out = func(*ins)
        outs, out_tuple = _checked(out, _OUT, "vjp")
        vs = (None,) * len(outs) if v is None else _tupled(v)[0]
        g = _grad(outs, ins, vs, create_graph)
    if not create_graph:
        out = tuple(o.detach() for o in outs) if out_tuple else outs[0].detach()
        g = tuple(x.detach() for x in g)
    return out, (g if was_tuple else g[0])


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), J v) by the double-vjp trick."""
    ins, was_tuple = _checked(inputs, "inputs", "jvp")
    vs = _tupled(v)[0] if v is not None else tuple(_creation.ones_like(i) for i in ins)
    with grad_mode.enable_grad():
        ins = _prep(ins, create_graph)
        out = func(*ins)
        outs, out_tuple = _checked(out, _OUT, "jvp")
        us = tuple(_creation.zeros_like(o).requires_grad_(True) for o in outs)
        g = _grad(outs, ins, us, True)
        jv = _grad(g, us, vs, create_graph)
    if not create_graph:
        outs = tuple(o.detach() for o in outs)
        jv = tuple(x.detach() for x in jv)
    return (outs if out_tuple else outs[0]), (jv if out_tuple else jv[0])


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False, strategy="reverse-mode"):
    """The Jacobian of ``func`` at ``inputs`` (shape out.shape + in.shape per pair)."""
    ins, in_tuple = _checked(inputs, "inputs", "jacobian")
    with grad_mode.enable_grad():
        ins = _prep(ins, create_graph)
        out = func(*ins)
        outs, out_tuple = _checked(out, _OUT, "jacobian")
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
    ins, in_tuple = _checked(inputs, "inputs", "hessian")

    def grad_fn(*xs):
        with grad_mode.enable_grad():
            out = func(*xs)
            return _grad((out,), xs, (None,), True)

    res = jacobian(grad_fn, ins, create_graph=create_graph)
    if not in_tuple:
        return res[0][0]
    return res


def vhp(func, inputs, v=None, create_graph=False, strict=False, _name="vhp"):
    ins, was_tuple = _checked(inputs, "inputs", _name)
    vs = _tupled(v)[0]
    with grad_mode.enable_grad():
        ins = _prep(ins, create_graph)
        out = func(*ins)
        _checked(out, _OUT, _name)
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
    return vhp(func, inputs, v, create_graph, strict, "hvp")


# torch.autograd.functional's private helpers, with torch's signatures: libraries import them by name
# (torchmin's ScipyMinimizer builds its Jacobians with _construct_standard_basis_for and _tuple_postprocess)
def _as_tuple_nocheck(x):
    if isinstance(x, tuple):
        return x
    if isinstance(x, list):
        return tuple(x)
    return (x,)


def _as_tuple(inp, arg_name=None, fn_name=None):
    """``(whether inp was a tuple, inp as a tuple of Tensors)``, a non-Tensor raising torch's TypeError; without
    names, only ``inp`` as a tuple (torch's ``_as_tuple_nocheck``)."""
    if arg_name is None and fn_name is None:
        return _as_tuple_nocheck(inp)
    is_inp_tuple = isinstance(inp, tuple)
    if not is_inp_tuple:
        inp = (inp,)
    for i, el in enumerate(inp):
        if not isinstance(el, Tensor):
            if is_inp_tuple:
                raise TypeError(f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of Tensors "
                                f"but the value at index {i} has type {type(el)}.")
            raise TypeError(f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of Tensors but "
                            f"the given {arg_name} has type {type(el)}.")
    return is_inp_tuple, inp


def _tuple_postprocess(res, to_unpack):
    """Unpack ``res`` as the user gave the inputs: ``to_unpack`` is a bool, or a pair for nested results."""
    if isinstance(to_unpack, tuple):
        if not to_unpack[1]:
            res = tuple(el[0] for el in res)
        if not to_unpack[0]:
            res = res[0]
    elif not to_unpack:
        res = res[0]
    return res


def _grad_preprocess(inputs, create_graph, need_graph):
    return tuple(inp.view_as(inp) if create_graph and inp.requires_grad
                 else inp.detach().requires_grad_(need_graph) for inp in inputs)


def _grad_postprocess(inputs, create_graph):
    if isinstance(inputs[0], Tensor):
        return inputs if create_graph else tuple(inp.detach() for inp in inputs)
    return tuple(_grad_postprocess(inp, create_graph) for inp in inputs)


def _construct_standard_basis_for(tensors, tensor_numels):
    """The ``sum(tensor_numels)``-square identity split into column chunks, one per tensor (its dtype/device).

    >>> import torchlike
    >>> [tuple(c.shape) for c in _construct_standard_basis_for((torchlike.ones(1), torchlike.ones(2)), (1, 2))]
    [(3, 1), (3, 2)]
    """
    total = sum(tensor_numels)
    chunks = tuple(t.new_zeros(total, n) for t, n in zip(tensors, tensor_numels))
    start = 0
    for chunk, n in zip(chunks, tensor_numels):
        chunk.diagonal(start).fill_(1)
        start -= n
    return chunks
