"""``autograd.Function.apply`` while ``torchlike.compile`` traces: one ``jax.custom_vjp`` call in the program.

A compiled call's backward differentiates the traced program with JAX, which would differentiate the ops of the
Function's ``forward`` instead of calling its ``backward``. Here the Function becomes a ``jax.custom_vjp``: its
primal runs the user's ``forward`` on the traced values and also returns what ``forward`` kept for backward (the
tensors of ``save_for_backward`` and tensor attributes of ``ctx``) as residuals; its backward rule runs the user's
``backward`` on them. So ``model = torch.compile(model)`` keeps one program for a module that applies a custom
Function (a straight-through estimator, a custom activation) where it used to fall back to eager code, and its
gradients are the Function's, as torch.compile's are. The outputs are also recorded on the tape as in eager mode,
with a ctx that holds the residuals, for a compiled step that runs ``backward()`` inside the trace.

Not taken (the Function is recorded as in eager mode, and the call falls back to eager when its outputs need
grad): ``mark_dirty`` (in-place forward), an output that is an input or a view of one, keyword arguments, and
tensors inside containers on ``ctx``.
"""
from __future__ import annotations

import copy

import jax
import numpy as np

from .. import _grad_mode as grad_mode, _trace_hooks
from ..tensor import Tensor

__all__ = ["apply_traced"]


class _NotTraceable(Exception):
    """The Function uses something this path does not carry (see the module docstring)."""


def _zeros_ct(x):
    """The cotangent JAX expects for a primal that gets no gradient (float0 for integer and bool primals)."""
    if np.issubdtype(x.dtype, np.inexact):
        return jax.numpy.zeros(x.shape, x.dtype)
    return np.zeros(x.shape, jax.dtypes.float0)


class _Call:
    """What ``_FunctionNode._call`` reads of its node, for the backward rule (no tape node exists there)."""

    def __init__(self, cls, ctx, n_inputs, diff_in, diff_out, all_meta, in_shapes):
        self.cls, self.ctx, self.n_inputs = cls, ctx, n_inputs
        self.diff_in, self.diff_out, self.all_meta, self.in_shapes = diff_in, diff_out, all_meta, in_shapes
        self.n_outputs = len(all_meta)
        self._name = cls.__name__ + "Backward"


def apply_traced(cls, args, kwargs, new_ctx, record, call_backward, base_setup_context):
    """``cls.apply(*args)`` as one custom_vjp call of the active trace; None where this path does not apply.
    ``new_ctx()`` makes a ctx, ``record(ctx, args, outs)`` wires outputs to a tape node as eager mode does,
    ``call_backward(call, cts)`` runs the user's backward as a node would (``_FunctionNode._call``);
    ``base_setup_context``: ``Function.setup_context`` (a Function that keeps it has the ctx-taking forward)."""
    if kwargs:
        return None
    tpos = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
    needs = tuple(isinstance(a, Tensor) and a.requires_grad for a in args)
    devs = [args[i]._dev for i in tpos]
    info = {}

    def forward(*arrays):
        tr = _trace_hooks.current()
        n_created = len(tr.created) if tr is not None else 0
        try:
            return _forward(*arrays)
        finally:  # the tensors made inside live in the custom_vjp's own trace: not the compiled program's
            if tr is not None:
                del tr.created[n_created:]

    def _forward(*arrays):
        inner = list(args)
        for i, x, d in zip(tpos, arrays, devs):
            inner[i] = Tensor._wrap(x, d)
        ctx = new_ctx()
        ctx.needs_input_grad = needs
        with grad_mode.no_grad():
            if cls.setup_context is not base_setup_context:
                out = cls.forward(*inner)
                cls.setup_context(ctx, tuple(inner), out)
            else:
                out = cls.forward(ctx, *inner)
        is_tuple = isinstance(out, tuple)
        outs = list(out) if is_tuple else [out]
        if ctx.dirty:
            raise _NotTraceable("mark_dirty")
        where = {id(inner[i]): ("in", i) for i in tpos}
        roots = {id(inner[i]) for i in tpos}
        for j, o in enumerate(outs):
            if isinstance(o, Tensor):
                if id(o) in where or (o._vbase is not None and id(o._vbase) in roots):
                    raise _NotTraceable("an output is an input or a view of one")
                where.setdefault(id(o), ("out", j))
        residuals = []

        def keep(t):
            src = where.get(id(t))
            if src is None:
                src = ("res", len(residuals))
                residuals.append(t)
            return src
        saved = [keep(t) if isinstance(t, Tensor) else None for t in ctx.to_save]
        attrs = {}
        for name, v in vars(ctx).items():
            if name.startswith("_") or name in ("to_save", "needs_input_grad", "non_differentiable", "dirty"):
                continue
            if isinstance(v, Tensor):
                attrs[name] = keep(v)
            elif isinstance(v, (list, tuple, dict, set)) and any(isinstance(e, Tensor) for e in
                                                                   (v.values() if isinstance(v, dict) else v)):
                raise _NotTraceable("tensors in a container on ctx")
        diff_out = tuple(j for j, o in enumerate(outs) if isinstance(o, Tensor) and
                         (o.dtype.is_floating_point or o.dtype.is_complex) and id(o) not in ctx.non_differentiable)
        info.update(ctx=ctx, is_tuple=is_tuple, saved=saved, attrs=attrs, diff_out=diff_out,
                    statics=[None if isinstance(o, Tensor) else o for o in outs],
                    out_devs=[o._dev if isinstance(o, Tensor) else None for o in outs],
                    res_devs=[t._dev for t in residuals],
                    all_meta=tuple((tuple(o.shape), o.dtype) if isinstance(o, Tensor) else ((), None) for o in outs),
                    non_diff={j for j, o in enumerate(outs) if isinstance(o, Tensor) and
                              id(o) in ctx.non_differentiable})
        ctx.to_save = tuple(None if isinstance(t, Tensor) else t for t in ctx.to_save)
        for name in attrs:  # (_ctx_with puts the program's tensors back: these are the inner trace's)
            setattr(ctx, name, None)
        info["out_index"] = {j: k for k, j in enumerate(j for j, o in enumerate(outs) if isinstance(o, Tensor))}
        return (tuple(o._value for o in outs if isinstance(o, Tensor)), tuple(t._value for t in residuals))

    def fwd(*arrays):
        outs, res = forward(*arrays)
        return (outs, res), (res, arrays, outs)

    def bwd(saved_arrays, cts):
        res, primals, outs = saved_arrays
        out_cts = cts[0]

        def tensor_of(kind, k):
            if kind == "res":
                return Tensor._wrap(res[k], info["res_devs"][k])
            if kind == "in":
                return Tensor._wrap(primals[tpos.index(k)], devs[tpos.index(k)])
            return Tensor._wrap(outs[info["out_index"][k]], info["out_devs"][k])
        ctx = _ctx_with(info, tensor_of)
        full, k = [], 0
        for j, s in enumerate(info["statics"]):
            if s is None and info["out_devs"][j] is not None:
                c = out_cts[k]
                k += 1
                full.append(Tensor._wrap(c, info["out_devs"][j]) if np.issubdtype(c.dtype, np.inexact) else None)
            else:
                full.append(None)
        diff_in = tuple(i for i in range(len(args)) if needs[i])
        in_shapes = tuple((tuple(a.shape), a.dtype) if isinstance(a, Tensor) else None for a in args)
        call = _Call(cls, ctx, len(args), diff_in, info["diff_out"], info["all_meta"], in_shapes)
        grads = call_backward(call, tuple(full[j] for j in info["diff_out"]))
        by_input = dict(zip(diff_in, grads))
        out = []
        for i, x in zip(tpos, primals):
            g = by_input.get(i)
            if g is None or not np.issubdtype(x.dtype, np.inexact):
                out.append(_zeros_ct(x))
            else:
                out.append(g._value.astype(x.dtype))
        return tuple(out)

    f = jax.custom_vjp(lambda *arrays: forward(*arrays))
    f.defvjp(fwd, bwd)
    try:
        out_arrays, res_arrays = f(*[args[i]._value for i in tpos])
    except _NotTraceable:
        return None
    outs, k = [], 0
    for j, s in enumerate(info["statics"]):
        if info["out_devs"][j] is not None:
            outs.append(Tensor._wrap(out_arrays[k], info["out_devs"][j]))
            k += 1
        else:
            outs.append(s)
    ctx = _ctx_with(info, lambda kind, k: Tensor._wrap(res_arrays[k], info["res_devs"][k]) if kind == "res" else
                    args[k] if kind == "in" else outs[k])
    ctx.non_differentiable = {id(outs[j]) for j in info["non_diff"]}
    with grad_mode.enable_grad():
        outs = record(ctx, args, outs)
    return tuple(outs) if info["is_tuple"] else outs[0]


def _ctx_with(info, tensor_of):
    """A copy of the forward's ctx whose tensors are ``tensor_of(kind, index)`` (its saved tensors and tensor
    attributes: inputs, outputs or residuals)."""
    ctx = copy.copy(info["ctx"])
    ctx.__dict__.pop("_node", None)
    ctx.to_save = tuple(t if src is None else tensor_of(*src) for t, src in zip(info["ctx"].to_save, info["saved"]))
    for name, src in info["attrs"].items():
        setattr(ctx, name, tensor_of(*src))
    return ctx

