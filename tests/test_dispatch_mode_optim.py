"""Optimizer steps under a ``TorchDispatchMode``: the aten calls (and their arguments) of ``SGD``, ``Adam`` and
``AdamW`` steps and of ``zero_grad`` equal torch 2.13's for ``foreach=None``/``False`` (torch's for-loop path on
CPU) and ``foreach=True`` (its ``_foreach_`` path), and the parameters after the steps equal torch's."""
import numpy as np
import pytest

import torchlike
from torchlike.utils import _python_dispatch as pd

torch = pytest.importorskip("torch")
from torch.utils import _python_dispatch as torch_pd  # noqa: E402

_CONFIGS = {"sgd": ("SGD", {"lr": 0.1}),
            "sgd_momentum_wd": ("SGD", {"lr": 0.1, "momentum": 0.9, "weight_decay": 0.1, "dampening": 0.1}),
            "sgd_nesterov": ("SGD", {"lr": 0.1, "momentum": 0.9, "nesterov": True}),
            "sgd_maximize_wd": ("SGD", {"lr": 0.1, "weight_decay": 0.1, "maximize": True}),
            "adam": ("Adam", {}),
            "adam_wd_maximize": ("Adam", {"weight_decay": 0.1, "maximize": True}),
            "adamw": ("AdamW", {"lr": 0.01})}


def _summary(a):
    if hasattr(a, "shape") and hasattr(a, "dtype") and not isinstance(a, (int, float)):
        return ("T", tuple(a.shape), str(a.dtype).split(".")[-1])
    if isinstance(a, (list, tuple)):
        return [_summary(x) for x in a]
    if isinstance(a, float):
        return round(a, 12)
    if type(a).__name__ in ("ScriptObject", "_RecordHandle"):   # record_function's handle
        return "handle"
    if isinstance(a, (int, str, bool)) or a is None:
        return a
    return str(a)


def _log(base):
    class Log(base):
        def __init__(self):
            super().__init__()
            self.ops = []

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            kw = kwargs or {}
            self.ops.append((str(func), _summary(list(args)), {k: _summary(v) for k, v in kw.items()}))
            return func(*args, **kw)
    return Log


def _train(tl, base, name, foreach, set_to_none=True):
    cls, options = _CONFIGS[name]
    tl.manual_seed(0)
    model = tl.nn.Linear(3, 2)
    opt = getattr(tl.optim, cls)(model.parameters(), foreach=foreach, **options)
    x = tl.randn(4, 3)
    with _log(base)() as m:
        for _ in range(3):
            opt.zero_grad(set_to_none=set_to_none)
            model(x).pow(2).sum().backward()
            opt.step()
    return m.ops, [p.detach().numpy().copy() for p in model.parameters()]


@pytest.mark.parametrize("foreach", [None, False, True])
@pytest.mark.parametrize("name", list(_CONFIGS))
def test_optimizer_steps_are_torchs_aten_calls(name, foreach):
    ours, theirs = _train(torchlike, pd.TorchDispatchMode, name, foreach), \
        _train(torch, torch_pd.TorchDispatchMode, name, foreach)
    assert ours[0] == theirs[0]
    for a, b in zip(ours[1], theirs[1]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("foreach", [False, True])
def test_zero_grad_without_set_to_none_is_torchs_zero_calls(foreach):
    ours, theirs = _train(torchlike, pd.TorchDispatchMode, "sgd_momentum_wd", foreach, set_to_none=False), \
        _train(torch, torch_pd.TorchDispatchMode, "sgd_momentum_wd", foreach, set_to_none=False)
    assert ours[0] == theirs[0]
    assert ("aten._foreach_zero_.default" if foreach else "aten.zero_.default") in [c[0] for c in ours[0]]
    for a, b in zip(ours[1], theirs[1]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_an_optimizer_not_shown_keeps_its_compiled_step():
    """RMSprop is not run as aten calls: the mode sees none of its step, and the step still updates."""
    p = torchlike.nn.Parameter(torchlike.ones(3))
    p.grad = torchlike.ones(3)
    opt = torchlike.optim.RMSprop([p], lr=0.1)
    with _log(pd.TorchDispatchMode)() as m:
        opt.step()
    tp = torch.nn.Parameter(torch.ones(3))
    tp.grad = torch.ones(3)
    torch.optim.RMSprop([tp], lr=0.1).step()
    assert m.ops == []
    np.testing.assert_allclose(p.detach().numpy(), tp.detach().numpy(), rtol=1e-6)
