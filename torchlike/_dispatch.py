"""The eager dispatcher: run an op's JAX function (one cached ``jax.jit`` per function + static
arguments), wrap the results as Tensors, and record a tape node when gradients are needed."""
from __future__ import annotations


import traceback
from weakref import ref as _weakref

import jax
import numpy as np
from jax._src.interpreters.partial_eval import DynamicJaxprTracer as _JaxprTracer

from . import _errors, _grad_mode, _jit_cache, _row_buckets, _shape_churn, _trace_hooks, _views  # noqa: F401 (_row_buckets: its hook)
from ._device import CPU, OFF_CPU, commit_to, off_cpu
from . import _profiler_state as _prof
from ._tape import _NODE_CLASSES, ANOMALY, FORWARD_AD, SAVED_HOOKS, AccumulateGrad, NoGradViewSink, node_class, pack_saved
from .tensor import _ALIAS_CHAIN, _PLAIN_VALUE, Tensor

try:  # JAX transforms (jax.vmap/grad around torchlike code) keep the device path
    from jax._src.core import EvalTrace as _EvalTrace, trace_state_strong_ref as _trace_ref
except ImportError:  # pragma: no cover - an internal API moved: no host fast path
    _EvalTrace = _trace_ref = None
try:  # numpy's "ignore every floating-point error" state, made once: ``np.errstate`` rebuilds it per call
    # (measured: ~3 us of a 4x4 ``a + b``'s ~10); torch gives no overflow/invalid warnings
    from numpy._core._ufunc_config import _extobj_contextvar as ERR_VAR, _make_extobj
    QUIET = _make_extobj(all="ignore")
except ImportError:  # pragma: no cover - a numpy without them: no host fast path (_host_ops uses np.errstate)
    ERR_VAR = QUIET = None

__all__ = ["dispatch", "forward_fn", "HOST_SCALAR_OPS", "record_checks", "OTHERS", "host_int_sum", "not_implemented_node",
           "host_pointwise", "host_operand", "host_number", "HOST_DTYPES"]

# f -> handler(args, statics) computing the op on the host when an argument is a lazy 0-d view whose value
# is cheap to read there (``i + 8`` for each ``i`` of a small int tensor): returns a Tensor, or None to
# dispatch as usual.  Consulted only when some argument is a lazy view (``_seen < -1``).
HOST_SCALAR_OPS: dict = {}

_fwd_cache = _jit_cache.Cache("forward")  # (f, statics) -> Entry; bounded, see _jit_cache
_NO_EDGE = (None, 0)
_ONE_OUT = (0,)
_Pending = _views.Pending
_state = _grad_mode._state
# check(f, statics, args, arrays, diff_in, diff_out, name, saves, saved) -> the saved tensors to guard, or None
# to record nothing: run before a node is made (_inference.py appends torch's rules for inference tensors the
# first time inference mode is entered; empty until then)
record_checks = []
# ``saves=OTHERS``: an op linear in each tensor argument (mul, mm, einsum, ...), whose torch formula saves an input
# only when another input requires grad (``c * k[:2]`` with a constant ``c`` saves nothing of ``k``: an in-place
# write to ``k`` afterwards is no error)
OTHERS = "others"


def forward_fn(f, statics, jit=True):
    """The cached forward function for ``f`` with static kwargs ``statics`` (a callable Entry)."""
    e = _fwd_cache.get((f, statics))
    return e if e is not None else _new_forward(f, statics, jit)


def _new_forward(f, statics, jit):
    kw = dict(statics)
    raw = (lambda *a: f(*a, **kw)) if kw else f
    if jit:  # quick-compiled for a shape's first call, fully optimized when the shape repeats (_jit_cache)
        return _fwd_cache.add_tiered((f, statics), raw)
    return _fwd_cache.add((f, statics), raw, False)


def _diff_dtype(np_dtype):
    return np_dtype.kind in "fcV"  # V: bfloat16 and friends from ml_dtypes


_NOT_IMPLEMENTED: dict = {}


def _not_implemented(op):
    """The function recorded on torch's NotImplemented node for ATen ``op`` (ops without a derivative formula
    that still record history when an input requires grad); the node's backward raises (_tape)."""
    fn = _NOT_IMPLEMENTED.get(op)
    if fn is None:
        def fn(*arrays, **statics):  # (forward AD: torch has no formula either)
            raise RuntimeError(f"derivative for aten::{op} is not implemented")
        fn.aten_op = op
        fn = _NOT_IMPLEMENTED[op] = fn
    return fn


def _pass_outputs(*arrays, n):
    return tuple(arrays[n:])


def not_implemented_node(op, inputs, outs):
    """``outs`` (tensors already computed from ``inputs``) as the outputs of one NotImplemented node for
    ATen ``op`` when an input requires grad, as torch records them (histogram's hist and bin_edges)."""
    inputs = [a for a in inputs if isinstance(a, Tensor)]
    if not _state.enabled or not any(a._rg or a._grad_fn is not None for a in inputs):
        return outs
    return dispatch(_pass_outputs, (*inputs, *(o._value for o in outs)), (("n", len(inputs)),), diff=op)


# ops whose torch kernel checks each tensor argument's device by name (torch's generated
# check_and_update_common_device; seen on a GPU against torch 2.11): grad_fn name -> (ATen op, argument names)
_DEVICE_CHECKED = {"MmBackward0": ("mm", ("self", "mat2")), "AddmmBackward0": ("addmm", ("self", "mat1", "mat2")),
                   "CatBackward0": ("cat", None)}


def _mixed_devices(devs, name=None, args=(), f=None):
    a, b = devs[0], devs[1]
    if "meta" in (a.type, b.type):  # (torch's meta kernels check each tensor against the first one's device)
        raise RuntimeError(f"Tensor on device {b} is not on the expected device {a}!")
    named = _DEVICE_CHECKED.get(name.partition(":")[0] if name else name)
    if named is not None:
        op, names = named
        tensors = [x for x in args if isinstance(x, Tensor)]
        if getattr(f, "__name__", "") == "_linear":  # linear(input, weight, bias) is addmm(bias, input, weight.t())
            tensors = tensors[2:] + tensors[:2]
            names = names[-len(tensors):]
        a = tensors[0]._dev
        i = next((k for k, x in enumerate(tensors) if x._dev != a), None)
        b = tensors[i]._dev if i is not None else b
        arg = "tensors" if names is None else names[i] if i is not None and i < len(names) else None
        if arg is not None:
            key = "CUDA" if "cuda" in (a.type, b.type) else a.type.upper()
            raise RuntimeError(f"Expected all tensors to be on the same device, but got {arg} is on {b}, different "
                               f"from other tensors on {a} (when checking argument in method wrapper_{key}_{op})")
    raise RuntimeError(f"Expected all tensors to be on the same device, but found at least two devices, "
                       f"{a} and {b}!")


def _common_device(args, name, f):
    """The device of an op whose tensors are on more than one device, as torch's TensorIterator decides: 0-d
    CPU tensors (CPU scalars) go with any device; every other tensor must be on the first one's device."""
    common = None
    for a in args:
        if isinstance(a, Tensor):
            d = a._dev
            if not a.ndim and d.type == "cpu":
                continue
            if common is None:
                common = d
            elif d != common:
                _mixed_devices((common, d), name, args, f)
    return common or CPU


def _keep_on_cpu(arrays):
    """A CPU op's inputs committed to JAX's CPU device, where JAX's default device is an accelerator: host
    (numpy) and uncommitted inputs would otherwise run the op on the GPU, and leave a 'cpu' tensor's array
    there (GPU memory, a kernel launch per small op, the copy back at every read)."""
    arrays[:] = commit_to(arrays, CPU.jax_device(), moving=("host", "uncommitted"))


def _move_cpu_scalars(args, arrays, dev):
    """CPU scalars of an op on another device, their arrays put there (JAX refuses arrays committed to two
    devices in one program)."""
    k = 0
    for a in args:
        if isinstance(a, Tensor) and a._dev.type == "cpu" and not a.ndim and arrays[k] is not None:
            arrays[k] = jax.device_put(arrays[k], dev.jax_device())
        k += 1


def dispatch(f, args, statics=(), *, name="Op", diff=True, jit=True, saves=True):
    """Apply ``f(*arrays, **dict(statics))`` to Tensors/scalars in ``args``; returns Tensor(s).

    ``diff=False`` marks the op non-differentiable; ``diff="bincount"`` one torch records but cannot
    differentiate (``grad_fn=<NotImplemented>``, whose backward raises); ``saves=False`` marks an op whose gradient does
    not need its inputs' values (linear ops), so later in-place writes to them are not errors;
    ``saves="out"`` one whose torch formula reads its result instead of its inputs, ``saves=OTHERS`` one linear in
    each tensor argument (an input is saved only for another input's gradient), and a tuple ``saves[i]`` the
    argument positions whose gradient formula reads argument ``i`` (``div``: ``((1,), (0, 1))``).
    """
    if _prof.SUBCLASSES and _prof.SUBCLASS_HANDLER[0].takes(args):  # a __torch_dispatch__ subclass's instance
        return _prof.SUBCLASS_HANDLER[0].op(f, args, statics, name, diff, jit, saves)
    if _prof._COLLECTING:  # a dispatch mode is active or a profiler records (one global read when neither)
        if _prof.MODES:  # the op goes to the innermost mode's __torch_dispatch__ as the aten call(s) torch runs
            return _prof.MODE_HANDLER[0](f, args, statics, name, diff, jit, saves)
        if not getattr(_prof._in_op, "on", False):  # a profiler is recording: time the op
            return _prof.timed_op(lambda: dispatch(f, args, statics, name=name, diff=diff, jit=jit, saves=saves),
                                  f, args, name, statics)
    arrays = []
    need_grad = False
    dev = None
    fused = None
    mixed = False
    for a in args:
        if isinstance(a, Tensor):
            if a._seen < -1:  # a lazy view (tensor.py)
                if f in HOST_SCALAR_OPS:  # of a host-readable root
                    r = HOST_SCALAR_OPS[f](args, statics)
                    if r is not None:
                        return r
                if a._seen == -2 - a._ver[0] and type(a._x) is _Pending and jit and not a._rg and \
                        Tensor._value is _PLAIN_VALUE:
                    if fused is None:  # not read yet: this op's program reads it from the root
                        fused = []
                    fused.append((len(arrays), a))
                    arrays.append(None)
                    d = a._dev
                    if dev is None:
                        dev = d
                    elif d is not dev and d != dev:
                        dev = _common_device(args, name, f)
                        mixed = True
                    continue
            arrays.append(a._value)
            if a._rg or a._grad_fn is not None:
                need_grad = True
            d = a._dev
            if dev is None:
                dev = d
            elif d is not dev and d != dev:
                dev = _common_device(args, name, f)
                mixed = True
        else:
            arrays.append(a)
    if mixed and dev.type != "cpu":
        _move_cpu_scalars(args, arrays, dev)
    off = OFF_CPU[0]
    if off is None:
        off = off_cpu()
    if off and (dev is None or dev.type == "cpu"):
        _keep_on_cpu(arrays)
    out = None
    record = need_grad and diff and _state.enabled
    if fused is not None:
        if record:  # recorded: the pullback needs the views' own values
            for i, a in fused:
                arrays[i] = a._value
        else:
            out = _call_fused(f, statics, arrays, fused)
            if out is None:  # (it failed: the plain path below raises the error torch would)
                for i, a in fused:
                    arrays[i] = a._value
    if out is None:
        e = _fwd_cache.get((f, statics))
        if e is None:
            e = _new_forward(f, statics, jit)
        if e.watch is not None and not record:  # shapes keep changing
            out = _shape_churn.route(e, f, statics, arrays)
        if out is None and e.pad is not None:  # the row count keeps changing: a padded program
            out = e.pad.route(e, arrays)
        if out is None:
            try:
                out = e.fn(*arrays)
            except Exception as err:  # JAX's complaint -> torch's (only on failure: no cost when the op succeeds)
                try:  # unless JAX is tracing: then the function's jit without compiler options
                    out = _jit_cache.traced_fallback(e, err)(*arrays)
                except Exception as err2:
                    raise _errors.translate(err2, f, name, arrays)
            if e.jitted and e.fn._cache_size() != e.n:  # a new shape was compiled: count it against the bound
                _jit_cache.counted(e, arrays)
                _shape_churn.watch_after_compile(e, f, arrays)
        e.used = True
    if dev is None:
        dev = CPU
    if need_grad and not record:  # (no_grad, a non-differentiable op) of a traced value: outside the graph for
        out = _outside_graph(out)  # the JAX gradient of the traced program as well (a compiled call's backward)
    if record and type(diff) is str:
        f, name, saves = _not_implemented(diff), "NotImplemented", False
    if type(out) is tuple or type(out) is list:
        outs = [Tensor._wrap(o, dev) for o in out]
        if record:
            _record(f, statics, args, arrays, outs, name, saves)
        if FORWARD_AD[0] is not None:
            FORWARD_AD[0].op(f, statics, args, arrays, outs)
        return tuple(outs)
    t = Tensor._wrap(out, dev)
    if record:
        _record(f, statics, args, arrays, [t], name, saves)
    if FORWARD_AD[0] is not None:
        FORWARD_AD[0].op(f, statics, args, arrays, [t])
    return t


def _outside_graph(out):
    """``out`` with ``stop_gradient`` on its arrays traced by torchlike.compile: an op that autograd does not
    record (run under ``no_grad``, or not differentiable) on inputs that require grad gives no gradient to a
    compiled call's backward, which differentiates the traced program with ``jax.vjp`` (torch's AOT autograd
    traces through the autograd engine, so its backward skips them too).  Other values are returned as they
    are: concrete arrays, and the tracers of torch.func transforms (``jvp``/``grad``/``vmap`` under an outer
    ``no_grad`` still differentiate, as torch's do)."""
    if _trace_hooks.current() is None:
        return out
    if type(out) is tuple or type(out) is list:
        return type(out)(jax.lax.stop_gradient(o) if type(o) is _JaxprTracer else o for o in out)
    return jax.lax.stop_gradient(out) if type(out) is _JaxprTracer else out


def _call_fused(f, statics, arrays, fused):
    """``f`` applied to ``arrays`` where the lazy views in ``fused`` ((position, view) pairs, their slots
    None) are read from their roots inside the same program: the view chains (start positions as an argument,
    see ``_views``) and ``f`` compile together, once per structure.  None if the call fails."""
    spec, extra = [], []
    for i, a in fused:
        skel, starts = _views.split_chain(a._chain)
        arrays[i] = a._x.src
        spec.append((i, skel, starts is not None))
        if starts is not None:
            extra.append(starts)
    spec = tuple(spec)
    key = (f, statics, spec)
    e = _fwd_cache.get(key)
    if e is None:
        e = _fwd_cache.add_tiered(key, _fused_forward(f, statics, spec))
    call = arrays + extra
    e.used = True
    if e.watch is not None:  # shapes keep changing (no gradient is recorded on this path)
        out = _shape_churn.route(e, f, statics, call, fused, len(arrays))
        if out is not None:
            return out
    if e.pad is not None:  # the row count keeps changing: a padded program
        out = e.pad.route(e, call)
        if out is not None:
            return out
    try:
        out = e.fn(*call)
    except Exception as err:
        try:
            out = _jit_cache.traced_fallback(e, err)(*call)
        except Exception:
            return None
    if e.jitted and e.fn._cache_size() != e.n:
        _jit_cache.counted(e, call)
        _shape_churn.watch_after_compile(e, f, call)
    return out


def _fused_forward(f, statics, spec):
    kw = dict(statics)
    n_extra = sum(1 for s in spec if s[2])

    def run(*call):
        xs = list(call[:len(call) - n_extra])
        k = len(xs)
        for i, skel, has in spec:
            st = None
            if has:
                st = call[k]
                k += 1
            xs[i] = _views.apply_skel(xs[i], st, skel=skel)
        return f(*xs, **kw)
    return run


_INT64 = np.dtype(np.int64)
_I64_MIN, _I64_MAX = -2 ** 63, 2 ** 63 - 1


def host_int_sum(x, n, sub):
    """``x + n`` / ``x - n`` for ``x`` a 0-d int64 tensor whose value is readable on the host (a row of ``for i
    in ix``, an earlier such sum) and ``n`` a Python int: the sum in Python, as a host tensor (torch's int64
    result), before any dispatch (a batch loader's ``data[i:i + 8]`` makes ~128 of these per batch).  None
    where the general path must run: profiling, tracing, another dtype, a result outside int64."""
    if _prof._COLLECTING or Tensor._value is not _PLAIN_VALUE:
        return None
    h = x._host_scalar()
    if h is None or h.ndim or (h.dtype is not _INT64 and h.dtype != _INT64):
        return None
    r = int(h) - n if sub else int(h) + n
    if not _I64_MIN <= r <= _I64_MAX:
        return None
    return Tensor._from_host(np.array(r, _INT64), x._dev)


# the dtypes whose pointwise ops numpy computes as the device program (and torch) does: exact IEEE float32/float64
# ``+ - * /`` and comparisons, wrapping integer arithmetic (_host_ops); float16/bfloat16/complex keep the device
HOST_DTYPES = frozenset(np.dtype(d) for d in (np.bool_, np.uint8, np.int8, np.int16, np.int32, np.int64,
                                              np.float32, np.float64))
_INT_RANGE = {np.dtype(d): (int(np.iinfo(d).min), int(np.iinfo(d).max)) for d in (np.uint8, np.int8, np.int16,
                                                                                     np.int32, np.int64)}
_F32 = np.dtype(np.float32)
_F32_MAX = float(np.finfo(np.float32).max)


def host_operand(x):
    """``x``'s numpy array when ``x`` is a plain Tensor resident on the host (``Tensor._from_host``: not read onto
    the device, not written, no autograd history; the array is read-only, the tensor owns it) and nothing traces,
    profiles or dispatches to a mode: a unary op's fast path computes on it (``relu``, ``clone``, ``to``).  Else
    None."""
    if type(x) is not Tensor:
        return None
    h = x._x  # (a device tensor's array first: its ops leave here after two tests)
    if type(h) is not np.ndarray or _prof._COLLECTING or Tensor._value is not _PLAIN_VALUE or ERR_VAR is None or \
            type(_trace_ref.value) is not _EvalTrace or x._chain is not _ALIAS_CHAIN or x._seen != -2 - x._ver[0] or \
            x._rg or x._grad_fn is not None:
        return None
    return h


def host_number(dt, y):
    """The Python number ``y`` as a numpy scalar of ``dt`` (a dtype of HOST_DTYPES) where torch's promotion of a
    ``dt`` tensor with ``y`` keeps ``dt`` and the conversion is the device program's: an int with an integer dtype
    that holds it or a floating one (up to 2**53: the cast rounds as the device's), a float with a floating dtype
    (within float32's range for float32); else None."""
    t = type(y)
    if t is int:
        if dt.kind == "f":
            if not -2 ** 53 <= y <= 2 ** 53:
                return None
        else:
            r = _INT_RANGE.get(dt)
            if r is None or not r[0] <= y <= r[1]:  # (bool: promotes to int64; out of range: torch's error)
                return None
        return dt.type(y)
    if t is float:  # (a float past float32's range: the device's cast gives inf quietly, numpy's warns)
        if dt.kind != "f" or dt is _F32 and not -_F32_MAX < y < _F32_MAX and y == y:
            return None
        return dt.type(y)
    return None


def host_pointwise(ufunc, x, y, dtypes, into=False):
    """``ufunc(x, y)`` computed by numpy as a host tensor, before any promotion or dispatch, in the common case
    whose result dtype is ``x``'s own: ``x`` a plain Tensor resident on the host (``Tensor._from_host``, not read
    onto the device, not written, no autograd history) of a dtype in ``dtypes``, and ``y`` either such a tensor
    of the same dtype, shape and device or a Python int (float) that an integer (floating) dtype holds exactly.
    None for everything else, which the op's general path handles (broadcasting, promotion, errors, autograd,
    profiling and dispatch modes, JAX transforms and compile tracing).  ``a + b`` of two 4x4 float32 tensors:
    ~2 us instead of ~4 through ``dispatch``'s host handler (_host_ops).

    ``into``: the in-place form (``x.add_(y)``, for ufuncs whose result has their operands' dtype): the result
    becomes ``x``'s value as ``_mutation._host_write`` would make it (``x`` and its hidden root take the new
    array, ``x``'s version moves) and ``x`` is returned, without the out-of-place result tensor; None (nothing
    done) also for an inference tensor, whose write the general path checks."""
    if type(x) is not Tensor:
        return None
    h = x._x  # (a device tensor's array first: its ops leave here after two tests)
    if type(h) is not np.ndarray or _prof._COLLECTING or Tensor._value is not _PLAIN_VALUE or ERR_VAR is None or \
            type(_trace_ref.value) is not _EvalTrace or x._chain is not _ALIAS_CHAIN or x._seen != -2 - x._ver[0] or \
            x._rg or x._grad_fn is not None:
        return None
    dt = h.dtype
    if dt not in dtypes:
        return None
    t = type(y)
    if t is Tensor:
        g = y._x
        if type(g) is not np.ndarray or y._chain is not _ALIAS_CHAIN or y._seen != -2 - y._ver[0] or y._rg or \
                y._grad_fn is not None or g.dtype is not dt or g.shape != h.shape or \
                y._dev is not x._dev and y._dev != x._dev:
            return None
    else:
        g = host_number(dt, y)
        if g is None:
            return None
    if dt.kind == "f":  # no numpy overflow/invalid warnings: torch gives none (integers wrap without them)
        tok = ERR_VAR.set(QUIET)
        try:
            r = ufunc(h, g)
        finally:
            ERR_VAR.reset(tok)
    else:
        r = ufunc(h, g)
    if type(r) is not np.ndarray:  # a 0-d result comes back as a numpy scalar
        r = np.asarray(r)
    if into:
        return host_assign(x, r)
    return Tensor._from_host(r, x._dev)


def host_assign(x, r):
    """Write numpy array ``r`` (of ``x``'s dtype and shape, owned by nobody else) into host tensor ``x``, as
    ``_mutation._host_write`` does with an op's host result: ``x`` and its hidden root take ``r``, ``x``'s
    version moves as a device write's would.  ``x`` must be what ``host_operand`` accepts (a plain, unwritten
    host tensor without autograd history).  None (nothing done) for an inference tensor; else ``x``."""
    v = x._ver
    if type(v) is not list:
        return None
    x._vbase._x = r
    x._x = r
    v[0] += 1
    x._seen = -2 - v[0]
    return x


def _user_stack():
    """The Python stack of the user's call being recorded (formatted as ``traceback.format_stack``): without
    torchlike's own frames at the top, nor the runner's (and runpy's) below the script."""
    frames = traceback.extract_stack()
    while frames and frames[-1].filename.startswith(_errors.PACKAGE_DIR):
        frames.pop()
    runner = [i for i, f in enumerate(frames) if f.filename == _errors.PACKAGE_DIR + "_runner.py"]
    start = runner[-1] + 1 if runner else 0
    while start < len(frames) and frames[start].filename == "<frozen runpy>":
        start += 1
    return traceback.format_list(frames[start:])


def _pack(node, args, saves):
    """saved_tensors_hooks: the node keeps the packed forms of the tensors it saves (the pullback reads the
    unpacked values) and, as torch, checks no versions for them."""
    if saves == "out":
        tensors, positions = [e[0] for e in node.saved], [None] * len(node.saved)
    else:
        # torch's formulas save a lone input, and of several the ones another differentiable input's gradient
        # reads (x * y with only x requiring grad saves y): the common rule of its unary and binary ops
        positions = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        if len(positions) > 1:
            positions = [i for i in positions if any(j != i for j in node.diff_in)]
        tensors = [args[i] for i in positions]
    node.packed = [(pos, obj, unpack) for pos, (obj, unpack) in zip(positions, pack_saved(tensors))]
    node.saved = ()


def _record(f, statics, args, arrays, outs, name, saves):
    diff_in, inputs, saved = [], [], []
    for i, a in enumerate(args):
        if isinstance(a, Tensor):
            gf = a._grad_fn
            if gf is not None:
                diff_in.append(i)
                inputs.append((gf, a._oi))
            elif a._rg:
                diff_in.append(i)
                acc = a._acc  # (``a._accumulator()`` inlined)
                acc = acc() if acc is not None else None
                if acc is None:  # the graph that held the leaf's node is gone (the last op's result freed)
                    acc = (AccumulateGrad if a.__dict__.get("_acc_nograd_view") is None else NoGradViewSink)(a)
                    a._acc = _weakref(acc)
                inputs.append((acc, 0))
            else:
                # a float tensor without grad: torch's (None, 0) edge; index/mask tensors are no edge
                d = getattr(arrays[i], "dtype", None)
                inputs.append(_NO_EDGE if d is not None and d.kind in "fcV" else None)
            if saves is True or saves is OTHERS or type(saves) is tuple:  # (tensor, a._version, position, .data writes)
                v = a._ver
                saved.append((a, v[0], i, 0) if len(v) == 1 else (a, v[0] - v[1], i, v[1]))
        else:
            inputs.append(None)
    if len(outs) == 1:  # (one output, the common case, without the generators)
        x = outs[0]._x
        dt = x.dtype  # (a jax array's dtype and shape are properties: read once)
        if dt.kind not in "fcV":
            return
        diff_out, out_meta = _ONE_OUT, ((x.shape, dt),)
    else:
        diff_out = tuple(j for j, o in enumerate(outs) if _diff_dtype(o._x.dtype))
        if not diff_out:
            return
        out_meta = tuple((outs[j]._x.shape, outs[j]._x.dtype) for j in diff_out)
    if saves == "out":  # torch's formula uses the result (exp, tanh, sigmoid, ...): guard that instead
        saved = [(o, o._version) for o in outs]
    elif saves is OTHERS and saved and len(diff_in) < 2:  # a product saves an input only for another input's
        # gradient (with two or more differentiable inputs, every input is some other one's: all are kept)
        saved = [e for e in saved if e[2] != diff_in[0]] if diff_in else []
    elif type(saves) is tuple and saved:  # saves[i]: the arguments whose gradient formula reads argument i
        saved = [e for e in saved if any(j in saves[e[2]] for j in diff_in)]
    if record_checks:
        for check in record_checks:
            saved = check(f, statics, args, arrays, tuple(diff_in), diff_out, name, saves, saved)
            if saved is None:
                return
    node = (_NODE_CLASSES.get(name) or node_class(name))(f, statics, tuple(arrays), tuple(inputs), tuple(diff_in), diff_out, out_meta,
                name, tuple(saved))
    if saves == "out":
        node.saves_outputs = True
    if ANOMALY[0]:  # detect_anomaly: the forward call that made the node (torch's metadata["traceback_"])
        node.metadata["traceback_"] = _user_stack()
    for k, j in enumerate(diff_out):
        o = outs[j]
        o._grad_fn = node
        o._oi = k
    if SAVED_HOOKS and saved:  # (after the wiring: a saved output is packed with its grad_fn, as torch's)
        _pack(node, args, saves)
