"""Autocast's per-op policies (torch's CPU lists, measured against torch 2.13) and the state they read.

Layer 2 (docs/DEVELOPING.md): casting an op's inputs is the dispatcher's business in torch (the Autocast
dispatch key), and the ops of layer 3 opt in at their definitions; ``torchlike.amp`` switches the state.

An op opts in with a decorator at its definition: ``@lower`` (cast float32/float16/bfloat16 inputs to
the autocast dtype: matmul, linear, conv*, SDPA, ...), ``@fp32`` (cast float16/bfloat16 inputs up to
float32: losses, prod, cdist, FFTs, inverse, ...) or ``@keep`` (run without autocast: ops torch does
not autocast whose torchlike implementation calls an autocast op internally).  With autocast off the
only cost is one flag test.  Inside an op's body autocast is off, as it is below torch's autocast key,
so internal calls do not cast again.  float64 tensors are never cast (torch's eligibility rule).

Ops torch has no autocast kernel for but decomposes into listed ones (CompositeImplicit: cov, pinv,
multi-head attention, matrix_power, ...) take the dtype their decomposition ends in: ``@lower_result``
runs the op on its own inputs and casts the float result down (the decomposition's last step is a
matmul), ``@lower_powers`` is matrix_power's (inverse in float32, the products in the autocast dtype).
"""
from __future__ import annotations

import functools
import threading
import types

import jax

from . import _dtype, _torch_function
from .tensor import Tensor

__all__ = ["state", "lower", "fp32", "keep", "lower_if", "fp32_if", "lower_result", "lower_powers", "clear_cache"]


class _State(threading.local):
    def __init__(self):
        self.on = False  # any device enabled: the one flag ops test
        self.enabled = {}  # device type -> bool
        self.dtype = {}  # device type -> fast dtype
        self.cache_enabled = True
        self.depth = 0  # nesting of autocast regions (the cache is cleared leaving the outermost)
        self.cache = {}


state = _State()


def clear_cache():
    state.cache.clear()


def _lower_one(t, Tensor, dtype_mod):
    if not isinstance(t, Tensor):
        return t
    dev = t._dev.type
    if not state.enabled.get(dev):
        return t
    dt = t.dtype
    target = state.dtype[dev]
    if dt is target or dt not in (dtype_mod.float32, dtype_mod.float16, dtype_mod.bfloat16):
        return t
    if state.cache_enabled and t._rg and t._grad_fn is None and t._vbase is None and dt is dtype_mod.float32:
        # torch's cache (cached_cast): keyed by the weight alone, so a nested region of another dtype and an
        # in-place update of the weight inside the region both get the first cast, as in torch
        hit = state.cache.get(id(t))
        if hit is not None and hit[0] is t:
            return hit[1]
        out = t.to(target)
        if not isinstance(out._x, jax.core.Tracer):  # a traced cast must not outlive its trace
            state.cache[id(t)] = (t, out)
        return out
    return t.to(target)


def _fp32_one(t, Tensor, dtype_mod):
    if not isinstance(t, Tensor) or not state.enabled.get(t._dev.type):
        return t
    if t.dtype is dtype_mod.float16 or t.dtype is dtype_mod.bfloat16:
        return t.to(dtype_mod.float32)
    return t


def _cast_all(args, kwargs, one):
    def c(a):
        if isinstance(a, (list, tuple)) and a and any(isinstance(x, Tensor) for x in a):
            return type(a)(one(x, Tensor, _dtype) for x in a)
        return one(a, Tensor, _dtype)
    return tuple(c(a) for a in args), {k: c(v) for k, v in kwargs.items()}


def _run(f, one, args, kwargs):
    if one is not None:
        args, kwargs = _cast_all(args, kwargs, one)
    st = state
    st.on = False
    try:
        return f(*args, **kwargs)
    finally:
        st.on = True


def _policy(one, when=None):
    def deco(f):
        st = state

        @functools.wraps(f)
        def op(*args, **kwargs):
            if st.on:
                return _run(f, one if when is None or when(*args, **kwargs) else None, args, kwargs)
            return f(*args, **kwargs)
        op.__autocast__ = one
        return op
    return deco


def lower_if(when):
    """``@lower`` for the calls where ``when(*args, **kwargs)`` is true (einsum: only when it contracts)."""
    return _policy(_lower_one, when)


def fp32_if(when):
    """``@fp32`` for the calls where ``when(*args, **kwargs)`` is true (pad: reflect/replicate modes)."""
    return _policy(_fp32_one, when)


lower = _policy(_lower_one)
lower.__doc__ = "Autocast policy: run the op in the autocast dtype (torch's lower-precision list)."
fp32 = _policy(_fp32_one)
fp32.__doc__ = "Autocast policy: run the op in float32 (torch's fp32 list)."
keep = _policy(None)
keep.__doc__ = "Autocast policy: run the op as is, without autocasting ops it calls internally."


def _down(out, dtype_mod=_dtype):
    if isinstance(out, (tuple, list)):
        return type(out)(_down(o) for o in out)
    if not isinstance(out, Tensor) or not state.enabled.get(out._dev.type):
        return out
    if out.dtype is dtype_mod.float32 or out.dtype is dtype_mod.float16 or out.dtype is dtype_mod.bfloat16:
        target = state.dtype[out._dev.type]
        return out if out.dtype is target else out.to(target)
    return out


def lower_result(when=None):
    """Autocast policy for ops torch decomposes into a final matmul (cov, pinv, ...): run the op on its
    inputs as given, then cast a float32/float16 result to the autocast dtype (when ``when(*args,
    **kwargs)`` is true, if given)."""
    def deco(f):
        st = state

        @functools.wraps(f)
        def op(*args, **kwargs):
            if st.on:
                out = _run(f, None, args, kwargs)
                return _down(out) if when is None or when(*args, **kwargs) else out
            return f(*args, **kwargs)
        op.__autocast__ = _down
        return op
    return deco


def lower_powers(f):
    """matrix_power's autocast policy, its decomposition's: ``n`` in (0, 1) copies (dtype kept), ``|n| >= 2``
    multiplies in the autocast dtype, and a negative ``n`` inverts first under linalg.inv's policy (float32
    for a float16/bfloat16 input; ``-1`` is the inverse alone)."""
    st = state

    @functools.wraps(f)
    def op(A, n, *args, **kwargs):
        if not st.on or not isinstance(n, int) or isinstance(n, bool):
            return f(A, n, *args, **kwargs)
        if n < 0:
            inv = _run(f, _fp32_one, (A, -1), {})
            return inv if n == -1 else _run(f, _lower_one, (inv, -n) + args, kwargs)
        return _run(f, _lower_one if n >= 2 else None, (A, n) + args, kwargs)
    op.__autocast__ = _lower_one
    return op


# The policies' wrappers sit between a user's call and the op body: their code carries a pass-through file name
# (as the op table's wrappers do), so an op's warning given with ``stacklevel=2`` names the user's line, not
# this file (``F.kl_div(x, y)``'s reduction warning, ``F.mse_loss``'s broadcasting one).
_WRAPPER_FILE = _torch_function.pass_through_file(__file__, "autocast wrapper")


def _pass_through(code):
    return code.replace(co_filename=_WRAPPER_FILE, co_consts=tuple(
        _pass_through(c) if isinstance(c, types.CodeType) else c for c in code.co_consts))


for _f in (_run, _policy, lower_result, lower_powers, lower, fp32, keep):
    _f.__code__ = _pass_through(_f.__code__)
del _f
