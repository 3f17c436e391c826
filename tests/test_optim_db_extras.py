"""torch's optim_db beyond the update values (conformance/optim_conformance.py): every ``optim_error_inputs_func``
entry (exception type and message), ``capturable=True`` on CPU parameters, a torch checkpoint loaded
mid-training, and the ``scheduler_inputs`` chains (``get_last_lr`` and scheduler ``state_dict`` per step).
Expected values come from real torch, run in the test."""
import io
import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")
from torch.testing._internal.common_optimizers import OptimizerErrorEnum, optim_db  # noqa: E402

import torchlike as tl  # noqa: E402

INFOS = {info.optim_cls.__name__: info for info in optim_db}


def _to_tl(x, memo):
    """torch inputs -> torchlike, keeping identity (one torch tensor twice gives one torchlike tensor twice)."""
    if isinstance(x, torch.Tensor):
        if id(x) not in memo:
            if x.is_sparse:
                xc = x.detach().coalesce()
                t = tl.sparse_coo_tensor(_to_tl(xc.indices(), memo), _to_tl(xc.values(), memo), tuple(x.shape))
            else:
                t = tl.tensor(x.detach().resolve_conj().numpy().copy())
            if x.requires_grad:
                t.requires_grad_(True)
            if x.grad is not None:
                t.grad = _to_tl(x.grad, memo)
            memo[id(x)] = (x, t)
        return memo[id(x)][1]
    if isinstance(x, (list, tuple)):
        return type(x)(_to_tl(v, memo) for v in x)
    if isinstance(x, dict):
        return {k: _to_tl(v, memo) for k, v in x.items()}
    return x


def _error(fn, warning_as_error=False):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error" if warning_as_error else "ignore")
            fn()
    except Exception as e:  # noqa: BLE001
        return type(e).__name__, str(e)
    return None


@pytest.mark.parametrize("name", [n for n, i in INFOS.items() if i.optim_error_inputs_func])
def test_error_inputs_match_torch(name):
    info = INFOS[name]
    cls_l = getattr(tl.optim, name)
    n = 0
    for ei in info.optim_error_inputs_func(device="cpu", dtype=torch.float32):
        oi = ei.optimizer_error_input
        memo = {}
        lp, lkw = _to_tl(oi.params, memo), _to_tl(oi.kwargs, memo)

        def run(cls, params, kwargs):
            opt = cls(params, **kwargs)
            if ei.error_on == OptimizerErrorEnum.STEP_ERROR:
                opt.step()

        warns = issubclass(ei.error_type, Warning)  # (a few entries are torch warnings)
        theirs = _error(lambda: run(info.optim_cls, oi.params, oi.kwargs), warns)
        assert theirs is not None and theirs[0] == ei.error_type.__name__, oi.desc
        assert _error(lambda: run(cls_l, lp, lkw), warns) == theirs, oi.desc
        n += 1
    assert n > 0


CAPTURABLE = [n for n, i in INFOS.items() if i.has_capturable_arg]


@pytest.mark.parametrize("foreach", [None, False, True])
@pytest.mark.parametrize("name", CAPTURABLE)
def test_capturable_on_cpu_raises_like_torch(name, foreach):
    # torch's eager step asserts that a capturable group's params are on an accelerator
    results = []
    for lib, cls in ((torch, INFOS[name].optim_cls), (tl, getattr(tl.optim, name))):
        p = lib.zeros(2, 3, requires_grad=True)
        p.grad = lib.ones(2, 3)
        opt = cls([p], capturable=True, foreach=foreach)
        results.append(_error(opt.step))
    assert results[0] is not None and results[0][0] == "AssertionError"
    assert results[1] == results[0]


@pytest.mark.parametrize("name", CAPTURABLE)
def test_capturable_without_grads_does_not_raise(name):
    # no param with a gradient: torch's check is never reached
    p = tl.zeros(2, requires_grad=True)
    getattr(tl.optim, name)([p], capturable=True).step()
    tp = torch.zeros(2, requires_grad=True)
    INFOS[name].optim_cls([tp], capturable=True).step()
    assert p.tolist() == tp.tolist()


@pytest.mark.parametrize("kwargs", [{}, {"lr": 0.02}, {"lr": 0.02, "t0": 1, "weight_decay": 0.1}])
def test_asgd_resumes_a_torch_checkpoint_like_torch(kwargs):
    # torch copies torch.as_tensor(<float>) into eta/mu: float32-rounded values, also once a checkpoint's
    # eta/mu were cast to a float64 parameter's dtype by load_state_dict
    rng = np.random.default_rng(2)
    a = rng.standard_normal((3, 2))
    grads = [rng.standard_normal((3, 2)) for _ in range(6)]
    tp, lp = torch.tensor(a, requires_grad=True), tl.tensor(a, requires_grad=True)
    to = torch.optim.ASGD([tp], **kwargs)
    for g in grads[:3]:
        tp.grad = torch.tensor(g)
        to.step()
    buf = io.BytesIO()
    torch.save(to.state_dict(), buf)
    to = torch.optim.ASGD([tp], **kwargs)
    to.load_state_dict(torch.load(io.BytesIO(buf.getvalue())))
    lp = tl.tensor(tp.detach().numpy().copy(), requires_grad=True)
    lo = tl.optim.ASGD([lp], **kwargs)
    lo.load_state_dict(tl.load(io.BytesIO(buf.getvalue())))
    for g in grads[3:]:
        tp.grad, lp.grad = torch.tensor(g), tl.tensor(g)
        to.step()
        lo.step()
    np.testing.assert_allclose(lp.detach().numpy(), tp.detach().numpy(), rtol=1e-13, atol=1e-14)  # (was 1e-9 off)
    for k in ("eta", "mu"):
        assert lo.state[lp][k].dtype == tl.float64
        assert lo.state[lp][k].item() == to.state[tp][k].item()


def _tl_scheduler(factory, opt):
    """Call one of optim_db's scheduler lambdas with torchlike's scheduler classes in its globals."""
    g = dict(factory.__globals__)
    sched = tl.optim.lr_scheduler
    g.update({k: getattr(sched, k) for k in dir(sched) if k[:1].isupper()})
    return type(factory)(factory.__code__, g, factory.__name__, factory.__defaults__, factory.__closure__)(opt)


SCHED_CASES = [(n, i) for n, info in INFOS.items() if n not in ("SparseAdam", "Muon")
               for i in range(len(info.scheduler_inputs))]


@pytest.mark.parametrize("name,idx", SCHED_CASES)
def test_scheduler_inputs_follow_torch(name, idx):
    info = INFOS[name]
    factories = info.scheduler_inputs[idx]
    a = np.random.default_rng(1).standard_normal(4)
    tp, lp = torch.tensor(a, requires_grad=True), tl.tensor(a, requires_grad=True)
    to, lo = info.optim_cls([tp], lr=0.1), getattr(tl.optim, name)([lp], lr=0.1)
    ts = [f(to) for f in factories]
    ls = [_tl_scheduler(f, lo) for f in factories]
    for step in range(14):
        for p, opt, scheds in ((tp, to, ts), (lp, lo, ls)):
            def closure(p=p, opt=opt):
                opt.zero_grad()
                loss = ((p - 1) ** 2).sum() * (1 + step % 3)
                loss.backward()
                return loss
            loss = opt.step(closure)
            for s in scheds:
                s.step(float(loss)) if type(s).__name__ == "ReduceLROnPlateau" else s.step()
        for s_t, s_l in zip(ts, ls):
            assert [float(x) for x in s_l.get_last_lr()] == pytest.approx(s_t.get_last_lr(), rel=1e-12)
            sd_t = {k: v for k, v in s_t.state_dict().items() if k != "optimizer"}
            sd_l = {k: v for k, v in s_l.state_dict().items() if k != "optimizer"}
            assert sorted(sd_l) == sorted(sd_t)
            for k, v in sd_t.items():
                assert sd_l[k] == pytest.approx(v, rel=1e-12) if isinstance(v, float) else sd_l[k] == v, k
        np.testing.assert_allclose(lp.detach().numpy(), tp.detach().numpy(), rtol=1e-9, atol=1e-12)


# ---- sparse gradients (nn.Embedding(sparse=True)): SGD and Adagrad take them, the others refuse ------------
_SPARSE_STEPS = ([1, 2, 1, 5], [3, 1, 3], [0, 0, 7])


def _sparse_run(mod, name, kw, steps=_SPARSE_STEPS):
    e = mod.nn.Embedding(10, 3, sparse=True)
    with mod.no_grad():
        e.weight.copy_(mod.tensor(np.arange(30, dtype=np.float32).reshape(10, 3) / 7))
    opt = getattr(mod.optim, name)(e.parameters(), **kw)
    for idx in steps:
        opt.zero_grad()
        (e(mod.tensor(idx)) ** 2).sum().backward()
        assert e.weight.grad.is_sparse
        opt.step()
    state = {k: (v.is_sparse, (v.to_dense() if v.is_sparse else v).detach().numpy())
             for k, v in opt.state[e.weight].items()}
    return e.weight.detach().numpy(), state


@pytest.mark.parametrize("name,kw", [
    ("SGD", dict(lr=0.1)), ("SGD", dict(lr=0.1, momentum=0.9)),
    ("SGD", dict(lr=0.1, momentum=0.9, nesterov=True)),
    ("SGD", dict(lr=0.1, momentum=0.9, dampening=0.3, maximize=True)),
    ("SGD", dict(lr=0.1, momentum=0.9, foreach=True)), ("SGD", dict(lr=0.1, maximize=True, foreach=False)),
    ("Adagrad", dict(lr=0.1)), ("Adagrad", dict(lr=0.1, lr_decay=0.1, initial_accumulator_value=0.5)),
    ("Adagrad", dict(lr=0.1, maximize=True, foreach=True))])
def test_sparse_gradients_match_torch(name, kw):
    """Parameter values and state after three steps with repeated indices: SGD's momentum_buffer is sparse
    (as torch's), Adagrad's 'sum' stays dense and only the gradient's rows change."""
    want, want_state = _sparse_run(torch, name, kw)
    got, got_state = _sparse_run(tl, name, kw)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
    assert list(got_state) == list(want_state)
    for k, (sparse, value) in want_state.items():
        assert got_state[k][0] == sparse, k
        np.testing.assert_allclose(got_state[k][1], value, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("name,kw", [
    ("SGD", dict(lr=0.1, weight_decay=0.1)), ("SGD", dict(lr=0.1, fused=True)),
    ("Adagrad", dict(lr=0.1, weight_decay=0.1)), ("Adagrad", dict(lr=0.1, fused=True)),
    ("Adam", {}), ("AdamW", {}), ("Adamax", {}), ("NAdam", {}), ("RAdam", {}), ("RMSprop", {}),
    ("Adadelta", {}), ("ASGD", {}), ("Rprop", {})])
def test_sparse_gradients_refused_as_torch(name, kw):
    """The optimizers and options torch refuses a sparse gradient with: same exception type and message."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(Exception) as want:
            _sparse_run(torch, name, kw, steps=_SPARSE_STEPS[:1])
    with pytest.raises(Exception) as got:
        _sparse_run(tl, name, kw, steps=_SPARSE_STEPS[:1])
    assert (type(got.value), str(got.value)) == (type(want.value), str(want.value))
