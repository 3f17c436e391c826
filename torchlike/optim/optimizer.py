"""torch.optim.Optimizer: parameter groups, state, state_dict, hooks, and the one-jit-per-step engine.

Every built-in optimizer describes its per-parameter update as a pure JAX function
``kernel(hp, p, g, st, **statics) -> (new_p, new_st)``. ``_FusedOptimizer.step`` runs it for all
parameters of a group inside ONE cached ``jax.jit`` call (hyperparameters travel as dynamic
arguments, so an LR scheduler never triggers a recompile) and writes the results back into the
parameters and state tensors without autograd.

>>> import torchlike as torch
>>> p = torch.tensor([1.0, 2.0], requires_grad=True)
>>> opt = torch.optim.SGD([p], lr=0.1)
>>> (p * p).sum().backward(); opt.step()
>>> p
tensor([0.8000, 1.6000], requires_grad=True)
"""
from __future__ import annotations

import functools
import warnings
from collections import OrderedDict, defaultdict
from copy import deepcopy
from itertools import chain
from typing import Any, Callable, Dict, Iterable, List, Optional, Tuple, Union

import jax
import jax.numpy as jnp
import numpy as np

from ..compile._trace import current as _current_trace, lift_scalar

from .. import _dtype
from .. import _jit_cache as _jcache
from .. import _memory_format as _mfmt
from .. import _profiler_state as _prof
from ..autograd import grad_mode
from ..tensor import Tensor
from .._device import commit_to
from .._hooks import RemovableHandle
from .._device import device as _device
from .._dtype import dtype as _dtype_cls

__all__ = ["Optimizer", "required", "register_optimizer_step_pre_hook", "register_optimizer_step_post_hook"]

# torch.optim.optimizer's type aliases: optimizer libraries annotate with them (``from torch.optim.optimizer
# import ParamsT``)
Args = Tuple[Any, ...]
Kwargs = Dict[str, Any]
StateDict = Dict[str, Any]
DeviceDict = Dict[Optional[_device], Tensor]
DeviceDtypeDict = Dict[Optional[Tuple[_device, _dtype_cls]], Tensor]
GlobalOptimizerPreHook = Callable[["Optimizer", Args, Kwargs], Optional[Tuple[Args, Kwargs]]]
GlobalOptimizerPostHook = Callable[["Optimizer", Args, Kwargs], None]
ParamsT = Union[Iterable[Tensor], Iterable[Dict[str, Any]], Iterable[Tuple[str, Tensor]]]
Indices = List[int]
TensorListList = List[List[Optional[Tensor]]]


class _RequiredParameter:
    """Marks an optimizer option that has no default (``torch.optim.optimizer.required``)."""

    def __repr__(self):
        return "<required parameter>"


required = _RequiredParameter()


_global_optimizer_pre_hooks: OrderedDict = OrderedDict()
_global_optimizer_post_hooks: OrderedDict = OrderedDict()


def register_optimizer_step_pre_hook(hook):
    """Register a pre hook common to all optimizers: ``hook(optimizer, args, kwargs)``."""
    handle = RemovableHandle(_global_optimizer_pre_hooks)
    _global_optimizer_pre_hooks[handle.id] = hook
    return handle


def register_optimizer_step_post_hook(hook):
    """Register a post hook common to all optimizers: ``hook(optimizer, args, kwargs)``."""
    handle = RemovableHandle(_global_optimizer_post_hooks)
    _global_optimizer_post_hooks[handle.id] = hook
    return handle


def _to_scalar(x):
    """A 1-element non-0-dim Tensor hyperparameter becomes 0-dim (torch.optim.optimizer._to_scalar)."""
    if isinstance(x, Tensor) and x.dim() != 0:
        return x.squeeze()
    return x


def _float(x):
    """A hyperparameter (float or 1-element Tensor) as a Python float for the jitted kernels."""
    if isinstance(x, Tensor):
        return float(x._value.reshape(()))
    return float(x)


def _scalar_tensor(v, np_dtype=np.float32):
    return _concrete(np.asarray(v, dtype=np_dtype))


def _concrete(a, dev=None):
    """A Tensor over numpy array ``a`` that is concrete even inside a ``torchlike.compile`` trace (a
    device transfer, no XLA program per new shape)."""
    with jax.ensure_compile_time_eval():
        x = jax.device_put(a)
    return Tensor._wrap(x, dev) if dev is not None else Tensor._wrap(x)


# the per-optimizer hook tables, under the attribute names torch uses
_HOOK_TABLES = tuple(f"_optimizer_{kind}_hooks" for kind in (
    "step_pre", "step_post", "state_dict_pre", "state_dict_post", "load_state_dict_pre", "load_state_dict_post"))


def _run_replacing_hooks(hooks, value, owner):
    """Call ``hook(owner, value)`` for each hook in turn; a hook that returns something replaces ``value``."""
    for hook in hooks.values():
        replacement = hook(owner, value)
        if replacement is not None:
            value = replacement
    return value


def _cast_loaded(param, value, param_id, saved_groups, key=None):
    """A loaded state entry, its Tensors converted for ``param`` (recursing into dicts, lists, tuples)."""
    if isinstance(value, Tensor):
        return Optimizer._process_value_according_to_param_policy(param, value, param_id, saved_groups, key)
    if isinstance(value, dict):
        return {k: _cast_loaded(param, v, param_id, saved_groups, k) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_cast_loaded(param, v, param_id, saved_groups) for v in value)
    return value


class Optimizer:
    r"""Base class for all optimizers.

    Args:
        params (iterable): an iterable of Tensors or dicts (parameter groups) or (name, Tensor) pairs.
        defaults (dict): default values of optimization options.
    """

    # options a subclass fills into param groups that lack them when an optimizer is unpickled or loaded
    # (states saved by older versions), in this order
    _group_fallbacks: dict = {}
    # options whose value is fixed by the class (AdamW's decoupled weight decay), set on those groups too
    _group_pinned: dict = {}

    def __init__(self, params, defaults):
        self.defaults = defaults
        for table in _HOOK_TABLES:
            setattr(self, table, OrderedDict())
        self._patch_step_function()
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of Tensors or dicts, "
                            "but got " + params.type())
        self.state = defaultdict(dict)
        self.param_groups = []
        given = list(params)
        if not given:
            raise ValueError("optimizer got an empty parameter list")
        for group in (given if isinstance(given[0], dict) else [{"params": given}]):
            self.add_param_group(group)
        self._warned_capturable_if_run_uncaptured = True

    def __getstate__(self):
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    def __setstate__(self, state):
        self.__dict__.update(state)
        for table in _HOOK_TABLES:
            if table not in self.__dict__:
                setattr(self, table, OrderedDict())
        self._patch_step_function()
        self.defaults.setdefault("differentiable", False)
        if self._group_fallbacks or self._group_pinned:
            for group in self.param_groups:
                for option, value in self._group_fallbacks.items():
                    group.setdefault(option, value)
                group.update(self._group_pinned)

    def __repr__(self):
        out = [type(self).__name__ + " ("]
        for i, group in enumerate(self.param_groups):
            out.append(f"\nParameter Group {i}\n")
            out.extend(f"    {k}: {group[k]}\n" for k in sorted(group) if k != "params")
        return "".join(out) + ")"

    # ---- step hooks ------------------------------------------------------------------------------
    def _optimizer_step_code(self):
        """Entry point for step-profiling hooks (kept for API compatibility)."""

    @staticmethod
    def profile_hook_step(func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            opt, *_ = args
            for hook in chain(_global_optimizer_pre_hooks.values(), opt._optimizer_step_pre_hooks.values()):
                new = hook(opt, args, kwargs)
                if new is None:
                    continue
                if not (isinstance(new, tuple) and len(new) == 2):
                    raise RuntimeError(f"{func} must return None or a tuple of (new_args, new_kwargs), "
                                       f"but got {new}.")
                args, kwargs = new
            out = func(*args, **kwargs)
            opt._optimizer_step_code()
            for hook in chain(opt._optimizer_step_post_hooks.values(), _global_optimizer_post_hooks.values()):
                hook(opt, args, kwargs)
            return out
        return wrapper

    def _patch_step_function(self):
        cls = self.__class__
        self._zero_grad_profile_name = f"Optimizer.zero_grad#{cls.__name__}.zero_grad"
        if not getattr(cls.step, "hooked", None):
            cls.step = self.profile_hook_step(cls.step)
            cls.step.hooked = True

    def _register(self, table, hook, prepend=False):
        handle = RemovableHandle(table)
        table[handle.id] = hook
        if prepend:
            table.move_to_end(handle.id, last=False)
        return handle

    def register_step_pre_hook(self, hook):
        """Register ``hook(optimizer, args, kwargs) -> None or (args, kwargs)`` run before ``step``."""
        return self._register(self._optimizer_step_pre_hooks, hook)

    def register_step_post_hook(self, hook):
        """Register ``hook(optimizer, args, kwargs) -> None`` run after ``step``."""
        return self._register(self._optimizer_step_post_hooks, hook)

    def register_state_dict_pre_hook(self, hook, prepend=False):
        return self._register(self._optimizer_state_dict_pre_hooks, hook, prepend)

    def register_state_dict_post_hook(self, hook, prepend=False):
        return self._register(self._optimizer_state_dict_post_hooks, hook, prepend)

    def register_load_state_dict_pre_hook(self, hook, prepend=False):
        return self._register(self._optimizer_load_state_dict_pre_hooks, hook, prepend)

    def register_load_state_dict_post_hook(self, hook, prepend=False):
        return self._register(self._optimizer_load_state_dict_post_hooks, hook, prepend)

    # ---- state dict ------------------------------------------------------------------------------
    def state_dict(self):
        """The optimizer state: ``{'state': {index: {...}}, 'param_groups': [{..., 'params': [indices]}]}``.

        >>> import torchlike as torch
        >>> p = torch.zeros(2, requires_grad=True)
        >>> torch.optim.SGD([p], lr=0.1).state_dict()['param_groups'][0]['params']
        [0]
        """
        for hook in self._optimizer_state_dict_pre_hooks.values():
            hook(self)
        # A param is numbered by its slot in the flattened list of all groups' params. As in torch, a param
        # repeated inside one group takes its last slot there; one seen in an earlier group keeps that number.
        index, offset, groups = {}, 0, []
        for group in self.param_groups:
            members = group["params"]
            for pid, slot in {id(p): offset + k for k, p in enumerate(members)}.items():
                index.setdefault(pid, slot)
            offset += len(members)
            groups.append({**{k: v for k, v in group.items() if k != "params"},
                           "params": [index[id(p)] for p in members]})
        state = {}
        for key, value in self.state.items():
            state[index[id(key)] if isinstance(key, Tensor) else key] = value
        return _run_replacing_hooks(self._optimizer_state_dict_post_hooks, {"state": state, "param_groups": groups},
                                    self)

    @staticmethod
    def _process_value_according_to_param_policy(param, value, param_id, param_groups, key=None):
        # the first group listing param_id decides; step counters stay float32 for capturable/fused groups
        # (on the parameter's device) and where they were otherwise; other state goes to the parameter's
        # device (a checkpoint saved on the CPU resumes on a GPU) and, for a float parameter, its dtype
        owner = next((pg for pg in param_groups if param_id in pg["params"]), {})
        if key == "step":
            as_f32 = owner.get("capturable", False) or owner.get("fused", False)
            return value.to(dtype=_dtype.float32, device=param.device) if as_f32 else value
        value = value.to(dtype=param.dtype, device=param.device) if param.is_floating_point() else \
            value.to(device=param.device)
        adapt = getattr(type(param), "_optimizer_state", None)  # a DTensor parameter's state: its layout
        return value if adapt is None else adapt(param, value)

    def load_state_dict(self, state_dict):
        """Load an optimizer state produced by :meth:`state_dict` (also one converted from real torch)."""
        state_dict = _run_replacing_hooks(self._optimizer_load_state_dict_pre_hooks, state_dict.copy(), self)
        mine = self.param_groups
        theirs = deepcopy(state_dict["param_groups"])
        if len(mine) != len(theirs):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(a["params"]) != len(b["params"]) for a, b in zip(mine, theirs)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match the size of "
                             "optimizer's group")
        param_of = dict(zip(chain.from_iterable(g["params"] for g in theirs),
                            chain.from_iterable(g["params"] for g in mine)))
        state = defaultdict(dict)
        for saved_id, entry in state_dict["state"].items():
            if saved_id not in param_of:
                state[saved_id] = entry  # not one of our params: kept as is
                continue
            p = param_of[saved_id]
            state[p] = _cast_loaded(p, entry, saved_id, state_dict["param_groups"])
        for cur, new in zip(mine, theirs):
            new["params"] = cur["params"]
            if "param_names" in cur:
                new.setdefault("param_names", cur["param_names"])
        self.__setstate__({"state": state, "param_groups": theirs})
        for hook in self._optimizer_load_state_dict_post_hooks.values():
            hook(self)

    # ---- grads and groups ------------------------------------------------------------------------
    def zero_grad(self, set_to_none: bool = True):
        """Reset the gradients of all optimized tensors (to None by default)."""
        if _prof.MODES and SHOWN_ZERO_GRAD[0] is not None:
            return SHOWN_ZERO_GRAD[0](self, set_to_none)   # a dispatch mode sees torch's calls
        for p in chain.from_iterable(g["params"] for g in self.param_groups):
            grad = p.grad
            if grad is None:
                continue
            if set_to_none:
                p.grad = None
                continue
            if grad.grad_fn is None:
                grad.requires_grad_(False)
            else:
                grad = p.grad = grad.detach()
            grad._set_value(jnp.zeros_like(grad._value))

    def step(self, closure=None):
        r"""Perform a single optimization step (to be overridden by subclasses)."""
        raise NotImplementedError

    def add_param_group(self, param_group):
        """Add a param group to the optimizer's ``param_groups`` (fills in defaults)."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        given = param_group["params"]
        if isinstance(given, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, but the ordering "
                            "of tensors in sets will change between runs. Please use a list instead.")
        given = [given] if isinstance(given, Tensor) else list(given)
        # entries may be (name, Tensor) pairs; either all are named or none
        names = [e[0] for e in given if isinstance(e, tuple)]
        param_group["params"] = [e[1] if isinstance(e, tuple) else e for e in given]
        if names:
            if len(names) != len(given):
                raise ValueError("all optimizer params should be with/without names. Some param names are missing")
            param_group["param_names"] = names
        allow_non_leaf = self.defaults.get("differentiable", None)
        for t in param_group["params"]:
            if not isinstance(t, Tensor):
                mod = type(t).__module__
                raise TypeError("optimizer can only optimize Tensors, but one of the params is "
                                + mod.replace("builtins", "").lstrip(".")
                                + ("." if mod != "builtins" else "") + type(t).__name__)
            if not allow_non_leaf and not (t.is_leaf or t.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")
        for option, value in self.defaults.items():
            if option not in param_group:
                if value is required:
                    raise ValueError("parameter group didn't specify a value of required optimization parameter "
                                     f"{option}")
                param_group[option] = value
        members = param_group["params"]
        if len({id(t) for t in members}) != len(members):
            warnings.warn("optimizer contains a parameter group with duplicate parameters; in future, this will "
                          "cause an error; see github.com/pytorch/pytorch/issues/40967 for more information",
                          stacklevel=3)
        taken = set()
        for other in self.param_groups:
            taken.update(id(t) for t in other["params"])
            if ("param_names" in param_group) != ("param_names" in other):
                txt = "with names" if "param_names" in param_group else "without names"
                raise ValueError("all optimizer param groups should be with/without names. "
                                 f"cannot add param group {txt} to the optimizer")
        if not taken.isdisjoint(id(t) for t in members):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)


# ---- the fused engine --------------------------------------------------------------------------
# While a TorchDispatchMode is active, ``SHOWN_STEP[0](optimizer)`` (utils/_aten_optim.py fills it) runs the step as
# torch's aten calls, or returns False to leave it to the compiled update.
SHOWN_STEP = [None]
SHOWN_ZERO_GRAD = [None]   # zero_grad's, likewise
_jit_cache = _jcache.Cache("optimizer")


def _to_real(x):
    return jnp.stack([jnp.real(x), jnp.imag(x)], axis=-1)


def _to_complex(x, dt):
    return jax.lax.complex(x[..., 0], x[..., 1]).astype(dt)


def _group_fn(kernel, statics, complex_as_real):
    """The cached jitted function applying ``kernel`` to every parameter of a group."""
    key = (kernel, statics, complex_as_real)
    fn = _jit_cache.get(key)
    if fn is None:
        kw = dict(statics)

        def run(hp, ps, gs, sts):
            new_ps, new_sts = [], []
            for p, g, st in zip(ps, gs, sts):
                if complex_as_real and jnp.iscomplexobj(p):
                    shp, dt = p.shape, p.dtype
                    conv = {k: _to_real(v) for k, v in st.items() if jnp.iscomplexobj(v)}
                    st2 = dict(st)
                    st2.update(conv)
                    np_, nst = kernel(hp, _to_real(p), _to_real(g), st2, **kw)
                    np_ = _to_complex(np_, dt)
                    # state created by the kernel with the real view's shape is complex like the param
                    nst = {k: (_to_complex(v, st[k].dtype if k in conv else dt)
                               if k in conv or (k not in st and v.shape == shp + (2,)) else v)
                           for k, v in nst.items()}
                else:
                    np_, nst = kernel(hp, p, g, st, **kw)
                new_ps.append(np_)
                new_sts.append(nst)
            return new_ps, new_sts

        fn = _jit_cache.add(key, jax.jit(run))
    return fn


class _FusedOptimizer(Optimizer):
    """An optimizer whose update is ``_kernel`` applied to all of a group's params in one jit call.

    Subclasses define ``_kernel`` (module-level pure function), ``_init_state(p, group)`` (dict of
    Tensors in torch's key order), ``_hparams(group)`` (dict of floats) and ``_statics(group)``.
    """

    _complex_as_real = True
    _name = "Optimizer"
    # torch's capturable device check: (what it names, whether 'xla' is listed) for the single-tensor and the
    # foreach paths (each optimizer's own wording)
    _capturable_msg = (("params and state_steps", True), ("params and state_steps", False))

    def _check_grad(self, p, group):
        if p.grad.is_sparse:
            raise RuntimeError(f"{self._name} does not support sparse gradients")

    def _sparse_update(self, p, group):
        """One step for a parameter whose ``.grad`` is sparse (optimizers whose ``_check_grad`` lets it pass)."""
        raise RuntimeError(f"{self._name} does not support sparse gradients")

    def _statics(self, group):
        return ()

    def _accept_fused(self, fused, foreach, differentiable, device_dtype_check=False):
        """torch's handling of ``fused=True``, done once the param groups exist (their errors come first)."""
        if not fused:
            return
        self._step_supports_amp_scaling = True
        if device_dtype_check:
            self._need_device_dtype_check_for_fused = True
        conflicts = ((differentiable, "`fused` does not support `differentiable`"),
                     (foreach, "`fused` and `foreach` cannot be `True` together."))
        for clash, message in conflicts:
            if clash:
                raise RuntimeError(message)

    def _check_capturable(self, group, states):
        """torch's eager check that a ``capturable=True`` group's params sit on an accelerator (it raises for
        CPU params; ``torch.compile`` skips it)."""
        names, xla = self._capturable_msg[1 if group.get("foreach") else 0]
        if all(p._dev.type in ("cuda", "xpu", "hpu", "privateuseone") for p, _ in states):
            return
        devices = ["cuda", "xpu", "hpu", "privateuseone"] + (["xla"] if xla else [])
        raise AssertionError(f"If capturable=True, {names} must be on supported devices: {devices}.")

    def _run_group(self, group):
        ps, gs, sts, states = [], [], [], []
        all_state = self.state
        for p in group["params"]:
            g = p.grad
            if g is None:
                continue
            self._check_grad(p, group)
            if g.is_sparse:  # (SGD and Adagrad: torch's per-tensor sparse path, eager)
                self._sparse_update(p, group)
                continue
            state = all_state.get(p)
            if not state:
                # like torch, a param only gets a state entry once the optimizer puts something in it
                init = self._init_state(p, group)
                if init:
                    state = all_state[p]
                    state.update(init)
                else:
                    state = {}
            ps.append(p._value)
            gs.append(g._value)
            st = {k: v._value for k, v in state.items() if isinstance(v, Tensor)}
            if p._dev.type != "cpu":
                _onto_param_device(st, p)
            sts.append(st)
            states.append((p, state))
        if not ps:
            return
        if group.get("capturable") and _current_trace() is None:
            self._check_capturable(group, states)
        # hyperparameters are dynamic inputs, also under torchlike.compile (no recompiles when lr changes)
        hv = self._hparams(group)
        if _current_trace() is None:  # (lift_scalar's eager result, the group's floats read once)
            hp = {k: np.float64(v) for k, v in hv.items()}
        else:
            hp = {k: lift_scalar((id(group), k), lambda k=k, g=group: self._hparams(g)[k]) for k in hv}
        fn = _group_fn(type(self)._kernel, self._statics(group), self._complex_as_real)
        new_ps, new_sts = fn(hp, ps, gs, sts)
        for (p, state), np_, nst in zip(states, new_ps, new_sts):
            p._set_value(np_)
            for k, v in nst.items():
                old = state.get(k)
                if isinstance(old, Tensor):
                    dt, od = v.dtype, old._value.dtype  # (jax's dtype is a property: each read once)
                    if dt is not od and dt != od:
                        v = v.astype(od)
                    old._set_value(v)
                else:
                    if not state:
                        state = self.state[p]
                    t = state[k] = Tensor._wrap(v, p._dev)
                    g = p.grad  # (state made by the step, as SGD's momentum_buffer: torch's clone(grad))
                    if g is not None and _mfmt.needs_layout(g) and tuple(g.shape) == tuple(t.shape):
                        _mfmt.set_strides(t, _mfmt.preserve_strides(g))

    def step(self, closure=None):
        """Perform a single optimization step; ``closure`` re-evaluates the model and returns the loss."""
        loss = None
        if closure is not None:
            with grad_mode.enable_grad():
                loss = closure()
        with grad_mode.no_grad():
            if _prof.MODES and SHOWN_STEP[0] is not None and SHOWN_STEP[0](self):
                return loss   # a dispatch mode saw torch's aten calls of the step
            for group in self.param_groups:
                self._run_group(group)
        return loss


def _onto_param_device(st, p):
    """State arrays committed to another device than an accelerator parameter's, put on its device for the
    update: torch keeps a loaded ``step`` on the CPU, and one program cannot read arrays committed to two
    devices.  (The update's results are the parameter's device's from then on: one move per state.)"""
    keys = list(st)
    for k, v in zip(keys, commit_to([st[k] for k in keys], p._dev.jax_device(), moving=("committed",))):
        st[k] = v


# ---- kernel helpers ----------------------------------------------------------------------------
def c(x, like):
    """A (float64) scalar cast to ``like``'s dtype, as torch casts Python scalars into tensor ops."""
    dt = like.dtype
    if jnp.issubdtype(dt, jnp.complexfloating):
        return jnp.asarray(x).astype(dt)
    return jnp.asarray(x, dtype=dt) if not hasattr(x, "astype") else x.astype(dt)


def zeros_state(p):
    """New optimizer state: zeros shaped like ``p``, laid out like it (torch's
    ``zeros_like(p, memory_format=torch.preserve_format)``: a transposed parameter's moments are transposed).

    State is created concrete even inside a ``torchlike.compile`` trace, so the traced step reads it as
    lifted state (an input written back) rather than creating it: the first call's program is already
    the steady-state program and the second call does not retrace.
    """
    return full_state(p, 0)


def full_state(p, v, like=None):
    """New optimizer state filled with ``v``, laid out like ``p`` or ``like`` (Rprop's ``step_size``: torch's
    ``grad.new().resize_as_(grad)`` takes the gradient's layout)."""
    x = p._value
    t = _concrete(np.full(x.shape, v, x.dtype), p._dev)
    like = p if like is None else like
    if _mfmt.needs_layout(like):
        _mfmt.set_strides(t, _mfmt.preserve_strides(like))
    adapt = getattr(type(p), "_optimizer_state", None)  # a DTensor's state is a DTensor laid out like it
    return t if adapt is None else adapt(p, t)


def _scalar_dtype():
    """torch's ``_get_scalar_dtype()``: float64 when the default dtype is float64, else float32."""
    return np.float64 if _dtype.get_default_dtype() is _dtype.float64 else np.float32


def step_state(v=0.0):
    """torch's ``state['step']`` (and other scalar state): a 0-dim float32 (or float64) tensor."""
    return _scalar_tensor(v, _scalar_dtype())


def check_lr(lr, sgd=False):
    """torch's test of ``lr`` as given (a list or str is Python's TypeError from the comparison, as torch); SGD's
    is ``lr < 0.0`` (a NaN passes), the others' ``not 0.0 <= lr``."""
    if isinstance(lr, Tensor):
        if lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        lr_v = _float(lr)
    else:
        lr_v = lr
    if (lr_v < 0.0) if sgd else not 0.0 <= lr_v:
        raise ValueError(f"Invalid learning rate: {lr}")


# ---- constructor argument checks ---------------------------------------------------------------
# Each test takes the option exactly as the user passed it. torch words its checks two ways that differ
# for NaN: ``not 0.0 <= v`` rejects NaN, ``v < 0.0`` lets it through; the tests keep that difference.
def nonneg(v):
    """``0.0 <= v`` on the value as given (a NaN fails)."""
    return 0.0 <= v


def nonneg_f(v):
    """``0.0 <= v`` on the float value (float or 1-element Tensor; a NaN fails)."""
    return 0.0 <= _float(v)


def not_negative(v):
    """Only a value below zero fails (a NaN passes)."""
    return not v < 0.0


def not_negative_f(v):
    return not _float(v) < 0.0


def in_unit(v):
    """``0 <= v < 1`` on the float value (betas)."""
    return 0.0 <= _float(v) < 1.0


def check_options(*rules):
    """Validate constructor options in the order given. A rule is ``(label, value, test)``; the first value
    whose ``test`` is false raises torch's ``ValueError("Invalid <label>: <value>")``.

    >>> check_options(("epsilon value", 1e-8, nonneg), ("momentum value", -1, not_negative))
    Traceback (most recent call last):
    ...
    ValueError: Invalid momentum value: -1
    """
    for label, value, test in rules:
        if not test(value):
            raise ValueError(f"Invalid {label}: {value}")


def check_betas(betas):
    for i in (0, 1):  # one at a time: betas[1] is not looked at when betas[0] is already invalid
        check_options((f"beta parameter at index {i}", betas[i], in_unit))


def check_nonneg(value, what):
    check_options((what, value, nonneg_f))


def lerp(a, b, w):
    """torch's CPU ``a.lerp_(b, w)`` for a scalar weight (same two-branch formula, same rounding)."""
    wd = c(w, a)
    return jnp.where(jnp.abs(wd) < 0.5, a + wd * (b - a), b - (b - a) * (1 - wd))


def f32(x):
    return jnp.asarray(x, dtype=jnp.float32)
