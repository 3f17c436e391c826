"""torchlike.optim.lr_scheduler against torch.optim.lr_scheduler: identical lr (and momentum) sequences."""
import functools
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


# ---------------------------------------------------------------- closed forms, resuming, checkpoints, errors

class _Halves:
    """A callable object: checkpoints keep its attributes."""

    def __init__(self):
        self.k = 0.5

    def __call__(self, x):
        return self.k ** x


MAKERS = {
    "Lambda": lambda L, o: L.LambdaLR(o, lambda e: 0.9 ** e),
    "LambdaObj": lambda L, o: L.LambdaLR(o, [_Halves(), _Halves()]),
    "Multiplicative": lambda L, o: L.MultiplicativeLR(o, lambda e: 0.95),
    "Step": lambda L, o: L.StepLR(o, 3, 0.5),
    "MultiStep": lambda L, o: L.MultiStepLR(o, [2, 4, 4, 9], 0.3),
    "Constant": lambda L, o: L.ConstantLR(o, 0.3, 4),
    "Linear": lambda L, o: L.LinearLR(o, 0.9, 0.1, 6),
    "Exponential": lambda L, o: L.ExponentialLR(o, 0.9),
    "Polynomial": lambda L, o: L.PolynomialLR(o, 8, 1.5),
    "Cosine": lambda L, o: L.CosineAnnealingLR(o, 5, 0.001),
    "WarmRestarts": lambda L, o: L.CosineAnnealingWarmRestarts(o, 3, 2, 0.001),
    "Cyclic": lambda L, o: L.CyclicLR(o, 0.01, [0.1, 0.2], 3, 2, mode="triangular2"),
    "CyclicExp": lambda L, o: L.CyclicLR(o, 0.01, 0.1, 3, mode="exp_range", gamma=0.95),
    "CyclicCustom": lambda L, o: L.CyclicLR(o, 0.01, 0.1, 3, scale_fn=_Halves(), scale_mode="iterations"),
    "OneCycle": lambda L, o: L.OneCycleLR(o, 0.5, total_steps=40),
    "Sequential": lambda L, o: L.SequentialLR(o, [L.LinearLR(o, 0.1, total_iters=3), L.ExponentialLR(o, 0.9),
                                                  L.StepLR(o, 2)], [3, 8]),
    "Chained": lambda L, o: L.ChainedScheduler([L.ExponentialLR(o, 0.9), L.CosineAnnealingLR(o, 6),
                                                L.MultiStepLR(o, [3, 7])]),
}


def _plain(v):
    """A state value with Tensors as floats (for comparing the two libraries' state_dicts)."""
    if hasattr(v, "item") and hasattr(v, "dtype"):
        return float(v.item())
    if isinstance(v, (list, tuple)):
        return [_plain(a) for a in v]
    if isinstance(v, dict):
        return {k: _plain(a) for k, a in v.items()}
    if isinstance(v, float):
        return round(v, 12)
    return "<fn>" if callable(v) else v


def _to_tl(v):
    if isinstance(v, torch.Tensor):
        return tl.tensor(v.numpy())
    if isinstance(v, list):
        return [_to_tl(a) for a in v]
    if isinstance(v, dict):
        return {k: _to_tl(a) for k, a in v.items()}
    return v


def _close_rows(a, b):
    for x, y in zip(a, b, strict=True):
        assert all(math.isclose(float(u), float(v), rel_tol=1e-11, abs_tol=1e-14) for u, v in zip(x, y)), (x, y)


@pytest.mark.parametrize("name", list(MAKERS))
def test_state_dict_layout_and_torch_checkpoint_roundtrip(name):
    """Same state_dict keys (in order) and values as torch; torch's checkpoint drives torchlike on identically."""
    libs = {}
    for lib in (torch, tl):
        o = _opt(lib, momentum=0.9)
        s = MAKERS[name](lib.optim.lr_scheduler, o)
        for _ in range(7):
            o.step()
            s.step()
        libs[lib] = (o, s)
    (to, ts), (lo, ls) = libs[torch], libs[tl]
    tsd, lsd = ts.state_dict(), ls.state_dict()
    assert list(tsd) == list(lsd)
    assert _plain(tsd) == _plain(lsd)
    assert [_plain({k: v for k, v in g.items() if k != "params"}) for g in to.param_groups] == \
        [_plain({k: v for k, v in g.items() if k != "params"}) for g in lo.param_groups]
    # a fresh torchlike scheduler restored from torch's checkpoint continues exactly like torch
    lo2 = _opt(tl, momentum=0.9)
    ls2 = MAKERS[name](tl.optim.lr_scheduler, lo2)
    ls2.load_state_dict(_to_tl(tsd))
    for tg, lg in zip(to.param_groups, lo2.param_groups):
        lg.update({k: _to_tl(v) for k, v in tg.items() if k != "params"})
    a, b = [], []
    for _ in range(8):
        to.step()
        ts.step()
        lo2.step()
        ls2.step()
        a.append(ts.get_last_lr())
        b.append(ls2.get_last_lr())
    _close_rows(a, b)


@pytest.mark.parametrize("name", ["Step", "MultiStep", "Constant", "Linear", "Exponential", "Polynomial", "Cosine",
                                  "Lambda", "Cyclic", "WarmRestarts", "OneCycle"])
def test_deprecated_epoch_argument_matches_torch(name):
    epochs = [1, 3, 2, 7, 8, 0, 5, 5, 2.5, 11] if name == "WarmRestarts" else [1, 3, 2, 7, 8, 0, 5, 5, 11, 20]
    rows = []
    for lib in (torch, tl):
        o = _opt(lib, momentum=0.9)
        s = MAKERS[name](lib.optim.lr_scheduler, o)
        out = []
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            for e in epochs:
                o.step()
                s.step(e)
                out.append(list(s.get_last_lr()))
        rows.append((out, [str(x.message) for x in w]))
    _close_rows(rows[0][0], rows[1][0])
    assert rows[0][1] == rows[1][1]


@pytest.mark.parametrize("name", ["Step", "MultiStep", "Constant", "Linear", "Exponential", "Polynomial", "Cosine",
                                  "Multiplicative", "WarmRestarts", "Cyclic", "OneCycle"])
def test_resume_with_last_epoch_matches_torch(name):
    rows = []
    for lib in (torch, tl):
        o = _opt(lib, momentum=0.9)
        for g in o.param_groups:
            g.update(initial_lr=g["lr"], max_lr=0.5, min_lr=1e-5, max_momentum=0.95, base_momentum=0.85)
        L = lib.optim.lr_scheduler
        resumed = type("L", (), {n: functools.partial(getattr(L, n), last_epoch=5) for n in L.__all__})
        s = MAKERS[name](resumed, o)
        out = [list(s.get_last_lr())]
        for _ in range(10):
            o.step()
            s.step()
            out.append(list(s.get_last_lr()) + [g["momentum"] for g in o.param_groups])
        rows.append(out)
    _close_rows(*rows)


@pytest.mark.parametrize("name", ["Exponential", "Linear", "Cosine", "CyclicExp", "OneCycle", "Sequential"])
def test_tensor_lr_sequences_match_torch(name):
    rows = []
    for lib in (torch, tl):
        p = lib.zeros(2, requires_grad=True)
        o = lib.optim.SGD([p], lr=lib.tensor(0.1), momentum=0.9)
        s = MAKERS[name](lib.optim.lr_scheduler, o)
        out = []
        for _ in range(12):
            o.step()
            s.step()
            assert all(isinstance(v, (torch.Tensor, tl.Tensor)) for v in s.get_last_lr())
            out.append([float(v) for v in s.get_last_lr()])
        rows.append(out)
    _close_rows(*rows)


def _adagrad(o):
    lib = torch if isinstance(o, torch.optim.Optimizer) else tl
    return lib.optim.Adagrad(o.param_groups[0]["params"])


_BAD = [
    lambda L, o: L.StepLR(object(), 2),
    lambda L, o: L.LambdaLR(o, [lambda e: 1]),
    lambda L, o: L.MultiplicativeLR(o, 3),
    lambda L, o: L.ConstantLR(o, 1.5),
    lambda L, o: L.LinearLR(o, 0),
    lambda L, o: L.LinearLR(o, 0.5, 2),
    lambda L, o: L.StepLR(o, 2, last_epoch=3),
    lambda L, o: L.SequentialLR(o, [], []),
    lambda L, o: L.SequentialLR(o, [L.StepLR(o, 2)], [1]),
    lambda L, o: L.SequentialLR(o, [L.StepLR(o, 2), L.ReduceLROnPlateau(o)], [1]),
    lambda L, o: L.SequentialLR(o, [L.StepLR(o, 2), 3], [1]),
    lambda L, o: L.ChainedScheduler([]),
    lambda L, o: L.ReduceLROnPlateau(o, factor=1.0),
    lambda L, o: L.ReduceLROnPlateau(o, mode="avg"),
    lambda L, o: L.ReduceLROnPlateau(o, threshold_mode="x"),
    lambda L, o: L.ReduceLROnPlateau(o, min_lr=[0.1]),
    lambda L, o: L.CyclicLR(o, 0.1, 1.0, mode="foo"),
    lambda L, o: L.CyclicLR(o, [0.1], 1.0),
    lambda L, o: L.CyclicLR(_adagrad(o), 0.1, 1.0),   # no momentum / betas to cycle
    lambda L, o: L.CosineAnnealingWarmRestarts(o, 0),
    lambda L, o: L.CosineAnnealingWarmRestarts(o, 2, T_mult=0),
    lambda L, o: L.CosineAnnealingWarmRestarts(o, 2, eta_min="a"),
    lambda L, o: L.CosineAnnealingWarmRestarts(o, 2).step(-1),
    lambda L, o: L.OneCycleLR(o, 0.1),
    lambda L, o: L.OneCycleLR(o, 0.1, total_steps=0),
    lambda L, o: L.OneCycleLR(o, 0.1, epochs=0, steps_per_epoch=3),
    lambda L, o: L.OneCycleLR(o, 0.1, epochs=2, steps_per_epoch=-3),
    lambda L, o: L.OneCycleLR(o, 0.1, total_steps=10, pct_start=1),
    lambda L, o: L.OneCycleLR(o, 0.1, total_steps=10, anneal_strategy="exp"),
    lambda L, o: [s.step() for s in [L.OneCycleLR(o, 0.1, total_steps=2)] for _ in range(3)],
    lambda L, o: L.LRScheduler(o),
]


@pytest.mark.parametrize("i", range(len(_BAD)))
def test_errors_match_torch(i):
    got = []
    for lib in (torch, tl):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(Exception) as e:
                _BAD[i](lib.optim.lr_scheduler, _opt(lib))
        got.append((type(e.value).__name__, str(e.value)))
    assert got[0] == got[1]


def test_plateau_state_and_warnings_match_torch():
    got = []
    for lib in (torch, tl):
        o = _opt(lib)
        s = lib.optim.lr_scheduler.ReduceLROnPlateau(o, mode="max", threshold_mode="abs", cooldown=2, patience=1,
                                                     min_lr=[0.01, 0.02])
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            for i in range(25):
                s.step(1.0 / (1 + i % 5))
            s.step(0.5, 30)   # the deprecated epoch argument
            s2 = lib.optim.lr_scheduler.StepLR(_opt(lib), 2)
            s2.get_lr()       # outside step(): points at get_last_lr()
        sd = s.state_dict()
        got.append((list(sd), _plain(sd), [str(x.message) for x in w]))
    assert got[0] == got[1]
