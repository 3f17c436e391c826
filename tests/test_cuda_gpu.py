"""torchlike on a real GPU ('cuda' is JAX's GPU), each result checked against torch on the same GPU, or
against torch's CPU where torch's build has no CUDA.

Skipped where JAX sees no GPU (CI has none): the skip carries its reason and is counted in the report. The
device tool's runs of this file are recorded in conformance/REPORT.md.
"""
import os
import pickle
import textwrap

import numpy as np
import pytest

import torchlike
from conftest import free_port, run_program

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.skipif(not torchlike.cuda.is_available(), reason="needs a GPU that JAX sees")
REF = "cuda" if torch.cuda.is_available() else "cpu"


def _platform(t):
    return next(iter(t._value.devices())).platform


def _tl(a, device="cuda", **kw):
    return torchlike.tensor(a, device=device, **kw)


def _th(a, **kw):
    return torch.tensor(a, device=REF, **kw)


def _close(ours, theirs, rtol=1e-5, atol=1e-5):
    assert str(ours.dtype) == str(theirs.dtype), (ours.dtype, theirs.dtype)
    assert tuple(ours.shape) == tuple(theirs.shape), (ours.shape, theirs.shape)
    np.testing.assert_allclose(ours.detach().cpu().float().numpy() if ours.dtype.is_floating_point
                               else ours.detach().cpu().numpy(),
                               theirs.detach().cpu().float().numpy() if theirs.dtype.is_floating_point
                               else theirs.detach().cpu().numpy(), rtol=rtol, atol=atol)


@pytest.mark.parametrize("make", [
    lambda m, d: m.zeros(3, 4, device=d), lambda m, d: m.ones(5, device=d), lambda m, d: m.randn(2, 3, device=d),
    lambda m, d: m.rand(7, device=d), lambda m, d: m.arange(10, device=d), lambda m, d: m.full((2, 2), 3.5, device=d),
    lambda m, d: m.empty(4, device=d), lambda m, d: m.eye(3, device=d), lambda m, d: m.tensor([1, 2, 3], device=d),
    lambda m, d: m.randint(0, 9, (4,), device=d), lambda m, d: m.zeros(3, device=m.device(d, 0) if d != "cpu" else d),
    lambda m, d: m.linspace(0, 1, 5, device=d + ":0" if d != "cpu" else d),
], ids=["zeros", "ones", "randn", "rand", "arange", "full", "empty", "eye", "tensor", "randint", "device_obj",
        "linspace"])
def test_factories_land_on_the_gpu(make):
    t = make(torchlike, "cuda")
    assert t.device == torchlike.device("cuda", 0) and str(t.device) == "cuda:0" and t.is_cuda
    assert _platform(t) == "gpu"
    assert _platform(t * 2) == "gpu"  # an op on it runs there too (not on JAX's default device)
    assert str(t.dtype) == str(make(torch, REF).dtype)


def test_legacy_cuda_tensor_types_make_and_recognise_gpu_tensors():
    """torch.cuda.FloatTensor & co. (old scripts' ``Tensor = torch.cuda.FloatTensor if cuda else ...``): they make
    tensors on the GPU, recognise only GPU tensors of their dtype, and ``x.type(...)`` moves a CPU tensor."""
    x = torchlike.cuda.FloatTensor([1.5, 2.5])
    assert x.is_cuda and x.dtype == torchlike.float32 and _platform(x) == "gpu"
    assert isinstance(x, torchlike.cuda.FloatTensor) and not isinstance(x, torchlike.cuda.LongTensor)
    assert not isinstance(torchlike.ones(2), torchlike.cuda.FloatTensor)
    assert torchlike.cuda.LongTensor(3).shape == (3,)
    moved = torchlike.tensor([1.0, 2.0]).type(torchlike.cuda.LongTensor)
    assert moved.is_cuda and moved.dtype == torchlike.int64 and moved.type() == "torch.cuda.LongTensor"
    assert torchlike.tensor([1.0]).type("torch.cuda.DoubleTensor").is_cuda
    assert torch.cuda.FloatTensor.is_cuda and torchlike.cuda.FloatTensor.is_cuda


def test_to_cuda_and_back_keeps_values_and_grad():
    a = np.random.default_rng(0).standard_normal((4, 5)).astype(np.float32)
    x = torchlike.tensor(a, requires_grad=True)
    for y in (x.cuda(), x.to("cuda"), x.to("cuda:0", non_blocking=True), x.to(torchlike.device("cuda")),
              x.cuda(0)):
        assert y.is_cuda and _platform(y) == "gpu" and y.requires_grad
    y = x.cuda()
    (y * 2).sum().backward()
    assert x.grad.device.type == "cpu" and np.array_equal(x.grad.numpy(), np.full_like(a, 2))
    z = y.detach().cpu()
    assert z.device.type == "cpu" and np.array_equal(z.numpy(), a)
    h = x.detach().to("cuda", torchlike.float16)
    assert h.dtype is torchlike.float16 and h.is_cuda


class _Double(torchlike.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * 2

    @staticmethod
    def backward(ctx, g):
        x, = ctx.saved_tensors
        assert g.is_cuda and _platform(g) == "gpu"  # (a CPU gradient would fail the product below)
        return g * 2 * x


def test_gradients_reach_functions_and_hooks_on_the_gpu():
    x = torchlike.ones(3, device="cuda", requires_grad=True)
    _Double.apply(x).pow(2).sum().backward()
    assert x.grad.is_cuda and x.grad.tolist() == [8.0, 8.0, 8.0]
    seen = []
    y = torchlike.ones(3, device="cuda", requires_grad=True)
    z = y * 2
    z.register_hook(lambda g: seen.append((g.is_cuda, _platform(g))))
    z.retain_grad()
    z.sum().backward()
    assert seen == [(True, "gpu")] and z.grad.is_cuda and _platform(z.grad) == "gpu" and y.grad.is_cuda


def test_double_backward_through_a_partly_used_multi_output_op_on_the_gpu():
    """create_graph=True records the backward as ops: the unused output's zero cotangent is made on the GPU,
    and the op's numeric argument (std_mean's correction) is not taken for a CPU tensor."""
    a = np.random.default_rng(1).standard_normal(6)
    grads = []
    for mod, dev in ((torchlike, "cuda"), (torch, REF)):
        x = mod.tensor(a, device=dev, requires_grad=True)
        s, _ = mod.std_mean(x)
        g, = mod.autograd.grad(s, x, create_graph=True)
        h, = mod.autograd.grad((g * g).sum(), x)
        grads.append((g, h))
    (g, h), (tg, th) = grads
    assert g.is_cuda and h.is_cuda and _platform(g) == _platform(h) == "gpu"
    _close(g, tg, rtol=1e-10, atol=1e-12)
    _close(h, th, rtol=1e-10, atol=1e-12)


def test_module_cuda_moves_parameters_and_buffers():
    torchlike.manual_seed(0)
    m = torchlike.nn.Sequential(torchlike.nn.Linear(3, 4), torchlike.nn.BatchNorm1d(4))
    assert m.cuda() is m
    assert all(p.is_cuda for p in m.parameters()) and all(b.is_cuda for b in m.buffers())
    out = m(torchlike.randn(8, 3, device="cuda"))
    assert out.is_cuda and m[1].running_mean.is_cuda
    m.to("cpu")
    assert not any(p.is_cuda for p in m.parameters())


def _error(fn, mod):
    try:
        fn(mod)
    except Exception as e:  # noqa: BLE001 - the test compares the exception itself
        return type(e).__name__, str(e).split("\n")[0]
    return None


@pytest.mark.parametrize("fn", [
    lambda m: m.ones(3, device="cuda") + m.ones(3),
    lambda m: m.ones(2, 3, device="cuda") @ m.ones(3, 2),
    lambda m: m.cat([m.ones(2, device="cuda"), m.ones(2)]),
    lambda m: m.nn.Linear(3, 2)(m.ones(1, 3, device="cuda")),
    lambda m: m.ones(2) + m.ones((), device="cuda"),  # a 0-d GPU tensor is no CPU scalar
    lambda m: m.ones((), device="cuda") * m.ones(3),
], ids=["add", "matmul", "cat", "linear", "cpu_with_gpu_0d", "gpu_0d_with_cpu"])
def test_tensors_on_two_devices_raise_like_torch(fn):
    ours = _error(fn, torchlike)
    assert ours is not None and ours[0] == "RuntimeError", ours
    if REF == "cuda":
        assert ours == _error(fn, torch)
    else:
        assert "device" in ours[1], ours


@pytest.mark.parametrize("fn", [
    lambda m: m.ones(3, device="cuda") * m.tensor(2.0), lambda m: m.tensor(2.0) * m.ones(3, device="cuda"),
    lambda m: m.arange(3.0).sum() * m.ones(3, device="cuda"),
    lambda m: m.where(m.tensor(True), m.ones(3, device="cuda"), m.tensor(0.0)),
], ids=["gpu_first", "cpu_scalar_first", "computed_cpu_scalar", "where"])
def test_cpu_scalar_tensors_combine_with_gpu_tensors(fn):
    # 0-d CPU tensors go with tensors of any device (torch's TensorIterator), first or not
    out = fn(torchlike)
    assert out.is_cuda and _platform(out) == "gpu"
    if REF == "cuda":
        theirs = fn(torch)
        assert theirs.is_cuda and out.tolist() == theirs.tolist()


def test_gradient_of_a_cpu_scalar_used_on_the_gpu_stays_on_the_cpu():
    s = torchlike.tensor(2.0, requires_grad=True)
    (torchlike.arange(3.0, device="cuda") * s).sum().backward()
    assert s.grad.device.type == "cpu" and s.grad.item() == 3.0


def test_optimizer_state_loads_onto_the_parameters_device():
    # a checkpoint saved on the CPU resumes on the GPU: torch moves the state to each parameter's device
    # (and keeps a non-capturable 'step' where it was)
    res = {}
    for m, dev in ((torchlike, "cuda"), (torch, REF)):
        m.manual_seed(0)
        net = m.nn.Linear(3, 2)
        opt = m.optim.Adam(net.parameters())
        net(m.ones(4, 3)).sum().backward()
        opt.step()
        net2 = m.nn.Linear(3, 2).to(dev)
        opt2 = m.optim.Adam(net2.parameters())
        opt2.load_state_dict(opt.state_dict())
        st = opt2.state[net2.weight]
        res[m.__name__] = (st["exp_avg"].device.type, st["exp_avg_sq"].device.type, st["step"].device.type)
        net2(m.ones(4, 3, device=dev)).sum().backward()
        opt2.step()  # state and parameters on one device
    assert res["torchlike"] == ("cuda", "cuda", "cpu")
    if REF == "cuda":
        assert res["torchlike"] == res["torch"]


def test_numpy_of_gpu_tensor_raises_like_torch():
    ours = _error(lambda m: m.ones(2, device="cuda").numpy(), torchlike)
    assert ours is not None and ours[0] == "TypeError"
    if REF == "cuda":
        assert ours == _error(lambda m: m.ones(2, device="cuda").numpy(), torch)


OPS = {
    "exp": lambda m, x, w: m.exp(x), "sin": lambda m, x, w: x.sin(), "tanh": lambda m, x, w: m.tanh(x),
    "sum": lambda m, x, w: x.sum(1), "mean": lambda m, x, w: x.mean(), "var": lambda m, x, w: x.var(0),
    "softmax": lambda m, x, w: m.softmax(x, -1), "log_softmax": lambda m, x, w: m.log_softmax(x, 1),
    "cumsum": lambda m, x, w: x.cumsum(1), "sort": lambda m, x, w: x.sort(1).values,
    "topk": lambda m, x, w: x.topk(3).values, "argmax": lambda m, x, w: x.argmax(1),
    "matmul": lambda m, x, w: x @ w, "gelu": lambda m, x, w: m.nn.functional.gelu(x),
    "layer_norm": lambda m, x, w: m.nn.functional.layer_norm(x, (16,)),
    "where": lambda m, x, w: m.where(x > 0, x, w[:8, :16]), "index": lambda m, x, w: x[[0, 2, 5]],
    "cross_entropy": lambda m, x, w: m.nn.functional.cross_entropy(x, (x.abs() * 3).long().clamp(max=15)[:, 0]),
    "conv2d": lambda m, x, w: m.nn.functional.conv2d(x.view(2, 2, 4, 8), w[:3, :18].reshape(3, 2, 3, 3)),
    "sdpa": lambda m, x, w: m.nn.functional.scaled_dot_product_attention(x.view(1, 2, 4, 16), x.view(1, 2, 4, 16),
                                                                          x.view(1, 2, 4, 16), is_causal=True),
    "scatter_add": lambda m, x, w: m.zeros(8, 16, device=x.device).scatter_add(0, (x.abs() * 3).long() % 8, x),
    "embedding": lambda m, x, w: m.nn.functional.embedding((x.abs() * 4).long().clamp(max=15)[:, :3], w),
}


@pytest.mark.parametrize("name", sorted(OPS))
def test_ops_on_gpu_match_torch(name):
    rng = np.random.default_rng(1)
    x, w = rng.standard_normal((8, 16)).astype(np.float32), rng.standard_normal((16, 24)).astype(np.float32)
    ours = OPS[name](torchlike, _tl(x), _tl(w))
    assert ours.is_cuda and _platform(ours) == "gpu"
    _close(ours, OPS[name](torch, _th(x), _th(w)), rtol=2e-5, atol=2e-5)


def test_float32_matmul_is_full_precision_by_default():
    # torch's default, float32_matmul_precision 'highest': no TF32 (which would err by ~1e-3 here)
    rng = np.random.default_rng(2)
    a, b = rng.standard_normal((512, 512)).astype(np.float32), rng.standard_normal((512, 512)).astype(np.float32)
    exact = a.astype(np.float64) @ b.astype(np.float64)
    for out in (_tl(a) @ _tl(b), torchlike.nn.functional.linear(_tl(a), _tl(b).t()), torchlike.mm(_tl(a), _tl(b))):
        err = np.abs(out.cpu().numpy() - exact).max() / np.abs(exact).max()
        assert err < 1e-5, err


def _mlp(m, device):
    m.manual_seed(0)
    net = m.nn.Sequential(m.nn.Linear(16, 32), m.nn.ReLU(), m.nn.Linear(32, 4)).to(device)
    return net


def test_training_steps_on_gpu_match_torch():
    rng = np.random.default_rng(3)
    x, y = rng.standard_normal((64, 16)).astype(np.float32), rng.integers(0, 4, 64)
    init = [p.detach().cpu().numpy() for p in _mlp(torch, "cpu").parameters()]
    runs = []
    for m, dev, mk in ((torchlike, "cuda", _tl), (torch, REF, _th)):
        net = _mlp(m, dev)
        with m.no_grad():
            for p, v in zip(net.parameters(), init):
                p.copy_(mk(v))
        opt = m.optim.AdamW(net.parameters(), lr=1e-2)
        losses = []
        for _ in range(5):
            opt.zero_grad()
            loss = m.nn.functional.cross_entropy(net(mk(x)), mk(y))
            loss.backward()
            opt.step()
            losses.append(loss.item())
        runs.append((losses, [p.detach().cpu().numpy() for p in net.parameters()], net))
    (l1, p1, net), (l2, p2, _) = runs
    assert all(p.is_cuda and p.grad.is_cuda for p in net.parameters())
    np.testing.assert_allclose(l1, l2, rtol=1e-5)
    for a, b in zip(p1, p2):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)


def test_compiled_training_step_runs_on_gpu_and_matches_eager():
    rng = np.random.default_rng(4)
    x, y = _tl(rng.standard_normal((32, 16)).astype(np.float32)), _tl(rng.integers(0, 4, 32))
    results = []
    for compiled in (False, True):
        net = _mlp(torchlike, "cuda")
        opt = torchlike.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)

        def step():
            opt.zero_grad()
            loss = torchlike.nn.functional.cross_entropy(net(x), y)
            loss.backward()
            opt.step()
            return loss

        fn = torchlike.compile(step) if compiled else step
        losses = [fn().item() for _ in range(4)]
        assert all(p.is_cuda and _platform(p) == "gpu" for p in net.parameters())
        results.append(losses)
    np.testing.assert_allclose(results[0], results[1], rtol=1e-5)


def test_compiled_module_output_stays_on_gpu():
    net = torchlike.compile(_mlp(torchlike, "cuda"))
    out = net(torchlike.randn(5, 16, device="cuda"))
    assert out.is_cuda and _platform(out) == "gpu" and out.shape == (5, 4)


def test_autocast_float16_and_grad_scaler_on_gpu():
    res = {}
    for m, dev in ((torchlike, "cuda"), (torch, REF)):
        net = _mlp(m, dev)
        opt = m.optim.SGD(net.parameters(), lr=0.1)
        scaler = m.amp.GradScaler(dev)
        x = m.ones(8, 16, device=dev)
        dtypes = []
        for _ in range(3):
            opt.zero_grad()
            with m.autocast(dev, dtype=m.float16 if dev == "cuda" else m.bfloat16):
                out = net(x)
                loss = out.float().pow(2).mean()
            dtypes.append(str(out.dtype).split(".")[1])
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
        res[m.__name__] = (dtypes, scaler.get_scale(), loss.item())
    assert res["torchlike"][0] == ["float16"] * 3
    if REF == "cuda":
        assert res["torchlike"][:2] == res["torch"][:2]
        np.testing.assert_allclose(res["torchlike"][2], res["torch"][2], rtol=2e-3)


@pytest.mark.parametrize("make", [
    lambda m: m.ones(3) + 1, lambda m: m.randn(3) * 2, lambda m: m.arange(4.0).sum(),
    lambda m: m.from_numpy(np.ones(3)) * 3, lambda m: m.ones(2, 2) @ m.ones(2, 2), lambda m: m.ones(5).clone(),
    lambda m: m.ones(3, device="cuda").cpu() + 1,
], ids=["host_add", "randn_mul", "sum", "from_numpy", "mm", "clone", "back_from_gpu"])
def test_cpu_tensors_stay_on_the_cpu(make):
    # on a GPU machine JAX's default device is the GPU: a CPU tensor's op must not run (and stay) there
    t = make(torchlike)
    assert t.device.type == "cpu" and next(iter(t._value.devices())).platform == "cpu"
    assert _platform(t) == "cpu"


def test_cuda_runtime_queries():
    c = torchlike.cuda
    assert c.is_available() and c.device_count() >= 1 and c.current_device() == 0
    c.set_device(0)
    assert c.is_initialized() and c.is_bf16_supported()
    props = c.get_device_properties(0)
    assert props.total_memory > 0 and props.major >= 7
    if REF == "cuda":
        assert c.device_count() == torch.cuda.device_count()
        assert c.get_device_name(0) == torch.cuda.get_device_name(0)
        assert c.get_device_capability() == torch.cuda.get_device_capability()
    before = c.memory_allocated()
    big = torchlike.ones(1 << 22, device="cuda")  # 16 MiB
    c.synchronize()
    assert c.memory_allocated() - before >= (1 << 24) and c.max_memory_allocated() >= c.memory_allocated()
    free, total = c.mem_get_info()
    assert 0 < free <= total
    del big
    start, end = c.Event(enable_timing=True), c.Event(enable_timing=True)
    start.record()
    torchlike.randn(1024, 1024, device="cuda").sum().item()
    end.record()
    end.synchronize()
    assert start.elapsed_time(end) >= 0


def test_cuda_seeding_repeats_draws():
    torchlike.cuda.manual_seed(7)
    a = torchlike.randn(5, device="cuda")
    torchlike.cuda.manual_seed_all(7)
    b = torchlike.randn(5, device="cuda")
    assert torchlike.equal(a, b) and a.is_cuda
    g = torchlike.Generator(device="cuda").manual_seed(3)
    c1 = torchlike.rand(4, device="cuda", generator=g)
    g.manual_seed(3)
    assert torchlike.equal(c1, torchlike.rand(4, device="cuda", generator=g))


def test_save_and_load_gpu_tensors_cross_with_torch(tmp_path):
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    f = tmp_path / "ours.pt"
    torchlike.save({"w": _tl(a), "n": 3}, f)
    back = torchlike.load(f)
    assert back["w"].is_cuda and np.array_equal(back["w"].cpu().numpy(), a)
    cpu = torchlike.load(f, map_location="cpu")
    assert cpu["w"].device.type == "cpu"
    theirs = torch.load(f, map_location=None if REF == "cuda" else "cpu")
    assert theirs["w"].device.type == REF and np.array_equal(theirs["w"].cpu().numpy(), a)
    if REF == "cuda":
        g = tmp_path / "theirs.pt"
        torch.save({"w": torch.tensor(a, device="cuda")}, g)
        got = torchlike.load(g)["w"]
        assert got.is_cuda and np.array_equal(got.cpu().numpy(), a)
    p = pickle.loads(pickle.dumps(_tl(a)))
    assert p.is_cuda


def test_dataloader_pin_memory_and_non_blocking_copy():
    ds = torchlike.utils.data.TensorDataset(torchlike.arange(12.0).view(6, 2), torchlike.arange(6))
    batches = list(torchlike.utils.data.DataLoader(ds, batch_size=4, pin_memory=True))
    assert batches[0][0].is_pinned()
    x = batches[0][0].to("cuda", non_blocking=True)
    assert x.is_cuda and x.tolist() == [[0.0, 1.0], [2.0, 3.0], [4.0, 5.0], [6.0, 7.0]]


def test_ddp_script_with_nccl_backend_runs_on_one_gpu(tmp_path):
    script = textwrap.dedent("""
        import torch, torch.distributed as dist
        from torch.nn.parallel import DistributedDataParallel as DDP
        dist.init_process_group("nccl")
        torch.cuda.set_device(int(__import__("os").environ["LOCAL_RANK"]))
        torch.manual_seed(0)
        model = DDP(torch.nn.Linear(4, 2).cuda(), device_ids=[0])
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        loss = model(torch.ones(3, 4, device="cuda")).pow(2).sum()
        loss.backward()
        opt.step()
        t = torch.full((3,), 2.0, device="cuda")
        dist.all_reduce(t)
        print(dist.get_backend(), dist.get_world_size(), t.tolist(), next(model.parameters()).is_cuda)
        dist.destroy_process_group()
    """)
    path = tmp_path / "ddp_nccl.py"
    path.write_text(script)
    env = dict(os.environ, RANK="0", LOCAL_RANK="0", WORLD_SIZE="1", MASTER_ADDR="127.0.0.1",
               MASTER_PORT=str(free_port()))
    lines = run_program([str(path)], runner=True, env=env, timeout=300)
    assert lines[-1] == "nccl 1 [2.0, 2.0, 2.0] True", lines
