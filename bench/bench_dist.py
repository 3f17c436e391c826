"""all_reduce of 1/16/64 MB float32 between 2 processes on loopback, and a DDP step (2 ranks vs 1):
torchlike (JAX runtime, XLA gloo collectives, ``torchlike.distributed.run``) vs torch's gloo
(``torch.distributed.run``). The same worker code (``import torch``) runs in both: torchlike's launcher makes
``torch`` resolve to torchlike. Not a test; prints one JSON line per measurement.

    PYTHONPATH=. python bench/bench_dist.py [--iters 10]
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
    if rank == 0:
        for o in out:
            print("RESULT " + json.dumps(o), flush=True)
    dist.destroy_process_group()


def launch(impl, nproc, iters):
    mod = "torchlike.distributed.run" if impl == "torchlike" else "torch.distributed.run"
    env = dict(os.environ, PYTHONPATH=ROOT, OMP_NUM_THREADS="1")
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
    rows = []
    for impl in ("torch", "torchlike"):
        for nproc in (2, 1):
            rows += launch(impl, nproc, iters)
    for r in rows:
        print(json.dumps(r))
    by = {(r["impl"], r["what"]): r["median_ms"] for r in rows}
    for what in sorted({r["what"] for r in rows}):
        if ("torch", what) in by and ("torchlike", what) in by:
            print(f"{what}: torchlike/torch = {by[('torchlike', what)] / by[('torch', what)]:.2f}x")


if __name__ == "__main__":
    main()
