"""torchlike.dist: data_parallel and fully_shard train steps on 8 simulated devices equal the single-device
compiled step; fully_shard's memory per device is 1/8 (subprocess: the test process's JAX is already up)."""
import os
import subprocess
import sys
import textwrap

import pytest
from conftest import simulated_devices_env

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

SCRIPT = textwrap.dedent("""
    import numpy as np, torchlike
    import torchlike.dist
    D = torchlike.dist
    import jax
    assert len(jax.devices()) == 8

    def build():
        torchlike.manual_seed(0)
        return torchlike.nn.Sequential(torchlike.nn.Linear(16, 64), torchlike.nn.Tanh(), torchlike.nn.Linear(64, 8))

    rs = np.random.RandomState(0)
    X, Y = rs.randn(32, 16).astype(np.float32), rs.randn(32, 8).astype(np.float32)

    def trainer(model, wrap):
        opt = torchlike.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
        def step(x, y):
            opt.zero_grad()
            loss = torchlike.nn.functional.mse_loss(model(x), y)
            loss.backward()
            opt.step()
            return loss
        return wrap(step, opt), opt

    ref = build()
    s_ref, _ = trainer(ref, lambda f, o: torchlike.compile(f))
    mesh = D.make_mesh()
    dp = build()
    s_dp, _ = trainer(dp, lambda f, o: D.data_parallel(f, mesh, module=dp, optimizer=o))
    fs = D.fully_shard(build(), mesh)
    s_fs, ofs = trainer(fs, lambda f, o: D.data_parallel(f, mesh, module=fs, optimizer=o))
    for i in range(10):
        a, b, c = (s(torchlike.tensor(X), torchlike.tensor(Y)).item() for s in (s_ref, s_dp, s_fs))
        assert abs(a - b) <= 1e-6 and abs(a - c) <= 1e-6, (i, a, b, c)
    for p, q, r in zip(ref.parameters(), dp.parameters(), fs.parameters()):
        np.testing.assert_allclose(q.detach().numpy(), p.detach().numpy(), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(r.detach().numpy(), p.detach().numpy(), rtol=1e-5, atol=1e-6)
        assert len(q._value.sharding.device_set) == 8
    # every parameter of this model has dim 0 divisible by 8: 1/8 of the bytes on each device
    full = D.bytes_per_device(list(ref.parameters()))
    assert D.bytes_per_device(list(dp.parameters())) == full
    assert D.bytes_per_device(list(fs.parameters())) * 8 == full
    mom = [s["momentum_buffer"] for s in ofs.state.values()]
    assert D.bytes_per_device(mom) * 8 == full
    print("OK", full, D.bytes_per_device(list(fs.parameters())))
""")


def test_data_parallel_and_fully_shard_on_8_devices():
    env = simulated_devices_env(8)
    r = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, timeout=400)
    assert r.returncode == 0 and "OK" in r.stdout, r.stdout[-2000:] + r.stderr[-4000:]


def test_data_parallel_and_fully_shard_across_processes(tmp_path):
    """The same API over 2 processes (a global mesh): each rank passes its half of the batch; losses and
    parameters equal torch's single-process training on the whole batch, fully_shard halves parameter bytes."""
    torch = pytest.importorskip("torch", reason="torch is the oracle")
    import numpy as np
    env = dict(os.environ, PYTHONPATH=ROOT, JAX_PLATFORMS="cpu", TORCHLIKE_COMPILATION_CACHE="0")
    env.pop("XLA_FLAGS", None)
    r = subprocess.run([sys.executable, "-m", "torchlike.distributed.run", "--standalone", "--nproc-per-node", "2",
                        os.path.join(ROOT, "tests", "scripts", "dist_spmd_mp.py"), str(tmp_path)], env=env,
                       capture_output=True, text=True, timeout=400)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-5000:]
    got = np.load(tmp_path / "spmd.npz")
    rs = np.random.RandomState(0)
    X, Y = torch.tensor(rs.randn(16, 6).astype(np.float32)), torch.tensor(rs.randn(16, 4).astype(np.float32))
    m = torch.nn.Sequential(torch.nn.Linear(6, 8), torch.nn.Tanh(), torch.nn.Linear(8, 4))
    prs = np.random.RandomState(42)
    with torch.no_grad():
        for p in m.parameters():
            p.copy_(torch.tensor(prs.randn(*p.shape).astype(np.float32) * 0.3))
    opt = torch.optim.SGD(m.parameters(), lr=0.1, momentum=0.9)
    losses = []
    for _ in range(5):
        opt.zero_grad()
        loss = torch.nn.functional.mse_loss(m(X), Y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    full = sum(p.numel() * 4 for p in m.parameters())
    for kind in ["data_parallel", "fully_shard"]:
        np.testing.assert_allclose(got[f"{kind}_losses"], losses, rtol=1e-5, atol=1e-6)
        for i, p in enumerate(m.parameters()):
            np.testing.assert_allclose(got[f"{kind}_p{i}"], p.detach().numpy(), rtol=1e-5, atol=1e-6)
    assert int(got["data_parallel_bytes"]) == full
    assert int(got["fully_shard_bytes"]) * 2 == full  # every dim 0 here (8, 8, 4, 4) divides by 2


def test_the_dist_package_calls_torchs_dist_op_with_its_errors():
    """Importing ``torchlike.dist`` rebinds ``torchlike.dist`` (torch.dist) to the package, which calls the op:
    results, keywords and wrong-argument errors are torch.dist's (they named ``_CallableModule.__call__``)."""
    torch = pytest.importorskip("torch")
    import torchlike
    import torchlike.dist  # noqa: F401 -- the rebinding under test
    from conftest import raises_like_torch, same_as_torch
    same_as_torch(lambda m, a, b: (m.dist(a, b), m.dist(a, b, 1), m.dist(input=a, other=b, p=3)),
                  torch.randn(5).numpy(), torch.randn(5).numpy())
    for call in (lambda m: m.dist("x"), lambda m: m.dist(m.ones(3)), lambda m: m.dist()):
        raises_like_torch(call, match=r"^dist\(\)")
    # the function form's argument positions (the table's function counted the method's: CI at 9bc30dc)
    for call in (lambda m: m.dist(m.ones(3), 2), lambda m: m.dist(m.ones(3), m.ones(3), m.tensor(2., requires_grad=True))):
        raises_like_torch(call)
    assert isinstance(torchlike.dist, type(torchlike))
