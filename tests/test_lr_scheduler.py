"""torchlike.optim.lr_scheduler against torch.optim.lr_scheduler: identical lr (and momentum) sequences."""
import math
import warnings

import pytest
import torch

import torchlike as tl


def _opt(lib, opt="SGD", **okw):
    p = lib.zeros(2, requires_grad=True)
    p2 = lib.zeros(1, requires_grad=True)
    lr = okw.pop("lr", 0.1)
    return getattr(lib.optim, opt)([{"params": [p]}, {"params": [p2], "lr": 0.05}], lr=lr, **okw)


CASES = [
    ("LambdaLR", dict(lr_lambda=lambda e: 0.95 ** e), {}),
    ("MultiplicativeLR", dict(lr_lambda=lambda e: 0.9), {}),
    ("StepLR", dict(step_size=3, gamma=0.5), {}),
    ("MultiStepLR", dict(milestones=[2, 5, 5, 9], gamma=0.3), {}),
    ("ConstantLR", dict(factor=0.25, total_iters=4), {}),
    ("LinearLR", dict(start_factor=0.1, end_factor=0.9, total_iters=7), {}),
    ("ExponentialLR", dict(gamma=0.9), {}),
    ("PolynomialLR", dict(total_iters=10, power=2.0), {}),
    ("CosineAnnealingLR", dict(T_max=7, eta_min=0.001), {}),
    ("CosineAnnealingWarmRestarts", dict(T_0=4, T_mult=2, eta_min=0.01), {}),
    ("CyclicLR", dict(base_lr=0.01, max_lr=0.1, step_size_up=3), dict(momentum=0.9)),
    ("CyclicLR", dict(base_lr=0.01, max_lr=0.1, step_size_up=3, mode="triangular2"), dict(momentum=0.9)),
    ("CyclicLR", dict(base_lr=0.01, max_lr=0.1, step_size_up=3, step_size_down=5, mode="exp_range", gamma=0.9),
     dict(momentum=0.9)),
    ("CyclicLR", dict(base_lr=0.01, max_lr=0.1, step_size_up=4, cycle_momentum=False), dict(opt="Adam")),
    ("CyclicLR", dict(base_lr=0.01, max_lr=0.1, step_size_up=4), dict(opt="Adam")),
    ("OneCycleLR", dict(max_lr=0.5, total_steps=31), dict(momentum=0.9)),
    ("OneCycleLR", dict(max_lr=[0.5, 0.2], epochs=3, steps_per_epoch=11, anneal_strategy="linear", three_phase=True),
     dict(opt="Adam")),
]


def _seq(lib, name, kw, okw, n=30):
    o = _opt(lib, **dict(okw))
    s = getattr(lib.optim.lr_scheduler, name)(o, **kw)
    out = []
    for _ in range(n):
        o.step()
        s.step()
        out.append(list(s.get_last_lr()) + [g.get("momentum", g.get("betas", (0,))[0]) for g in o.param_groups])
    return out, s


@pytest.mark.parametrize("name,kw,okw", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_sequences_match_torch(name, kw, okw):
    a, ts = _seq(torch, name, kw, okw)
    b, ls = _seq(tl, name, kw, okw)
    for x, y in zip(a, b):
        assert all(math.isclose(u, v, rel_tol=1e-12, abs_tol=1e-15) for u, v in zip(x, y)), (x, y)
    tsd, lsd = ts.state_dict(), ls.state_dict()
    assert set(tsd) == set(lsd)
    assert tsd["last_epoch"] == lsd["last_epoch"] and tsd["base_lrs"] == lsd["base_lrs"]


@pytest.mark.parametrize("kw", [dict(), dict(mode="max", factor=0.5, patience=2, threshold_mode="abs", cooldown=1,
                                             min_lr=0.01, eps=1e-4)])
def test_reduce_on_plateau(kw):
    out = []
    for lib in (torch, tl):
        o = _opt(lib)
        s = lib.optim.lr_scheduler.ReduceLROnPlateau(o, **kw)
        seq = []
        for i in range(40):
            o.step()
            s.step(1.0 / (1 + i % 7))
            seq.append(tuple(s.get_last_lr()))
        out.append(seq)
    assert out[0] == out[1]


def test_sequential_and_chained():
    out = []
    for lib in (torch, tl):
        L = lib.optim.lr_scheduler
        o, o2 = _opt(lib), _opt(lib)
        s = L.SequentialLR(o, [L.LinearLR(o, 0.1, total_iters=5), L.CosineAnnealingLR(o, T_max=10)], milestones=[5])
        s2 = L.ChainedScheduler([L.ExponentialLR(o2, 0.9), L.StepLR(o2, 3, 0.5)])
        seq = []
        for _ in range(30):
            o.step()
            s.step()
            o2.step()
            s2.step()
            seq.append(tuple(s.get_last_lr()) + tuple(s2.get_last_lr()))
        out.append(seq)
    for x, y in zip(*out):
        assert all(math.isclose(u, v, rel_tol=1e-12) for u, v in zip(x, y))


def test_step_order_warning_and_state_dict():
    o = _opt(tl)
    s = tl.optim.lr_scheduler.StepLR(o, 2)
    with pytest.warns(UserWarning, match="Detected call of `lr_scheduler.step\\(\\)` before `optimizer.step\\(\\)`"):
        s.step()
    o = _opt(tl)
    s = tl.optim.lr_scheduler.StepLR(o, 2, gamma=0.5)
    for _ in range(5):
        o.step()
        s.step()
    o2 = _opt(tl)
    s2 = tl.optim.lr_scheduler.StepLR(o2, 7)
    s2.load_state_dict(s.state_dict())
    assert s2.last_epoch == 5 and s2.step_size == 2 and s2.get_last_lr() == s.get_last_lr()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        o.step()
        s.step()


def test_tensor_lr_is_filled_in_place():
    p = tl.zeros(2, requires_grad=True)
    lr = tl.tensor(0.1)
    o = tl.optim.SGD([p], lr=lr)
    s = tl.optim.lr_scheduler.ExponentialLR(o, gamma=0.5)
    o.step()
    s.step()
    assert o.param_groups[0]["lr"] is lr
    assert math.isclose(float(lr), 0.05, rel_tol=1e-6)
