"""geomloss (Sinkhorn divergences and kernel MMDs between point clouds) with the tensorized backend: the
sinkhorn / energy / gaussian / laplacian losses on weighted and batched clouds, the debiased and
biased Sinkhorn, dual potentials, gradients w.r.t. weights and positions, and a gradient flow of a point cloud
driven by Adam.
"""
import torch
from geomloss import SamplesLoss
from geomloss import ot as got


def r(x, n=4):
    return round(float(x), n)


def rl(t, n=4):
    return [r(v, n) for v in t.detach().flatten().tolist()]


def main():
    torch.manual_seed(0)
    N, M, D = 40, 30, 2
    x = torch.randn(N, D, dtype=torch.float64)
    y = torch.randn(M, D, dtype=torch.float64) * 0.5 + torch.tensor([2.0, 1.0], dtype=torch.float64)
    a = torch.rand(N, dtype=torch.float64)
    a = a / a.sum()
    b = torch.ones(M, dtype=torch.float64) / M

    for name, kw in [("sinkhorn", dict(p=2, blur=0.05)), ("sinkhorn", dict(p=1, blur=0.1, scaling=0.7)),
                     ("sinkhorn", dict(p=2, blur=0.05, debias=False)), ("sinkhorn", dict(p=2, blur=0.5, reach=1.0)),
                     ("energy", {}), ("gaussian", dict(blur=0.5)), ("laplacian", dict(blur=0.5))]:
        loss = SamplesLoss(name, backend="tensorized", **kw)
        val = loss(x, y)
        valw = loss(a, x, b, y)
        print(name, sorted(kw.items()), tuple(val.shape), val.dtype, r(val), r(valw))

    # float32 inputs
    loss = SamplesLoss("sinkhorn", p=2, blur=0.05, backend="tensorized")
    v32 = loss(x.float(), y.float())
    print("float32", v32.dtype, r(v32, 3))

    # batched clouds (B, N, D)
    xb = torch.randn(3, N, D, dtype=torch.float64)
    yb = torch.randn(3, M, D, dtype=torch.float64) + 1
    vb = loss(xb, yb)
    print("batched", tuple(vb.shape), rl(vb))
    print("batched energy", rl(SamplesLoss("energy", backend="tensorized")(xb, yb)))

    # dual potentials
    pl = SamplesLoss("sinkhorn", p=2, blur=0.05, potentials=True, backend="tensorized")
    F, G = pl(a, x, b, y)
    print("potentials", tuple(F.shape), tuple(G.shape), r((a * F).sum() + (b * G).sum()), rl(F[0, :3]), rl(G[0, :3]))

    # gradients w.r.t. positions and weights
    xg = x.clone().requires_grad_(True)
    ag = a.clone().requires_grad_(True)
    L = loss(ag, xg, b, y)
    gx, ga = torch.autograd.grad(L, [xg, ag])
    print("grad", r(L), tuple(gx.shape), rl(gx[:2]), rl(ga[:3] - ga.mean()))
    xg.grad = None
    L2 = SamplesLoss("gaussian", blur=0.5, backend="tensorized")(xg, y)
    L2.backward()
    print("grad gaussian", r(L2, 5), rl(xg.grad[:2], 5))

    # a custom cost function and a second-order gradient (the gradient's norm, differentiated again)
    cost = SamplesLoss("sinkhorn", p=1, blur=0.1, backend="tensorized",
                       cost=lambda u, v: ((u[:, :, None] - v[:, None]) ** 2).sum(-1).sqrt())
    print("custom cost", r(cost(x, y)))
    xg = x.clone().requires_grad_(True)
    [g] = torch.autograd.grad(SamplesLoss("sinkhorn", p=2, blur=0.5, backend="tensorized")(xg, y), [xg], create_graph=True)
    g.pow(2).sum().backward()
    print("double grad", r(g.pow(2).sum(), 6), rl(xg.grad[:2], 5))

    # the geomloss.ot solvers: a cost matrix (balanced and unbalanced) and samples with a gradient
    C = ((x[:12, None] - y[None, :9]) ** 2).sum(-1) / 2
    s = got.solve(C, reg=0.1, max_iter=50)
    su = got.solve(C, reg=0.1, unbalanced=1.0, max_iter=50)
    print("ot.solve", type(s).__name__, r(s.value), tuple(s.plan.shape), r(s.plan.sum()), rl(s.potential_a[:3]),
          r(su.value), r(su.plan.sum()))
    xg = x[:12].clone().requires_grad_(True)
    s = got.solve_sample(xg, y[:9], reg=0.05, max_iter=50)
    s.value.backward()
    print("ot.solve_sample", r(s.value), rl(xg.grad[:2]), r(got.solve_sample(x[:12], y[:9], reg=0.05, debias=True, max_iter=50).value))

    # gradient flow with Adam: the source cloud moves onto the target
    torch.manual_seed(1)
    z = torch.randn(N, D, dtype=torch.float64, requires_grad=True)
    opt = torch.optim.Adam([z], lr=0.05)
    flow_loss = SamplesLoss("sinkhorn", p=2, blur=0.05, scaling=0.8, backend="tensorized")
    hist = []
    for step in range(25):
        opt.zero_grad()
        L = flow_loss(z, y)
        L.backward()
        opt.step()
        hist.append(L.item())
    print("flow", [r(v) for v in hist[::6]], r(hist[-1]), hist[-1] < hist[0] / 2)
    print("flow mean", rl(z.mean(0), 3), rl(y.mean(0), 3))

    # the same flow with the raw gradient (geomloss' tutorial step: x -= lr * grad / weight)
    z = x.clone().requires_grad_(True)
    w = torch.ones(N, dtype=torch.float64) / N
    for step in range(5):
        L = flow_loss(w, z, b, y)
        [g] = torch.autograd.grad(L, [z])
        z.data -= 0.5 * g / w.view(-1, 1)
    print("tutorial flow", r(L), rl(z.mean(0), 3))


if __name__ == "__main__":
    main()
