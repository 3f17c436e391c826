"""A/B of JAX's asynchronous CPU dispatch (``jax_cpu_enable_async_dispatch``) under torchlike.

Each round runs every workload twice in fresh subprocesses, once with the flag on and once off (the order
alternates between rounds), plus real torch in the same round; the table shows medians over the rounds.
Workloads: bench_core's small-op rows (``--small``; torchlike us and tl/torch per row), the bigram script
(bench_bigram's TRAIN, wall seconds) and the nanoGPT step, eager and with the compiled module (median ms).

    python bench/bench_async_dispatch.py [--rounds 3] [--iters 300] [--steps 20] [--skip core,bigram,gpt]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

# set the flag the way a user would (before JAX makes its CPU client), then run the target as __main__
PRE = ("import sys, runpy, jax; jax.config.update('jax_cpu_enable_async_dispatch', {on}); "
       "sys.argv = {argv!r}; runpy.run_{kind}({target!r}, run_name='__main__')")


def _py(on, kind, target, argv):
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.setdefault("OMP_NUM_THREADS", "1")
    env["TORCHLIKE_CPU_ASYNC_DISPATCH"] = "1" if on else "0"  # torchlike's own knob, when it has one
    code = PRE.format(on=on, argv=argv, kind=kind, target=target)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=3600)
    if out.returncode:
        raise SystemExit(f"failed ({on}, {target}):\n{out.stdout[-2000:]}\n{out.stderr[-4000:]}")
    return out.stdout


def core(on):
    """bench_core --small: {row: (torchlike us, torch us)}."""
    rows = {}
    for line in _py(on, "path", os.path.join(HERE, "bench_core.py"), ["bench_core.py", "--small"]).splitlines():
        parts = line.rsplit(None, 5)
        if len(parts) == 6:
            try:
                rows[parts[0].strip()] = (float(parts[1]), float(parts[3]))
            except ValueError:
                pass
    return rows


def bigram(on, iters, src):
    if on is None:  # real torch
        out = subprocess.run([sys.executable, src, str(iters), str(iters)], capture_output=True, text=True,
                             env=dict(os.environ, OMP_NUM_THREADS="1"), check=True).stdout
    else:
        out = _py(on, "module", "torchlike", ["torchlike", "run", src, str(iters), str(iters)])
    _, wall, cpu = out.strip().splitlines()[-1].split()
    return float(wall), float(cpu)


def gpt(on, steps, compiled):
    if on is None:
        out = subprocess.run([sys.executable, os.path.join(HERE, "bench_nanogpt.py"), "--worker", "torch",
                              "--steps", str(steps), "--warmup", "5"], capture_output=True, text=True,
                             check=True).stdout
    else:
        argv = ["bench_nanogpt.py", "--worker", "torchlike", "--steps", str(steps), "--warmup", "5"]
        out = _py(on, "path", os.path.join(HERE, "bench_nanogpt.py"), argv + (["--compile"] if compiled else []))
    return json.loads(out.strip().splitlines()[-1])["median_ms"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--iters", type=int, default=300, help="bigram AdamW steps (one eval at step 0)")
    ap.add_argument("--steps", type=int, default=20, help="nanoGPT measured steps")
    ap.add_argument("--skip", default="")
    a = ap.parse_args()
    skip = set(a.skip.split(","))
    import bench_bigram
    fd, src = tempfile.mkstemp(suffix="_bigram.py")
    with os.fdopen(fd, "w") as f:
        f.write(bench_bigram.TRAIN)
    res = {}  # (workload, setting) -> list of values

    def add(key, v):
        res.setdefault(key, []).append(v)
    try:
        for r in range(a.rounds):
            order = (True, False) if r % 2 == 0 else (False, True)
            if "core" not in skip:
                for on in order:
                    for name, (tl, th) in core(on).items():
                        add((name, on), tl)
                        add((name, "torch"), th)
            if "bigram" not in skip:
                w, c = bigram(None, a.iters, src)
                add(("bigram wall s", "torch"), w)
                add(("bigram cpu s", "torch"), c)
                for on in order:
                    w, c = bigram(on, a.iters, src)
                    add(("bigram wall s", on), w)
                    add(("bigram cpu s", on), c)
            if "gpt" not in skip:
                add(("nanoGPT eager ms", "torch"), gpt(None, a.steps, False))
                for on in order:
                    add(("nanoGPT eager ms", on), gpt(on, a.steps, False))
                    add(("nanoGPT compiled ms", on), gpt(on, a.steps, True))
            print(f"round {r + 1}/{a.rounds} done", file=sys.stderr)
    finally:
        os.unlink(src)
    with open("/proc/loadavg") as f:
        load = f.read().split()[:3]
    for k, v in res.items():
        print(f"  {k[0]:<24}{str(k[1]):<7}" + " ".join(f"{x:.2f}" for x in v))
    print(f"medians of {a.rounds} rounds, load {' '.join(load)}")
    print(f"{'workload':<26}{'async on':>10}{'async off':>11}{'off/on':>8}{'torch':>9}{'on/torch':>10}{'off/torch':>10}")
    names = list(dict.fromkeys(k[0] for k in res))
    for n in names:
        m = {s: statistics.median(res[(n, s)]) for s in (True, False, "torch") if (n, s) in res}
        on, off, th = m.get(True), m.get(False), m.get("torch")
        print(f"{n:<26}{on:>10.2f}{off:>11.2f}{off / on:>8.2f}" + (
            f"{th:>9.2f}{on / th:>10.2f}{off / th:>10.2f}" if th else ""))


if __name__ == "__main__":
    main()
