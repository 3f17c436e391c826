"""Issue-4 benchmark: MLP and GPT-mini training steps, from one run, as a table of ratios (+ PNG chart).

Each configuration runs in its own process (clean peak RSS):
torchlike eager, torchlike compiled step, torch eager, torch.compile, hand-written JAX+optax.

    python bench/bench_workloads.py [--steps N] [--png bench/workloads.png]
"""
import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REF = os.path.normpath(os.path.join(HERE, "..", "..", "shared", "reference", "workloads.py"))
RSS = ("import resource, runpy, sys, json, io, contextlib\n"
       "buf = io.StringIO()\n"
       "sys.argv = [{ref!r}] + {args!r}\n"
       "with contextlib.redirect_stdout(buf):\n"
       "    runpy.run_path({ref!r}, run_name='__main__')\n"
       "d = json.loads(buf.getvalue().strip().splitlines()[-1])\n"
       "d['peak_rss_mb'] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)\n"
       "print(json.dumps(d))\n")


def run(cmd):
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=1800)
    if out.returncode != 0:
        return {"error": out.stderr.strip().splitlines()[-1] if out.stderr.strip() else "failed"}
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=0)
    ap.add_argument("--png", default=os.path.join(HERE, "workloads.png"))
    ap.add_argument("--workloads", default="mlp,gpt")
    a = ap.parse_args()
    steps = ["--steps", str(a.steps)] if a.steps else []
    results = {}
    for w in a.workloads.split(","):
        row = {}
        row["torchlike eager"] = run([sys.executable, os.path.join(HERE, "workloads_torchlike.py"), "--workload", w] + steps)
        row["torchlike compiled"] = run([sys.executable, os.path.join(HERE, "workloads_torchlike.py"), "--workload", w,
                                         "--compile"] + steps)
        row["torch eager"] = run([sys.executable, "-c", RSS.format(ref=REF, args=["--impl", "torch", "--workload", w] + steps)])
        row["torch.compile"] = run([sys.executable, "-c", RSS.format(ref=REF, args=["--impl", "torch", "--workload", w,
                                                                                   "--compile"] + steps)])
        row["hand JAX"] = run([sys.executable, "-c", RSS.format(ref=REF, args=["--impl", "jax", "--workload", w] + steps)])
        results[w] = row
    for w, row in results.items():
        jax_ms = row["hand JAX"].get("ms_per_step")
        jax_first = row["hand JAX"].get("first_step_s")
        torch_ms = row["torch eager"].get("ms_per_step")
        print(f"\n{w}: {'config':<20}{'ms/step':>10}{'vs JAX':>9}{'vs torch':>10}{'first s':>9}{'1st vs JAX':>11}{'RSS MB':>9}")
        for k, r in row.items():
            if "error" in r:
                print(f"{'':5}{k:<20} error: {r['error']}")
                continue
            ms, first = r["ms_per_step"], r["first_step_s"]
            second = f"  (2nd call {r['second_step_s'] * 1e3:.0f} ms)" if "second_step_s" in r else ""
            print(f"{'':5}{k:<20}{ms:>10.2f}{ms / jax_ms:>9.2f}{ms / torch_ms:>10.2f}{first:>9.2f}"
                  f"{first / jax_first:>11.2f}{r.get('peak_rss_mb', 0):>9.0f}{second}")
    json.dump(results, open(os.path.join(HERE, "workloads.json"), "w"), indent=1)
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, axes = plt.subplots(1, len(results), figsize=(6 * len(results), 4))
        axes = axes if len(results) > 1 else [axes]
        for ax, (w, row) in zip(axes, results.items()):
            names = [k for k in row if "error" not in row[k]]
            ax.bar(names, [row[k]["ms_per_step"] for k in names],
                   color=["#4c72b0", "#1f3f7a", "#dd8452", "#c44e52", "#55a868"][:len(names)])
            ax.set_title(f"{w}: ms per training step (lower is better)")
            ax.tick_params(axis="x", rotation=25)
        fig.tight_layout()
        fig.savefig(a.png, dpi=100)
        print(f"\nchart: {a.png}")
    except ImportError:
        print("\n(matplotlib not installed: no chart)")


if __name__ == "__main__":
    main()
