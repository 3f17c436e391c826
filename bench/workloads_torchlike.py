"""The reference workloads (../shared/reference/workloads.py) written in torchlike.

Prints one JSON line like the reference: {"impl", "workload", "ms_per_step", "first_step_s", "peak_rss_mb"}.
``--device cuda`` runs them on a GPU; ``--impl torch`` runs the same source under real torch (the reference's
torch code is CPU-only), so a GPU comparison uses one source for both.

    python bench/workloads_torchlike.py --workload mlp [--compile] [--device cuda] [--impl torch]
"""
import argparse
import json
import resource
import statistics
import time


MLP = dict(B=128, D=784, H=512, C=10)
GPT = dict(V=256, T=64, B=16, L=4, E=128, NH=4)
BIG = dict(V=8192, T=256, B=32, L=6, E=512, NH=8)  # bench_gpu.py's gpt-big


def build(torch, name, dev):
    nn, F = torch.nn, torch.nn.functional
    torch.manual_seed(0)
    if name == "mlp":
        c = MLP
        m = nn.Sequential(nn.Linear(c["D"], c["H"]), nn.ReLU(), nn.Linear(c["H"], c["H"]), nn.ReLU(),
                          nn.Linear(c["H"], c["C"])).to(dev)
        opt = torch.optim.Adam(m.parameters(), 1e-3)
        x, y = torch.randn(c["B"], c["D"], device=dev), torch.randint(0, c["C"], (c["B"],), device=dev)
        return lambda: F.cross_entropy(m(x), y), opt
    c = GPT
    E, NH = c["E"], c["NH"]

    class Block(nn.Module):
        def __init__(s):
            super().__init__()
            s.ln1 = nn.LayerNorm(E)
            s.att = nn.Linear(E, 3 * E)
            s.proj = nn.Linear(E, E)
            s.ln2 = nn.LayerNorm(E)
            s.fc = nn.Linear(E, 4 * E)
            s.fc2 = nn.Linear(4 * E, E)

        def forward(s, x):
            B, T, C = x.shape
            q, k, v = s.att(s.ln1(x)).split(E, dim=2)
            q, k, v = (t.view(B, T, NH, C // NH).transpose(1, 2) for t in (q, k, v))
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            x = x + s.proj(y.transpose(1, 2).contiguous().view(B, T, C))
            return x + s.fc2(F.gelu(s.fc(s.ln2(x))))

    class GPTm(nn.Module):
        def __init__(s):
            super().__init__()
            s.wte = nn.Embedding(c["V"], E)
            s.wpe = nn.Embedding(c["T"], E)
            s.blocks = nn.ModuleList([Block() for _ in range(c["L"])])
            s.ln = nn.LayerNorm(E)
            s.head = nn.Linear(E, c["V"], bias=False)

        def forward(s, idx, tgt):
            x = s.wte(idx) + s.wpe(torch.arange(idx.shape[1], device=idx.device))
            for b in s.blocks:
                x = b(x)
            return F.cross_entropy(s.head(s.ln(x)).view(-1, c["V"]), tgt.view(-1))

    m = GPTm().to(dev)
    opt = torch.optim.AdamW(m.parameters(), 3e-4)
    idx = torch.randint(0, c["V"], (c["B"], c["T"]), device=dev)
    tgt = torch.randint(0, c["V"], (c["B"], c["T"]), device=dev)
    return lambda: m(idx, tgt), opt


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--workload", choices=["mlp", "gpt"], required=True)
    ap.add_argument("--compile", action="store_true", help="compile the whole step (fwd+bwd+opt) into one program")
    ap.add_argument("--steps", type=int, default=0)
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--big", action="store_true", help="the GPT at BIG's size")
    ap.add_argument("--impl", choices=["torchlike", "torch"], default="torchlike")
    a = ap.parse_args()
    torch = __import__(a.impl)
    if a.big:
        GPT.update(BIG)
    loss_fn, opt = build(torch, a.workload, a.device)

    def step():
        opt.zero_grad()
        loss = loss_fn()
        loss.backward()
        opt.step()
        return loss

    fn = torch.compile(step) if a.compile else step
    t = time.perf_counter()
    fn().item()
    first = time.perf_counter() - t
    t = time.perf_counter()  # a retrace on call 2 (state created by call 1) would show here
    fn().item()
    second = time.perf_counter() - t
    n = a.steps or (200 if a.workload == "mlp" else 30)
    for _ in range(3):
        fn().item()
    times = []
    for _ in range(n):
        t = time.perf_counter()
        fn().item()
        times.append((time.perf_counter() - t) * 1e3)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    impl = a.impl + ("-compile" if a.compile else "-eager") + ("" if a.device == "cpu" else "-" + a.device)
    print(json.dumps(dict(impl=impl, workload=a.workload, ms_per_step=round(statistics.median(times), 3),
                          first_step_s=round(first, 3), second_step_s=round(second, 3), peak_rss_mb=round(rss, 1))))


if __name__ == "__main__":
    main()
