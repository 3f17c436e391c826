"""Shapes that change every step: an sbi-style neural spline flow (nflows) trained with NPE's loss (a benchmark,
not a test).

nflows' rational-quadratic splines select the inputs inside the tail bound with a boolean mask
(``inputs[inside]``, ``outputs[inside] = ...``), so every batch hands the spline's ~40 ops (and their
backward) a different element count.  The same torch-style source runs under real torch and under
torchlike (``torch`` aliased through the drop-in runner), in fresh processes, persistent compilation cache
off; one run, wall and CPU time, torchlike's compilations per step (``torchlike.cache_info()['compiled']``).

    python bench/bench_masked_shapes.py [--steps 200]
    python bench/bench_masked_shapes.py --worker torchlike --steps 50   # one side, JSON line
"""
import argparse
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DIM = 3  # theta and x dimensions (sbi's Gaussian linear toy task)


def build(torch):
    """sbi's ``build_nsf`` structure written with nflows: 5 RQ-spline coupling layers (10 bins, linear tails at
    3, a ResidualNet conditioner of width 50 with 2 blocks and the context), each followed by an LU linear."""
    from nflows import distributions, flows, transforms
    from nflows.nn import nets
    from nflows.utils import torchutils

    def conditioner(in_features, out_features):
        return nets.ResidualNet(in_features, out_features, hidden_features=50, context_features=DIM, num_blocks=2,
                                activation=torch.relu)

    layers = []
    for i in range(5):
        mask = torchutils.create_alternating_binary_mask(features=DIM, even=(i % 2 == 0))
        layers.append(transforms.PiecewiseRationalQuadraticCouplingTransform(
            mask=mask, transform_net_create_fn=conditioner, num_bins=10, tails="linear", tail_bound=3.0,
            apply_unconditional_transform=False))
        layers.append(transforms.LULinear(DIM, identity_init=True))
    return flows.Flow(transforms.CompositeTransform(layers), distributions.StandardNormal([DIM]))


def train(torch, steps, batch, info=None):
    torch.manual_seed(0)
    n_sim = 2000
    theta = 2 * torch.randn(n_sim, DIM)  # a Gaussian prior, not z-scored: ~13% of the values beyond the tail bound
    x = theta + 0.5 * torch.randn(n_sim, DIM)
    flow = build(torch)
    opt = torch.optim.Adam(flow.parameters(), lr=5e-4)
    losses, compiled, step_s = [], [], []
    t0, c0 = time.perf_counter(), time.process_time()
    for _ in range(steps):
        s0 = time.perf_counter()
        idx = torch.randint(0, n_sim, (batch,))
        opt.zero_grad()
        loss = -flow.log_prob(theta[idx], context=x[idx]).mean()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(flow.parameters(), max_norm=5.0)
        opt.step()
        losses.append(loss.item())
        step_s.append(time.perf_counter() - s0)
        if info is not None:
            compiled.append(info()["compiled"])
    return {"wall_s": time.perf_counter() - t0, "cpu_s": time.process_time() - c0, "losses": losses,
            "compiled": compiled, "step_s": step_s}


def worker(impl, steps, batch):
    info = None
    if impl == "torch":
        import torch
        torch.set_num_threads(1)
    else:
        sys.path.insert(0, ROOT)
        from torchlike._runner import install
        install()
        import torch  # noqa: F811  (torchlike through the runner's alias)
        info = torch.cache_info
    print(json.dumps(train(torch, steps, batch, info)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--batch", type=int, default=200)
    ap.add_argument("--worker", choices=["torch", "torchlike"])
    ap.add_argument("--only", default="torch,torchlike")
    a = ap.parse_args()
    if a.worker:
        worker(a.worker, a.steps, a.batch)
        return
    env = dict(os.environ, TORCHLIKE_COMPILATION_CACHE="0")
    res = {}
    for impl in a.only.split(","):
        cmd = [sys.executable, os.path.abspath(__file__), "--worker", impl, "--steps", str(a.steps),
               "--batch", str(a.batch)]
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=3600, env=env)
        if out.returncode != 0:
            print(f"{impl}: failed\n{out.stderr[-3000:]}")
            continue
        res[impl] = json.loads(out.stdout.strip().splitlines()[-1])
    base = res.get("torch")
    for impl, r in res.items():
        line = f"{impl:10s} wall {r['wall_s']:8.2f} s  cpu {r['cpu_s']:8.2f} s"
        if base is not None:
            line += f"  ({r['wall_s'] / base['wall_s']:.2f}x / {r['cpu_s'] / base['cpu_s']:.2f}x torch)"
        c = r["compiled"]
        if c:
            q = max(1, len(c) // 4)
            per = [(c[min(i + q, len(c)) - 1] - c[i - 1]) / (min(i + q, len(c)) - i) for i in range(1, len(c), q)]
            line += f"\n{'':10s} compiled {c[0]} after step 1, {c[-1]} in all; per step by quarter: " + \
                ", ".join(f"{p:.1f}" for p in per)
        st = r["step_s"]
        line += f"\n{'':10s} last-50-step median {1000 * sorted(st[-50:])[len(st[-50:]) // 2]:.1f} ms; " \
                f"losses {r['losses'][0]:.3f} -> {r['losses'][-1]:.3f}"
        print(line)
    print("(one run each, persistent compilation cache off; the shared machine's load moves wall times)")


if __name__ == "__main__":
    main()
