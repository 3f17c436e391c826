"""The reference workloads on a GPU, from one run: torchlike eager and compiled, torch eager and torch.compile
(the same source, bench/workloads_torchlike.py, on 'cuda'), and the hand-written JAX+optax reference
(../shared/reference/workloads.py, run on JAX's default backend, the GPU).

Three sizes: the fixed MLP and GPT-mini yardsticks, which are launch-bound on a GPU, and ``gpt-big`` (the same
GPT at V=8192, T=256, B=32, L=6, E=512, NH=8; the reference's JAX code is run with its size table set to
that). Each configuration runs in its own process, under a time limit. Not a test; prints a table of
milliseconds per step and ratios against hand JAX and torch eager, and one JSON line per configuration.

    python bench/bench_gpu.py [--ref ../shared/reference/workloads.py] [--only mlp,gpt,gpt-big]
"""
import argparse
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REF = os.path.normpath(os.path.join(HERE, "..", "..", "shared", "reference", "workloads.py"))
BIG = dict(V=8192, T=256, B=32, L=6, E=512, NH=8)

JAX_REF = """
import importlib.util, json, sys, time
spec = importlib.util.spec_from_file_location("ref", {ref!r})
ref = importlib.util.module_from_spec(spec); spec.loader.exec_module(ref)
ref.GPT.update({big!r})
step = ref.jax_workload({name!r})
t = time.perf_counter(); step(); first = time.perf_counter() - t
ms = ref.median_ms(step, {steps})
print(json.dumps(dict(impl="jax", ms_per_step=round(ms, 3), first_step_s=round(first, 3))))
"""


def run(cmd, limit, deadline=None):
    if deadline is not None:
        limit = min(limit, deadline - time.monotonic())
        if limit < 5:
            return {"error": "not run: the total time limit (--total) was reached"}
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=limit)
    except subprocess.TimeoutExpired:
        return {"error": f"over {limit} s"}
    if out.returncode != 0:
        tail = out.stderr.strip().splitlines()
        return {"error": tail[-1][:200] if tail else "failed"}
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ref", default=REF)
    ap.add_argument("--only", default="mlp,gpt,gpt-big")
    ap.add_argument("--limit", type=int, default=150, help="seconds per configuration")
    ap.add_argument("--total", type=int, default=3600, help="seconds for the whole run")
    ap.add_argument("--no-torch-compile", action="store_true")
    a = ap.parse_args()
    deadline = time.monotonic() + a.total
    script = os.path.join(HERE, "workloads_torchlike.py")
    for w in a.only.split(","):
        name, big = ("gpt", True) if w == "gpt-big" else (w, False)
        steps = 100 if name == "mlp" else 30
        common = [script, "--workload", name, "--device", "cuda", "--steps", str(steps)] + (["--big"] if big else [])
        configs = {
            "torchlike eager": common,
            "torchlike compiled": common + ["--compile"],
            "torch eager": common + ["--impl", "torch"],
        }
        if not a.no_torch_compile:
            configs["torch.compile"] = common + ["--impl", "torch", "--compile"]
        row = {"hand JAX": run([sys.executable, "-c", JAX_REF.format(ref=a.ref, big=BIG if big else {}, name=name,
                                                                     steps=steps)], a.limit, deadline)}
        row.update({k: run([sys.executable] + v, a.limit, deadline) for k, v in configs.items()})
        jax_ms, torch_ms = row["hand JAX"].get("ms_per_step"), row["torch eager"].get("ms_per_step")
        print(f"\n{w} on the GPU: {'config':<20}{'ms/step':>10}{'vs JAX':>9}{'vs torch':>10}{'first s':>9}")
        for k, r in row.items():
            print(json.dumps(dict(r, workload=w, config=k)), file=sys.stderr)
            if "error" in r:
                print(f"{'':5}{k:<20} error: {r['error']}")
                continue
            ms = r["ms_per_step"]
            vs_jax = f"{ms / jax_ms:>9.2f}" if jax_ms else f"{'-':>9}"
            vs_torch = f"{ms / torch_ms:>10.2f}" if torch_ms else f"{'-':>10}"
            print(f"{'':5}{k:<20}{ms:>10.3f}{vs_jax}{vs_torch}{r['first_step_s']:>9.2f}")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
