"""Per-op eager overhead and MLP forward+backward: torchlike vs raw jnp vs torch (ratios from one run).

    python bench/bench_core.py [--small]   (--small: the per-op rows only, no MLP)
"""
import statistics
import sys
import time

import numpy as np


def timeit(fn, n=2000, warmup=50):
    for _ in range(warmup):
        fn()
    ts = []
    for _ in range(5):
        t = time.process_time()  # CPU time: steadier than wall time on a shared machine
        for _ in range(n):
            fn()
        ts.append((time.process_time() - t) / n * 1e6)
    return statistics.median(ts)


def _ready(x):
    """Wait for a torchlike/jax result (torch is synchronous).  A host-resident torchlike result (numpy,
    computed synchronously like torch's) is ready as it is: reading ``_value`` would move it to the device.
    So is a lazy view not read yet."""
    h = getattr(x, "_host_array", None)
    if h is not None and h() is not None:
        return x
    if type(getattr(x, "_x", None)).__name__ == "Pending":  # a lazy view (like torch's, nothing computed yet):
        return x  # the op that consumes it reads it from its root (the "view + cross_entropy" row times that)
    v = getattr(x, "_value", x)
    if hasattr(v, "block_until_ready"):
        v.block_until_ready()
    return x


def small_ops(jnp, torch, tl):
    """The small ops research code calls between the big ones (views/slicing, indexing, stack/cat,
    creation, random, item/tolist): torchlike vs raw jnp vs torch, one row each."""
    import jax
    n_data = 10000
    data = {"tl": tl.arange(n_data), "torch": torch.arange(n_data), "jnp": jnp.arange(n_data)}
    x3 = {"tl": tl.ones(32, 8, 16), "torch": torch.ones(32, 8, 16), "jnp": jnp.ones((32, 8, 16))}
    m2 = {"tl": tl.ones(16, 32), "torch": torch.ones(16, 32), "jnp": jnp.ones((16, 32))}
    idx = {"tl": tl.tensor([3, 1, 4, 1, 5, 9, 2, 6]), "torch": torch.tensor([3, 1, 4, 1, 5, 9, 2, 6]),
           "jnp": jnp.asarray([3, 1, 4, 1, 5, 9, 2, 6])}
    loss = {"tl": tl.tensor(1.5), "torch": torch.tensor(1.5), "jnp": jnp.asarray(1.5)}
    starts = list(range(0, 9000, 37))
    cur = [0]

    def nxt():  # a new start index on every call (a batch loader's pattern)
        cur[0] = (cur[0] + 1) % len(starts)
        return starts[cur[0]]

    ix = [3 + 250 * k for k in range(32)]
    ix_t = {"tl": tl.tensor(ix), "torch": torch.tensor(ix), "jnp": jnp.asarray(ix)}
    losses = {"tl": tl.zeros(200), "torch": torch.zeros(200)}
    rng = np.random.default_rng(1)
    hx = rng.random((4, 4)).astype(np.float32)
    hv = rng.integers(0, 256, 64)
    small = {m: (mod.tensor(hx), mod.tensor(hx), mod.tensor(hv)) for m, mod in (("tl", tl), ("torch", torch))}
    small["jnp"] = (jnp.asarray(hx), jnp.asarray(hx), jnp.asarray(hv))
    # the rows below get their own pair of 4x4 tensors (a device op on a host tensor moves it to the device: a
    # shared pair would time the later rows on device tensors); ``row[0]`` names the row being timed.  (The
    # metadata rows read ``small``: a lookup here would cost as much as torch's whole ``x.shape``)
    row, pairs = [None], {}

    def own(m, k):
        key = (row[0], m)
        if key not in pairs:
            pairs[key] = (mods[m].asarray(hx.copy()) if m == "jnp" else mods[m].tensor(hx),
                          mods[m].asarray(hx.copy()) if m == "jnp" else mods[m].tensor(hx))
        return pairs[key][k]

    # in-place targets (zeros, so 2**k stays finite), their own tensors: written, a host tensor moves to the device
    inplace = {m: (mod.zeros(4, 4), mod.zeros(4, 4)) for m, mod in (("tl", tl), ("torch", torch))}
    inplace["jnp"] = (jnp.zeros((4, 4)), jnp.zeros((4, 4)))

    def batch(m):  # the bigram example's get_batch: iterate a start tensor, slice, stack
        d, st = data[m], (jnp.stack if m == "jnp" else mods[m].stack)
        return st([d[i:i + 8] for i in ix_t[m]]), st([d[i + 1:i + 8 + 1] for i in ix_t[m]])

    def put_number(m):
        if m == "jnp":
            return data["jnp"].at[nxt()].set(1)
        losses[m][nxt() % 200] = 1.5
        return losses[m]

    def put_tensor(m):  # an evaluation loop's ``losses[k] = loss`` (a 0-d tensor, not .item())
        if m == "jnp":
            return data["jnp"].at[nxt()].set(loss["jnp"].astype(data["jnp"].dtype))
        losses[m][nxt() % 200] = loss[m]
        return losses[m]

    def slices(m):
        d = data[m]
        return [d[i:i + 8] for i in ix]

    mods = {"tl": tl, "torch": torch, "jnp": jnp}
    cases = [
        ("data[i:i+8] (new i)", lambda m: _slice(data[m], nxt())),
        ("data[i] (new i)", lambda m: data[m][nxt()]),
        ("x[:, -1, :]", lambda m: x3[m][:, -1, :]),
        ("x[idx] (index tensor)", lambda m: m2[m][idx[m]]),
        ("x.view(-1)", lambda m: x3[m].reshape(-1) if m == "jnp" else x3[m].view(-1)),
        ("x.reshape(32, 128)", lambda m: x3[m].reshape(32, 128)),
        ("x.t()", lambda m: m2[m].T if m == "jnp" else m2[m].t()),
        ("x.unsqueeze(0)", lambda m: jnp.expand_dims(m2[m], 0) if m == "jnp" else m2[m].unsqueeze(0)),
        ("stack 32 slices", lambda m: (jnp.stack if m == "jnp" else mods[m].stack)(slices(m))),
        ("cat 32 slices", lambda m: (jnp.concatenate if m == "jnp" else mods[m].cat)(slices(m))),
        ("batch from tensor ix", batch),
        ("t[k] = number", put_number),
        ("t[k] = 0-d tensor", put_tensor),
        ("list(idx) (iterate)", lambda m: list(idx[m])),
        ("tensor(list of 64)", lambda m: (jnp.asarray if m == "jnp" else mods[m].tensor)(list(range(64)))),
        ("a+b (4x4, fresh CPU)", lambda m: small[m][0] + small[m][1]),
        ("mask = x > 0.5 (4x4)", lambda m: small[m][0] > 0.5),
        ("ints / 255 (64)", lambda m: small[m][2] / 255),
        ("zeros(32)", lambda m: mods[m].zeros(32) if m != "jnp" else jnp.zeros(32)),
        ("arange(64)", lambda m: mods[m].arange(64)),
        ("randint(9000, (32,))", lambda m: _randint(m, mods[m])),
        ("rand(32)", lambda m: _rand(m, mods[m])),
        ("loss.item()", lambda m: loss[m].item()),
        ("x * 2 + 1 (4x4)", lambda m: own(m, 0) * 2 + 1),
        ("relu (4x4)", lambda m: jax.nn.relu(own(m, 0)) if m == "jnp" else own(m, 0).relu()),
        ("x.sum() (4x4)", lambda m: own(m, 0).sum()),
        ("x.mean() (4x4)", lambda m: own(m, 0).mean()),
        ("x == y (4x4)", lambda m: own(m, 0) == own(m, 1)),
        ("where(x > 0, x, y)", lambda m: mods[m].where(own(m, 0) > 0, own(m, 0), own(m, 1))),
        ("x.clone()", lambda m: jnp.array(own(m, 0), copy=True) if m == "jnp" else own(m, 0).clone()),
        ("x.detach()", lambda m: jax.lax.stop_gradient(own(m, 0)) if m == "jnp" else own(m, 0).detach()),
        ("x.to(float64)", lambda m: own(m, 0).astype(jnp.float64) if m == "jnp" else
         own(m, 0).to(mods[m].float64)),
        ("zeros_like(x)", lambda m: mods[m].zeros_like(own(m, 0))),
        ("y.add_(x)", lambda m: inplace[m][0] + own(m, 0) if m == "jnp" else inplace[m][0].add_(own(m, 0))),
        ("y.mul_(2)", lambda m: inplace[m][1] * 2 if m == "jnp" else inplace[m][1].mul_(2)),
        ("x.shape", lambda m: small[m][0].shape),
        ("x.size()", lambda m: small[m][0].shape if m == "jnp" else small[m][0].size()),
        ("x.dim()", lambda m: small[m][0].ndim if m == "jnp" else small[m][0].dim()),
        ("x.tolist() (8 elems)", lambda m: idx[m].tolist()),
    ] + _model_cases(jnp, torch, tl, mods)
    print(f"\n{'small op':<24}{'torchlike us':>14}{'jnp us':>10}{'torch us':>10}{'tl/jnp':>9}{'tl/torch':>10}")
    for name, f in cases:
        row[0] = name
        r = {}
        for m in ("tl", "jnp", "torch"):
            r[m] = timeit(lambda: _ready(f(m)), n=200, warmup=20)
        print(f"{name:<24}{r['tl']:>14.2f}{r['jnp']:>10.2f}{r['torch']:>10.2f}{r['tl'] / r['jnp']:>9.2f}"
              f"{r['tl'] / r['torch']:>10.2f}")


def _model_cases(jnp, torch, tl, mods):
    """The bigram example's model ops: Embedding forward, view + cross_entropy, AdamW step on a 65x65 table."""
    import jax
    rng = np.random.default_rng(0)
    w = rng.standard_normal((65, 65)).astype(np.float32)
    xb = rng.integers(0, 65, (32, 8))
    yb = rng.integers(0, 65, (256,))
    emb, xs, ys, opt = {}, {}, {}, {}
    for m in ("tl", "torch"):
        mod = mods[m]
        emb[m] = mod.nn.Embedding(65, 65)
        with mod.no_grad():
            emb[m].weight.copy_(mod.tensor(w))
        xs[m], ys[m] = mod.tensor(xb), mod.tensor(yb)
        emb[m].weight.grad = mod.zeros(65, 65)
        opt[m] = mod.optim.AdamW(emb[m].parameters(), lr=1e-3)
    jw, jx, jy = jnp.asarray(w), jnp.asarray(xb), jnp.asarray(yb)
    j_emb = jax.jit(lambda w, i: jnp.take(w, i, axis=0, mode="clip"))
    j_ce = jax.jit(lambda lg, y: -jnp.mean(jnp.take_along_axis(jax.nn.log_softmax(lg.reshape(256, 65), axis=1),
                                                              y[:, None], axis=1, mode="clip")))
    lg = {"tl": emb["tl"](xs["tl"]), "torch": emb["torch"](xs["torch"]), "jnp": j_emb(jw, jx)}

    def ce(m):
        if m == "jnp":
            return j_ce(lg[m], jy)
        return mods[m].nn.functional.cross_entropy(lg[m].view(256, 65), ys[m])

    def step(m):
        if m == "jnp":  # an AdamW update of one 65x65 table as raw jnp (one jitted program)
            return _j_adamw(jw)
        opt[m].step()
        return emb[m].weight
    return [
        ("Embedding forward", lambda m: j_emb(jw, jx) if m == "jnp" else emb[m](xs[m])),
        ("view + cross_entropy", ce),
        ("AdamW step (65x65)", step),
    ]


_ADAMW = []


def _j_adamw(w):
    import jax
    import jax.numpy as jnp
    if not _ADAMW:
        def upd(p, g, m, v, t):
            p = p * (1 - 1e-3 * 1e-2)
            m = 0.9 * m + 0.1 * g
            v = 0.999 * v + 0.001 * g * g
            return p - 1e-3 * (m / (1 - 0.9 ** t)) / (jnp.sqrt(v / (1 - 0.999 ** t)) + 1e-8), m, v
        _ADAMW.append(jax.jit(upd))
        _ADAMW.append([w, jnp.zeros_like(w), jnp.zeros_like(w), 0])
    st = _ADAMW[1]
    st[3] += 1
    st[0], st[1], st[2] = _ADAMW[0](st[0], st[0], st[1], st[2], float(st[3]))
    return st[0]


def _slice(d, i):
    return d[i:i + 8]


_KEY = []


def _randint(name, mod):
    if name != "jnp":
        return mod.randint(9000, (32,))
    import jax
    if not _KEY:
        _KEY.append(jax.random.PRNGKey(0))
    _KEY[0], k = jax.random.split(_KEY[0])
    return jax.random.randint(k, (32,), 0, 9000)


def _rand(name, mod):
    if name != "jnp":
        return mod.rand(32)
    import jax
    if not _KEY:
        _KEY.append(jax.random.PRNGKey(0))
    _KEY[0], k = jax.random.split(_KEY[0])
    return jax.random.uniform(k, (32,))


def main():
    import jax
    import jax.numpy as jnp
    import torch
    import torchlike as tl
    torch.set_num_threads(2)
    rng = np.random.default_rng(0)
    a_np = rng.standard_normal((4, 4)).astype(np.float32)
    b_np = rng.standard_normal((4, 4)).astype(np.float32)
    ja, jb = jnp.asarray(a_np), jnp.asarray(b_np)
    ta, tb = torch.tensor(a_np), torch.tensor(b_np)
    la, lb = tl.tensor(a_np), tl.tensor(b_np)
    da, db = tl.tensor(a_np), tl.tensor(b_np)
    da._value, db._value  # noqa: B018 (moved to the device: the device-resident row)
    ga, tga = tl.tensor(a_np, requires_grad=True), torch.tensor(a_np, requires_grad=True)
    rows = []
    for name, fj, ft, fl in [
        # (_ready: a host-resident result is ready as it is; reading its ``_value`` would time a device transfer,
        # which made this row read 11x where the same op's "fresh CPU" row below reads 3x)
        ("a+b", lambda: jnp.add(ja, jb).block_until_ready(), lambda: ta + tb, lambda: _ready(la + lb)),
        ("a+b device", lambda: jnp.add(ja, jb).block_until_ready(), lambda: ta + tb, lambda: _ready(da + db)),
        ("a+b grad", lambda: jnp.add(ja, jb).block_until_ready(), lambda: tga + tb, lambda: _ready(ga + lb)),
        ("a@b", lambda: jnp.matmul(ja, jb).block_until_ready(), lambda: ta @ tb, lambda: _ready(la @ lb)),
        ("x.sum()", lambda: jnp.sum(ja).block_until_ready(), lambda: ta.sum(), lambda: _ready(la.sum())),
    ]:
        j, t, l = timeit(fj), timeit(ft), timeit(fl)
        rows.append((name, l, j, t))
    print(f"{'op (4x4 f32)':<14}{'torchlike us':>14}{'jnp us':>10}{'torch us':>10}{'tl/jnp':>9}{'tl/torch':>10}")
    for name, l, j, t in rows:
        print(f"{name:<14}{l:>14.2f}{j:>10.2f}{t:>10.2f}{l / j:>9.2f}{l / t:>10.2f}")
    # torch on one thread for the small ops (none is big enough for a second one; on a loaded machine its idle
    # OpenMP thread spins and made a 65x65 AdamW step 4.8 ms), two again for the MLP
    torch.set_num_threads(1)
    small_ops(jnp, torch, tl)
    torch.set_num_threads(2)
    if "--small" in sys.argv:  # only the per-op rows
        return

    # 3-layer MLP written with raw tensor ops: forward + backward
    B, D, H, C = 128, 784, 512, 10
    x_np = rng.standard_normal((B, D)).astype(np.float32)
    ws = [rng.standard_normal(s).astype(np.float32) * 0.02 for s in [(D, H), (H, H), (H, C)]]
    bs = [np.zeros(s, np.float32) for s in (H, H, C)]

    def fwd_tl(x, params):
        h = x
        for i, (w, b) in enumerate(params):
            h = h @ w + b
            if i < 2:
                h = h.relu()
        return (h * h).mean()

    lp = [(tl.tensor(w, requires_grad=True), tl.tensor(b, requires_grad=True)) for w, b in zip(ws, bs)]
    lx = tl.tensor(x_np)

    def step_tl():
        for w, b in lp:
            w.grad = None
            b.grad = None
        loss = fwd_tl(lx, lp)
        loss.backward()
        lp[-1][0].grad._value.block_until_ready()

    tp = [(torch.tensor(w, requires_grad=True), torch.tensor(b, requires_grad=True)) for w, b in zip(ws, bs)]
    tx = torch.tensor(x_np)

    def step_torch():
        for w, b in tp:
            w.grad = None
            b.grad = None
        fwd_tl(tx, tp).backward()

    def fwd_j(params, x):
        h = x
        for i, (w, b) in enumerate(params):
            h = h @ w + b
            if i < 2:
                h = jax.nn.relu(h)
        return (h * h).mean()

    vg = jax.jit(jax.value_and_grad(fwd_j))
    jp = [(jnp.asarray(w), jnp.asarray(b)) for w, b in zip(ws, bs)]
    jx = jnp.asarray(x_np)

    def step_jax():
        jax.block_until_ready(vg(jp, jx))

    l, t, j = timeit(step_tl, n=50, warmup=5), timeit(step_torch, n=50, warmup=5), timeit(step_jax, n=50, warmup=5)
    print(f"\nMLP fwd+bwd (B{B}, {D}-{H}-{H}-{C}): torchlike {l / 1e3:.3f} ms, torch {t / 1e3:.3f} ms, "
          f"jax.jit value_and_grad {j / 1e3:.3f} ms")
    print(f"ratios: torchlike/jit-jax {l / j:.2f}x (goal <= 2x), torchlike/torch {l / t:.2f}x")


if __name__ == "__main__":
    main()
