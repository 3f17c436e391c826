"""Where the compiled nanoGPT step's time goes: its XLA programs, one by one (not a timed test).

Trains bench_nanogpt's model with ``model = torch.compile(model)`` for two steps, captures every cached
program it calls (the module's AOT forward and backward, clip_grad_norm_, the optimizer's per-group
update) with its arguments, then reports for each: calls per step, the median CPU time of a call
(``time.process_time``, all threads), and from JAX's profiler the sum of each XLA op's *minimum*
duration over ``--runs`` runs by op kind (a figure a loaded machine disturbs less than a median).

    python bench/profile_nanogpt_programs.py [--runs 10]
"""
import argparse
import collections
import glob
import os
import re
import statistics
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)


def op_minimums(fn, args, runs):
    """{XLA op name: (min ms, calls per run)} over ``runs`` calls, from a jax.profiler trace."""
    import jax
    from jax._src.lib import _profile_data
    jax.block_until_ready(fn(*args))
    d = tempfile.mkdtemp()
    jax.profiler.start_trace(d)
    for _ in range(runs):
        jax.block_until_ready(fn(*args))
    jax.profiler.stop_trace()
    pd = _profile_data.ProfileData.from_file(glob.glob(os.path.join(d, "**", "*.xplane.pb"), recursive=True)[0])
    per = collections.defaultdict(list)
    for plane in pd.planes:
        for line in plane.lines:
            if line.name == "python":
                continue
            for ev in line.events:
                n = ev.name
                if "Thunk" in n or "Execute" in n or n.startswith("end:") or "hread" in n:
                    continue
                per[n].append(ev.duration_ns / 1e6)
    return {k: (min(v), len(v) / runs) for k, v in per.items()}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=10)
    a = ap.parse_args()
    from torchlike._runner import install
    install()
    import jax
    import torch  # torchlike, through the runner's alias
    from torchlike import _jit_cache
    import bench_nanogpt as bn
    calls = collections.Counter()
    captured = {}
    orig = _jit_cache.Entry.__call__

    def call(self, *args):
        if not any(isinstance(x, jax.core.Tracer) for x in jax.tree_util.tree_leaves(args)):  # not a trace's
            calls[self.owner.name] += 1
            captured[self.owner.name] = (self, args)
        return orig(self, *args)

    _jit_cache.Entry.__call__ = call
    bn.train(torch, True, 2, 2)  # 2 warm-up steps, then 2 counted
    _jit_cache.Entry.__call__ = orig
    print(f"load {open('/proc/loadavg').read().split()[0]}")
    for name, (e, args) in captured.items():
        fn = e.fn
        if not hasattr(fn, "lower"):
            continue
        cpu = []
        for _ in range(a.runs):
            c0 = time.process_time()
            jax.block_until_ready(fn(*args))
            cpu.append(time.process_time() - c0)
        ops = op_minimums(fn, args, a.runs)
        kinds = collections.defaultdict(float)
        for k, (mn, c) in ops.items():
            kinds[re.sub(r"\.\d+$", "", k)] += mn * c
        top = ", ".join(f"{k} {v:.2f}" for k, v in sorted(kinds.items(), key=lambda kv: -kv[1])[:6])
        print(f"{name:24s} calls/step {calls[name] / 4:4.1f}  cpu/call median {1e3 * statistics.median(cpu):7.2f} ms  "
              f"sum of op minimums {sum(mn * c for mn, c in ops.values()):7.2f} ms  ({top})")


if __name__ == "__main__":
    main()
