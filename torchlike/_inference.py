"""Inference tensors in autograd: torch's rules for ops that meet them outside inference mode.

torch records no op whose tensor arguments are all inference tensors (they carry no autograd key), refuses to
save one for backward, and refuses an in-place write to one (``Tensor._inference_write_check``, run here for
``_inplace_update``). These checks are hooked into the dispatcher and the in-place path the first time inference
mode is entered (``_grad_mode.inference_setup``), so a program that never enters it runs none of this code.

>>> import torchlike
>>> with torchlike.inference_mode():
...     t = torchlike.ones(2)
>>> t * torchlike.ones(2, requires_grad=True)
Traceback (most recent call last):
...
RuntimeError: Inference tensors cannot be saved for backward. Please do not use Tensors created in inference mode in computation tracked by autograd. To work around this, you can make a clone to get a normal tensor and use it in autograd, or use `torch.no_grad()` instead of `torch.inference_mode()`.
"""
from __future__ import annotations

from numbers import Number

import jax

from . import _dispatch, _grad_mode, _mutation, _tape
from ._grad_mode import InferenceVersion
from ._tensor_inference import SAVED_ERROR
from .tensor import Tensor

__all__ = ["install"]

_state = _grad_mode._state

# ops torch records although every tensor argument is an inference tensor: those whose overload takes a Python
# number as a (normal, wrapped) tensor (``W * 2`` records, ``W ** 2`` and ``W.clamp(0)``: Scalar arguments, do
# not), and clone (a ``copy_`` into a new normal tensor: torch's ``CopyBackwards``)
_WRAPS_NUMBERS = frozenset(("AddBackward0", "SubBackward0", "RsubBackward1", "MulBackward0", "DivBackward0"))
_COPIES = frozenset(("CloneBackward0",))


def _check_inplace(self, new):
    if type(self._ver) is InferenceVersion:
        self._inference_write_check()


def _reads(f, statics, arrays, diff_in, diff_out, k):
    """Whether the pullback of ``f`` for the inputs ``diff_in`` reads input ``k``'s value: whether torch's
    formula saves it (``_tape.pullback_reads``; only on the path where an inference tensor meets a recorded
    op)."""
    try:
        outs = jax.eval_shape(lambda *a: f(*a, **dict(statics)), *arrays)
    except Exception:  # (not traceable: say not read, so nothing raises that torch might not)
        return False
    outs = outs if isinstance(outs, (tuple, list)) else (outs,)
    meta = tuple((outs[j].shape, outs[j].dtype) for j in diff_out)
    try:  # (when it cannot tell: not read, so nothing raises that torch might not)
        return k in _tape.pullback_reads(f, statics, diff_in, diff_out, arrays, meta, unknown=frozenset())
    except Exception:  # noqa: BLE001
        return False


def _check_record(f, statics, args, arrays, diff_in, diff_out, name, saves, saved):
    """A ``_dispatch.record_checks`` check: None (record nothing) inside inference mode or when every tensor
    argument is an inference tensor; torch's error when an inference tensor would be saved; else the saved
    tensors to guard (inference tensors have no version to guard)."""
    if _state.inference:  # (enable_grad inside inference mode: torch records nothing either)
        return None
    for a in args:
        if isinstance(a, Tensor) and type(a._ver) is InferenceVersion:
            break
    else:
        return saved
    inference = [i for i, a in enumerate(args) if isinstance(a, Tensor) and type(a._ver) is InferenceVersion]
    with_numbers = sum(isinstance(a, Tensor) or (name in _WRAPS_NUMBERS and isinstance(a, Number)) for a in args)
    if len(inference) == with_numbers and name not in _COPIES:
        return None
    if (saves is True or saves is _dispatch.OTHERS or type(saves) is tuple) and any(_reads(f, statics, arrays, diff_in, diff_out, k) for k in inference):
        raise RuntimeError(SAVED_ERROR)
    return [e for e in saved if type(e[0]._ver) is not InferenceVersion]


def install():
    """Hook torch's autograd rules for inference tensors into dispatch and in-place writes (run once, the first
    time inference mode is entered)."""
    _mutation.on_inference_write.append(_check_inplace)
    _dispatch.record_checks.append(_check_record)


_grad_mode.inference_setup.append(install)
