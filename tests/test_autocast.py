"""CPU autocast against torch's: per-op output dtypes (exact) and values (bf16 tolerances), nesting,
enabled=False regions, the weight-cast cache, custom_fwd/custom_bwd, gradients in the parameter's own
dtype, and a small bf16 training run whose losses track torch's."""
import warnings

import numpy as np
import pytest

import torchlike
from conftest import to_tl, torch

rng = np.random.default_rng(0)


def _arr(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def _spd(n):
    m = _arr(n, n)
    return m @ m.T + n * np.eye(n, dtype=np.float32)


# name -> (fn(lib, *inputs), input arrays); inputs are converted to each library's tensors.
OPS = {
    "matmul": (lambda L, a, b: L.matmul(a, b), (_arr(4, 5), _arr(5, 3))),
    "matmul_vec": (lambda L, a, b: a @ b[0], (_arr(4, 5), _arr(3, 5))),
    "mm": (lambda L, a, b: L.mm(a, b), (_arr(4, 5), _arr(5, 3))),
    "bmm": (lambda L, a, b: L.bmm(a, b), (_arr(2, 4, 5), _arr(2, 5, 3))),
    "addmm": (lambda L, a, b: L.addmm(a[:, :3], a, b), (_arr(4, 5), _arr(5, 3))),
    "baddbmm": (lambda L, a, b: L.baddbmm(a[..., :3], a, b), (_arr(2, 4, 5), _arr(2, 5, 3))),
    "addbmm": (lambda L, a, b: L.addbmm(a[0, :, :3], a, b), (_arr(2, 4, 5), _arr(2, 5, 3))),
    "linear": (lambda L, a, w: L.nn.functional.linear(a, w, w[:, 0]), (_arr(4, 5), _arr(3, 5))),
    "einsum_contract": (lambda L, a, b: L.einsum("ij,jk->ik", a, b), (_arr(4, 5), _arr(5, 3))),
    "einsum_elementwise": (lambda L, a, b: L.einsum("ij,ij->ij", a, b), (_arr(4, 5), _arr(4, 5))),
    "tensordot": (lambda L, a, b: L.tensordot(a, b, 1), (_arr(4, 5), _arr(5, 3))),
    "inner": (lambda L, a, b: L.inner(a, b), (_arr(4, 5), _arr(3, 5))),
    "conv1d": (lambda L, x, w: L.nn.functional.conv1d(x, w), (_arr(2, 3, 8), _arr(4, 3, 3))),
    "conv2d": (lambda L, x, w: L.nn.functional.conv2d(x, w, padding=1), (_arr(2, 3, 6, 6), _arr(4, 3, 3, 3))),
    "conv3d": (lambda L, x, w: L.nn.functional.conv3d(x, w), (_arr(1, 2, 4, 4, 4), _arr(3, 2, 2, 2, 2))),
    "conv_transpose2d": (lambda L, x, w: L.nn.functional.conv_transpose2d(x, w), (_arr(2, 3, 5, 5), _arr(3, 2, 3, 3))),
    "prelu": (lambda L, x, w: L.nn.functional.prelu(x, w[:3]), (_arr(2, 3, 4), _arr(3))),
    "sdpa": (lambda L, q, k: L.nn.functional.scaled_dot_product_attention(q, k, k), (_arr(2, 4, 8), _arr(2, 6, 8))),
    "mv_not_listed": (lambda L, a, b: L.mv(a, b[0]), (_arr(4, 5), _arr(3, 5))),
    "dot_not_listed": (lambda L, a, b: L.dot(a[0], b[0]), (_arr(4, 5), _arr(3, 5))),
    "softmax": (lambda L, a: L.softmax(a, -1), (_arr(4, 5),)),
    "layer_norm": (lambda L, a: L.nn.functional.layer_norm(a, (5,)), (_arr(4, 5),)),
    "exp": (lambda L, a: a.exp(), (_arr(4, 5),)),
    "sum": (lambda L, a: a.sum(), (_arr(4, 5),)),
    "prod": (lambda L, a: (a * 0.1 + 1).prod(), (_arr(4, 5),)),
    "mse_loss": (lambda L, a, b: L.nn.functional.mse_loss(a, b), (_arr(4, 5), _arr(4, 5))),
    "l1_loss": (lambda L, a, b: L.nn.functional.l1_loss(a, b), (_arr(4, 5), _arr(4, 5))),
    "smooth_l1_loss": (lambda L, a, b: L.nn.functional.smooth_l1_loss(a, b), (_arr(4, 5), _arr(4, 5))),
    "kl_div": (lambda L, a, b: L.nn.functional.kl_div(a, b.softmax(-1)), (_arr(4, 5), _arr(4, 5))),
    "bce_with_logits": (lambda L, a, b: L.nn.functional.binary_cross_entropy_with_logits(a, b.sigmoid()),
                        (_arr(4, 5), _arr(4, 5))),
    "cdist": (lambda L, a, b: L.cdist(a, b), (_arr(4, 5), _arr(3, 5))),
    "inv": (lambda L, a: L.linalg.inv(a), (_spd(4),)),
    "rfft": (lambda L, a: L.fft.rfft(a).abs(), (_arr(8),)),
    "avg_pool3d": (lambda L, x: L.nn.functional.avg_pool3d(x, 2), (_arr(1, 2, 4, 4, 4),)),
    "max_pool2d": (lambda L, x: L.nn.functional.max_pool2d(x, 2), (_arr(1, 2, 4, 4),)),
    "reflect_pad2d": (lambda L, x: L.nn.functional.pad(x, (1, 1, 1, 1), mode="reflect"), (_arr(1, 2, 4, 4),)),
    "constant_pad": (lambda L, x: L.nn.functional.pad(x, (1, 1)), (_arr(1, 2, 4),)),
    "cat_promotes": (lambda L, a, b: L.cat([a, b]), (_arr(2, 3), _arr(2, 3))),
}
_BF16_INPUTS = {"mv_not_listed", "softmax", "layer_norm", "exp", "sum", "prod", "mse_loss", "l1_loss", "cross_entropy",
                "smooth_l1_loss", "kl_div", "bce_with_logits", "cdist", "inv", "rfft", "avg_pool3d", "max_pool2d",
                "reflect_pad2d", "constant_pad", "cat_promotes"}


def _tensors(lib, arrays, bf16_second=False):
    out = []
    for i, a in enumerate(arrays):
        t = torch.from_numpy(a.copy())
        if bf16_second and i == len(arrays) - 1:
            t = t.bfloat16()
        out.append(t if lib is torch else to_tl(t))
    return out


@pytest.mark.parametrize("name", sorted(OPS))
@pytest.mark.parametrize("inputs", ["float32", "bfloat16", "float64"])
def test_op_dtype_and_values_match_torch(name, inputs):
    fn, arrays = OPS[name]
    res = {}
    for lib in (torch, torchlike):
        ts = _tensors(lib, arrays)
        if inputs == "bfloat16":
            ts = [t.to(lib.bfloat16) for t in ts]
        elif inputs == "float64":
            ts = [t.to(lib.float64) for t in ts]
        with lib.autocast("cpu", dtype=lib.bfloat16):
            try:
                res[lib.__name__] = fn(lib, *ts)
            except Exception as e:  # noqa: BLE001  (torch rejects some mixes: we must too)
                res[lib.__name__] = e
    t, o = res["torch"], res["torchlike"]
    if isinstance(t, Exception):
        assert isinstance(o, Exception), f"torch raised {t!r}, torchlike returned {o}"
        assert type(o) is type(t) and str(o) == str(t), f"torchlike raised {o!r}, torch {t!r}"
        return
    assert not isinstance(o, Exception), o
    assert str(o.dtype) == str(t.dtype), (name, inputs, o.dtype, t.dtype)
    got = np.asarray(o.detach().float()._value, dtype=np.float64)
    want = t.detach().double().numpy()
    tol = 3e-2 if "bfloat16" in (str(t.dtype), inputs) or t.dtype == torch.bfloat16 else 1e-4
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol * max(1.0, float(np.abs(want).max())))


def test_mixed_input_dtypes_are_unified():
    a, b = _arr(4, 5), _arr(5, 3)
    for lib in (torch, torchlike):
        x, y = _tensors(lib, (a, b), bf16_second=True)
        with lib.autocast("cpu"):
            assert str((x @ y).dtype).endswith("bfloat16")  # float32 @ bfloat16 works under autocast
            assert str(lib.nn.functional.mse_loss(x, x.to(lib.bfloat16)).dtype).endswith("float32")
    x, y = _tensors(torchlike, (a, b), bf16_second=True)
    with pytest.raises(RuntimeError):
        x @ y  # and outside autocast it is an error, as in torch


def test_nesting_disabled_regions_and_state_queries():
    x = torchlike.ones(2, 2)
    with torchlike.autocast("cpu", dtype=torchlike.bfloat16):
        assert torchlike.is_autocast_enabled("cpu") and not torchlike.is_autocast_enabled()
        assert torchlike.get_autocast_dtype("cpu") is torchlike.bfloat16
        with torchlike.autocast("cpu", enabled=False):
            assert (x @ x).dtype is torchlike.float32
            assert not torchlike.is_autocast_enabled("cpu")
        with torchlike.autocast("cpu", dtype=torchlike.float16):
            assert (x @ x).dtype is torchlike.float16
        assert (x @ x).dtype is torchlike.bfloat16
    assert (x @ x).dtype is torchlike.float32 and not torchlike.is_autocast_enabled("cpu")

    @torchlike.autocast("cpu")
    def f(a):
        return a @ a
    assert f(x).dtype is torchlike.bfloat16
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        with torchlike.autocast("cpu", dtype=torchlike.float32):
            assert (x @ x).dtype is torchlike.float32
    assert "CPU Autocast only supports dtypes of torch.bfloat16, torch.float16 currently." in str(w[0].message)


def test_gradients_in_parameter_dtype_and_weight_cache():
    torch.manual_seed(0)
    tl_lin = torchlike.nn.Linear(4, 3)
    t_lin = torch.nn.Linear(4, 3)
    tl_lin.load_state_dict({k: to_tl(v) for k, v in t_lin.state_dict().items()})
    x = _arr(5, 4)
    for lib, lin in ((torch, t_lin), (torchlike, tl_lin)):
        xx = _tensors(lib, (x,))[0]
        with lib.autocast("cpu"):
            y1 = lin(xx)
            y2 = lin(xx * 2)
            loss = (y1.float() ** 2).sum() + y2.float().sum()
        loss.backward()
    for p_l, p_t in zip(tl_lin.parameters(), t_lin.parameters()):
        assert p_l.grad.dtype is torchlike.float32
        np.testing.assert_allclose(np.asarray(p_l.grad), p_t.grad.numpy(), rtol=3e-2, atol=3e-2)
    from torchlike.amp import _policy
    with torchlike.autocast("cpu"):
        tl_lin(torchlike.ones(1, 4))
        cached = dict(_policy.state.cache)
        tl_lin(torchlike.ones(1, 4))
        assert len(cached) == 2 and dict(_policy.state.cache).keys() == cached.keys()
        first = [v[1] for v in cached.values()]
        assert all(v[1] is f for v, f in zip(_policy.state.cache.values(), first))  # cast once, reused
    assert not _policy.state.cache  # cleared leaving the outermost region
    with torchlike.autocast("cpu", cache_enabled=False):
        tl_lin(torchlike.ones(1, 4))
        assert not _policy.state.cache


def test_custom_fwd_bwd():
    seen = {}

    class MyMM(torchlike.autograd.Function):
        @staticmethod
        @torchlike.amp.custom_fwd(device_type="cpu", cast_inputs=torchlike.float32)
        def forward(ctx, a, b):
            ctx.save_for_backward(a, b)
            seen["fwd"] = (a.dtype, torchlike.is_autocast_enabled("cpu"))
            return a.mm(b)

        @staticmethod
        @torchlike.amp.custom_bwd(device_type="cpu")
        def backward(ctx, g):
            seen["bwd"] = torchlike.is_autocast_enabled("cpu")
            a, b = ctx.saved_tensors
            return g.mm(b.t()), a.t().mm(g)

    a = torchlike.ones(2, 2, dtype=torchlike.bfloat16, requires_grad=True)
    with torchlike.autocast("cpu"):
        out = MyMM.apply(a, torchlike.ones(2, 2))
    assert out.dtype is torchlike.float32 and seen["fwd"] == (torchlike.float32, False)
    out.sum().backward()
    assert seen["bwd"] is False and a.grad.dtype is torchlike.bfloat16
    with pytest.raises(TypeError, match="device_type"):
        torchlike.amp.custom_fwd(lambda ctx: ctx)


def test_bf16_training_tracks_torch():
    torch.manual_seed(0)
    tm = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 3))
    lm = torchlike.nn.Sequential(torchlike.nn.Linear(8, 16), torchlike.nn.ReLU(), torchlike.nn.Linear(16, 3))
    lm.load_state_dict({k: to_tl(v) for k, v in tm.state_dict().items()})
    x, y = _arr(32, 8), rng.integers(0, 3, 32)
    losses = {}
    for lib, m in ((torch, tm), (torchlike, lm)):
        opt = lib.optim.SGD(m.parameters(), lr=0.1)
        xx, yy = lib.tensor(x), lib.tensor(y)
        out = []
        for _ in range(15):
            opt.zero_grad()
            with lib.autocast("cpu", dtype=lib.bfloat16):
                logits = m(xx)
                loss = lib.nn.functional.cross_entropy(logits, yy)
            assert str(logits.dtype).endswith("bfloat16") and str(loss.dtype).endswith("float32")
            loss.backward()
            opt.step()
            out.append(loss.item())
        losses[lib.__name__] = np.array(out)
    assert losses["torch"][-1] < losses["torch"][0] * 0.9
    np.testing.assert_allclose(losses["torchlike"], losses["torch"], rtol=2e-2, atol=2e-2)


def _scaler_run(lib, state, steps, compiled=False, init_scale=2.0 ** 20):
    lib.manual_seed(0)
    m = lib.nn.Sequential(lib.nn.Linear(6, 8), lib.nn.ReLU(), lib.nn.Linear(8, 2))
    m.load_state_dict({k: (v if lib is torch else to_tl(v)) for k, v in state.items()})
    opt = lib.optim.Adam(m.parameters(), lr=0.01)
    # scales kept well away from the overflow threshold, where float16 accumulation order decides
    scaler = lib.amp.GradScaler("cpu", init_scale=init_scale, growth_factor=1.25, backoff_factor=1 / 16,
                                growth_interval=4)
    x = lib.tensor(np.linspace(-1, 1, 24, dtype=np.float32).reshape(4, 6) * 100)
    y = lib.tensor(np.arange(8, dtype=np.float32).reshape(4, 2))

    def step():
        opt.zero_grad()
        with lib.autocast("cpu", dtype=lib.float16):
            loss = lib.nn.functional.mse_loss(m(x), y)
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        return loss
    if compiled:
        step = lib.compile(step)
    trace = []
    for _ in range(steps):
        loss = step()
        trace.append((float(loss.item()), scaler.get_scale()))
    return trace, scaler, [p.detach().float().numpy() if lib is torch else np.asarray(p.detach()._value)
                           for p in m.parameters()]


@pytest.mark.parametrize("compiled", [False, True])
def test_grad_scaler_dynamic_scaling_matches_torch(compiled):
    torch.manual_seed(0)
    state = torch.nn.Sequential(torch.nn.Linear(6, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2)).state_dict()
    t_trace, t_scaler, t_params = _scaler_run(torch, state, 12)
    l_trace, l_scaler, l_params = _scaler_run(torchlike, state, 12, compiled=compiled)
    t_scales = [s for _, s in t_trace]
    assert t_scales[0] < 2.0 ** 20 and t_scales[-1] > min(t_scales)  # overflow backoffs, then growth
    assert [s for _, s in l_trace] == t_scales
    np.testing.assert_allclose([v for v, _ in l_trace], [v for v, _ in t_trace], rtol=2e-2)
    for a, b in zip(l_params, t_params):
        np.testing.assert_allclose(a, b, rtol=2e-2, atol=2e-3)
    assert l_scaler.state_dict() == t_scaler.state_dict()


def test_grad_scaler_errors_and_state_dict():
    m = torchlike.nn.Linear(2, 1)
    opt = torchlike.optim.SGD(m.parameters(), lr=0.1)
    s = torchlike.amp.GradScaler("cpu")
    s.scale(m(torchlike.ones(1, 2)).sum()).backward()
    s.unscale_(opt)
    with pytest.raises(RuntimeError, match=r"unscale_\(\) has already been called on this optimizer since the last "
                                           r"update\(\)."):
        s.unscale_(opt)
    s.step(opt)
    with pytest.raises(RuntimeError, match=r"step\(\) has already been called since the last update\(\)."):
        s.step(opt)
    s.update()
    t = torchlike.amp.GradScaler("cpu")
    t.load_state_dict(s.state_dict())
    assert t.state_dict() == s.state_dict() == {"scale": 65536.0, "growth_factor": 2.0, "backoff_factor": 0.5,
                                                "growth_interval": 2000, "_growth_tracker": 1}
    with pytest.raises(RuntimeError, match="The source state dict is empty"):
        t.load_state_dict({})
    with pytest.raises(ValueError, match="outputs must be a Tensor or an iterable of Tensors"):
        s.scale(3.0)


def test_weight_cache_is_keyed_by_the_weight_alone_like_torch():
    # torch's cached_cast looks a weight up by itself: a nested float16 region reuses the bfloat16 cast (so
    # the matmul sees two dtypes and raises), and an in-place update inside the region keeps the first cast
    def run(m, cache, update):
        m.manual_seed(0)
        lin, x = m.nn.Linear(2, 1), m.ones(1, 2)
        with m.autocast("cpu", dtype=m.bfloat16, cache_enabled=cache):
            a = lin(x)
            if update:
                with m.no_grad():
                    lin.weight.add_(1)
                return a, lin(x)
            with m.autocast("cpu", dtype=m.float16):
                try:
                    return a, lin(x)
                except RuntimeError as e:
                    return a, "RuntimeError: " + str(e).split(" but got")[0]
    for cache, update in ((True, False), (False, False), (True, True), (False, True)):
        ours, theirs = run(torchlike, cache, update), run(torch, cache, update)
        for o, t in zip(ours, theirs):
            if isinstance(t, str):
                assert o == t
            else:
                assert str(o.dtype) == str(t.dtype)
                np.testing.assert_allclose(o.detach().float().numpy(), t.detach().float().numpy(), rtol=1e-2)


@pytest.mark.parametrize("new_scale", ["float", "0-d", "[1]", "double", "requires_grad"])
def test_grad_scaler_update_new_scale_forms_match_torch(new_scale):
    # torch copies new_scale into its 0-d scale: a float or a 0-d float32 tensor sets it, a [1] tensor (which its
    # own assertion message invites) fails the copy with a RuntimeError, other tensors fail the assertion
    def run(m):
        s = m.amp.GradScaler("cpu", init_scale=8.0)
        p = m.nn.Parameter(m.ones(2))
        opt = m.optim.SGD([p], lr=0.1)
        s.scale(p.sum()).backward()
        s.step(opt)
        value = {"float": 4.0, "0-d": m.tensor(4.0), "[1]": m.tensor([4.0]), "double": m.tensor(4.0).double(),
                 "requires_grad": m.tensor(4.0, requires_grad=True)}[new_scale]
        try:
            s.update(new_scale=value)
        except (RuntimeError, AssertionError) as e:
            return type(e).__name__, str(e)
        return s.get_scale(), p.tolist()
    assert run(torchlike) == run(torch)
