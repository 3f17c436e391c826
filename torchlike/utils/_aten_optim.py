"""Optimizer steps as a ``TorchDispatchMode`` sees them: torch's per-parameter (or ``_foreach_``) aten calls.

torchlike updates a parameter group with one compiled program, which no mode would see. While a mode is active
``SGD``, ``Adam`` and ``AdamW`` steps run instead as torch 2.13's own algorithms do, op by op, with torchlike's
eager ops: ``foreach=None``/``False`` (torch's default on CPU) is the for-loop path (``add_``, ``lerp_``,
``addcmul_``, ``addcdiv_``, ... per parameter), ``foreach=True`` the ``_foreach_`` path (``_foreach_add_.List``,
``_foreach_lerp_.Scalar``, ...), between the ``profiler._record_function_enter_new`` / ``_record_function_exit``
calls of torch's ``Optimizer.step#Adam.step`` record. Other optimizers, and options this module does not
cover (``capturable``, ``differentiable``, ``fused``, complex or sparse parameters, Tensor hyperparameters),
keep the compiled step, unseen.

>>> import torchlike
>>> from torchlike.utils._python_dispatch import TorchDispatchMode
>>> class Log(TorchDispatchMode):
...     def __torch_dispatch__(self, func, types, args=(), kwargs=None):
...         print(func)
...         return func(*args, **(kwargs or {}))
>>> p = torchlike.ones(2, requires_grad=True); p.grad = torchlike.ones(2)
>>> with Log():
...     torchlike.optim.SGD([p], lr=0.1).step()
profiler._record_function_enter_new.default
aten.add_.Tensor
profiler._record_function_exit._RecordFunction
"""
from __future__ import annotations

from .. import _foreach, library
from .._memory_format import preserve_format
from ..optim import optimizer as _optimizer
from ..optim.adam import Adam, AdamW
from ..optim.optimizer import step_state, zeros_state
from ..optim.sgd import SGD
from ..tensor import Tensor
from ._aten_backward import _op, call

__all__ = ["install", "shown_step", "shown_zero_grad"]


def _profiler_op(name, overload):
    packet = library._packet(f"profiler::{name}", library._aten_unsupported(name))
    return library._OpOverload(packet, overload)


class _RecordHandle:
    """What torch's ``_record_function_enter_new`` returns (a ScriptObject there): the exit call's argument."""
    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name


def _foreach_call(name, overload, *args, **kwargs):
    fn = getattr(_foreach, f"_foreach_{name}")
    return call(_op(f"_foreach_{name}", overload), lambda *a, **k: fn(*a, **k), *args, **kwargs)


def _alpha(a):
    return {} if a == 1 else {"alpha": a}


def _supported(opt):
    for group in opt.param_groups:
        if any(group.get(k) for k in ("capturable", "differentiable", "fused")):
            return False
        if any(isinstance(group.get(k), Tensor) for k in ("lr", "weight_decay", "momentum", "eps")):
            return False
        if isinstance(opt, Adam) and (group.get("amsgrad") or isinstance(group["betas"][0], Tensor)):
            return False
        for p in group["params"]:
            if p.grad is not None and (p.grad.is_sparse or p.is_complex()):
                return False
    return True


def _params_with_grad(group):
    return [p for p in group["params"] if p.grad is not None]


# --- SGD (torch.optim.sgd._single_tensor_sgd / _multi_tensor_sgd) -------------------------------------------------
def _sgd_group(opt, group, foreach):
    ps = _params_with_grad(group)
    if not ps:
        return
    lr, wd, mom, damp = group["lr"], group["weight_decay"], group["momentum"], group["dampening"]
    nesterov, maximize = group["nesterov"], group["maximize"]
    bufs = [opt.state.get(p, {}).get("momentum_buffer") for p in ps]
    if foreach:
        grads = [p.grad for p in ps]
        if maximize:
            grads = _foreach_call("neg", "default", grads)
        if wd != 0:   # maximize's negated grads are the step's own: torch adds into them
            grads = _wd_foreach(grads, ps, wd, maximize)
        if mom != 0:
            if any(b is None for b in bufs):
                for i, (p, g) in enumerate(zip(ps, grads)):
                    if bufs[i] is None:
                        bufs[i] = _new_buffer(opt, p, g)
                    else:
                        bufs[i].mul_(mom).add_(g, **_alpha(1 - damp))
            else:
                _foreach_call("mul_", "Scalar", bufs, mom)
                _foreach_call("add_", "List", bufs, grads, **_alpha(1 - damp))
            if nesterov:
                _foreach_call("add_", "List", grads, bufs, alpha=mom)
            else:
                grads = bufs
        _foreach_call("add_", "List", ps, grads, alpha=-lr)
        return
    for p, buf in zip(ps, bufs):
        g = -p.grad if maximize else p.grad
        if wd != 0:
            g = g.add(p, alpha=wd)
        if mom != 0:
            if buf is None:
                buf = _new_buffer(opt, p, g)
            else:
                buf.mul_(mom).add_(g, **_alpha(1 - damp))
            g = g.add(buf, alpha=mom) if nesterov else buf
        p.add_(g, alpha=-lr)


def _wd_foreach(grads, ps, wd, maximize):
    if maximize:
        _foreach_call("add_", "List", grads, ps, alpha=wd)
        return grads
    return _foreach_call("add", "List", grads, ps, alpha=wd)


def _new_buffer(opt, p, g):
    """torch: ``torch.clone(grad).detach()`` (its mode sees the detach, then the clone)."""
    d = call(_op("detach"), lambda t: t.detach(), g)
    buf = call(_op("clone"), lambda t: t.clone(), d)
    opt.state[p]["momentum_buffer"] = buf
    return buf


# --- Adam / AdamW (torch.optim.adam._single_tensor_adam / _multi_tensor_adam) ------------------------------------
def _adam_state(opt, group):
    """torch's _init_group: a 0-dim ``step`` (``lift_fresh``) and ``zeros_like`` moments for new parameters."""
    ps = _params_with_grad(group)
    for p in ps:
        state = opt.state[p]
        if not state:
            state["step"] = call(_op("lift_fresh"), lambda t: t, step_state())
            for k in ("exp_avg", "exp_avg_sq"):
                state[k] = call(_op("zeros_like"), lambda t, **kw: zeros_state(t), p, pin_memory=False,
                                memory_format=preserve_format)
    return ps


def _item(t):
    return call(_op("_local_scalar_dense"), lambda a: a.item(), t)


def _adam_group(opt, group, foreach):
    ps = _adam_state(opt, group)
    if not ps:
        return
    lr, (b1, b2), eps, wd = group["lr"], group["betas"], group["eps"], group["weight_decay"]
    decoupled = group.get("decoupled_weight_decay", isinstance(opt, AdamW))
    states = [opt.state[p] for p in ps]
    steps = [s["step"] for s in states]
    avgs, sqs = [s["exp_avg"] for s in states], [s["exp_avg_sq"] for s in states]
    if foreach:
        grads = [p.grad for p in ps]
        if group["maximize"]:
            grads = _foreach_call("neg", "default", grads)
        one = call(_op("lift_fresh"), lambda t: t, step_state(1.0))
        _foreach_call("add_", "Tensor", steps, one, alpha=1.0)
        if wd != 0:
            if decoupled:
                _foreach_call("mul_", "Scalar", ps, 1 - lr * wd)
            else:
                grads = _wd_foreach(grads, ps, wd, group["maximize"])
        _foreach_call("lerp_", "Scalar", avgs, grads, 1 - b1)
        _foreach_call("mul_", "Scalar", sqs, b2)
        _foreach_call("addcmul_", "Scalar", sqs, grads, grads, 1 - b2)
        bc1 = [1 - b1 ** _item(s) for s in steps]
        bc2 = [1 - b2 ** _item(s) for s in steps]
        step_size = [lr / b * -1 for b in bc1]
        bc2_sqrt = [b ** 0.5 for b in bc2]
        denom = _foreach_call("sqrt", "default", sqs)
        _foreach_call("div_", "ScalarList", denom, bc2_sqrt)
        _foreach_call("add_", "Scalar", denom, eps)
        _foreach_call("addcdiv_", "ScalarList", ps, avgs, denom, step_size)
        return
    for p, step_t, exp_avg, exp_avg_sq in zip(ps, steps, avgs, sqs):
        g = -p.grad if group["maximize"] else p.grad
        step_t.add_(1)
        if wd != 0:
            if decoupled:
                p.mul_(1 - lr * wd)
            else:
                g = g.add(p, alpha=wd)
        exp_avg.lerp_(g, 1 - b1)
        exp_avg_sq.mul_(b2).addcmul_(g, g, value=1 - b2)
        step = _item(step_t)
        bc1, bc2 = 1 - b1 ** step, 1 - b2 ** step
        denom = (exp_avg_sq.sqrt() / (bc2 ** 0.5)).add_(eps)
        p.addcdiv_(exp_avg, denom, value=-(lr / bc1))


_GROUP_STEP = {SGD: _sgd_group, Adam: _adam_group, AdamW: _adam_group}


def shown_step(opt):
    """Run ``opt``'s update as torch's aten calls (the active modes see each); False where it is not covered."""
    run = _GROUP_STEP.get(type(opt))
    if run is None or not _supported(opt):
        return False
    def body():
        for group in opt.param_groups:
            run(opt, group, bool(group.get("foreach")))
    _record(f"Optimizer.step#{type(opt).__name__}.step", body)
    return True


def _record(name, body):
    """``body()`` inside torch's ``record_function(name)``: the enter and exit calls a mode sees around it."""
    handle = call(_profiler_op("_record_function_enter_new", "default"), lambda n, *a: _RecordHandle(n), name)
    try:
        return body()
    finally:
        call(_profiler_op("_record_function_exit", "_RecordFunction"), lambda h: None, handle)


def shown_zero_grad(opt, set_to_none):
    """torch's Optimizer.zero_grad: grads set to None, or zeroed (``zero_``, ``_foreach_zero_`` per dtype and
    device with ``foreach``)."""
    def body():
        foreach = opt.defaults.get("foreach", False) or opt.defaults.get("fused", False)
        by_kind = {}
        for group in opt.param_groups:
            for p in group["params"]:
                g = p.grad
                if g is None:
                    continue
                if set_to_none:
                    p.grad = None
                    continue
                if g.grad_fn is not None:
                    g = p.grad = g.detach()
                else:
                    g.requires_grad_(False)
                if foreach and not g.is_sparse:
                    by_kind.setdefault((str(g.device), g.dtype), []).append(g)
                else:
                    g.zero_()
        for grads in by_kind.values():
            call(_op("_foreach_zero_"), lambda gs: [t.zero_() for t in gs] and None, grads)
    _record(opt._zero_grad_profile_name, body)


def install():
    """Route optimizer steps and zero_grad calls made while a mode is active here (``optim.optimizer``'s
    ``SHOWN_STEP`` and ``SHOWN_ZERO_GRAD``)."""
    _optimizer.SHOWN_STEP[0] = shown_step
    _optimizer.SHOWN_ZERO_GRAD[0] = shown_zero_grad
