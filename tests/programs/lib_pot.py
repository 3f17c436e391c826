"""POT (Python Optimal Transport) on its torch backend: ground costs (ot.dist), exact OT (emd, emd2 and its
gradient w.r.t. the weights and the sample positions), entropic OT (sinkhorn / sinkhorn2, log and stabilized
variants, gradients through the iterations), unbalanced and partial OT, Gromov-Wasserstein (exact, entropic, and
the gradient of gromov_wasserstein2), sliced and 1-D Wasserstein, a barycenter, POT's backend functions on torch
tensors (type_as creation, sorting, sparse COO, linear algebra, seeded random numbers), Bures-Wasserstein with
its gradient through the matrix square root, the ot.solve API, a domain-adaptation transport, and two training
loops (Adam on a point cloud with sinkhorn2 as the loss, SGD on a linear map with emd2).
"""
import numpy as np
import ot
import torch


def r(x, n=4):
    return round(float(x), n)


def rl(t, n=4):
    return [r(v, n) for v in t.detach().flatten().tolist()]


def main():
    torch.manual_seed(0)
    rng = np.random.RandomState(0)
    n, m = 8, 6
    xs = torch.tensor(rng.randn(n, 2), dtype=torch.float64)
    xt = torch.tensor(rng.randn(m, 2) + 1.0, dtype=torch.float64)
    a = torch.tensor(ot.unif(n), dtype=torch.float64)
    b = torch.tensor(rng.rand(m), dtype=torch.float64)
    b = b / b.sum()

    nx = ot.backend.get_backend(xs, xt)
    print("backend", nx.__name__, type(nx).__name__)

    M = ot.dist(xs, xt)
    M32 = M.float()
    print("dist", tuple(M.shape), M.dtype, r(M.sum()), r(M.max()))
    M1 = ot.dist(xs, xt, metric="euclidean")
    print("dist euclidean", r(M1.sum()), r(M1.min()))

    # exact OT: plan and cost (the plan comes back as a torch tensor of the inputs' dtype)
    G = ot.emd(a, b, M)
    print("emd", type(G).__name__, G.dtype, tuple(G.shape), r(G.sum()), int((G > 1e-12).sum()), r((G * M).sum()))
    print("emd marginals", rl(G.sum(1)[:3]), rl(G.sum(0)[:3]))

    # emd2's gradient: w.r.t. the weights (dual potentials) and the positions (through ot.dist)
    a2 = a.clone().requires_grad_(True)
    b2 = b.clone().requires_grad_(True)
    xs2 = xs.clone().requires_grad_(True)
    cost = ot.emd2(a2, b2, ot.dist(xs2, xt))
    cost.backward()
    print("emd2", r(cost), cost.requires_grad, r(a2.grad.sum() - a2.grad.mean() * n, 6), rl(a2.grad - a2.grad.mean())[:4])
    print("emd2 grad b", rl(b2.grad - b2.grad.mean())[:4])
    print("emd2 grad xs", tuple(xs2.grad.shape), rl(xs2.grad[:2]))

    # entropic OT
    reg = 0.5
    Gs = ot.sinkhorn(a, b, M, reg)
    print("sinkhorn", Gs.dtype, r(Gs.sum()), rl(Gs[0]))
    Gl, log = ot.sinkhorn(a, b, M, reg, method="sinkhorn_log", log=True)
    print("sinkhorn_log", r((Gl - Gs).abs().max(), 6), sorted(log.keys())[:4], log["niter"] > 0)
    Gst = ot.sinkhorn(a, b, M, 0.05, method="sinkhorn_stabilized")
    print("sinkhorn_stabilized", r(Gst.sum()), r((Gst * M).sum()))
    print("sinkhorn2", r(ot.sinkhorn2(a, b, M, reg)), r(ot.sinkhorn2(a, b, M, reg, method="sinkhorn_log")))

    xs3 = xs.clone().requires_grad_(True)
    b3 = b.clone().requires_grad_(True)
    loss = ot.sinkhorn2(a, b3, ot.dist(xs3, xt), reg)
    loss.backward()
    print("sinkhorn2 grad", r(loss), rl(xs3.grad[:2]), rl(b3.grad - b3.grad.mean())[:3])

    # float32 inputs stay float32
    G32 = ot.sinkhorn(a.float(), b.float(), M.float(), reg)
    print("float32", G32.dtype, r(G32.sum(), 3))

    # unbalanced and partial
    Gu = ot.unbalanced.sinkhorn_unbalanced(a, b * 2, M, reg, reg_m=1.0)
    print("unbalanced", r(Gu.sum()), r(ot.unbalanced.sinkhorn_unbalanced2(a, b * 2, M, reg, 1.0)))
    Gmm = ot.unbalanced.mm_unbalanced(a, b, M, reg_m=1.0, div="kl", numItermax=50)
    print("mm_unbalanced", r(Gmm.sum()), rl(Gmm[0, :3]))
    Gp = ot.partial.partial_wasserstein(a, b, M, m=0.5)
    print("partial", r(Gp.sum()), r((Gp * M).sum()), int((Gp > 1e-12).sum()))
    Gpe = ot.partial.entropic_partial_wasserstein(a, b, M, reg=0.5, m=0.5)
    print("entropic partial", r(Gpe.sum()), r((Gpe * M).sum()))

    # Gromov-Wasserstein between two point clouds in different spaces
    C1 = ot.dist(xs, xs)
    yt = torch.tensor(rng.randn(m, 3), dtype=torch.float64)
    C2 = ot.dist(yt, yt)
    C1 = C1 / C1.max()
    C2 = C2 / C2.max()
    Ggw, glog = ot.gromov.gromov_wasserstein(C1, C2, a, b, "square_loss", log=True)
    print("gromov", r(Ggw.sum()), r(glog["gw_dist"]), Ggw.dtype)
    Gegw = ot.gromov.entropic_gromov_wasserstein(C1, C2, a, b, "square_loss", epsilon=0.1, max_iter=50)
    print("entropic gromov", r(Gegw.sum()), r(Gegw.max()), r((Gegw * (C1 @ Gegw @ C2)).sum()))
    C1g = C1.clone().requires_grad_(True)
    gw2 = ot.gromov.gromov_wasserstein2(C1g, C2, a, b)
    gw2.backward()
    print("gromov2 grad", r(gw2), tuple(C1g.grad.shape), r(C1g.grad.abs().sum()))

    # sliced Wasserstein (seeded projections)
    sw = ot.sliced_wasserstein_distance(xs, xt, a, b, n_projections=50, seed=0)
    print("sliced", r(sw), sw.dtype)
    xs4 = xs.clone().requires_grad_(True)
    sw = ot.sliced_wasserstein_distance(xs4, xt, n_projections=50, seed=0)
    sw.backward()
    print("sliced grad", r(sw), rl(xs4.grad[:2]))
    print("max sliced", r(ot.max_sliced_wasserstein_distance(xs, xt, n_projections=50, seed=0)))
    print("emd_1d", r(ot.emd2_1d(xs[:, 0], xt[:, 0])), r(ot.wasserstein_1d(xs[:, 0], xt[:, 0], p=2)))

    # barycenter of two 1-D histograms on a grid
    grid = torch.arange(20, dtype=torch.float64)
    h1 = torch.exp(-(grid - 5) ** 2 / 4)
    h2 = torch.exp(-(grid - 14) ** 2 / 4)
    A = torch.stack([h1 / h1.sum(), h2 / h2.sum()], 1)
    Mg = ot.dist(grid.reshape(-1, 1), grid.reshape(-1, 1))
    Mg = Mg / Mg.max()
    bary = ot.bregman.barycenter(A, Mg, 1e-2, weights=torch.tensor([0.3, 0.7], dtype=torch.float64))
    print("barycenter", tuple(bary.shape), r(bary.sum()), int(bary.argmax()))

    # the backend itself: array creation with type_as, reductions, sorting, linear algebra, random numbers
    nx = ot.backend.get_backend(M)
    S = ot.dist(xs, xs) + torch.eye(n, dtype=torch.float64)
    checks = {
        "zeros": nx.zeros((2, 3), type_as=M32), "full": nx.full((2, 2), 3.5, type_as=M), "eye": nx.eye(3, 2, type_as=M),
        "arange": nx.arange(5, type_as=M), "linspace": nx.linspace(0, 1, 5, type_as=M32),
        "cumsum": nx.cumsum(M, 0), "max": nx.max(M, 1, keepdims=True), "argmin": nx.argmin(M, 1),
        "maximum": nx.maximum(M, 1.0), "logsumexp": nx.logsumexp(M, 0), "std": nx.std(M), "median": nx.median(M, 0),
        "sort": nx.sort(M, 0)[2], "argsort": nx.argsort(M, 1)[0], "searchsorted": nx.searchsorted(nx.sort(M[0]), M[1]),
        "take_along_axis": nx.take_along_axis(M, nx.argsort(M, 1), 1)[:, 0], "flip": nx.flip(M, 0)[0],
        "clip": nx.clip(M, 1, 4), "repeat": nx.repeat(a, 2), "zero_pad": nx.zero_pad(M, [(1, 0), (0, 2)]),
        "unique": nx.unique(nx.from_numpy(np.array([3, 1, 3, 2]))), "where": nx.where(M > 2, M, 0.0),
        "einsum": nx.einsum("ij,j->i", M, b), "outer": nx.outer(a, b), "norm": nx.norm(M, axis=0),
        "solve": nx.solve(S, M), "inv": nx.inv(S)[0], "det": nx.det(S), "sqrtm": nx.sqrtm(S @ S.T),
        "eigvals": nx.eigh(S)[0], "trace": nx.trace(S), "kl_div": nx.kl_div(b, nx.flip(b, 0)), "isfinite": nx.isfinite(M),
        "coo": nx.todense(nx.coo_matrix(b, nx.arange(m, type_as=b).long(), nx.zeros(m, type_as=b).long(), shape=(m, 2))),
        "randn": (nx.seed(0), nx.randn(3, type_as=M))[1], "randperm": (nx.seed(0), nx.randperm(5, type_as=M))[1],
    }
    print("backend ops", [f"{k}:{r(nx.to_numpy(v).astype(np.float64).sum(), 3)}" for k, v in checks.items()])
    print("backend dtypes", sorted({str(v.dtype) for v in checks.values()}), nx.bitsize(M32), nx.device_type(M),
          nx.is_floating_point(M), nx.is_floating_point(checks["unique"]), nx.issparse(nx.coo_matrix(b, checks["argmin"][:m], checks["argmin"][:m], shape=(m, m))))

    # Gaussian OT (Bures-Wasserstein) and its gradient through the matrix square root
    Cs = torch.cov(xs.T).requires_grad_(True)
    bw = ot.gaussian.bures_wasserstein_distance(xs.mean(0), xt.mean(0), Cs, torch.cov(xt.T))
    bw.backward()
    A_map, b_map = ot.gaussian.empirical_bures_wasserstein_mapping(xs, xt)
    print("bures", r(bw), rl(Cs.grad), rl(A_map), rl(b_map))

    # the unified solver API and a domain-adaptation transport fitted on torch tensors
    res = ot.solve(M, a, b, reg=0.5)
    res_s = ot.solve_sample(xs, xt, a, b)
    print("solve", r(res.value), r(res.value_linear), rl(res.potentials[0][:3]), r(res_s.value), type(res_s.plan).__name__)
    ys = torch.tensor([0, 1] * (n // 2))
    da = ot.da.SinkhornLpl1Transport(reg_e=0.5, reg_cl=0.1).fit(Xs=xs, ys=ys, Xt=xt)
    xst = da.transform(Xs=xs)
    print("domain adaptation", type(xst).__name__, tuple(xst.shape), rl(xst[:2]), r(da.coupling_.sum()))

    # training loop: move a point cloud towards the target with sinkhorn2 as the loss
    torch.manual_seed(0)
    x = torch.randn(n, 2, dtype=torch.float64, requires_grad=True)
    opt = torch.optim.Adam([x], lr=0.1)
    losses = []
    for step in range(20):
        opt.zero_grad()
        loss = ot.sinkhorn2(a, b, ot.dist(x, xt), 0.2, numItermax=30, warn=False)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    print("train", [r(v) for v in losses[::5]], r(losses[-1]), losses[-1] < losses[0])

    # emd2 as the loss of a small linear map
    torch.manual_seed(1)
    lin = torch.nn.Linear(2, 2).double()
    opt = torch.optim.SGD(lin.parameters(), lr=0.05)
    for step in range(10):
        opt.zero_grad()
        loss = ot.emd2(a, b, ot.dist(lin(xs), xt))
        loss.backward()
        opt.step()
    print("train emd2", r(loss), rl(lin.weight))


if __name__ == "__main__":
    main()
