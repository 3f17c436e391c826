"""torch.testing, torch.random, torch.multiprocessing, torch.optim.swa_utils, nn.modules aliases vs torch."""
import copy
import re

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import torchlike  # noqa: E402

RNG = np.random.default_rng(7)


def _pair(a):
    return torchlike.from_numpy(np.array(a)), torch.from_numpy(np.array(a))


def _message(fn, *args, **kw):
    with pytest.raises(AssertionError) as e:
        fn(*args, **kw)
    return str(e.value)


@pytest.mark.parametrize("case", [
    ([1., 2., 3.], [1., 2.5, 3.]),
    ([[1, 2], [3, 4]], [[1, 2], [3, 5]]),
    ([True, False], [True, True]),
    ([float("nan")], [float("nan")]),
    ([1., 2.], [1., 2.]),
    (2.0, 3.0),
])
def test_assert_close_messages_match_torch(case):
    a, e = case
    ao, at = _pair(a)
    eo, et = _pair(e)
    try:
        torch.testing.assert_close(at, et)
        theirs = None
    except AssertionError as err:
        theirs = str(err)
    try:
        torchlike.testing.assert_close(ao, eo)
        ours = None
    except AssertionError as err:
        ours = str(err)
    assert ours == theirs


@pytest.mark.parametrize("kind", ["shape", "dtype", "scalars", "list", "dict", "msg", "types"])
def test_assert_close_structure_errors(kind):
    T, L = torch, torchlike
    cases = {
        "shape": lambda m: (m.tensor([1., 2., 3.]), m.tensor([1., 2.])),
        "dtype": lambda m: (m.tensor([1., 2.]), m.tensor([1., 2.], dtype=m.float64)),
        "scalars": lambda m: (1.0, 1.1),
        "list": lambda m: ([m.tensor(1.), m.tensor(2.)], [m.tensor(1.), m.tensor(3.)]),
        "dict": lambda m: ({"a": m.tensor(1.)}, {"a": m.tensor(3.)}),
        "msg": lambda m: (m.tensor([1., 2.]), m.tensor([1., 2.1])),
        "types": lambda m: (m.tensor([1., 2.]), [1., 2.]),
    }
    kw = {"msg": "custom"} if kind == "msg" else {}
    if kind == "types":
        with pytest.raises(TypeError) as et:
            T.testing.assert_close(*cases[kind](T))
        with pytest.raises(TypeError) as eo:
            L.testing.assert_close(*cases[kind](L))
        assert re.sub("torchlike.tensor", "torch", str(eo.value)) == str(et.value)
        return
    theirs = _message(T.testing.assert_close, *cases[kind](T), **kw)
    ours = _message(L.testing.assert_close, *cases[kind](L), **kw)
    assert ours == theirs


def test_assert_close_tolerances_and_equal_nan():
    a = torchlike.tensor([1.0, float("nan")])
    torchlike.testing.assert_close(a, a.clone(), equal_nan=True)
    torchlike.testing.assert_close(torchlike.tensor([1.0]), torchlike.tensor([1.05]), rtol=0.1, atol=0.0)
    with pytest.raises(ValueError):
        torchlike.testing.assert_close(a, a, rtol=0.1)


_MORE_CLOSE_CASES = {  # name: (call on a module -> (fn, args, kwargs))
    "allclose_float32_defaults": lambda m: (m.testing.assert_allclose, (m.tensor([1., 2.]), m.tensor([1., 2.5])), {}),
    "allclose_bf16_no_tolerance": lambda m: (m.testing.assert_allclose, (
        m.ones(2, dtype=m.bfloat16), m.ones(2, dtype=m.bfloat16) * 1.01), {}),
    "bf16_differences": lambda m: (m.testing.assert_close, (
        m.tensor([1., 2.], dtype=m.bfloat16), m.tensor([1.1, 2.], dtype=m.bfloat16)), {}),
    "zero_tolerances_say_equal": lambda m: (m.testing.assert_close, (m.tensor([1., 2.]), m.tensor([1.1, 2.])),
                                            dict(rtol=0, atol=0)),
    "int_with_tolerances": lambda m: (m.testing.assert_close, (m.tensor([1, 2]), m.tensor([1, 5])),
                                      dict(rtol=0.1, atol=1)),
    "int_scalars": lambda m: (m.testing.assert_close, (m.tensor(1), m.tensor(5)), {}),
    "python_int_scalars": lambda m: (m.testing.assert_close, (1, 5), {}),
    "int_vs_float_number": lambda m: (m.testing.assert_close, (3, 5.0), dict(check_dtype=False)),
    "bool_tensors_0d": lambda m: (m.testing.assert_close, (m.tensor(True), m.tensor(False)), {}),
    "python_bools": lambda m: (m.testing.assert_close, (True, False), {}),
    "stride_before_dtype": lambda m: (m.testing.assert_close, (
        m.ones(2, 3).t(), m.ones(3, 2, dtype=m.float64)), dict(check_stride=True)),
    "sparse_layout": lambda m: (m.testing.assert_close, (m.sparse_coo_tensor([[0]], [1.], (2,)), m.ones(2)), {}),
    "sparse_unchecked_layout": lambda m: (m.testing.assert_close, (
        m.sparse_coo_tensor([[0]], [1.], (2,)), m.tensor([1., 1.])), dict(check_layout=False)),
}


@pytest.mark.parametrize("name", sorted(_MORE_CLOSE_CASES))
def test_assert_close_and_allclose_messages_match_torch(name, recwarn):
    """The message's wording follows torch's: "equal" where both tolerances are 0 (any dtype), integers shown
    as ints, bfloat16 differences rounded to bfloat16, assert_allclose's own default tolerances, layout checked
    before device and dtype, stride before dtype, Python bools as torch's BooleanPair."""
    fn_t, args_t, kw = _MORE_CLOSE_CASES[name](torch)
    fn_l, args_l, _ = _MORE_CLOSE_CASES[name](torchlike)
    assert _message(fn_l, *args_l, **kw) == _message(fn_t, *args_t, **kw)


def test_assert_close_subclass_pairs_as_torch():
    for allow in (True, False):
        outcomes = []
        for m in (torch, torchlike):
            a = m.tensor([1., 2.])
            try:
                m.testing.assert_close(m.nn.Parameter(a), a, allow_subclasses=allow)
                outcomes.append(None)
            except TypeError as e:
                outcomes.append(str(e).replace("torchlike.nn.parameter", "torch.nn.parameter")
                                .replace("torchlike.tensor", "torch"))
        assert outcomes[1] == outcomes[0]


def test_make_tensor_ranges_and_seeding():
    torchlike.manual_seed(0)
    a = torchlike.testing.make_tensor(3, 4, dtype=torchlike.float32, low=-2, high=3)
    torchlike.manual_seed(0)
    b = torchlike.testing.make_tensor((3, 4), dtype=torchlike.float32, low=-2, high=3)
    assert torchlike.equal(a, b) and a.shape == (3, 4) and a.dtype is torchlike.float32
    assert float(a.min()) >= -2 and float(a.max()) < 3
    i = torchlike.testing.make_tensor(100, dtype=torchlike.int64, low=0, high=4)
    assert set(i.tolist()) <= {0, 1, 2, 3}
    z = torchlike.testing.make_tensor(50, dtype=torchlike.float64, exclude_zero=True, requires_grad=True)
    assert z.requires_grad and bool((z != 0).all())


def _make_tensors(lib):
    lib.manual_seed(3)
    def mk(*shape, **kw):
        return lib.testing.make_tensor(*shape, device="cpu", **kw)
    return (mk(3, 4, dtype=lib.float32, low=-2, high=3), mk((5,), dtype=lib.float64, requires_grad=True),
            mk(6, dtype=lib.int64), mk(2, 3, dtype=lib.int32, low=0.5, high=4.2), mk(7, dtype=lib.bool),
            mk(2, 3, dtype=lib.uint8), mk(2, 2, dtype=lib.complex64), mk(2, 4, dtype=lib.float32, noncontiguous=True),
            mk(3, dtype=lib.float16, low=-1e9, high=1e9), lib.rand(2))  # (and the generator moved on as torch's)


def test_make_tensor_draws_as_torch():
    """torch.testing.make_tensor draws from the global generator (randint, uniform_): the same values and
    later draws for the same seed (gradgradcheck's random grad_outputs come from it)."""
    ours, theirs = _make_tensors(torchlike), _make_tensors(torch)
    for o, t in zip(ours, theirs):
        assert str(o.dtype) == str(t.dtype) and o.requires_grad == t.requires_grad and o.shape == t.shape
        np.testing.assert_array_equal(o.detach().numpy(), t.detach().numpy())
    assert not ours[7].is_contiguous() and not theirs[7].is_contiguous()


def test_random_module_and_fork_rng():
    torchlike.random.manual_seed(5)
    assert torchlike.random.initial_seed() == 5
    state = torchlike.random.get_rng_state()
    with torchlike.random.fork_rng():
        a = torchlike.rand(3)
    b = torchlike.rand(3)
    assert torchlike.equal(a, b)
    torchlike.random.set_rng_state(state)
    assert torchlike.equal(torchlike.rand(3), a)


def _square_into(i, queue):
    queue.put((i, i * i))


def _boom(i):
    raise ValueError(f"worker {i} failed")


def test_multiprocessing_spawn_runs_and_surfaces_errors():
    mp = torchlike.multiprocessing
    ctx = mp.get_context("spawn")
    q = ctx.SimpleQueue()
    mp.spawn(_square_into, args=(q,), nprocs=2)
    assert sorted(q.get() for _ in range(2)) == [(0, 0), (1, 1)]
    with pytest.raises(mp.ProcessRaisedException, match="worker 0 failed"):
        mp.spawn(_boom, nprocs=1)
    assert mp.get_sharing_strategy() in mp.get_all_sharing_strategies()
    mp.set_sharing_strategy("file_system")
    assert mp.get_sharing_strategy() == "file_system"
    mp.set_sharing_strategy("file_descriptor")


def _nets():
    torch.manual_seed(0)
    tn = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.BatchNorm1d(4), torch.nn.Linear(4, 2))
    ln = torchlike.nn.Sequential(torchlike.nn.Linear(3, 4), torchlike.nn.BatchNorm1d(4), torchlike.nn.Linear(4, 2))
    ln.load_state_dict({k: torchlike.from_numpy(v.numpy().copy()) for k, v in tn.state_dict().items()})
    return tn, ln


@pytest.mark.parametrize("mode", ["swa", "ema_multi", "ema_avg", "buffers"])
def test_averaged_model_matches_torch(mode):
    tn, ln = _nets()
    kw_t, kw_l = {}, {}
    if mode == "ema_multi":
        kw_t["multi_avg_fn"] = torch.optim.swa_utils.get_ema_multi_avg_fn(0.9)
        kw_l["multi_avg_fn"] = torchlike.optim.swa_utils.get_ema_multi_avg_fn(0.9)
    if mode == "ema_avg":
        kw_t["avg_fn"] = torch.optim.swa_utils.get_ema_avg_fn(0.8)
        kw_l["avg_fn"] = torchlike.optim.swa_utils.get_ema_avg_fn(0.8)
    if mode == "buffers":
        kw_t["use_buffers"] = kw_l["use_buffers"] = True
    at = torch.optim.swa_utils.AveragedModel(tn, **kw_t)
    al = torchlike.optim.swa_utils.AveragedModel(ln, **kw_l)
    for step in range(4):
        x = RNG.standard_normal((5, 3)).astype(np.float32)
        tn(torch.from_numpy(x))  # training-mode forward moves BatchNorm's running stats
        ln(torchlike.from_numpy(x))
        with torch.no_grad():
            for p in tn.parameters():
                p.mul_(0.9).add_(0.1)
        with torchlike.no_grad():
            for p in ln.parameters():
                p.mul_(0.9).add_(0.1)
        at.update_parameters(tn)
        al.update_parameters(ln)
    sd_t, sd_l = at.state_dict(), al.state_dict()
    assert list(sd_t) == list(sd_l)
    for k in sd_t:
        np.testing.assert_allclose(sd_l[k].numpy(), sd_t[k].numpy(), rtol=1e-5, atol=1e-6, err_msg=k)
    assert sd_l["n_averaged"].dtype is torchlike.int64


def test_update_bn_matches_torch():
    tn, ln = _nets()
    batches = [RNG.standard_normal((6, 3)).astype(np.float32) for _ in range(3)]
    torch.optim.swa_utils.update_bn([torch.from_numpy(b) for b in batches], tn)
    torchlike.optim.swa_utils.update_bn([(torchlike.from_numpy(b), 0) for b in batches], ln)
    for k, v in tn.state_dict().items():
        np.testing.assert_allclose(ln.state_dict()[k].numpy(), v.numpy(), rtol=1e-5, atol=1e-6, err_msg=k)


@pytest.mark.parametrize("strategy,epochs", [("cos", 3), ("linear", 2), ("cos", 0)])
def test_swalr_matches_torch(strategy, epochs):
    pt = [torch.zeros(1, requires_grad=True)]
    pl = [torchlike.zeros(1, requires_grad=True)]
    ot = torch.optim.SGD(pt, lr=0.5)
    ol = torchlike.optim.SGD(pl, lr=0.5)
    st = torch.optim.swa_utils.SWALR(ot, swa_lr=0.05, anneal_epochs=epochs, anneal_strategy=strategy)
    sl = torchlike.optim.swa_utils.SWALR(ol, swa_lr=0.05, anneal_epochs=epochs, anneal_strategy=strategy)
    for _ in range(5):
        ot.step()
        ol.step()
        st.step()
        sl.step()
        np.testing.assert_allclose(sl.get_last_lr(), st.get_last_lr(), rtol=1e-12)
    sd = copy.deepcopy(sl.state_dict())
    assert set(sd) == set(st.state_dict())
    with pytest.raises(ValueError, match="anneal_strategy must be one of"):
        torchlike.optim.swa_utils.SWALR(ol, swa_lr=0.1, anneal_strategy="exp")


def test_nn_modules_paths_like_torch():
    from torchlike.nn.modules import batchnorm, instancenorm, utils
    assert isinstance(torchlike.nn.BatchNorm2d(2), batchnorm._BatchNorm)
    assert isinstance(torchlike.nn.InstanceNorm2d(2), instancenorm._InstanceNorm)
    from torch.nn.modules import utils as tutils
    for fn in ("_single", "_pair", "_triple", "_quadruple"):
        assert getattr(utils, fn)(3) == getattr(tutils, fn)(3)
        assert getattr(utils, fn)([1, 2]) == getattr(tutils, fn)([1, 2])
    assert utils._reverse_repeat_tuple((1, 2, 3), 2) == tutils._reverse_repeat_tuple((1, 2, 3), 2)
