"""Multi-process torch.distributed on torchlike: one launcher run of tests/scripts/dist_checks.py (2 ranks,
loopback gloo) checked against numpy (collectives) and torch (DDP training), plus launcher fault handling."""
import os
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT = os.path.join(ROOT, "tests", "scripts", "dist_checks.py")
sys.path.insert(0, os.path.join(ROOT, "tests", "scripts"))


def _env():
    # no shared on-disk compilation cache: the ranks (and other jobs) would contend for its lock
    env = dict(os.environ, PYTHONPATH=ROOT, JAX_PLATFORMS="cpu", TORCHLIKE_COMPILATION_CACHE="0")
    env.pop("XLA_FLAGS", None)
    return env


def _launch(args, timeout=420, via_runner=False):
    # via_runner: `python -m torchlike run -m torch.distributed.run ...` (torchrun under the drop-in runner)
    cmd = ["torchlike", "run", "-m", "torch.distributed.run"] if via_runner else ["torchlike.distributed.run"]
    return subprocess.run([sys.executable, "-m", *cmd, *args], env=_env(), capture_output=True, text=True,
                          timeout=timeout)


@pytest.fixture(scope="module")
def ranks(tmp_path_factory):
    out = tmp_path_factory.mktemp("dist")
    r = _launch(["--standalone", "--nproc-per-node", "2", SCRIPT, str(out)])
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-5000:]
    assert "[rank 0]: done 0" in r.stdout and "[rank 1]: done 1" in r.stdout
    return [dict(np.load(out / f"rank{i}.npz")) for i in range(2)], out


def _inp(seed, r, shape, dt):
    rs = np.random.RandomState(seed * 100 + r)
    if dt == "float32":
        return rs.randn(*shape).astype(np.float32)
    if dt == "int64":
        return rs.randint(-5, 6, size=shape).astype(np.int64)
    return rs.rand(*shape) > 0.5


def _np_reduce(op, xs):
    xs = np.stack(xs)
    if xs.dtype == np.bool_:
        f = {"SUM": np.any, "MAX": np.any, "BOR": np.any, "PRODUCT": np.all, "MIN": np.all, "BAND": np.all}
        if op == "BXOR":
            return np.logical_xor.reduce(xs)
        return f[op](xs, axis=0)
    return {"SUM": lambda a: a.sum(0, dtype=a.dtype), "AVG": lambda a: a.mean(0, dtype=a.dtype),
            "PRODUCT": lambda a: a.prod(0, dtype=a.dtype), "MIN": lambda a: a.min(0), "MAX": lambda a: a.max(0),
            "BAND": np.bitwise_and.reduce, "BOR": np.bitwise_or.reduce, "BXOR": np.bitwise_xor.reduce}[op](xs)


OPS = {"float32": ["SUM", "AVG", "PRODUCT", "MIN", "MAX"],
       "int64": ["SUM", "PRODUCT", "MIN", "MAX", "BAND", "BOR", "BXOR"],
       "bool": ["SUM", "PRODUCT", "MIN", "MAX", "BAND", "BOR", "BXOR"]}
SHAPES = [(3,), (2, 4)]
W = 2


def _eq(got, want):
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, want.dtype, got.shape, want.shape)
    if got.dtype == np.float32:
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
    else:
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("dt", list(OPS))
def test_collectives_equal_numpy(ranks, dt):
    res, _ = ranks
    for si, shape in enumerate(SHAPES):
        tag = f"{dt}_{si}"
        for op in OPS[dt]:
            want = _np_reduce(op, [_inp(1, r, shape, dt) for r in range(W)])
            for r in range(W):
                _eq(res[r][f"all_reduce_{op}_{tag}"], want)
        for r in range(W):
            _eq(res[r][f"broadcast_{tag}"], _inp(2, 1, shape, dt))
            _eq(res[r][f"all_gather_{tag}"], np.stack([_inp(3, i, shape, dt) for i in range(W)]))
            _eq(res[r][f"all_gather_into_tensor_{tag}"], np.concatenate([_inp(3, i, shape, dt) for i in range(W)]))
            _eq(res[r][f"scatter_{tag}"], _inp(6, 100 + r, shape, dt))
        _eq(res[0][f"reduce_MAX_{tag}"], _np_reduce("MAX", [_inp(4, r, shape, dt) for r in range(W)]))
        _eq(res[1][f"reduce_MAX_{tag}"], _inp(4, 1, shape, dt))  # non-destination keeps its input
        _eq(res[0][f"gather_{tag}"], np.stack([_inp(5, i, shape, dt) for i in range(W)]))
        big = (W * 2,) + shape
        for op in ["SUM", "MAX"] if dt != "bool" else ["MAX"]:
            full = _np_reduce(op, [_inp(7, r, big, dt) for r in range(W)])
            for r in range(W):
                _eq(res[r][f"reduce_scatter_{op}_{tag}"], full[2 * r:2 * r + 2])
        for r in range(W):
            want = np.concatenate([_inp(8, i, big, dt)[2 * r:2 * r + 2] for i in range(W)])
            _eq(res[r][f"all_to_all_single_{tag}"], want)


def test_p2p_async_groups_objects(ranks):
    res, _ = ranks
    np.testing.assert_array_equal(res[1]["recv"], np.arange(5, dtype=np.float32) * 3)
    for r in range(W):
        np.testing.assert_array_equal(res[r]["async_all_reduce"], np.full(4, 3.0, np.float32))
        np.testing.assert_array_equal(res[r]["group_all_reduce"], np.full(2, 21.0, np.float32))
        assert str(res[r]["broadcast_object_list"]) == repr([{"rank": 1, "msg": "hihi"}, 1])
        assert str(res[r]["all_gather_object"]) == repr([("r", 0, [0, 0]), ("r", 1, [1, 1, 1])])
        assert str(res[r]["backend"]) == "gloo" and bool(res[r]["initialized"])
    assert str(res[0]["gather_object"]) == repr([{"x": 0}, {"x": 7}])


def test_collectives_inside_compile(ranks):
    res, _ = ranks
    xs = [_inp(11, r, (2, 3), "float32") for r in range(W)]
    y = sum(2 * x for x in xs)
    for r in range(W):
        _eq(res[r]["compiled_all_reduce"], y + 1)
        _eq(res[r]["compiled_all_gather_into_tensor"], np.concatenate([y] * W))
        _eq(res[r]["compiled_broadcast"], xs[1])
        _eq(res[r]["compiled_scatter"], xs[1] * (r + 1))
        _eq(res[r]["compiled_reduce_scatter"], sum(x * (r + 1) for x in xs))
        _eq(res[r]["compiled_all_to_all"], np.stack([xs[i] + 10 * r for i in range(W)]))
    _eq(res[0]["compiled_gather"], np.stack([x + 1 for x in xs]))


def _torch_reference(variant):
    """One process, batch 16, the same model/init/optimizer, in torch."""
    import torch
    import torch.nn as nn
    torch.manual_seed(0)
    rs = np.random.RandomState(0)
    X = torch.tensor(rs.randn(16, 5).astype(np.float32))
    Y = torch.tensor(rs.randn(16, 3).astype(np.float32))
    if variant == "unused":
        class WithUnused(nn.Module):
            def __init__(self):
                super().__init__()
                self.l1, self.l2, self.unused = nn.Linear(5, 8), nn.Linear(8, 3), nn.Linear(3, 3)

            def forward(self, x):
                return self.l2(torch.tanh(self.l1(x)))
        model = WithUnused()
    elif variant == "syncbn":
        model = nn.Sequential(nn.Linear(5, 4, bias=False), nn.BatchNorm1d(4), nn.Tanh(), nn.Linear(4, 3))
    else:
        model = nn.Sequential(nn.Linear(5, 8), nn.Tanh(), nn.Linear(8, 3))
    prs = np.random.RandomState(42)
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.tensor(prs.randn(*p.shape).astype(np.float32) * 0.3))
    opt = torch.optim.AdamW(model.parameters(), lr=0.01)
    losses = []
    for _ in range(10):
        opt.zero_grad()
        loss = nn.functional.mse_loss(model(X), Y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return np.array(losses), {f"module.{k}": v.numpy() for k, v in model.state_dict().items()}


@pytest.mark.parametrize("variant", ["plain", "no_sync", "unused", "syncbn", "hook", "compiled"])
def test_ddp_equals_single_process_torch(ranks, variant):
    pytest.importorskip("torch", reason="torch is the oracle")
    res, _ = ranks
    losses, sd = _torch_reference(variant)
    for r in range(W):
        assert list(res[r][f"ddp_{variant}_keys"]) == list(sd)
        np.testing.assert_allclose(res[r][f"ddp_{variant}_losses"], losses, rtol=1e-5, atol=1e-6)
        for k, v in sd.items():
            np.testing.assert_allclose(res[r][f"ddp_{variant}_sd_{k}"], v, rtol=1e-5, atol=1e-6, err_msg=k)


def test_sampler_and_checkpoint(ranks):
    torch = pytest.importorskip("torch", reason="torch is the oracle")
    res, out = ranks
    for r in range(W):  # rank and world size come from the process group; shuffled orders are torch's stream
        for shuffle in (False, True):
            s = torch.utils.data.DistributedSampler(list(range(10)), num_replicas=W, rank=r, shuffle=shuffle, seed=3)
            for ep in range(2):
                s.set_epoch(ep)
                assert list(res[r][f"sampler_{shuffle}_{ep}"]) == list(s), (r, shuffle, ep)
    sd = torch.load(out / "ckpt.pt")
    assert list(sd) == ["0.weight", "0.bias", "2.weight", "2.bias"]


def test_checkpoint_resume_continues_loss_curve(ranks):
    """dist_checks.py's "plain" run saved model + optimizer + epoch on rank 0 after 5 steps (torch.save); a fresh
    launch loads it, wraps DDP again and trains 5 more epochs through DistributedSampler/set_epoch: its losses
    continue both the uninterrupted run's and torch's single-process curve."""
    pytest.importorskip("torch", reason="torch is the oracle")
    res, out = ranks
    r = _launch(["--standalone", "--nproc-per-node", "2", os.path.join(ROOT, "tests", "scripts", "dist_resume.py"),
                 str(out)], timeout=300)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-5000:]
    losses, sd = _torch_reference("plain")
    for rank in range(W):
        d = np.load(out / f"resume{rank}.npz")
        assert int(d["start"]) == 5
        np.testing.assert_allclose(d["losses"], res[rank]["ddp_plain_losses"][5:], rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(d["losses"], losses[5:], rtol=1e-5, atol=1e-6)
        for k, v in sd.items():
            np.testing.assert_allclose(d[f"sd_{k}"], v, rtol=1e-5, atol=1e-6, err_msg=k)


W4_OPS = {"float32": ["SUM", "AVG", "PRODUCT", "MIN", "MAX"], "float64": ["SUM", "AVG", "PRODUCT", "MIN", "MAX"],
          "int64": ["SUM", "PRODUCT", "MIN", "MAX", "BAND", "BOR", "BXOR"],
          "bool": ["SUM", "PRODUCT", "MIN", "MAX", "BAND", "BOR", "BXOR"]}


def _inp4(seed, r, shape, dt):
    rs = np.random.RandomState(seed * 100 + r)
    if dt.startswith("float"):
        return rs.randn(*shape).astype(dt)
    if dt == "int64":
        return rs.randint(-5, 6, size=shape).astype(np.int64)
    return rs.rand(*shape) > 0.5


def _eq4(got, want):
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, want.dtype, got.shape, want.shape)
    if got.dtype.kind == "f":
        tol = 1e-6 if got.dtype == np.float32 else 1e-13
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol)
    else:
        np.testing.assert_array_equal(got, want)


def test_four_processes_every_collective_float64(tmp_path):
    """4 ranks: all_reduce with every ReduceOp over float32/float64/int64/bool; every other collective over
    float64 and bool (float32/int64 run on 2 ranks in dist_checks.py); a subgroup: numpy's results."""
    n, shape = 4, (2, 3)
    r = _launch(["--standalone", "--nproc-per-node", str(n),
                 os.path.join(ROOT, "tests", "scripts", "dist_collectives.py"), str(tmp_path)], timeout=400)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-5000:]
    res = [dict(np.load(tmp_path / f"coll{i}.npz")) for i in range(n)]
    for dt, ops in W4_OPS.items():
        for op in ops:
            want = _np_reduce(op, [_inp4(1, i, shape, dt) for i in range(n)])
            for i in range(n):
                _eq4(res[i][f"all_reduce_{op}_{dt}"], want)
        if dt in ("float32", "int64"):  # only the all-reduces (the script skips the rest: CI time)
            continue
        big = (n,) + shape
        red = _np_reduce("MAX", [_inp4(7, i, big, dt) for i in range(n)])
        for i in range(n):
            _eq4(res[i][f"broadcast_{dt}"], _inp4(2, n - 1, shape, dt))
            _eq4(res[i][f"all_gather_{dt}"], np.stack([_inp4(3, k, shape, dt) for k in range(n)]))
            _eq4(res[i][f"scatter_{dt}"], _inp4(6, 100 + i, shape, dt))
            _eq4(res[i][f"reduce_scatter_MAX_{dt}"], red[i])
            _eq4(res[i][f"all_to_all_single_{dt}"], np.stack([_inp4(8, k, big, dt)[i] for k in range(n)]))
            want = _np_reduce("MAX", [_inp4(4, k, shape, dt) for k in range(n)]) if i == 1 else _inp4(4, i, shape, dt)
            _eq4(res[i][f"reduce_MAX_{dt}"], want)
        _eq4(res[2][f"gather_{dt}"], np.stack([_inp4(5, k, shape, dt) for k in range(n)]))
    full = _np_reduce("SUM", [_inp4(9, i, (n * 2, 3), "float32") for i in range(n)])
    for i in range(n):
        _eq4(res[i]["reduce_scatter_SUM"], full[2 * i:2 * i + 2])
        assert str(res[i]["all_gather_object"]) == repr([{"rank": k, "pad": "x" * k} for k in range(n)])
    for j in range(n):  # unequal splits: rank i sends (i + j) % 3 + 1 rows to rank j
        parts = []
        for i in range(n):
            sz = [(i + k) % 3 + 1 for k in range(n)]
            off = sum(sz[:j])
            parts.append(_inp4(12, i, (sum(sz), 2), "float64")[off:off + sz[j]])
        _eq4(res[j]["all_to_all_uneven"], np.concatenate(parts))
    for i in (1, 3):
        _eq4(res[i]["subgroup"], _inp4(10, 1, (3,), "float64") + _inp4(10, 3, (3,), "float64"))
    assert "subgroup" not in res[0] and "subgroup" not in res[2]


FAIL = textwrap.dedent("""
    import datetime, os, sys, time, torch, torch.distributed as dist
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=5))
    t = torch.ones(2)
    dist.all_reduce(t)
    if dist.get_rank() == 1:
        if sys.argv[1] == "raise":
            raise ValueError("boom on rank one")
        if sys.argv[1] == "hang":
            time.sleep(120)  # never joins: rank 0's collective times out
        os.kill(os.getpid(), 9)
    for _ in range(100):
        dist.all_reduce(t)
        time.sleep(0.1)
""")


@pytest.mark.parametrize("how", ["raise", "kill", "hang"])
def test_launcher_failure_names_rank_and_leaves_no_process(tmp_path, how):
    script = tmp_path / "fail.py"
    script.write_text(FAIL)
    t0 = time.time()
    r = _launch(["--standalone", "--nproc-per-node", "2", str(script), how], timeout=300, via_runner=how == "raise")
    assert r.returncode != 0
    if how == "hang":  # the rank left waiting raises torch's timeout error (DETAIL mode's), with its traceback
        assert "worker rank 0" in r.stderr and "in all_reduce" in r.stderr, r.stderr[-3000:]
        assert "RuntimeError: [Rank 0]: Ranks 1 failed to pass monitoredBarrier in 5000 ms" in r.stderr
        assert time.time() - t0 < 100, r.stderr[-3000:]
    else:
        assert "worker rank 1" in r.stderr, r.stderr[-3000:]
    if how == "raise":
        assert "ValueError: boom on rank one" in r.stderr and "Traceback" in r.stderr
    elif how == "kill":
        assert "SIGKILL" in r.stderr
    assert time.time() - t0 < 240
    ps = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True).stdout
    assert str(script) not in ps


def test_launcher_port_in_use():
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        r = _launch(["--nproc-per-node", "2", "--master-port", str(port), SCRIPT], timeout=60)
    assert r.returncode == 1 and "already in use" in r.stderr


def test_launcher_args_match_torchrun():
    torch = pytest.importorskip("torch", reason="torch is the oracle")
    from torch.distributed.run import parse_args as tparse

    from torchlike.distributed.run import parse_args
    argv = ["--nnodes", "1", "--node-rank", "0", "--nproc-per-node", "2", "--master-addr", "127.0.0.1",
            "--master-port", "29511", "--max-restarts", "0", "train.py", "--lr", "0.1"]
    a, b = parse_args(argv), tparse(argv)
    for k in ["nnodes", "node_rank", "nproc_per_node", "master_addr", "master_port", "max_restarts",
              "training_script", "training_script_args"]:
        assert getattr(a, k) == getattr(b, k), k
    del torch
