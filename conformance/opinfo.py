"""Run one PyTorch OpInfo against torchlike: forward, gradient (VJP), method, in-place, error inputs and
``torchlike.compile`` (the first float32 samples of an op that passes eagerly, compiled vs eager).

Each check runs the same SampleInput through torch (the oracle) and torchlike and compares the results
with ``torch.testing.assert_close`` (values, shapes, dtypes; ``equal_nan=True``).  Every outcome is a
``pass``, a ``fail`` with a short *reason category* (used to aggregate the report) plus a detail
message, or a ``skip`` with a reason; the compile check also has ``break`` (torchlike.compile could not
capture the call in one graph) and ``error`` (the compiled call raised).  Nothing raised by torchlike
escapes a check.
"""
from __future__ import annotations

import collections
import functools
import itertools
import os
import re
import signal
import time
import types
import warnings

import numpy as np
import torch

import torchlike

from .convert import Converter, Unconvertible, clone_torch, flatten, rebind, resolve_name, to_torch

DTYPES = (("float32", torch.float32), ("float64", torch.float64), ("int64", torch.int64), ("bool", torch.bool))
FLOAT_DTYPES = ("float32", "float64")

# Values of these ops are random / uninitialised: compare shapes and dtypes only, never gradients.
RANDOM_OPS = {
    "bernoulli", "cauchy", "exponential", "geometric", "log_normal", "normal", "uniform", "multinomial",
    "randn", "randn_like", "rand_like", "randint", "randint_like", "svd_lowrank", "pca_lowrank",
    "nn.functional.dropout", "nn.functional.dropout2d", "nn.functional.dropout3d",
    "nn.functional.alpha_dropout", "nn.functional.feature_alpha_dropout", "nn.functional.rrelu",
    "nn.functional.fractional_max_pool2d", "nn.functional.fractional_max_pool3d",
    "empty", "empty_like", "new_empty", "new_empty_strided", "empty_strided", "empty_permuted",
}

# Random ops whose eager CPU streams are torch's: both frameworks are seeded identically before each call
# and the values compared (their compiled forms draw from JAX keys: structure only there).
SEEDED_OPS = {
    "bernoulli", "cauchy", "exponential", "geometric", "log_normal", "normal", "uniform", "multinomial",
    "randn", "randn_like", "rand_like", "randint", "randint_like",
    "nn.functional.dropout", "nn.functional.dropout2d", "nn.functional.dropout3d",
    "nn.functional.alpha_dropout", "nn.functional.feature_alpha_dropout", "nn.functional.rrelu",
    "nn.functional.fractional_max_pool2d", "nn.functional.fractional_max_pool3d",
}
RANDOM_OPS -= SEEDED_OPS

# Decompositions whose vectors are unique only up to a sign (real) or a phase (complex): LAPACK builds differ
# (torch's MKL and jaxlib's give other signs for the same matrix), so their values are compared through the
# sample's output_process_fn_grad, the gauge-invariant view torch's own OpInfo defines (eigenvalues and the
# eigenvectors' absolute values), as torch's gradient tests compare them; structure, shapes and dtypes as is
GAUGE_OPS = {"linalg.eig", "linalg.eigh"}


def compare_outputs(op, sample, l_out, t_out, tol, values=True):
    """``compare`` of torchlike's and torch's outputs of ``sample`` (GAUGE_OPS: values through the sample's
    output_process_fn_grad)."""
    proc = sample.output_process_fn_grad
    if op.name not in GAUGE_OPS or proc is None or not values:
        return compare(l_out, t_out, tol, values)
    compare(l_out, t_out, tol, values=False)
    compare(rebind(proc)(l_out) if isinstance(proc, types.FunctionType) else proc(l_out), proc(t_out), tol)


_SEED = 42  # the seed torch's OpInfos set inside their random ops (wrapper_set_seed)


def _seeded(op, f):
    """``f`` that first seeds both frameworks' default generators when ``op``'s stream is torch's."""
    if op.name not in SEEDED_OPS:
        return f

    def call(*a, **k):
        torch.manual_seed(_SEED)
        torchlike.manual_seed(_SEED)
        return f(*a, **k)
    return call


def random_sample(op, s):
    """Samples whose result is random although the op is not (attention with active dropout): values can't
    match torch's RNG, so they are compared on structure only, like the ops in RANDOM_OPS."""
    if op.name == "nn.functional.scaled_dot_product_attention":
        return float(s.kwargs.get("dropout_p", 0.0) or 0.0) > 0
    if op.name == "nn.functional.multi_head_attention_forward":
        p = s.args[9] if len(s.args) > 9 else s.kwargs.get("dropout_p", 0.0)
        return float(p) > 0 and bool(s.kwargs.get("training", True))
    return False


# Gradient tolerances: VJPs accumulate differently in XLA and ATen, so float32 gets some slack.
GRAD_TOL = {"float32": dict(rtol=1e-4, atol=1e-5), "float64": dict(rtol=1e-7, atol=1e-7)}


class OpTimeout(BaseException):
    """Raised by SIGALRM when one OpInfo exceeds its time limit (BaseException: no check swallows it)."""


def op_key(op):
    return op.name + (f".{op.variant_test_name}" if op.variant_test_name else "")


def skip_reason(op):
    """Why an OpInfo is out of scope, or None."""
    n = op.name
    if n.startswith("_refs") or n.startswith("refs."):
        return "python reference (_refs) entry"
    if "jiterator" in n:
        return "jiterator (CUDA-only) op"
    if n.startswith("sparse.") or "sparse" in n:
        return "sparse-specific op"
    if "quantize" in n or n.startswith("quantized"):
        return "quantized-specific op"
    if n in ("rename", "refine_names", "align_to", "align_as"):
        return "named-tensor op"
    if isinstance(op.op, torch._ops.OpOverload) or n.startswith("torch.ops.") or n.startswith("ops."):
        return "aten-internal overload (torch.ops.aten.*), not public API"
    try:
        sup = op.supported_dtypes("cpu")
    except Exception:  # noqa: BLE001
        sup = set()
    if not sup:
        return "no CPU dtypes"
    if not any(d in sup for _, d in DTYPES):
        return "supports none of float32/float64/int64/bool on CPU"
    return None


# --- resolving torchlike's version of an op -------------------------------------------------------
_NS_OF_MODULE = {"torch._C._linalg": "linalg", "torch._C._special": "special", "torch._C._fft": "fft",
                 "torch._C._nn": "nn.functional", "torch.nn.functional": "nn.functional"}


def _tensor_method(name):
    f = getattr(torchlike.Tensor, name, None)
    return f if callable(f) else None


def resolve(op):
    """(callable, description) for torchlike's functional form of ``op``; callable None when missing."""
    f = op.op
    if isinstance(f, types.FunctionType) and (f.__module__ or "").startswith("torch.testing._internal"):
        # a lambda/helper written against torch: run the very same code with torch -> torchlike
        return rebind(f), f"{op.name} (OpInfo lambda on torchlike)"
    n = op.name
    if n.startswith("__") and n.endswith("__"):
        m = _tensor_method(n)
        return m, f"Tensor.{n}"
    r = resolve_name(n)
    if callable(r):
        return r, f"torchlike.{n}"
    # torch.Tensor-only ops (e.g. op.op is torch.Tensor.X)
    objcls = getattr(f, "__objclass__", None)
    if objcls is not None and issubclass(objcls, torch._C.TensorBase):
        m = _tensor_method(f.__name__)
        return m, f"Tensor.{f.__name__}"
    fname = getattr(f, "__name__", None)
    ns = _NS_OF_MODULE.get(getattr(f, "__module__", None) or "")
    if fname and ns:
        short = fname[len(ns) + 1:] if fname.startswith(ns.split(".")[0] + "_") else fname
        r = resolve_name(f"{ns}.{short}")
        if callable(r):
            return r, f"torchlike.{ns}.{short}"
    if getattr(f, "__module__", None) == "torch._ops.aten":  # an aten-only op: torchlike.ops.aten resolves it
        aname = f._qualified_op_name.split("::", 1)[1]
        r = getattr(torchlike.ops.aten, aname, None)
        if callable(r):
            return r, f"torchlike.ops.aten.{aname}"
    if fname and fname != n and f is getattr(torch, fname, None):  # e.g. _segment_reduce -> segment_reduce
        r = resolve_name(fname)
        if callable(r):
            return r, f"torchlike.{fname}"
    return None, f"torchlike.{n}"


def resolve_variant(v):
    """torchlike's version of a method/in-place variant (a torch.Tensor method or an OpInfo lambda)."""
    if v is None:
        return None, None
    if isinstance(v, types.FunctionType) and (v.__module__ or "").startswith("torch.testing._internal"):
        return rebind(v), "lambda"
    func = getattr(v, "func", None)
    ns = _NS_OF_MODULE.get(getattr(func, "__module__", None) or "")
    if isinstance(v, functools.partial) and ns and getattr(func, "__name__", None):
        # e.g. partial(F.mish, inplace=True): torchlike's function with the same bound arguments
        r = resolve_name(f"{ns}.{func.__name__}")
        desc = f"torchlike.{ns}.{func.__name__}({', '.join(f'{k}={x!r}' for k, x in v.keywords.items())})"
        return (functools.partial(r, *v.args, **v.keywords) if callable(r) else None), desc
    name = getattr(v, "__name__", None) or getattr(func, "__name__", None)
    return (_tensor_method(name) if name else None), f"Tensor.{name or repr(v)[:40]}"


def tolerances(op, dtype):
    """The largest CPU tolerance override the OpInfo declares for ``dtype`` (or {} = assert_close defaults)."""
    from torch.testing._internal.common_device_type import toleranceOverride
    atol = rtol = None
    for d in op.decorators:
        decs = getattr(d, "decorators", [d])
        if getattr(d, "device_type", None) not in (None, "cpu"):
            continue
        for dec in decs:
            if isinstance(dec, toleranceOverride) and dtype in dec.d:
                t = dec.d[dtype]
                atol = max(atol or 0, t.atol)
                rtol = max(rtol or 0, t.rtol)
    if atol is None:
        return {}
    default_rtol, default_atol = {torch.float32: (1.3e-6, 1e-5), torch.float64: (1e-7, 1e-7)}.get(dtype, (0, 0))
    return dict(rtol=max(rtol, default_rtol), atol=max(atol, default_atol))


# --- comparing ----------------------------------------------------------------------------------
class Mismatch(Exception):
    def __init__(self, category, detail):
        super().__init__(detail)
        self.category = category
        self.detail = detail


def _short(msg, n=160):
    msg = " ".join(str(msg).split())
    return msg if len(msg) <= n else msg[:n] + "..."


def _assert_close_category(msg):
    if "dtype" in msg:
        return "dtype mismatch"
    if "shape" in msg:
        return "shape mismatch"
    if "type" in msg or "length" in msg or "Sequence" in msg or "Mapping" in msg:
        return "output type/structure mismatch"
    return "value mismatch"


def _fields(x):
    if not isinstance(x, tuple):
        return None
    return getattr(x, "_fields", None) or getattr(x, "__match_args__", None)


def compare(actual_tl, expected, tol, values=True):
    """Raise Mismatch unless torchlike's output equals torch's (values only when ``values``)."""
    ef, af = _fields(expected), _fields(actual_tl)
    if ef and tuple(ef) != tuple(af or ()):
        raise Mismatch("output type/structure mismatch", f"named tuple fields {af} != {tuple(ef)}")
    try:
        actual = to_torch(actual_tl)
    except Exception as e:  # noqa: BLE001
        raise Mismatch("output conversion failed", f"{type(e).__name__}: {_short(e)}") from None
    _compare(actual, expected, tol, values)


def _compare(actual, expected, tol, values):
    if expected is NotImplemented or actual is NotImplemented:  # (Tensor.__rsub__(5.1, t): an operator's answer)
        if actual is not expected:
            raise Mismatch("output type/structure mismatch", f"{actual!r} vs {expected!r}")
        return
    if isinstance(expected, torch.dtype) or isinstance(actual, torch.dtype):
        if actual != expected:
            raise Mismatch("value mismatch", f"{actual} != {expected}")
        return
    if isinstance(expected, torch.Tensor) and expected.layout != torch.strided:
        raise Mismatch("output type/structure mismatch", "torch returned a non-strided tensor")
    if isinstance(expected, (tuple, list)) and isinstance(actual, (tuple, list)):
        if len(actual) != len(expected):
            raise Mismatch("output type/structure mismatch", f"length {len(actual)} != {len(expected)}")
        for a, e in zip(actual, expected):
            _compare(a, e, tol, values)
        return
    if not values:
        if isinstance(expected, torch.Tensor):
            if not isinstance(actual, torch.Tensor):
                raise Mismatch("output type/structure mismatch", f"{type(actual).__name__} vs Tensor")
            if actual.shape != expected.shape:
                raise Mismatch("shape mismatch", f"{tuple(actual.shape)} != {tuple(expected.shape)}")
            if actual.dtype != expected.dtype:
                raise Mismatch("dtype mismatch", f"{actual.dtype} != {expected.dtype}")
            return
        if type(actual) is not type(expected):
            raise Mismatch("output type/structure mismatch", f"{type(actual).__name__} vs "
                                                             f"{type(expected).__name__}")
        return
    if isinstance(expected, torch.Tensor) and isinstance(actual, torch.Tensor):
        if actual.shape != expected.shape:
            raise Mismatch("shape mismatch", f"{tuple(actual.shape)} != {tuple(expected.shape)}")
        if actual.dtype != expected.dtype:
            raise Mismatch("dtype mismatch", f"{actual.dtype} != {expected.dtype}")
        expected = expected.detach()
    try:
        torch.testing.assert_close(actual, expected, equal_nan=True, check_device=False, check_layout=False,
                                   check_stride=False, **tol)
    except AssertionError as e:
        msg = str(e)
        cat = _assert_close_category(msg)
        if cat == "value mismatch" and _close_loosely(actual, expected, tol):
            cat = "small numerical difference (within 10x tolerance)"
        raise Mismatch(cat, _short(msg, 300)) from None
    except Exception as e:  # noqa: BLE001
        raise Mismatch("output type/structure mismatch", f"{type(e).__name__}: {_short(e)}") from None


def _close_loosely(actual, expected, tol):
    """True when the mismatch disappears at 10x the tolerance (numerics, not a wrong formula)."""
    if not (isinstance(expected, torch.Tensor) and (expected.is_floating_point() or expected.is_complex())):
        return False
    rtol = tol.get("rtol") or {torch.float64: 1e-7, torch.float32: 1.3e-6}.get(expected.dtype, 1e-3)
    atol = tol.get("atol") or {torch.float64: 1e-7, torch.float32: 1e-5}.get(expected.dtype, 1e-5)
    try:
        torch.testing.assert_close(actual, expected, rtol=10 * rtol, atol=10 * atol, equal_nan=True,
                                   check_device=False, check_layout=False, check_stride=False)
        return True
    except Exception:  # noqa: BLE001
        return False


# --- running --------------------------------------------------------------------------------------
class Outcome:
    __slots__ = ("status", "category", "detail")

    def __init__(self, status, category="", detail=""):
        self.status, self.category, self.detail = status, category, detail


PASS = Outcome("pass")


def _fail(category, detail=""):
    return Outcome("fail", category, detail)


def _skip(reason):
    return Outcome("skip", reason)


_MISSING_ATTR = re.compile(r"(?:module '([\w.]+)'|'(\w+)' object|type object '(\w+)') has no attribute '(\w+)'")


def missing_attr(msg):
    """'torchlike.nn.functional.dropout' for "module 'torchlike.nn.functional' has no attribute 'dropout'"."""
    m = _MISSING_ATTR.search(msg)
    if not m or not (m.group(1) or "").startswith("torchlike") and m.group(2) not in ("Tensor",) and \
            m.group(3) not in ("Tensor",):
        return None
    owner = m.group(1) or "Tensor"
    return f"{owner}.{m.group(4)}"


def _exc_category(e, where="torchlike raised"):
    msg = str(e)
    if isinstance(e, AttributeError) and missing_attr(msg):
        return f"missing attribute {missing_attr(msg)}"
    if isinstance(e, TypeError) and ("unexpected keyword" in msg or "positional argument" in msg
                                     or "required positional" in msg or "takes" in msg and "argument" in msg):
        return "unsupported argument (TypeError)"
    if isinstance(e, NotImplementedError):
        return "NotImplementedError"
    return f"{where} {type(e).__name__}"


def _call(fn, a, args, kwargs):
    try:
        return True, fn(a, *args, **kwargs)
    except OpTimeout:
        raise
    except Exception as e:  # noqa: BLE001
        return False, e


def _exceptions_agree(t_exc, l_exc):
    """torch raised ``t_exc``: pass when torchlike raised the same type (isinstance, as assertRaises)."""
    if l_exc is None:
        return _fail("no exception (torch raised)", f"torch raised {type(t_exc).__name__}: {_short(t_exc)}")
    if isinstance(l_exc, type(t_exc)):
        return PASS
    return _fail("exception type differs",
                 f"torch {type(t_exc).__name__}: {_short(t_exc, 80)} / torchlike {type(l_exc).__name__}: "
                 f"{_short(l_exc, 80)}")


def _torch_args(sample, grad, memo):
    x = clone_torch((sample.input, sample.args, sample.kwargs), memo)
    if not grad:
        x = _strip_grad(x)
    return x


def _strip_grad(x):
    if isinstance(x, torch.Tensor):
        return x.detach()
    if isinstance(x, tuple) and hasattr(x, "_fields"):
        return type(x)(*(_strip_grad(v) for v in x))
    if isinstance(x, (tuple, list)):
        return type(x)(_strip_grad(v) for v in x)
    if isinstance(x, dict):
        return {k: _strip_grad(v) for k, v in x.items()}
    return x


def _tl_args(sample, grad, views=False):
    conv = Converter(grad=grad, views=views)
    return conv, conv((sample.input, tuple(sample.args), dict(sample.kwargs)))


def check_forward_and_grad(op, fn, sample, dtype_name, tol, values, want_grad, seed, keep=None):
    """(forward Outcome, grad Outcome or None) for one sample through the functional form.

    ``keep``: a list; when the forward passes and torch did not raise, torchlike's output is appended
    (the compile check compares the compiled call against it)."""
    try:
        conv, (li, la, lk) = _tl_args(sample, want_grad)
    except Unconvertible as e:
        s = _skip(f"sample not convertible: {e}")
        return s, (s if want_grad else None)
    memo = {}
    ti, ta, tk = _torch_args(sample, want_grad, memo)
    t_ok, t_out = _call(_seeded(op, op.op), ti, ta, tk)
    l_ok, l_out = _call(_seeded(op, fn), li, la, lk)
    if not t_ok:
        fwd = _exceptions_agree(t_out, None if l_ok else l_out)
        return fwd, (_skip("torch raised on this sample") if want_grad else None)
    if not l_ok:
        fwd = _fail(_exc_category(l_out), f"{type(l_out).__name__}: {_short(l_out)}")
        return fwd, (_fail("forward failed") if want_grad else None)
    try:
        compare_outputs(op, sample, l_out, t_out, tol, values)
        fwd = PASS
        if keep is not None:
            keep.append(l_out)
    except Mismatch as m:
        fwd = _fail(m.category, m.detail)
    if not want_grad:
        return fwd, None
    return fwd, _check_grad(sample, conv, memo, t_out, l_out, dtype_name, seed)


def _check_grad(sample, conv, memo, t_out, l_out, dtype_name, seed):
    t_leaves = [memo[id(o)] for o, _ in conv.leaves if id(o) in memo]
    l_leaves = [lt for _, lt in conv.leaves]
    if not t_leaves:
        return _skip("no input requires grad")
    proc = sample.output_process_fn_grad
    try:
        t_p = proc(t_out)
    except Exception as e:  # noqa: BLE001
        return _skip(f"output_process_fn_grad failed on torch: {type(e).__name__}")
    try:
        l_p = rebind(proc)(l_out) if isinstance(proc, types.FunctionType) else proc(l_out)
    except OpTimeout:
        raise
    except Exception as e:  # noqa: BLE001
        return _fail(_exc_category(e, "grad: output_process_fn_grad raised"), _short(e))
    t_flat, l_flat = flatten(t_p), flatten(l_p)
    if len(t_flat) != len(l_flat):
        return _fail("grad: output structure differs", f"{len(l_flat)} vs {len(t_flat)} outputs")
    rng = np.random.default_rng(seed)
    t_outs, t_cots, pos = [], [], []
    for j, a in enumerate(t_flat):
        if not (isinstance(a, torch.Tensor) and a.requires_grad and (a.is_floating_point() or a.is_complex())):
            continue
        c = rng.standard_normal(tuple(a.shape))
        if a.is_complex():
            c = c + 1j * rng.standard_normal(tuple(a.shape))
        t_outs.append(a)
        t_cots.append(torch.from_numpy(np.asarray(c)).to(a.dtype))
        pos.append(j)
    if not t_outs:
        return _skip("no differentiable output")
    try:  # torch first: if torch cannot differentiate this sample there is nothing to compare
        t_g = torch.autograd.grad(t_outs, t_leaves, t_cots, allow_unused=True)
    except Exception as e:  # noqa: BLE001
        return _skip(f"torch backward raised {type(e).__name__}")
    l_outs = [l_flat[j] for j in pos]
    for b in l_outs:
        if not isinstance(b, torchlike.Tensor) or not b.requires_grad:
            return _fail("grad: torchlike output not differentiable", f"output {type(b).__name__}")
    l_cots = [conv(c) for c in t_cots]
    try:
        l_g = torchlike.autograd.grad(l_outs, l_leaves, l_cots, allow_unused=True)
    except OpTimeout:
        raise
    except Exception as e:  # noqa: BLE001
        return _fail(_exc_category(e, "grad: torchlike backward raised"), f"{type(e).__name__}: {_short(e)}")
    tol = GRAD_TOL[dtype_name]
    for tg, lg, leaf in zip(t_g, l_g, t_leaves):
        if tg is None and lg is None:
            continue
        if tg is None:
            tg = torch.zeros_like(leaf)
        if lg is None:
            lg = torchlike.zeros(tuple(leaf.shape), dtype=conv(leaf.dtype))
        try:
            compare(lg, tg, tol)
        except Mismatch as m:
            return _fail("grad " + m.category, m.detail)
    return PASS


def check_variant(op, vfn, sample, tol, values, inplace):
    """Method or in-place variant on a grad-free copy of the sample."""
    try:
        _, (li, la, lk) = _tl_args(sample, False)
    except Unconvertible as e:
        return _skip(f"sample not convertible: {e}")
    ti, ta, tk = _torch_args(sample, False, {})
    tv = op.inplace_variant if inplace else op.method_variant
    t_ok, t_out = _call(_seeded(op, tv), ti, ta, tk)
    l_ok, l_out = _call(_seeded(op, vfn), li, la, lk)
    if not t_ok:
        return _exceptions_agree(t_out, None if l_ok else l_out)
    if not l_ok:
        return _fail(_exc_category(l_out), f"{type(l_out).__name__}: {_short(l_out)}")
    if inplace and t_out is ti and l_out is not li:
        return _fail("in-place variant did not return self", type(l_out).__name__)
    try:
        compare_outputs(op, sample, l_out, t_out, tol, values)
        if inplace:  # the mutated input itself
            compare(li, ti, tol, values)
    except Mismatch as m:
        return _fail(m.category, m.detail)
    return PASS


def check_error_input(fn, ei):
    """(type_match, regex_match, skip_reason) for one ErrorInput through torchlike's functional form."""
    s = ei.sample_input
    try:
        _, (li, la, lk) = _tl_args(s, False, views=True)  # (out= aliasing an input: torch's overlap errors)
    except Unconvertible as e:
        return None, None, f"error input not convertible: {e}"
    ok, res = _call(fn, li, la, lk)
    if ok:
        return False, False, None
    tm = isinstance(res, ei.error_type)
    try:
        rm = bool(re.search(ei.error_regex, str(res))) if ei.error_regex else True
    except re.error:
        rm = ei.error_regex in str(res)
    return tm, rm, None


# --- torchlike.compile ---------------------------------------------------------------------------
_TL_DIR = os.path.dirname(os.path.abspath(torchlike.__file__)) + os.sep
_COMPILE_DIR = os.path.join(_TL_DIR, "compile") + os.sep


def _torchlike_frame(tb):
    """'_ops/indexing.py:667 (nonzero)': the innermost frame of torchlike proper (not its compiler);
    when that is a Tensor method (``item``...), its caller too: 'tensor.py:482 (item) <- _ops/x.py:9 (f)'."""
    import traceback
    frames = []
    for fr in traceback.extract_tb(tb):
        f = os.path.abspath(fr.filename)
        if f.startswith(_TL_DIR) and not f.startswith(_COMPILE_DIR):
            frames.append(f"{f[len(_TL_DIR):]}:{fr.lineno} ({fr.name})")
    if not frames:
        return None
    if frames[-1].startswith("tensor.py") and len(frames) > 1:
        return f"{frames[-1]} <- {frames[-2]}"
    return frames[-1]


def _break_outcome(e):
    """A ``break`` Outcome for torchlike.compile's Unsupported: category = cause type + torchlike frame."""
    cause = e.__cause__ or e
    where = _torchlike_frame(cause.__traceback__)
    first = (str(cause).strip().splitlines() or [""])[0]
    if "compiled function returned a" in first:  # raised by the compiler itself: the message is the reason
        return Outcome("break", _short(first, 80), first)
    cat = f"{type(cause).__name__} at {where}" if where else f"{type(cause).__name__}: {_short(first, 80)}"
    return Outcome("break", cat, f"{type(cause).__name__}: {_short(first, 200)}")


def _compare_compiled(c_out, e_out, tol, values):
    """Raise Mismatch unless the compiled output equals the eager torchlike output (same structure; the
    eager output may come from inputs that required grad, so requires_grad is not compared)."""
    if type(c_out) is not type(e_out):
        raise Mismatch("output type/structure mismatch", f"compiled {type(c_out).__name__} vs eager "
                                                         f"{type(e_out).__name__}")
    compare(c_out, to_torch(e_out), tol, values)


def check_compile(fn, sample, eager_out, tol, values):
    """The sample through ``torchlike.compile`` (a fresh compiled function, tensors as its arguments,
    everything else a static guard, fullgraph=True so a break is reported instead of run eagerly);
    the result must equal torchlike's eager output ``eager_out`` within the op's float32 tolerance."""
    try:
        _, (li, la, lk) = _tl_args(sample, False)
    except Unconvertible as e:
        return _skip(f"sample not convertible: {e}")
    cf = torchlike.compile(lambda *a, **k: fn(*a, **k), fullgraph=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            c_out = cf(li, *la, **lk)
        except OpTimeout:
            raise
        except torchlike.compile.Unsupported as e:
            return _break_outcome(e)
        except Exception as e:  # noqa: BLE001
            where = _torchlike_frame(e.__traceback__)
            return Outcome("error", _exc_category(e, "compiled call raised"),
                           f"{type(e).__name__}: {_short(e)}" + (f" [at {where}]" if where else ""))
    if cf.breaks or cf.compile_count != 1:  # fullgraph=True: never expected, but never count it as compiled
        return Outcome("break", "ran eagerly", "; ".join(cf.breaks) or f"compile_count={cf.compile_count}")
    try:
        _compare_compiled(c_out, eager_out, tol, values)
    except Mismatch as m:
        return _fail("compiled " + m.category, m.detail)
    return PASS


# --- one OpInfo ----------------------------------------------------------------------------------
class Tally:
    """Counts for one (check, dtype): pass / fail / skip plus reasons."""

    # worst first: the status of a check is the worst status of its samples
    ORDER = ("fail", "error", "break", "pass", "skip")

    def __init__(self):
        self.n = collections.Counter()
        self.reasons = collections.defaultdict(collections.Counter)  # status -> category -> samples
        self.example = None

    @property
    def fail_reasons(self):
        return self.reasons["fail"]

    @property
    def skip_reasons(self):
        return self.reasons["skip"]

    def add(self, o: Outcome):
        self.n[o.status] += 1
        if o.status != "pass":
            self.reasons[o.status][o.category] += 1
        if o.status in ("fail", "error", "break") and self.example is None:
            self.example = f"{o.category}: {o.detail}" if o.detail else o.category

    def status(self):
        for st in self.ORDER[:3]:
            if self.n[st]:
                return st
        return "pass" if self.n["pass"] else "skip"

    def to_json(self):
        out = {"pass": self.n["pass"], "fail": self.n["fail"], "skip": self.n["skip"], "status": self.status(),
               "fail_reasons": dict(self.fail_reasons), "skip_reasons": dict(self.skip_reasons),
               "example": self.example}
        for st in ("error", "break"):  # compile check only: absent elsewhere, keeping report.json small
            if self.n[st]:
                out[st] = self.n[st]
                out[f"{st}_reasons"] = dict(self.reasons[st])
        return out


def _on_alarm(signum, frame):
    raise OpTimeout()


def run_op(op, *, max_samples=8, max_samples_other=4, time_limit=20.0, max_compile_samples=2,
           checks=("forward", "grad", "method", "inplace", "errors", "compile")):
    """Run every check for one OpInfo; returns a JSON-able dict (never raises).

    The compile check runs last (so a slow compile can only time out itself), on the first
    ``max_compile_samples`` float32 samples, and only when every float32 forward sample passed."""
    key = op_key(op)
    res = {"key": key, "name": op.name, "variant": op.variant_test_name, "skip": None, "resolved": None,
           "missing": False, "checks": {}, "errors": None, "time": 0.0, "timeout": False}
    t0, c0 = time.perf_counter(), time.process_time()
    reason = skip_reason(op)
    if reason:
        res["skip"] = reason
        return res
    fn, desc = resolve(op)
    res["resolved"] = desc
    if fn is None:
        res["missing"] = True
    mfn, mdesc = resolve_variant(op.method_variant)
    ifn, idesc = resolve_variant(op.inplace_variant)
    res["method"] = None if op.method_variant is None else (mdesc if mfn else f"missing {mdesc}")
    res["inplace"] = None if op.inplace_variant is None else (idesc if ifn else f"missing {idesc}")
    tallies = collections.defaultdict(Tally)
    values = op.name not in RANDOM_OPS
    # time_limit is CPU seconds (fair on a loaded machine); wall clock gets 10x as a safety net for hangs
    old = (signal.signal(signal.SIGALRM, _on_alarm), signal.signal(signal.SIGPROF, _on_alarm)) \
        if time_limit else None
    if time_limit:
        signal.setitimer(signal.ITIMER_PROF, time_limit)
        signal.setitimer(signal.ITIMER_REAL, 10 * time_limit)
    sup = op.supported_dtypes("cpu")
    res["dtypes"] = [d for d, dt in DTYPES if dt in sup]
    res["done_dtypes"] = []
    want_compile = "compile" in checks and "forward" in checks and fn is not None and max_compile_samples > 0
    compile_todo = []  # (sample, eager torchlike output) of passing float32 samples
    try:
        for dname, dt in DTYPES:
            if dt not in sup:
                continue
            want_grad = (dname in FLOAT_DTYPES and op.supports_autograd and values and "grad" in checks
                         and fn is not None)
            tol = tolerances(op, dt)
            limit = max_samples if dname == "float32" else max_samples_other
            try:
                samples = list(itertools.islice(op.sample_inputs("cpu", dt, requires_grad=want_grad), limit))
            except OpTimeout:
                raise
            except Exception as e:  # noqa: BLE001
                tallies[("forward", dname)].add(_skip(f"sample_inputs raised {type(e).__name__}"))
                continue
            for i, s in enumerate(samples):
                svalues = values and not random_sample(op, s)
                if "forward" in checks and fn is not None:
                    keep = [] if want_compile and dname == "float32" and i < max_compile_samples else None
                    f, g = check_forward_and_grad(op, fn, s, dname, tol, svalues, want_grad and svalues, seed=i,
                                                  keep=keep)
                    tallies[("forward", dname)].add(f)
                    if keep:
                        compile_todo.append((s, keep[0]))
                    if g is not None:
                        tallies[("grad", dname)].add(g)
                if "method" in checks and mfn is not None:
                    tallies[("method", dname)].add(check_variant(op, mfn, s, tol, svalues, False))
                if "inplace" in checks and ifn is not None:
                    # as torch's test_variant_consistency_eager: in-place cannot broadcast its input
                    tallies[("inplace", dname)].add(
                        _skip("sample broadcasts input") if s.broadcasts_input else
                        check_variant(op, ifn, s, tol, svalues, True))
            res["done_dtypes"].append(dname)
        if "errors" in checks and fn is not None:
            errs = {"total": 0, "type_match": 0, "regex_match": 0, "skipped": 0, "examples": []}
            res["errors"] = errs
            try:
                error_inputs = list(op.error_inputs("cpu")) if op.error_inputs_func is not None else []
            except OpTimeout:
                raise
            except Exception as e:  # noqa: BLE001
                error_inputs = []
                errs["skip_reason"] = f"error_inputs raised {type(e).__name__}"
            for ei in error_inputs:
                tm, rm, why = check_error_input(fn, ei)
                if why:
                    errs["skipped"] += 1
                    continue
                errs["total"] += 1
                errs["type_match"] += bool(tm)
                errs["regex_match"] += bool(rm)
                if not tm and len(errs["examples"]) < 2:
                    errs["examples"].append(f"expected {ei.error_type.__name__}: {ei.error_regex!r}")
        f32 = tallies.get(("forward", "float32"))
        if want_compile and f32 is not None and f32.status() == "pass":
            tol, cc0 = tolerances(op, torch.float32), time.process_time()
            res["compile_cpu"] = 0.0  # seconds of this op's CPU time spent on the compile check
            for s, eager_out in compile_todo:
                tallies[("compile", "float32")].add(check_compile(fn, s, eager_out, tol,
                                                                  values and not random_sample(op, s)
                                                                  and op.name not in SEEDED_OPS))
                res["compile_cpu"] = round(time.process_time() - cc0, 2)
            if not compile_todo:
                tallies[("compile", "float32")].add(_skip("no float32 sample with a torch result"))
            res["compile_done"] = True
    except OpTimeout:
        res["timeout"] = True
    except Exception as e:  # noqa: BLE001  (harness bug or sample generation crash: record, go on)
        res["crash"] = f"{type(e).__name__}: {_short(e)}"
    finally:
        if time_limit:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.setitimer(signal.ITIMER_PROF, 0)
            signal.signal(signal.SIGALRM, old[0])
            signal.signal(signal.SIGPROF, old[1])
    res["checks"] = {f"{c}:{d}": t.to_json() for (c, d), t in tallies.items()}
    res["time"] = round(time.perf_counter() - t0, 2)
    res["cpu"] = round(time.process_time() - c0, 2)  # CPU seconds: comparable across loaded machines
    return res
