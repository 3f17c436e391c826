"""GradScaler: dynamic loss scaling for float16 training (torch.amp.GradScaler).

The scale and growth tracker are tensors updated with tensor ops, so a whole training step with
``scale(loss).backward(); step(opt); update()`` also compiles: inside ``torchlike.compile`` the skip on
inf/nan is a select between the stepped and the previous parameters and optimizer state instead of a
Python branch on ``found_inf.item()``.
"""
from __future__ import annotations

import warnings
from collections import defaultdict
from enum import Enum

from .. import _creation, _dtype
from .. import _grad_mode as grad_mode
from .._creation import zeros_like
from ..compile import is_compiling
from ..tensor import Tensor
from .._device import _gpus  # (torch.cuda.is_available(): JAX sees a GPU)

__all__ = ["GradScaler", "OptState"]


class OptState(Enum):
    """Where an optimizer is in GradScaler's step: READY, UNSCALED or STEPPED (torch's enum).

    >>> OptState.UNSCALED.value
    1
    """

    READY = 0
    UNSCALED = 1
    STEPPED = 2


def _fresh():
    return {"stage": OptState.READY, "found_inf_per_device": {}}


class GradScaler:
    """Scale the loss so float16 gradients don't underflow; skip steps whose gradients overflowed.

    >>> import torchlike
    >>> m = torchlike.nn.Linear(2, 1)
    >>> opt = torchlike.optim.SGD(m.parameters(), lr=0.1)
    >>> scaler = torchlike.amp.GradScaler("cpu", init_scale=1024.0)
    >>> scaler.scale(m(torchlike.ones(1, 2)).sum()).backward()
    >>> scaler.step(opt)
    >>> scaler.update()
    >>> scaler.get_scale()
    1024.0
    """

    def __init__(self, device="cuda", init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5,
                 growth_interval=2000, enabled=True):
        self._device = device
        self._enabled = enabled
        if enabled and device == "cuda":
            if not _gpus():
                warnings.warn("torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling.")
                self._enabled = False
        if self._enabled:
            if growth_factor <= 1.0:
                raise AssertionError("The growth factor must be > 1.0.")
            if backoff_factor >= 1.0:
                raise AssertionError("The backoff factor must be < 1.0.")
        self._init_scale = init_scale
        self._scale = None
        self._growth_factor = growth_factor
        self._backoff_factor = backoff_factor
        self._growth_interval = growth_interval
        self._init_growth_tracker = 0
        self._growth_tracker = None
        self._per_optimizer_states = defaultdict(_fresh)

    def _lazy_init(self):
        self._scale = _creation.full((), float(self._init_scale), dtype=_dtype.float32)
        self._growth_tracker = _creation.full((), self._init_growth_tracker, dtype=_dtype.int32)

    def is_enabled(self):
        return self._enabled

    def scale(self, outputs):
        """``outputs`` (a tensor or an iterable of tensors) multiplied by the scale factor."""
        if not self._enabled:
            return outputs
        if self._scale is None:
            self._lazy_init()
        if isinstance(outputs, Tensor):
            return outputs * self._scale
        if isinstance(outputs, (list, tuple)):
            return type(outputs)(self.scale(o) for o in outputs)
        if hasattr(outputs, "__iter__"):
            return map(self.scale, outputs)
        raise ValueError("outputs must be a Tensor or an iterable of Tensors")

    def _unscale_grads_(self, optimizer, inv_scale, allow_fp16):
        found = _creation.zeros((), dtype=_dtype.float32)
        with grad_mode.no_grad():
            for group in optimizer.param_groups:
                for p in group["params"]:
                    g = p.grad
                    if g is None:
                        continue
                    if not allow_fp16 and g.dtype is _dtype.float16:
                        raise ValueError("Attempting to unscale FP16 gradients.")
                    g.mul_(inv_scale.to(g.dtype) if g.dtype.is_floating_point else inv_scale)
                    found = found.maximum((~g.isfinite()).any().to(_dtype.float32))
        return found

    def unscale_(self, optimizer):
        """Divide ``optimizer``'s gradients by the scale (once per step), recording whether any is inf/nan."""
        if not self._enabled:
            return
        if self._scale is None:
            self._lazy_init()
        state = self._per_optimizer_states[id(optimizer)]
        if state["stage"] is OptState.UNSCALED:
            raise RuntimeError("unscale_() has already been called on this optimizer since the last update().")
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        inv_scale = self._scale.to(_dtype.float64).reciprocal().to(_dtype.float32)
        state["found_inf_per_device"] = {str(self._device): self._unscale_grads_(optimizer, inv_scale, False)}
        state["stage"] = OptState.UNSCALED

    def step(self, optimizer, *args, **kwargs):
        """``optimizer.step()`` unless the (unscaled) gradients contain inf/nan; returns its result."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is enabled.")
        if self._scale is None:
            self._lazy_init()
        state = self._per_optimizer_states[id(optimizer)]
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if state["stage"] is OptState.READY:
            self.unscale_(optimizer)
        if not state["found_inf_per_device"]:
            raise AssertionError("No inf checks were recorded for this optimizer.")
        found = sum(v for v in state["found_inf_per_device"].values())
        if is_compiling():
            retval = _select_step(optimizer, found, args, kwargs)
        else:
            retval = None if found.item() else optimizer.step(*args, **kwargs)
        state["stage"] = OptState.STEPPED
        return retval

    def update(self, new_scale=None):
        """Set the next scale: back off after an overflow, grow after ``growth_interval`` clean steps."""
        if not self._enabled:
            return
        if self._scale is None:
            self._lazy_init()
        with grad_mode.no_grad():
            if new_scale is not None:
                if isinstance(new_scale, float):
                    self._scale.fill_(new_scale)
                else:
                    # torch's three asserts (device type, one element, no grad); the dtype is left to copy_
                    if not (isinstance(new_scale, Tensor) and new_scale.device.type == self._device
                            and new_scale.numel() == 1 and new_scale.requires_grad is False):
                        raise AssertionError("new_scale should be a float or a 1-element torch.cuda.FloatTensor or "
                                             "torch.FloatTensor with requires_grad=False.")
                    self._scale.copy_(new_scale)  # (as torch: a [1] tensor fails the 0-d copy)
            else:
                found = [v for s in self._per_optimizer_states.values() for v in s["found_inf_per_device"].values()]
                if not found:
                    raise AssertionError("No inf checks were recorded prior to update.")
                inf = sum(found) > 0
                tracker = (self._growth_tracker + 1).where(~inf, 0)
                grow = tracker == self._growth_interval
                scale = self._scale * (self._backoff_factor * inf + (~inf) * (1.0 + (self._growth_factor - 1.0) * grow))
                self._scale.copy_(scale.to(_dtype.float32))
                self._growth_tracker.copy_(tracker.where(~grow, 0).to(_dtype.int32))
        self._per_optimizer_states = defaultdict(_fresh)

    def _get_scale_async(self):
        return self._scale

    def get_scale(self):
        if not self._enabled:
            return 1.0
        return float(self._init_scale) if self._scale is None else self._scale.item()

    def get_growth_factor(self):
        return self._growth_factor

    def set_growth_factor(self, new_factor):
        self._growth_factor = new_factor

    def get_backoff_factor(self):
        return self._backoff_factor

    def set_backoff_factor(self, new_factor):
        self._backoff_factor = new_factor

    def get_growth_interval(self):
        return self._growth_interval

    def set_growth_interval(self, new_interval):
        self._growth_interval = new_interval

    def _get_growth_tracker(self):
        if not self._enabled:
            return 0
        return self._init_growth_tracker if self._growth_tracker is None else int(self._growth_tracker.item())

    def state_dict(self):
        if not self._enabled:
            return {}
        return {"scale": self.get_scale(), "growth_factor": self._growth_factor,
                "backoff_factor": self._backoff_factor, "growth_interval": self._growth_interval,
                "_growth_tracker": self._get_growth_tracker()}

    def load_state_dict(self, state_dict):
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError("The source state dict is empty, possibly because it was saved from a disabled "
                               "instance of GradScaler.")
        self._init_scale = state_dict["scale"]
        if self._scale is not None:
            self._scale.fill_(state_dict["scale"])
        self._growth_factor = state_dict["growth_factor"]
        self._backoff_factor = state_dict["backoff_factor"]
        self._growth_interval = state_dict["growth_interval"]
        self._init_growth_tracker = state_dict["_growth_tracker"]
        if self._growth_tracker is not None:
            self._growth_tracker.fill_(state_dict["_growth_tracker"])

    def __getstate__(self):
        state = self.__dict__.copy()
        state["_per_optimizer_states"] = dict(state["_per_optimizer_states"])
        return state

    def __setstate__(self, state):
        per = state.pop("_per_optimizer_states", {})
        self.__dict__.update(state)
        self._per_optimizer_states = defaultdict(_fresh, per)


def _state_tensors(optimizer):
    out = {}
    for p, st in optimizer.state.items():
        for k, v in st.items():
            if isinstance(v, Tensor):
                out[(id(p), k)] = v
    return out


def _select_step(optimizer, found, args, kwargs):
    """A traced ``optimizer.step()`` whose effect is undone where ``found`` (inf/nan) is set."""
    params = [p for g in optimizer.param_groups for p in g["params"]]
    with grad_mode.no_grad():
        before = [p.detach().clone() for p in params]
        old_state = {k: v.detach().clone() for k, v in _state_tensors(optimizer).items()}
    retval = optimizer.step(*args, **kwargs)
    skip = found > 0
    with grad_mode.no_grad():
        for p, old in zip(params, before):
            p.copy_(old.where(skip, p))
        for k, v in _state_tensors(optimizer).items():
            old = old_state.get(k)
            v.copy_((old if old is not None else zeros_like(v)).where(skip, v))
    return retval
