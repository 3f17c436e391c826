"""all_reduce of 1/16/64 MB float32 between 2 processes on loopback, and a DDP step (2 ranks vs 1):
torchlike (JAX runtime, XLA gloo collectives, ``torchlike.distributed.run``) vs torch's gloo
(``torch.distributed.run``). The same worker code (``import torch``) runs in both: torchlike's launcher makes
``torch`` resolve to torchlike. Not a test; prints one JSON line per measurement.

    PYTHONPATH=. python bench/bench_dist.py [--iters 10]
    PYTHONPATH=. python bench/bench_dist.py --spmd    # data_parallel on 8 simulated devices vs 1 device
"""
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.abspath(__file__)
ROOT = os.path.dirname(os.path.dirname(HERE))


def worker(iters):
    import torch
    import torch.distributed as dist
    import torch.nn as nn
    dist.init_process_group("gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    impl = "torchlike" if "torchlike" in torch.__file__ else "torch"
    out = []
    if world > 1:
        for mb in (1, 16, 64):
            t = torch.ones(mb * 1024 * 1024 // 4)
            for _ in range(3):
                dist.all_reduce(t)
            times = []
            for _ in range(iters):
                dist.barrier()
                t0 = time.perf_counter()
                dist.all_reduce(t)
                float(t[0])  # the result is there
                times.append(time.perf_counter() - t0)
            out.append({"impl": impl, "what": f"all_reduce {mb} MB", "median_ms": 1e3 * statistics.median(times)})
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 10))
    ddp = nn.parallel.DistributedDataParallel(model)
    opt = torch.optim.SGD(ddp.parameters(), lr=0.01)
    x, y = torch.randn(64, 784), torch.randint(0, 10, (64,))
    times = []
    for i in range(iters + 3):
        t0 = time.perf_counter()
        opt.zero_grad()
        nn.functional.cross_entropy(ddp(x), y).backward()
        opt.step()
        float(next(model.parameters())[0, 0])
        if i >= 3:
            times.append(time.perf_counter() - t0)
    out.append({"impl": impl, "what": f"DDP MLP step, {world} rank(s), batch 64 each",
                "median_ms": 1e3 * statistics.median(times)})
    if impl == "torchlike" and world > 1:  # the same step compiled: its all-reduce is inside the one program
        def step():
            opt.zero_grad()
            loss = nn.functional.cross_entropy(ddp(x), y)
            loss.backward()
            opt.step()
            return loss
        cstep = torch.compile(step, fullgraph=True)
        times = []
        for i in range(iters + 3):
            t0 = time.perf_counter()
            float(cstep())
            if i >= 3:
                times.append(time.perf_counter() - t0)
        out.append({"impl": impl, "what": f"compiled DDP MLP step, {world} rank(s), batch 64 each (vs torch eager)",
                    "median_ms": 1e3 * statistics.median(times)})
    if rank == 0:
        for o in out:
            print("RESULT " + json.dumps(o), flush=True)
    dist.destroy_process_group()


def spmd(iters):
    """8 simulated CPU devices, one process: the single-device compiled step vs ``torchlike.dist.data_parallel``
    (XLA's partitioner), and the same step written in JAX both ways (NamedSharding inputs + partitioner vs an
    explicit ``shard_map`` + ``pmean``) to see what the partitioner costs. MLP 784-256-10, batch 512, SGD."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax.sharding import NamedSharding, PartitionSpec as P

    import torchlike
    import torchlike.dist  # noqa: F401
    D = sys.modules["torchlike.dist"]
    rs = np.random.RandomState(0)
    X, Y = rs.randn(512, 784).astype(np.float32), rs.randint(0, 10, 512)

    def timed(f):
        for _ in range(3):
            f()
        ts = []
        for _ in range(iters):
            t0 = time.perf_counter()
            f()
            ts.append(time.perf_counter() - t0)
        return 1e3 * statistics.median(ts)

    def tl_step(wrap):
        torchlike.manual_seed(0)
        m = torchlike.nn.Sequential(torchlike.nn.Linear(784, 256), torchlike.nn.ReLU(), torchlike.nn.Linear(256, 10))
        opt = torchlike.optim.SGD(m.parameters(), lr=0.01)

        def step(x, y):
            opt.zero_grad()
            loss = torchlike.nn.functional.cross_entropy(m(x), y)
            loss.backward()
            opt.step()
            return loss
        f = wrap(step, m, opt)
        x, y = torchlike.tensor(X), torchlike.tensor(Y)
        return lambda: f(x, y).item()
    mesh = D.make_mesh()
    out = [{"what": "SPMD step, 1 device (torchlike.compile)", "median_ms": timed(tl_step(
               lambda f, m, o: torchlike.compile(f)))},
           {"what": "SPMD step, data_parallel on 8 devices", "median_ms": timed(tl_step(
               lambda f, m, o: D.data_parallel(f, mesh, module=m, optimizer=o)))}]

    def loss_fn(p, x, y):
        h = jax.nn.relu(x @ p["w1"].T + p["b1"])
        lg = h @ p["w2"].T + p["b2"]
        return -jnp.mean(jnp.take_along_axis(jax.nn.log_softmax(lg), y[:, None], 1))

    def sgd(p, g):
        return jax.tree.map(lambda a, b: a - 0.01 * b, p, g)
    params = {"w1": jnp.asarray(rs.randn(256, 784).astype(np.float32) * 0.03), "b1": jnp.zeros(256),
              "w2": jnp.asarray(rs.randn(10, 256).astype(np.float32) * 0.06), "b2": jnp.zeros(10)}
    rep, sh = NamedSharding(mesh, P()), NamedSharding(mesh, P("dp"))
    pp = jax.device_put(params, rep)
    xs, ys = jax.device_put(jnp.asarray(X), sh), jax.device_put(jnp.asarray(Y), sh)

    @jax.jit
    def gspmd(p, x, y):
        loss, g = jax.value_and_grad(loss_fn)(p, x, y)
        return sgd(p, g), loss

    def local(p, x, y):
        loss, g = jax.value_and_grad(loss_fn)(p, x, y)
        return sgd(p, jax.lax.pmean(g, "dp")), jax.lax.pmean(loss, "dp")
    explicit = jax.jit(jax.shard_map(local, mesh=mesh, in_specs=(P(), P("dp"), P("dp")), out_specs=(P(), P())))
    for name, f in [("JAX step, NamedSharding + partitioner, 8 devices", gspmd),
                    ("JAX step, shard_map + pmean, 8 devices", explicit)]:
        out.append({"what": name, "median_ms": timed(lambda: float(f(pp, xs, ys)[1]))})
    for o in out:
        print("RESULT " + json.dumps(dict(o, impl="torchlike")), flush=True)


def launch(impl, nproc, iters):
    mod = "torchlike.distributed.run" if impl == "torchlike" else "torch.distributed.run"
    env = dict(os.environ, PYTHONPATH=ROOT, OMP_NUM_THREADS="1", TORCHLIKE_COMPILATION_CACHE="0")
    r = subprocess.run([sys.executable, "-m", mod, "--standalone", "--nproc-per-node", str(nproc), HERE,
                        "--worker", str(iters)], env=env, capture_output=True, text=True, timeout=900)
    res = [json.loads(line.split("RESULT ", 1)[1]) for line in r.stdout.splitlines() if "RESULT " in line]
    if r.returncode != 0:
        print(r.stderr[-3000:], file=sys.stderr)
    return res


def main():
    if "--worker" in sys.argv:
        worker(int(sys.argv[sys.argv.index("--worker") + 1]))
        return
    iters = int(sys.argv[sys.argv.index("--iters") + 1]) if "--iters" in sys.argv else 10
    if "--spmd-worker" in sys.argv:
        spmd(iters)
        return
    if "--spmd" in sys.argv:  # only the single-process SPMD comparison
        env = dict(os.environ, PYTHONPATH=ROOT, XLA_FLAGS="--xla_force_host_platform_device_count=8",
                   JAX_PLATFORMS="cpu", TORCHLIKE_COMPILATION_CACHE="0")
        r = subprocess.run([sys.executable, HERE, "--spmd-worker", "--iters", str(iters)], env=env,
                           capture_output=True, text=True, timeout=900)
        rows = [json.loads(line.split("RESULT ", 1)[1]) for line in r.stdout.splitlines() if "RESULT " in line]
        if r.returncode != 0:
            print(r.stderr[-3000:], file=sys.stderr)
        for row in rows:
            print(json.dumps(row))
        if len(rows) == 4:
            print(f"data_parallel 8 devices / 1 device: {rows[1]['median_ms'] / rows[0]['median_ms']:.2f}x; "
                  f"JAX partitioner / shard_map: {rows[2]['median_ms'] / rows[3]['median_ms']:.2f}x")
        return
    rows = []
    for impl in ("torch", "torchlike"):
        for nproc in (2, 1):
            rows += launch(impl, nproc, iters)
    for r in rows:
        print(json.dumps(r))
    by = {(r["impl"], r["what"]): r["median_ms"] for r in rows}
    for what in sorted({r["what"] for r in rows}):
        theirs = what.replace("compiled ", "").replace(" (vs torch eager)", "")
        if ("torch", theirs) in by and ("torchlike", what) in by:
            print(f"{what}: torchlike/torch = {by[('torchlike', what)] / by[('torch', theirs)]:.2f}x")


if __name__ == "__main__":
    main()
