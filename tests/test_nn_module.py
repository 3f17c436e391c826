"""torchlike.nn.Module / containers / layers vs torch: state_dict keys, reprs, errors, hooks, outputs and grads."""
import copy
import pickle
from collections import OrderedDict

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import torchlike  # noqa: E402
import torchlike.nn as nn  # noqa: E402
from conftest import assert_same  # noqa: E402

TN = torch.nn
RNG = np.random.default_rng(0)


def copy_params(ours, theirs):
    """Load torch's state into ours through numpy."""
    sd = OrderedDict((k, torchlike.from_numpy(v.detach().numpy().copy())) for k, v in theirs.state_dict().items())
    ours.load_state_dict(sd)


def build(name, *args, **kw):
    return getattr(nn, name)(*args, **kw), getattr(TN, name)(*args, **kw)


def compare_forward_backward(mo, mt, *arrays, rtol=1e-5, atol=1e-5):
    copy_params(mo, mt)
    xo = [torchlike.from_numpy(a).requires_grad_(a.dtype.kind == "f") for a in arrays]
    xt = [torch.from_numpy(a).requires_grad_(a.dtype.kind == "f") for a in arrays]
    yo, yt = mo(*xo), mt(*xt)
    assert_same(yo, yt, rtol, atol)
    g = RNG.standard_normal(tuple(yt.shape)).astype(np.float32)
    yt.backward(torch.from_numpy(g))
    yo.backward(torchlike.from_numpy(g))
    for a, b in zip(xo, xt):
        if b.grad is not None:
            assert_same(a.grad, b.grad, rtol, atol)
    for (n1, p1), (n2, p2) in zip(mo.named_parameters(), mt.named_parameters()):
        assert n1 == n2
        assert_same(p1.grad, p2.grad, rtol, atol)


class NetT(TN.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = TN.Linear(4, 8)
        self.act = TN.ReLU()
        self.block = TN.Sequential(TN.Linear(8, 8), TN.Tanh(), TN.Dropout(0.0))
        self.register_buffer("running", torch.zeros(3))
        self.register_buffer("tmp", torch.ones(1), persistent=False)
        self.head = TN.ModuleList([TN.Linear(8, 2), TN.Linear(8, 2)])
        self.scale = TN.Parameter(torch.ones(1))

    def forward(self, x):
        h = self.block(self.act(self.fc1(x)))
        return (self.head[0](h) + self.head[1](h)) * self.scale


class NetO(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 8)
        self.act = nn.ReLU()
        self.block = nn.Sequential(nn.Linear(8, 8), nn.Tanh(), nn.Dropout(0.0))
        self.register_buffer("running", torchlike.zeros(3))
        self.register_buffer("tmp", torchlike.ones(1), persistent=False)
        self.head = nn.ModuleList([nn.Linear(8, 2), nn.Linear(8, 2)])
        self.scale = nn.Parameter(torchlike.ones(1))

    def forward(self, x):
        h = self.block(self.act(self.fc1(x)))
        return (self.head[0](h) + self.head[1](h)) * self.scale


def test_registration_order_state_dict_and_repr():
    mo, mt = NetO(), NetT()
    assert list(mo.state_dict()) == list(mt.state_dict())
    assert [n for n, _ in mo.named_parameters()] == [n for n, _ in mt.named_parameters()]
    assert [n for n, _ in mo.named_buffers()] == [n for n, _ in mt.named_buffers()]
    assert [n for n, _ in mo.named_modules()] == [n for n, _ in mt.named_modules()]
    assert [n for n, _ in mo.named_children()] == [n for n, _ in mt.named_children()]
    assert repr(mo).replace("NetO", "Net") == repr(mt).replace("NetT", "Net")
    assert dict(mo.state_dict()._metadata) == dict(mt.state_dict()._metadata)
    assert list(mo.state_dict(prefix="m.")) == list(mt.state_dict(prefix="m."))
    assert [n for n, _ in mo.named_parameters(prefix="p", recurse=False)] == \
        [n for n, _ in mt.named_parameters(prefix="p", recurse=False)]
    compare_forward_backward(mo, mt, RNG.standard_normal((5, 4)).astype(np.float32))


def test_state_dict_values_are_detached_aliases():
    m = nn.Linear(2, 2)
    sd = m.state_dict()
    assert not sd["weight"].requires_grad
    assert m.state_dict(keep_vars=True)["weight"] is m.weight
    with torchlike.no_grad():
        m.weight.add_(1.0)
    np.testing.assert_allclose(np.asarray(sd["weight"]._value), np.asarray(m.weight.detach()._value))


def test_load_state_dict_in_place_and_errors():
    mo, mt = nn.Linear(3, 2), TN.Linear(3, 2)
    w = mo.weight
    copy_params(mo, mt)
    assert mo.weight is w  # parameters keep identity (optimizers see new values)
    assert_same(mo.weight.detach(), mt.weight.detach())
    bad = {"weight": torchlike.zeros(2, 4), "extra": torchlike.zeros(1)}
    badt = {"weight": torch.zeros(2, 4), "extra": torch.zeros(1)}
    with pytest.raises(RuntimeError) as e1:
        mo.load_state_dict(bad)
    with pytest.raises(RuntimeError) as e2:
        mt.load_state_dict(badt)
    assert str(e1.value) == str(e2.value)
    r1 = mo.load_state_dict({"weight": torchlike.zeros(2, 3), "x": torchlike.zeros(1)}, strict=False)
    r2 = mt.load_state_dict({"weight": torch.zeros(2, 3), "x": torch.zeros(1)}, strict=False)
    assert r1.missing_keys == r2.missing_keys and r1.unexpected_keys == r2.unexpected_keys
    assert repr(r1) == repr(r2)
    assert repr(mo.load_state_dict(mo.state_dict())) == "<All keys matched successfully>"
    with pytest.raises(TypeError):
        mo.load_state_dict([1, 2])
    new = torchlike.ones(2, 3)
    mo.load_state_dict({"weight": new, "bias": torchlike.zeros(2)}, assign=True)
    assert isinstance(mo.weight, nn.Parameter) and mo.weight.requires_grad


def _load_outcome(lib, build, entries, strict, with_metadata):
    """Load ``entries`` (name -> list) into ``build(lib.nn)``; the report or the error, and the state after."""
    m = build(lib.nn)
    sd = OrderedDict((k, lib.tensor(v)) for k, v in entries.items())
    if with_metadata:  # the version metadata a state_dict() of the same module would carry
        sd._metadata = m.state_dict()._metadata
    try:
        r = m.load_state_dict(sd, strict=strict)
        out = ("ok", r.missing_keys, r.unexpected_keys)
    except RuntimeError as e:
        out = ("error", str(e))
    return out, {k: v.tolist() for k, v in m.state_dict().items()}


@pytest.mark.parametrize("strict", [True, False])
@pytest.mark.parametrize("with_metadata", [False, True])
@pytest.mark.parametrize("case", ["in1d", "in2d_affine", "in3d_nested", "in_tracking", "bn_no_counter",
                                  "bn_nested_no_counter"])
def test_norm_state_dict_version_migrations_match_torch(case, strict, with_metadata):
    # torch's _InstanceNorm / _NormBase._load_from_state_dict: a version-less dict holding running stats of an
    # instance norm that tracks none is an error even with strict=False (fast_neural_style deletes those keys
    # from old checkpoints for this reason); a batch norm dict without num_batches_tracked keeps the counter
    stats = {"running_mean": [0.5, 0.25, 0.0], "running_var": [2.0, 1.0, 3.0]}
    affine = {"weight": [1.0, 2.0, 3.0], "bias": [0.0, 0.1, 0.2]}
    builds = {
        "in1d": (lambda nn_: nn_.InstanceNorm1d(3), dict(stats)),
        "in2d_affine": (lambda nn_: nn_.InstanceNorm2d(3, affine=True), {**affine, **stats}),
        "in3d_nested": (lambda nn_: nn_.Sequential(nn_.Identity(), nn_.InstanceNorm3d(3, affine=True)),
                        {f"1.{k}": v for k, v in {**affine, "running_mean": stats["running_mean"]}.items()}),
        "in_tracking": (lambda nn_: nn_.InstanceNorm2d(3, track_running_stats=True), dict(stats)),
        "bn_no_counter": (lambda nn_: nn_.BatchNorm1d(3), {**affine, **stats}),
        "bn_nested_no_counter": (lambda nn_: nn_.Sequential(nn_.BatchNorm2d(3)),
                                 {f"0.{k}": v for k, v in {**affine, **stats}.items()}),
    }
    build, entries = builds[case]
    ours = _load_outcome(torchlike, build, entries, strict, with_metadata)
    theirs = _load_outcome(torch, build, entries, strict, with_metadata)
    assert ours == theirs


def test_setattr_errors_match_torch():
    mo, mt = nn.Linear(2, 2), TN.Linear(2, 2)
    cases = [lambda m, T: setattr(m, "weight", T.zeros(2, 2)),
             lambda m, T: m.register_buffer("weight", T.zeros(1)),
             lambda m, T: m.register_parameter("a.b", None),
             lambda m, T: m.add_module("bias", None),
             lambda m, T: m.register_buffer("x", 3),
             lambda m, T: getattr(m, "nope")]
    for c in cases:
        with pytest.raises(Exception) as e1:
            c(mo, torchlike)
        with pytest.raises(Exception) as e2:
            c(mt, torch)
        assert type(e1.value) is type(e2.value)
        assert str(e1.value).replace("torchlike", "torch") == str(e2.value)


def test_attribute_reassignment_moves_between_dicts():
    for lib, mod in ((torchlike, nn), (torch, TN)):
        m = mod.Module()
        m.x = mod.Parameter(lib.ones(1))
        m.x = None
        assert "x" in m._parameters and m.x is None
        m.register_buffer("b", lib.ones(1))
        m.b = lib.zeros(2)
        assert "b" in m._buffers
        m.sub = mod.Linear(1, 1)
        del m.sub
        assert "sub" not in m._modules
        m.bb = mod.Buffer(lib.ones(1), persistent=False)
        assert "bb" in m._buffers and "bb" not in m.state_dict()


def test_get_submodule_parameter_buffer():
    mo, mt = NetO(), NetT()
    assert mo.get_submodule("block.0") is mo.block[0]
    assert mo.get_parameter("head.1.bias") is mo.head[1].bias
    assert mo.get_buffer("running") is mo.running
    for f in [lambda m: m.get_submodule("block.9"), lambda m: m.get_parameter("running"),
              lambda m: m.get_buffer("fc1.weight"), lambda m: m.get_submodule("scale")]:
        with pytest.raises(AttributeError) as e1:
            f(mo)
        with pytest.raises(AttributeError) as e2:
            f(mt)
        assert str(e1.value) == str(e2.value)


def test_tied_weights_dedup():
    for mod in (nn, TN):
        a = mod.Linear(3, 3)
        s = mod.Sequential(a, a)
        assert len(list(s.parameters())) == 2
        assert len(list(s.named_parameters(remove_duplicate=False))) == 4
        assert list(s.state_dict()) == ["0.weight", "0.bias", "1.weight", "1.bias"]
        assert len(list(s.modules())) == 2


def test_train_eval_requires_grad_zero_grad():
    m = NetO()
    m.eval()
    assert not m.block[2].training and not m.training
    m.train()
    assert m.head[0].training
    with pytest.raises(ValueError, match="training mode is expected to be boolean"):
        m.train("yes")
    m(torchlike.ones(2, 4)).sum().backward()
    assert m.fc1.weight.grad is not None
    m.zero_grad(set_to_none=False)
    assert float(m.fc1.weight.grad.abs().sum()) == 0.0
    m.zero_grad()
    assert m.fc1.weight.grad is None
    m.requires_grad_(False)
    assert not any(p.requires_grad for p in m.parameters())


def test_to_dtype_keeps_identity_and_apply():
    m = NetO()
    w = m.fc1.weight
    m.double()
    assert m.fc1.weight is w and w.dtype is torchlike.float64 and isinstance(w, nn.Parameter)
    assert m.running.dtype is torchlike.float64
    m.to(torchlike.float32)
    assert w.dtype is torchlike.float32
    m.half()
    assert w.dtype is torchlike.float16
    m.float()
    with pytest.raises(TypeError, match="nn.Module.to only accepts floating point or complex dtypes"):
        m.to(torchlike.int64)
    seen = []
    m.apply(lambda mod: seen.append(type(mod).__name__))
    seen_t = []
    NetT().apply(lambda mod: seen_t.append(type(mod).__name__.replace("T", "O") if mod.__class__ is NetT
                                            else type(mod).__name__))
    assert seen == seen_t
    m2 = NetO()
    m2.fc1.weight.grad = torchlike.ones(8, 4)
    m2.double()
    assert m2.fc1.weight.grad.dtype is torchlike.float64


def test_deepcopy_pickle_and_parameter():
    m = NetO()
    c = copy.deepcopy(m)
    assert c.fc1.weight is not m.fc1.weight
    assert_same(c.fc1.weight.detach(), torch.from_numpy(np.asarray(m.fc1.weight.detach()._value)))
    p = pickle.loads(pickle.dumps(nn.Parameter(torchlike.ones(2))))
    assert isinstance(p, nn.Parameter) and p.requires_grad
    assert repr(nn.Parameter(torchlike.tensor([1.0, 2.0]))) == repr(TN.Parameter(torch.tensor([1.0, 2.0])))
    assert repr(nn.Parameter(torchlike.ones(1), requires_grad=False)) == \
        repr(TN.Parameter(torch.ones(1), requires_grad=False))


def test_forward_hooks_order_and_kwargs():
    for mod, lib in ((nn, torchlike), (TN, torch)):
        log = []
        m = mod.Linear(2, 2)
        m.register_forward_pre_hook(lambda mm, a: log.append("pre1"))
        m.register_forward_pre_hook(lambda mm, a: log.append("pre0"), prepend=True)
        m.register_forward_pre_hook(lambda mm, a, k: log.append(("prek", sorted(k))), with_kwargs=True)
        h = m.register_forward_hook(lambda mm, a, o: log.append("post"))
        m.register_forward_hook(lambda mm, a, o: o * 0)
        y = m(lib.ones(1, 2))
        assert float(y.abs().sum()) == 0.0
        h.remove()
        m(lib.ones(1, 2))
        if mod is nn:
            ours = log
        else:
            assert ours == log


def test_forward_hook_always_call_and_pre_hook_replaces_args():
    for mod, lib in ((nn, torchlike), (TN, torch)):
        m = mod.Linear(2, 2)
        m.register_forward_pre_hook(lambda mm, a: (a[0] * 0,))
        assert float(m(lib.ones(1, 2)).sub(m.bias).abs().sum()) < 1e-6
        calls = []

        class Boom(mod.Module):
            def forward(self, x):
                raise ValueError("boom")
        b = Boom()
        b.register_forward_hook(lambda mm, a, o: calls.append(o), always_call=True)
        with pytest.raises(ValueError):
            b(lib.ones(1))
        assert calls == [None]


def _bw_log(mod, lib):
    log = []
    m = mod.Sequential(mod.Linear(3, 4), mod.ReLU(), mod.Linear(4, 2))
    for i, sub in enumerate(m):
        sub.register_full_backward_pre_hook(lambda mm, go, i=i: log.append(("pre", i, tuple(g.shape for g in go))))
        sub.register_full_backward_hook(
            lambda mm, gi, go, i=i: log.append(("bw", i, tuple(None if g is None else tuple(g.shape) for g in gi))))
    return m, log


def test_full_backward_hooks_order_and_values():
    mo, lo = _bw_log(nn, torchlike)
    mt, lt = _bw_log(TN, torch)
    copy_params(mo, mt)
    x = RNG.standard_normal((5, 3)).astype(np.float32)
    xo, xt = torchlike.from_numpy(x).requires_grad_(), torch.from_numpy(x).requires_grad_()
    mo(xo).sum().backward()
    mt(xt).sum().backward()
    assert lo == lt
    assert_same(xo.grad, xt.grad)

    # a backward hook can replace grad_input
    for mod, lib in ((nn, torchlike), (TN, torch)):
        m = mod.Linear(2, 2)
        m.register_full_backward_hook(lambda mm, gi, go: (gi[0] * 2,))
        xi = lib.ones(1, 2, requires_grad=True)
        m(xi).sum().backward()
        if mod is nn:
            g_ours = np.asarray(xi.grad._value)
            w_ours = np.asarray(m.weight.detach()._value)
        else:
            np.testing.assert_allclose(g_ours / w_ours.sum(0), xi.grad.numpy() / m.weight.detach().numpy().sum(0),
                                       rtol=1e-5)


def _non_full_hook_warnings(m, case):
    import warnings

    class Two(m.nn.Module):
        def forward(self, a, b):
            return a * 2, b * 3

    class Listed(m.nn.Module):
        def forward(self, a):
            return [a * 2]

    class Keyed(m.nn.Module):
        def forward(self, a, k=1):
            return a * k

    make, args = {
        "linear leaf input": (lambda: m.nn.Linear(2, 2), lambda: (m.ones(1, 2, requires_grad=True),)),
        "relu non-leaf input": (lambda: m.nn.ReLU(), lambda: (m.ones(2, requires_grad=True) * 1,)),
        "lstm tuple of tuple": (lambda: m.nn.LSTM(2, 2), lambda: (m.ones(1, 1, 2, requires_grad=True) * 1,)),
        "two outputs": (Two, lambda: (m.ones(1, requires_grad=True) * 1, m.ones(1, requires_grad=True) * 1)),
        "list output": (Listed, lambda: (m.ones(1, requires_grad=True) * 1,)),
        "number input": (Keyed, lambda: (m.ones(1, requires_grad=True) * 1, 2)),
    }[case]
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        mod = make()
        mod.register_backward_hook(lambda *a: None)
        mod(*args())
    return [(x.category.__name__, str(x.message)) for x in w]


@pytest.mark.parametrize("case", ["linear leaf input", "relu non-leaf input", "lstm tuple of tuple", "two outputs",
                                  "list output", "number input"])
def test_non_full_backward_hook_warns_as_torch(case):
    """A module with a (deprecated) non-full backward hook warns as torch's ``_maybe_warn_non_full_backward_hook``
    where the hook will miss gradients: the same FutureWarnings, or none (a one-node forward of a non-leaf)."""
    assert _non_full_hook_warnings(torchlike, case) == _non_full_hook_warnings(torch, case)


def test_state_dict_and_load_hooks():
    for mod, lib in ((nn, torchlike), (TN, torch)):
        log = []
        m = mod.Linear(2, 2)
        m.register_state_dict_pre_hook(lambda mm, prefix, keep_vars: log.append(("pre", prefix)))
        m.register_state_dict_post_hook(lambda mm, sd, prefix, meta: log.append(("post", list(sd))))
        m.register_load_state_dict_pre_hook(lambda mm, sd, prefix, *a: log.append(("lpre", sorted(sd))))
        m.register_load_state_dict_post_hook(lambda mm, keys: log.append(("lpost", keys.missing_keys)))
        sd = m.state_dict()
        m.load_state_dict({"weight": sd["weight"]}, strict=False)
        if mod is nn:
            ours = log
        else:
            assert ours == log


def test_extra_state():
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.v = 3

        def get_extra_state(self):
            return {"v": self.v}

        def set_extra_state(self, s):
            self.v = s["v"]
    m = M()
    sd = m.state_dict()
    assert list(sd) == ["_extra_state"]
    m2 = M()
    m2.v = 0
    m2.load_state_dict(sd)
    assert m2.v == 3


# ---- containers ---------------------------------------------------------------------------------
def test_sequential_ops_and_reprs():
    def mk(mod):
        return mod.Sequential(mod.Linear(2, 3), mod.ReLU(), mod.Linear(3, 1))
    so, st = mk(nn), mk(TN)
    assert repr(so) == repr(st)
    assert repr(so[1:]) == repr(st[1:]) and type(so[1:]) is nn.Sequential
    assert repr(so[-1]) == repr(st[-1])
    for s, mod in ((so, nn), (st, TN)):
        s.append(mod.Tanh())
        s.insert(1, mod.Sigmoid())
        s.extend([mod.Identity()])
        del s[0]
        s.pop(0)
    assert repr(so) == repr(st) and len(so) == len(st)
    assert repr(so + so) == repr(st + st)
    with pytest.raises(IndexError) as e1:
        so[10]
    with pytest.raises(IndexError) as e2:
        st[10]
    assert str(e1.value) == str(e2.value)
    od = nn.Sequential(OrderedDict([("a", nn.ReLU()), ("b", nn.Tanh())]))
    odt = TN.Sequential(OrderedDict([("a", TN.ReLU()), ("b", TN.Tanh())]))
    assert repr(od) == repr(odt)


def test_modulelist_moduledict_parameterlist_parameterdict():
    def mk(mod, lib):
        m = mod.Module()
        m.ml = mod.ModuleList([mod.Linear(2, 2) for _ in range(3)] + [mod.ReLU()])
        m.md = mod.ModuleDict({"b": mod.ReLU(), "a": mod.Linear(1, 1)})
        m.pl = mod.ParameterList([mod.Parameter(lib.ones(2)), lib.zeros(3, dtype=lib.float64)])
        m.pd = mod.ParameterDict({"x": mod.Parameter(lib.ones(2, 2)), "y": lib.zeros(1)})
        return m
    mo, mt = mk(nn, torchlike), mk(TN, torch)
    assert repr(mo) == repr(mt)
    assert list(mo.state_dict()) == list(mt.state_dict())
    assert isinstance(mo.pl[1], nn.Parameter) and mo.pl[1].requires_grad
    assert list(mo.md.keys()) == list(mt.md.keys())
    mo.ml.append(nn.Tanh())
    mt.ml.append(TN.Tanh())
    mo.md.update({"c": nn.Identity()})
    mt.md.update({"c": TN.Identity()})
    assert repr(mo) == repr(mt)
    assert "x" in mo.pd and len(mo.pd) == 2


# ---- layers -------------------------------------------------------------------------------------
ACT_MODULES = [("ReLU", (), {}), ("ReLU6", (), {"inplace": True}), ("LeakyReLU", (0.2,), {}), ("ELU", (0.5,), {}),
               ("CELU", (), {}), ("SELU", (), {}), ("GELU", (), {"approximate": "tanh"}), ("SiLU", (), {}),
               ("Mish", (), {}), ("Sigmoid", (), {}), ("Tanh", (), {}), ("Hardtanh", (-2.0, 2.0), {}),
               ("Hardsigmoid", (), {}), ("Hardswish", (), {}), ("Hardshrink", (0.3,), {}), ("Softshrink", (), {}),
               ("Tanhshrink", (), {}), ("Softplus", (2.0, 10.0), {}), ("Softsign", (), {}),
               ("Threshold", (0.1, 20.0), {}), ("LogSigmoid", (), {}), ("Softmax", (1,), {}),
               ("Softmin", (0,), {}), ("LogSoftmax", (-1,), {}), ("GLU", (), {}), ("PReLU", (3,), {}),
               ("RReLU", (0.1, 0.3), {}), ("Softmax2d", (), {})]


_FWD_CHECK = {"ReLU", "GELU", "Softmax", "LogSoftmax", "GLU", "PReLU", "Softmax2d", "Threshold"}


@pytest.mark.parametrize("name,args,kw", ACT_MODULES, ids=[a[0] for a in ACT_MODULES])
def test_activation_modules(name, args, kw):
    mo, mt = build(name, *args, **kw)
    assert repr(mo) == repr(mt)
    if kw.get("inplace") or name == "RReLU" or name not in _FWD_CHECK:
        return  # the functional forms are checked value-by-value in test_nn_functional
    mo.eval()
    mt.eval()
    compare_forward_backward(mo, mt, RNG.standard_normal((2, 3, 4)).astype(np.float32))


LAYERS = [("Linear", (4, 3), {}, [(5, 4)]), ("Linear", (4, 3), {"bias": False}, [(2, 5, 4)]),
          ("Bilinear", (4, 2, 3), {}, [(5, 4), (5, 2)]), ("Flatten", (), {}, [(2, 3, 4)]),
          ("Flatten", (0, 1), {}, [(2, 3, 4)]), ("Unflatten", (1, (2, 2)), {}, [(3, 4)]), ("Identity", (3,), {}, [(2, 2)]),
          ("PairwiseDistance", (), {}, [(3, 4), (3, 4)]), ("CosineSimilarity", (), {}, [(3, 4), (3, 4)])]


@pytest.mark.parametrize("name,args,kw,shapes", LAYERS, ids=[a[0] for a in LAYERS])
def test_layers(name, args, kw, shapes):
    mo, mt = build(name, *args, **kw)
    assert repr(mo) == repr(mt)
    compare_forward_backward(mo, mt, *[RNG.standard_normal(s).astype(np.float32) for s in shapes])


def test_linear_default_init_bounds():
    m = nn.Linear(50, 30)
    w = np.asarray(m.weight.detach()._value)
    b = np.asarray(m.bias.detach()._value)
    bound = 1 / np.sqrt(50)  # kaiming_uniform(a=sqrt(5)) gives the same bound as the bias
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.8 * bound
    assert np.abs(b).max() <= bound
    assert m.weight.dtype is torchlike.float32
    assert nn.Linear(2, 2, dtype=torchlike.float64).weight.dtype is torchlike.float64


def test_embedding_module():
    mo, mt = build("Embedding", 10, 3, padding_idx=1)
    assert repr(mo) == repr(mt)
    assert float(mo.weight[1].abs().sum()) == 0
    idx = np.array([[1, 2, 3], [4, 1, 9]])
    compare_forward_backward(mo, mt, idx)
    for kw in [{"max_norm": 1.0}, {"norm_type": 1.0}, {"scale_grad_by_freq": True}, {"sparse": True}]:
        assert repr(nn.Embedding(5, 2, **kw)) == repr(TN.Embedding(5, 2, **kw))
    pre = nn.Embedding.from_pretrained(torchlike.ones(4, 2))
    assert not pre.weight.requires_grad and repr(pre) == repr(TN.Embedding.from_pretrained(torch.ones(4, 2)))


def test_dropout_modules_and_losses_repr():
    for name, args in [("Dropout", (0.3,)), ("Dropout1d", ()), ("Dropout2d", ()), ("Dropout3d", ()),
                       ("AlphaDropout", (0.1,)), ("FeatureAlphaDropout", ()), ("CrossEntropyLoss", ()),
                       ("MSELoss", ()), ("BCEWithLogitsLoss", ()), ("TripletMarginWithDistanceLoss", ()),
                       ("CTCLoss", ()), ("KLDivLoss", ())]:
        mo, mt = build(name, *args)
        assert repr(mo) == repr(mt)
    d = nn.Dropout(0.5).eval()
    x = torchlike.ones(3)
    assert d(x) is x


def test_loss_modules_forward():
    x = RNG.standard_normal((4, 5)).astype(np.float32)
    t = np.array([0, 3, 1, 4])
    w = np.abs(RNG.standard_normal(5)).astype(np.float32)
    mo = nn.CrossEntropyLoss(weight=torchlike.from_numpy(w), label_smoothing=0.1)
    mt = TN.CrossEntropyLoss(weight=torch.from_numpy(w), label_smoothing=0.1)
    assert list(mo.state_dict()) == list(mt.state_dict()) == ["weight"]
    assert_same(mo(torchlike.from_numpy(x), torchlike.from_numpy(t)), mt(torch.from_numpy(x), torch.from_numpy(t)))
    with pytest.warns(UserWarning):
        lo = nn.MSELoss(size_average=False)
    assert lo.reduction == "sum"


def test_lazy_linear():
    m = nn.LazyLinear(4)
    assert isinstance(m.weight, nn.UninitializedParameter)
    assert repr(m.weight) == "<UninitializedParameter>"
    y = m(torchlike.ones(2, 3))
    assert type(m) is nn.Linear and tuple(m.weight.shape) == (4, 3) and tuple(y.shape) == (2, 4)
    assert repr(m) == repr(TN.Linear(3, 4))
    lz = nn.LazyLinear(4)
    lz.load_state_dict(nn.Linear(3, 4).state_dict())
    assert tuple(lz.weight.shape) == (4, 3)


def test_custom_module_setattr_before_init_and_forward_missing():
    class Bad(nn.Module):
        def __init__(self):
            self.w = nn.Parameter(torchlike.ones(1))
    with pytest.raises(AttributeError, match=r"cannot assign parameters before Module.__init__\(\) call"):
        Bad()
    with pytest.raises(NotImplementedError, match='missing the required "forward" function'):
        nn.Module()(1)


def test_data_parallel_wrapper():
    m = nn.Linear(2, 2)
    dp = nn.DataParallel(m)
    x = torchlike.ones(3, 2)
    assert_same(dp(x).detach(), torch.from_numpy(np.asarray(m(x).detach()._value)))
    assert list(dp.state_dict()) == ["module.weight", "module.bias"]
    ddp = nn.parallel.DistributedDataParallel(m)
    assert ddp.module is m


# ---- nn.utils ----------------------------------------------------------------------------------
def _grads_pair(shapes, scale=3.0):
    po, pt = [], []
    for s in shapes:
        g = (RNG.standard_normal(s) * scale).astype(np.float32)
        a, b = nn.Parameter(torchlike.zeros(s)), TN.Parameter(torch.zeros(s))
        a.grad, b.grad = torchlike.from_numpy(g.copy()), torch.from_numpy(g.copy())
        po.append(a)
        pt.append(b)
    return po, pt


@pytest.mark.parametrize("norm_type", [2.0, 1.0, float("inf"), 3.0])
def test_clip_grad_norm(norm_type):
    po, pt = _grads_pair([(3, 4), (5,), (2, 2)])
    to = nn.utils.clip_grad_norm_(po, 1.5, norm_type=norm_type)
    tt = TN.utils.clip_grad_norm_(pt, 1.5, norm_type=norm_type)
    assert_same(to, tt, 1e-5, 1e-5)
    for a, b in zip(po, pt):
        assert_same(a.grad, b.grad, 1e-5, 1e-6)
    po, pt = _grads_pair([(3,)])
    po[0].grad = torchlike.tensor([float("inf"), 1.0, 1.0])
    with pytest.raises(RuntimeError, match="is non-finite, so it cannot be clipped"):
        nn.utils.clip_grad_norm_(po, 1.0, error_if_nonfinite=True)


def test_clip_grad_value_and_vector_conversion():
    po, pt = _grads_pair([(3, 4), (5,)])
    nn.utils.clip_grad_value_(po, 0.7)
    TN.utils.clip_grad_value_(pt, 0.7)
    for a, b in zip(po, pt):
        assert_same(a.grad, b.grad)
    mo, mt = nn.Linear(3, 2), TN.Linear(3, 2)
    copy_params(mo, mt)
    vo, vt = nn.utils.parameters_to_vector(mo.parameters()), TN.utils.parameters_to_vector(mt.parameters())
    assert_same(vo, vt)
    w = mo.weight
    nn.utils.vector_to_parameters(vo * 2, mo.parameters())
    TN.utils.vector_to_parameters(vt * 2, mt.parameters())
    assert mo.weight is w
    assert_same(mo.weight.detach(), mt.weight.detach())
    with pytest.raises(TypeError, match="expected torch.Tensor"):
        nn.utils.vector_to_parameters([1.0], mo.parameters())
    # torch's: each parameter's data becomes a view of the vector, in the vector's dtype (was numpy's TypeError
    # for a vector of another size, and a cast to the parameter's dtype)
    nn.utils.vector_to_parameters(vo.double(), mo.parameters())
    TN.utils.vector_to_parameters(vt.double(), mt.parameters())
    assert str(mo.weight.dtype) == str(mt.weight.dtype) == "torch.float64"
    assert_same(mo.weight.detach(), mt.weight.detach())


def test_weight_norm_both_styles():
    for fo, ft in [(nn.utils.weight_norm, TN.utils.weight_norm),
                   (nn.utils.parametrizations.weight_norm, TN.utils.parametrizations.weight_norm)]:
        mo, mt = nn.Linear(4, 3), TN.Linear(4, 3)
        copy_params(mo, mt)
        fo(mo)
        import warnings
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ft(mt)
        assert list(mo.state_dict()) == list(mt.state_dict())
        assert repr(mo) == repr(mt)
        compare_forward_backward(mo, mt, RNG.standard_normal((5, 4)).astype(np.float32))
    mo = nn.utils.weight_norm(nn.Linear(4, 3), dim=None)
    nn.utils.remove_weight_norm(mo)
    assert list(mo.state_dict()) == ["bias", "weight"]


def test_spectral_norm_both_styles():
    for fo, ft in [(nn.utils.spectral_norm, TN.utils.spectral_norm),
                   (nn.utils.parametrizations.spectral_norm, TN.utils.parametrizations.spectral_norm)]:
        mo, mt = nn.Linear(4, 3), TN.Linear(4, 3)
        fo(mo)
        ft(mt)
        assert list(mo.state_dict()) == list(mt.state_dict())
        copy_params(mo, mt)  # includes torch's u, v so the power iteration matches
        compare_forward_backward(mo, mt, RNG.standard_normal((5, 4)).astype(np.float32), rtol=1e-4, atol=1e-4)
        for (k, a), b in zip(mo.state_dict().items(), mt.state_dict().values()):
            assert_same(a, b, 1e-4, 1e-4)


def test_parametrize_register_remove_cached():
    from torchlike.nn.utils import parametrize as P
    from torch.nn.utils import parametrize as PT

    class SymO(nn.Module):
        def forward(self, X):
            return X.triu() + X.triu(1).transpose(-1, -2)

    class SymT(TN.Module):
        def forward(self, X):
            return X.triu() + X.triu(1).transpose(-1, -2)
    mo, mt = nn.Linear(3, 3), TN.Linear(3, 3)
    copy_params(mo, mt)
    P.register_parametrization(mo, "weight", SymO())
    PT.register_parametrization(mt, "weight", SymT())
    assert type(mo).__name__ == type(mt).__name__ == "ParametrizedLinear"
    assert list(mo.state_dict()) == list(mt.state_dict())
    assert repr(mo).replace("SymO", "Sym") == repr(mt).replace("SymT", "Sym")
    assert P.is_parametrized(mo) and P.is_parametrized(mo, "weight") and not P.is_parametrized(mo, "bias")
    compare_forward_backward(mo, mt, RNG.standard_normal((2, 3)).astype(np.float32))
    with P.cached():
        assert mo.weight is mo.weight
    P.remove_parametrizations(mo, "weight")
    PT.remove_parametrizations(mt, "weight")
    assert type(mo) is nn.Linear and isinstance(mo.weight, nn.Parameter)
    assert_same(mo.weight.detach(), mt.weight.detach())
    assert P.type_before_parametrizations(mo) is nn.Linear


def test_parameter_of_a_parameter_shares_its_storage():
    """nn.Parameter(p) of a Parameter is a new Parameter on p's storage (torch's _make_subclass): an optimizer step
    on either shows in the other (blitz's weight samplers wrap their layer's weight_mu/weight_rho so)."""
    def run(m):
        p = m.nn.Parameter(m.tensor([1.0, -2.0, 3.0]))
        q = m.nn.Parameter(p)
        opt = m.optim.SGD([q], lr=0.5)
        (q * m.tensor([1.0, 2.0, 3.0])).sum().backward()
        opt.step()
        q.data.mul_(2)
        with m.no_grad():
            p.add_(1)
        return q is p, p.grad is None, p.tolist(), q.tolist(), q.requires_grad, type(q).__name__
    assert run(torchlike) == run(torch)
