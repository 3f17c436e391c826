"""``autograd.Function.apply`` inside the torchlike.func transforms (vmap, grad, vjp, jvp, jacrev, ...).

torch runs a Function under a transform through its staticmethods: ``forward`` on the unwrapped values,
``setup_context``, then ``backward`` for the reverse transforms and ``jvp`` for the forward ones (a
Function without ``setup_context`` is refused; under vmap it needs a ``vmap`` staticmethod or
``generate_vmap_rule=True``). Here the Function becomes one JAX function: a ``jax.custom_vjp`` whose
backward is the user's ``backward``, or a ``jax.custom_jvp`` whose tangent rule is the user's ``jvp``
when the class defines one (reverse mode then transposes it). ``forward`` is traced with the transform's
values; when it needs concrete ones (it calls ``.numpy()``, as the tutorial's ``NumpySort`` does), it runs
as a host callback on concrete arrays instead, batched under vmap by calling it once per batch element
(the same values as the class's ``vmap`` staticmethod gives, which is not called).
"""
from __future__ import annotations

import threading

import jax
import jax.numpy as jnp
import numpy as np
from jax._src.interpreters import batching

from .. import _grad_mode
from .._errors import GraphBreak
from .._trace_hooks import _local as _trace_local
from ..tensor import Tensor

__all__ = ["active", "apply"]

_DOC = "For more details, please see https://pytorch.org/docs/main/notes/extending.func.html"
SETUP_CONTEXT = ("In order to use an autograd.Function with functorch transforms (vmap, grad, jvp, jacrev, ...), it "
                 "must override the setup_context staticmethod. " + _DOC)
NO_VMAP = ("You tried to vmap over {name}, but it does not have vmap support. Please override and implement the vmap "
           "staticmethod or set generate_vmap_rule=True. " + _DOC)
NO_JVP = "You must implement the jvp function for custom autograd.Function to use it with forward mode AD."

_local = threading.local()  # depth > 0 while a Function's forward/backward/jvp runs on this path


def active():
    """True where ``Function.apply`` takes this path: inside a torchlike.func transform's function, or inside
    a Function's staticmethod this path runs (its backward may apply Functions to traced cotangents)."""
    from ..func._common import in_transform  # lazy: func is built on autograd
    return in_transform() or getattr(_local, "depth", 0) > 0


class _nested:
    def __enter__(self):
        _local.depth = getattr(_local, "depth", 0) + 1

    def __exit__(self, *exc):
        _local.depth -= 1
        return False


class _concrete:
    """Run eagerly on concrete values: outside any JAX trace and any torchlike.compile trace."""

    def __enter__(self):
        self.stack = getattr(_trace_local, "stack", None)
        _trace_local.stack = []
        self.eval = jax.ensure_compile_time_eval()
        self.eval.__enter__()

    def __exit__(self, *exc):
        self.eval.__exit__(*exc)
        _trace_local.stack = self.stack
        return False


def _under_vmap():
    from ..func import _common  # lazy: func is built on autograd
    return any(f.what == "vmap" for f in getattr(_common._local, "frames", ()))


def _is_batched(v):
    while isinstance(v, jax.core.Tracer):
        if isinstance(v, batching.BatchTracer):
            return True
        v = getattr(v, "primal", None) if hasattr(v, "primal") else getattr(v, "val", None)
    return False


def _differentiable(dtype):
    return jnp.issubdtype(dtype, jnp.floating) or jnp.issubdtype(dtype, jnp.complexfloating)


def _float0_zeros(x):
    return np.zeros(np.shape(x), dtype=jax.dtypes.float0)


def apply(cls, args, kwargs):
    """``cls.apply(*args, **kwargs)`` as torch's transforms run it (see the module docstring)."""
    from .function import Function, FunctionCtx  # lazy: function.py imports this module (its apply calls here)
    if cls.setup_context is Function.setup_context:
        raise RuntimeError(SETUP_CONTEXT)
    pos = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
    if (_under_vmap() and not cls.generate_vmap_rule and cls.vmap is Function.vmap
            and any(_is_batched(args[i]._value) for i in pos)):
        raise RuntimeError(NO_VMAP.format(name=cls.__name__))
    dev = args[pos[0]]._dev if pos else None
    meta = {}  # the output structure: is_tuple, tensor positions, non-tensor values, devices

    def with_values(arrs):
        a = list(args)
        for i, v in zip(pos, arrs):
            a[i] = Tensor._wrap(v, args[i]._dev)
        return a

    def split(out):
        is_tuple = isinstance(out, tuple)
        outs = list(out) if is_tuple else [out]
        tpos = [k for k, o in enumerate(outs) if isinstance(o, Tensor)]
        meta.update(is_tuple=is_tuple, outs=outs, tpos=tpos, devs=[outs[k]._dev for k in tpos])
        return [outs[k]._value for k in tpos]

    def run_forward(arrs):
        with _nested(), _grad_mode.no_grad():
            return split(cls.forward(*with_values(arrs), **kwargs))

    def host_forward(arrs):
        """``forward`` on concrete values: a host callback, one call per batch element under vmap."""
        with _concrete():  # zeros of the inputs' shapes give the outputs' shapes and dtypes
            probe = run_forward([jnp.zeros(np.shape(v), dtype=v.dtype) for v in arrs])
        shapes = [jax.ShapeDtypeStruct(np.shape(o), o.dtype) for o in probe]

        def host(*concrete):
            return [np.asarray(o) for o in run_forward([jnp.asarray(c) for c in concrete])]
        return list(jax.pure_callback(host, shapes, *arrs, vmap_method="sequential"))

    def primal(*arrs):
        try:
            return run_forward(list(arrs))
        except (GraphBreak, jax.errors.ConcretizationTypeError, jax.errors.TracerArrayConversionError):
            return host_forward(list(arrs))

    def context(arrs, outs):
        ctx = FunctionCtx()
        ctx.needs_input_grad = tuple(isinstance(a, Tensor) and _differentiable(a._value.dtype) for a in args)
        ins = with_values(arrs)
        full = list(meta["outs"])
        for k, o, d in zip(meta["tpos"], outs, meta["devs"]):
            full[k] = Tensor._wrap(o, d)
        with _nested():
            cls.setup_context(ctx, tuple(ins), tuple(full) if meta["is_tuple"] else full[0])
        return ctx, full

    def user_grads(res, n_in):
        out = list(res) if isinstance(res, tuple) else [res]
        if len(out) < n_in:
            raise RuntimeError(f"function {cls.__name__}Backward returned an incorrect number of gradients "
                               f"(expected {n_in}, got {len(out)})")
        return out

    if cls.jvp is not Function.jvp:
        fn = jax.custom_jvp(lambda *arrs: primal(*arrs))

        @fn.defjvp
        def _rule(primals, tangents):
            outs = fn(*primals)  # through fn again: a further derivative uses this rule too
            ctx, full = context(primals, outs)
            tans = with_values([t if _differentiable(p.dtype) else jnp.zeros(np.shape(p), p.dtype)
                                for p, t in zip(primals, tangents)])
            tans = [t if k in pos else None for k, t in enumerate(tans)]
            with _nested():
                res = user_grads(cls.jvp(ctx, *tans), len(meta["tpos"]) if meta["is_tuple"] else 1)
            tout = []
            for j, (k, o) in enumerate(zip(meta["tpos"], outs)):
                t = res[k] if meta["is_tuple"] else res[0]
                if not _differentiable(o.dtype):
                    tout.append(_float0_zeros(o))
                else:
                    tout.append(jnp.zeros_like(o) if t is None else jnp.broadcast_to(t._value, o.shape).astype(o.dtype))
            return outs, tout
    else:
        fn = jax.custom_vjp(lambda *arrs: primal(*arrs))
        box = {}

        out_dtypes = []  # the outputs' dtypes (bwd must not touch the forward's tensors: their values are
        # the tracers of the transform that ran fwd)

        def _fwd(*arrs):
            outs = fn(*arrs)  # through fn again: a further derivative uses the user's backward too
            out_dtypes[:] = [o.dtype for o in outs]
            ctx, _ = context(arrs, outs)
            box["ctx"] = ctx
            saved = [t._value if isinstance(t, Tensor) else None for t in ctx.to_save]
            return outs, (list(arrs), saved)

        def _bwd(res, cts):
            arrs, saved = res
            ctx = FunctionCtx()
            ctx.__dict__.update(box["ctx"].__dict__)
            ctx.to_save = tuple(Tensor._wrap(v, dev) if v is not None else t
                                for v, t in zip(saved, box["ctx"].to_save))
            gouts = []
            for ct, dt in zip(cts, out_dtypes):
                if ct.dtype == jax.dtypes.float0:
                    ct = jnp.zeros(np.shape(ct), dt)
                gouts.append(Tensor._wrap(ct, dev))
            with _nested():
                res = user_grads(cls.backward(ctx, *gouts), len(args))
            grads = []
            for i, a in zip(pos, arrs):
                g = res[i]
                if not _differentiable(a.dtype):
                    grads.append(_float0_zeros(a))
                elif g is None:
                    grads.append(jnp.zeros_like(a))
                else:
                    v = g._value
                    if v.shape != np.shape(a):
                        v = g.sum_to_size(tuple(np.shape(a)))._value
                    grads.append(v.astype(a.dtype))
            return tuple(grads)
        fn.defvjp(_fwd, _bwd)

    try:
        outs = fn(*[args[i]._value for i in pos])
    except TypeError as e:
        if "forward-mode autodiff" in str(e) and "custom_vjp" in str(e):
            raise NotImplementedError(NO_JVP) from None
        raise
    full = list(meta["outs"])
    for k, o, d in zip(meta["tpos"], outs, meta["devs"]):
        full[k] = Tensor._wrap(o, d)
    return tuple(full) if meta["is_tuple"] else full[0]
