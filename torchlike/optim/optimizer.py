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
import weakref
from collections import OrderedDict, defaultdict
from copy import deepcopy
from itertools import chain

import jax
import jax.numpy as jnp
import numpy as np

from ..compile._trace import lift_scalar

from .. import _dtype
from ..autograd import grad_mode
from ..tensor import Tensor

__all__ = ["Optimizer", "required", "register_optimizer_step_pre_hook", "register_optimizer_step_post_hook"]


class _RequiredParameter:
    """Singleton class representing a required parameter for an Optimizer."""

    def __repr__(self) -> str:
        return "<required parameter>"


required = _RequiredParameter()


class RemovableHandle:
    """A handle which provides the capability to remove a hook (torch.utils.hooks.RemovableHandle)."""

    next_id = 0

    def __init__(self, hooks_dict):
        self.hooks_dict_ref = weakref.ref(hooks_dict)
        self.id = RemovableHandle.next_id
        RemovableHandle.next_id += 1

    def remove(self):
        d = self.hooks_dict_ref()
        if d is not None and self.id in d:
            del d[self.id]

    def __enter__(self):
        return self

    def __exit__(self, *a):
        self.remove()


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


class Optimizer:
    r"""Base class for all optimizers.

    Args:
        params (iterable): an iterable of Tensors or dicts (parameter groups) or (name, Tensor) pairs.
        defaults (dict): default values of optimization options.
    """

    def __init__(self, params, defaults):
        self.defaults = defaults
        self._optimizer_step_pre_hooks = OrderedDict()
        self._optimizer_step_post_hooks = OrderedDict()
        self._optimizer_state_dict_pre_hooks = OrderedDict()
        self._optimizer_state_dict_post_hooks = OrderedDict()
        self._optimizer_load_state_dict_pre_hooks = OrderedDict()
        self._optimizer_load_state_dict_post_hooks = OrderedDict()
        self._patch_step_function()
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of Tensors or dicts, "
                            "but got " + params.type())
        self.state = defaultdict(dict)
        self.param_groups = []
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for param_group in param_groups:
            self.add_param_group(param_group)
        self._warned_capturable_if_run_uncaptured = True

    def __getstate__(self):
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    def __setstate__(self, state):
        self.__dict__.update(state)
        for name in ("_optimizer_step_pre_hooks", "_optimizer_step_post_hooks", "_optimizer_state_dict_pre_hooks",
                     "_optimizer_state_dict_post_hooks", "_optimizer_load_state_dict_pre_hooks",
                     "_optimizer_load_state_dict_post_hooks"):
            if name not in self.__dict__:
                setattr(self, name, OrderedDict())
        self._patch_step_function()
        self.defaults.setdefault("differentiable", False)

    def __repr__(self):
        format_string = self.__class__.__name__ + " ("
        for i, group in enumerate(self.param_groups):
            format_string += "\n"
            format_string += f"Parameter Group {i}\n"
            for key in sorted(group.keys()):
                if key != "params":
                    format_string += f"    {key}: {group[key]}\n"
        format_string += ")"
        return format_string

    # ---- step hooks ------------------------------------------------------------------------------
    def _optimizer_step_code(self):
        """Entry point for step-profiling hooks (kept for API compatibility)."""

    @staticmethod
    def profile_hook_step(func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            self, *_ = args
            for pre_hook in chain(_global_optimizer_pre_hooks.values(), self._optimizer_step_pre_hooks.values()):
                result = pre_hook(self, args, kwargs)
                if result is not None:
                    if isinstance(result, tuple) and len(result) == 2:
                        args, kwargs = result
                    else:
                        raise RuntimeError(f"{func} must return None or a tuple of (new_args, new_kwargs), "
                                           f"but got {result}.")
            out = func(*args, **kwargs)
            self._optimizer_step_code()
            for post_hook in chain(self._optimizer_step_post_hooks.values(), _global_optimizer_post_hooks.values()):
                post_hook(self, args, kwargs)
            return out
        return wrapper

    def _patch_step_function(self):
        self._zero_grad_profile_name = f"Optimizer.zero_grad#{self.__class__.__name__}.zero_grad"
        hooked = getattr(self.__class__.step, "hooked", None)
        if not hooked:
            self.__class__.step = self.profile_hook_step(self.__class__.step)
            self.__class__.step.hooked = True

    def register_step_pre_hook(self, hook):
        """Register ``hook(optimizer, args, kwargs) -> None or (args, kwargs)`` run before ``step``."""
        handle = RemovableHandle(self._optimizer_step_pre_hooks)
        self._optimizer_step_pre_hooks[handle.id] = hook
        return handle

    def register_step_post_hook(self, hook):
        """Register ``hook(optimizer, args, kwargs) -> None`` run after ``step``."""
        handle = RemovableHandle(self._optimizer_step_post_hooks)
        self._optimizer_step_post_hooks[handle.id] = hook
        return handle

    def _register(self, table, hook, prepend):
        handle = RemovableHandle(table)
        table[handle.id] = hook
        if prepend:
            table.move_to_end(handle.id, last=False)
        return handle

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
        for pre_hook in self._optimizer_state_dict_pre_hooks.values():
            pre_hook(self)
        param_mappings = {}
        start_index = 0

        def pack_group(group):
            nonlocal start_index
            packed = {k: v for k, v in group.items() if k != "params"}
            param_mappings.update({id(p): i for i, p in enumerate(group["params"], start_index)
                                   if id(p) not in param_mappings})
            packed["params"] = [param_mappings[id(p)] for p in group["params"]]
            start_index += len(packed["params"])
            return packed

        param_groups = [pack_group(g) for g in self.param_groups]
        packed_state = {(param_mappings[id(k)] if isinstance(k, Tensor) else k): v for k, v in self.state.items()}
        state_dict = {"state": packed_state, "param_groups": param_groups}
        for post_hook in self._optimizer_state_dict_post_hooks.values():
            hook_result = post_hook(self, state_dict)
            if hook_result is not None:
                state_dict = hook_result
        return state_dict

    @staticmethod
    def _process_value_according_to_param_policy(param, value, param_id, param_groups, key=None):
        fused = capturable = False
        for pg in param_groups:
            if param_id in pg["params"]:
                fused = pg.get("fused", False)
                capturable = pg.get("capturable", False)
                break
        if key == "step":
            if capturable or fused:
                return value.to(dtype=_dtype.float32)
            return value
        if param.is_floating_point():
            return value.to(dtype=param.dtype)
        return value

    def load_state_dict(self, state_dict):
        """Load an optimizer state produced by :meth:`state_dict` (also one converted from real torch)."""
        state_dict = state_dict.copy()
        for pre_hook in self._optimizer_load_state_dict_pre_hooks.values():
            hook_result = pre_hook(self, state_dict)
            if hook_result is not None:
                state_dict = hook_result
        groups = self.param_groups
        saved_groups = deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match the size of "
                             "optimizer's group")
        id_map = dict(zip(chain.from_iterable(g["params"] for g in saved_groups),
                          chain.from_iterable(g["params"] for g in groups)))

        def _cast(param, value, param_id=None, param_groups=None, key=None):
            if isinstance(value, Tensor):
                return Optimizer._process_value_according_to_param_policy(param, value, param_id, param_groups, key)
            if isinstance(value, dict):
                return {k: _cast(param, v, param_id=param_id, param_groups=param_groups, key=k)
                        for k, v in value.items()}
            if isinstance(value, (list, tuple)):
                return type(value)(_cast(param, v, param_id=param_id, param_groups=param_groups) for v in value)
            return value

        state = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k in id_map:
                param = id_map[k]
                state[param] = _cast(param, v, param_id=k, param_groups=state_dict["param_groups"])
            else:
                state[k] = v

        def update_group(group, new_group):
            new_group["params"] = group["params"]
            if "param_names" in group and "param_names" not in new_group:
                new_group["param_names"] = group["param_names"]
            return new_group

        param_groups = [update_group(g, ng) for g, ng in zip(groups, saved_groups)]
        self.__setstate__({"state": state, "param_groups": param_groups})
        for post_hook in self._optimizer_load_state_dict_post_hooks.values():
            post_hook(self)

    # ---- grads and groups ------------------------------------------------------------------------
    def zero_grad(self, set_to_none: bool = True):
        """Reset the gradients of all optimized tensors (to None by default)."""
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is not None:
                    if set_to_none:
                        p.grad = None
                    else:
                        g = p.grad
                        if g.grad_fn is not None:
                            g = g.detach()
                            p.grad = g
                        else:
                            g.requires_grad_(False)
                        g._set_value(jnp.zeros_like(g._value))

    def step(self, closure=None):
        r"""Perform a single optimization step (to be overridden by subclasses)."""
        raise NotImplementedError

    def add_param_group(self, param_group):
        """Add a param group to the optimizer's ``param_groups`` (fills in defaults)."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, but the ordering "
                            "of tensors in sets will change between runs. Please use a list instead.")
        else:
            param_group["params"] = list(params)
        tensors, names = [], []
        for param in param_group["params"]:
            if isinstance(param, tuple):
                names.append(param[0])
                tensors.append(param[1])
            else:
                tensors.append(param)
        param_group["params"] = tensors
        if names:
            if len(names) == len(tensors):
                param_group["param_names"] = names
            else:
                raise ValueError("all optimizer params should be with/without names. Some param names are missing")
        for param in param_group["params"]:
            if not isinstance(param, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is "
                                + type(param).__module__.replace("builtins", "").lstrip(".")
                                + ("." if type(param).__module__ != "builtins" else "") + type(param).__name__)
            if not self.defaults.get("differentiable", None) and not (param.is_leaf or param.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(f"parameter group didn't specify a value of required optimization parameter "
                                 f"{name}")
            param_group.setdefault(name, default)
        params = param_group["params"]
        if len(params) != len({id(p) for p in params}):
            warnings.warn("optimizer contains a parameter group with duplicate parameters; in future, this will "
                          "cause an error; see github.com/pytorch/pytorch/issues/40967 for more information",
                          stacklevel=3)
        param_set = set()
        for group in self.param_groups:
            param_set.update(id(p) for p in group["params"])
            if ("param_names" in param_group) != ("param_names" in group):
                txt = "with names" if "param_names" in param_group else "without names"
                raise ValueError("all optimizer param groups should be with/without names. "
                                 f"cannot add param group {txt} to the optimizer")
        if not param_set.isdisjoint({id(p) for p in param_group["params"]}):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)


# ---- the fused engine --------------------------------------------------------------------------
_jit_cache: dict = {}


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

        fn = _jit_cache[key] = jax.jit(run)
    return fn


class _FusedOptimizer(Optimizer):
    """An optimizer whose update is ``_kernel`` applied to all of a group's params in one jit call.

    Subclasses define ``_kernel`` (module-level pure function), ``_init_state(p, group)`` (dict of
    Tensors in torch's key order), ``_hparams(group)`` (dict of floats) and ``_statics(group)``.
    """

    _complex_as_real = True
    _name = "Optimizer"

    def _check_grad(self, p, group):
        if p.grad.is_sparse:
            raise RuntimeError(f"{self._name} does not support sparse gradients")

    def _statics(self, group):
        return ()

    def _run_group(self, group):
        ps, gs, sts, states = [], [], [], []
        for p in group["params"]:
            if p.grad is None:
                continue
            self._check_grad(p, group)
            state = self.state.get(p)
            if not state:
                # like torch, a param only gets a state entry once the optimizer puts something in it
                init = self._init_state(p, group)
                if init:
                    state = self.state[p]
                    state.update(init)
                else:
                    state = {}
            ps.append(p._value)
            gs.append(p.grad._value)
            sts.append({k: v._value for k, v in state.items() if isinstance(v, Tensor)})
            states.append((p, state))
        if not ps:
            return
        # hyperparameters are dynamic inputs, also under torchlike.compile (no recompiles when lr changes)
        hp = {k: lift_scalar((id(group), k), lambda k=k, g=group: self._hparams(g)[k])
              for k in self._hparams(group)}
        fn = _group_fn(type(self)._kernel, self._statics(group), self._complex_as_real)
        new_ps, new_sts = fn(hp, ps, gs, sts)
        for (p, state), np_, nst in zip(states, new_ps, new_sts):
            p._set_value(np_)
            for k, v in nst.items():
                old = state.get(k)
                if isinstance(old, Tensor):
                    if v.dtype != old._value.dtype:
                        v = v.astype(old._value.dtype)
                    old._set_value(v)
                else:
                    if not state:
                        state = self.state[p]
                    state[k] = Tensor._wrap(v, p._dev)

    def step(self, closure=None):
        """Perform a single optimization step; ``closure`` re-evaluates the model and returns the loss."""
        loss = None
        if closure is not None:
            with grad_mode.enable_grad():
                loss = closure()
        with grad_mode.no_grad():
            for group in self.param_groups:
                self._run_group(group)
        return loss


# ---- kernel helpers ----------------------------------------------------------------------------
def c(x, like):
    """A (float64) scalar cast to ``like``'s dtype, as torch casts Python scalars into tensor ops."""
    dt = like.dtype
    if jnp.issubdtype(dt, jnp.complexfloating):
        return jnp.asarray(x).astype(dt)
    return jnp.asarray(x, dtype=dt) if not hasattr(x, "astype") else x.astype(dt)


def zeros_state(p):
    """New optimizer state: zeros shaped like ``p``.

    State is created concrete even inside a ``torchlike.compile`` trace, so the traced step reads it as
    lifted state (an input written back) rather than creating it: the first call's program is already
    the steady-state program and the second call does not retrace.
    """
    return full_state(p, 0)


def full_state(p, v):
    x = p._value
    return _concrete(np.full(x.shape, v, x.dtype), p._dev)


def _scalar_dtype():
    """torch's ``_get_scalar_dtype()``: float64 when the default dtype is float64, else float32."""
    return np.float64 if _dtype.get_default_dtype() is _dtype.float64 else np.float32


def step_state(v=0.0):
    """torch's ``state['step']`` (and other scalar state): a 0-dim float32 (or float64) tensor."""
    return _scalar_tensor(v, _scalar_dtype())


def check_lr(lr):
    if isinstance(lr, Tensor) and lr.numel() != 1:
        raise ValueError("Tensor lr must be 1-element")
    if not 0.0 <= _float(lr):
        raise ValueError(f"Invalid learning rate: {lr}")


def check_betas(betas):
    if not 0.0 <= _float(betas[0]) < 1.0:
        raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
    if not 0.0 <= _float(betas[1]) < 1.0:
        raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")


def check_nonneg(value, what):
    if not 0.0 <= _float(value):
        raise ValueError(f"Invalid {what}: {value}")


def lerp(a, b, w):
    """torch's CPU ``a.lerp_(b, w)`` for a scalar weight (same two-branch formula, same rounding)."""
    wd = c(w, a)
    return jnp.where(jnp.abs(wd) < 0.5, a + wd * (b - a), b - (b - a) * (1 - wd))


def f32(x):
    return jnp.asarray(x, dtype=jnp.float32)
