"""BackPACK (``backpack-for-pytorch``) as its users use it: a small CNN classifier and an MLP regressor
``extend``-ed with BackPACK, one backward pass per context computing the first-order extensions (per-sample
gradients ``BatchGrad``, ``BatchL2Grad``, ``SumGradSquared``, ``Variance``) and the second-order ones
(``DiagGGNExact``, ``DiagGGNMC``, ``DiagHessian``, ``KFLR``, ``KFAC``, ``KFRA``, ``SqrtGGNExact``), the
Hessian-free products (``hessianfree.hvp``/``ggnvp``), a DP-SGD style training loop clipping per-sample
gradients, and the ``use_converter=True`` path that rewrites a residual network through ``torch.fx``."""
import torch
from torch import nn
from backpack import backpack, extend
from backpack.extensions import (
    KFAC, KFLR, KFRA, BatchGrad, BatchL2Grad, DiagGGNExact, DiagGGNMC, DiagHessian, SqrtGGNExact,
    SumGradSquared, Variance)
from backpack.hessianfree.ggnvp import ggn_vector_product
from backpack.hessianfree.hvp import hessian_vector_product


def r(x, n=4):
    return round(float(x), n)


def s(t):
    return r(t.detach().sum())


def a(t):
    return r(t.detach().abs().sum())


def cnn():
    return nn.Sequential(nn.Conv2d(1, 3, 3), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                         nn.Linear(12, 8), nn.Tanh(), nn.Linear(8, 3))


def named(model):
    return [(n, p) for n, p in model.named_parameters()]


def main():
    torch.manual_seed(0)
    N = 8
    X = torch.randn(N, 1, 6, 6)
    Y = torch.randint(0, 3, (N,))
    model = extend(cnn())
    lossfunc = extend(nn.CrossEntropyLoss())

    loss = lossfunc(model(X), Y)
    with backpack(BatchGrad(), BatchL2Grad(), SumGradSquared(), Variance()):
        loss.backward()
    print("loss", r(loss))
    for name, p in named(model):
        print("first", name, tuple(p.grad_batch.shape), a(p.grad_batch), a(p.batch_l2), a(p.sum_grad_squared),
              a(p.variance))
        # per-sample gradients of a mean loss sum (scaled by N) to the gradient
        print("  check", torch.allclose(p.grad_batch.sum(0), p.grad, atol=1e-6),
              torch.allclose((p.grad_batch ** 2).sum(0) * 1.0, p.sum_grad_squared, atol=1e-6))

    model.zero_grad()
    loss = lossfunc(model(X), Y)
    with backpack(DiagGGNExact(), DiagHessian(), SqrtGGNExact()):
        loss.backward()
    for name, p in named(model):
        print("diag", name, a(p.diag_ggn_exact), a(p.diag_h), tuple(p.sqrt_ggn_exact.shape),
              a(p.sqrt_ggn_exact))
        sq = p.sqrt_ggn_exact
        print("  sqrt check", torch.allclose((sq ** 2).sum(dim=(0, 1)), p.diag_ggn_exact, atol=1e-6))

    model.zero_grad()
    torch.manual_seed(5)
    loss = lossfunc(model(X), Y)
    with backpack(KFLR(), KFAC(mc_samples=4), DiagGGNMC(mc_samples=4)):
        loss.backward()
    for name, p in named(model):
        print("kron", name, [tuple(f.shape) for f in p.kflr], [a(f) for f in p.kflr],
              [tuple(f.shape) for f in p.kfac], a(p.diag_ggn_mc))

    # KFRA: fully connected networks
    mlp = extend(nn.Sequential(nn.Linear(5, 6), nn.Sigmoid(), nn.Linear(6, 2)))
    mse = extend(nn.MSELoss())
    Xr = torch.randn(N, 5)
    Yr = torch.randn(N, 2)
    loss = mse(mlp(Xr), Yr)
    with backpack(KFRA(), KFLR(), DiagGGNExact()):
        loss.backward()
    for name, p in named(mlp):
        print("kfra", name, [a(f) for f in p.kfra], [a(f) for f in p.kflr], a(p.diag_ggn_exact))

    # Hessian-free products through double backward
    mlp.zero_grad()
    loss = mse(mlp(Xr), Yr)
    params = [p for p in mlp.parameters()]
    v = [torch.randn_like(p) for p in params]
    hv = hessian_vector_product(loss, params, v)
    out = mlp(Xr)
    loss2 = mse(out, Yr)
    gv = ggn_vector_product(loss2, out, mlp, v)
    print("hvp", [a(t) for t in hv])
    print("ggnvp", [a(t) for t in gv])

    # DP-SGD style: clip each sample's gradient, average, add seeded noise
    torch.manual_seed(1)
    dp = extend(cnn())
    opt = torch.optim.SGD(dp.parameters(), lr=0.3)
    for step in range(5):
        opt.zero_grad()
        loss = lossfunc(dp(X), Y)
        with backpack(BatchGrad(), BatchL2Grad()):
            loss.backward()
        norms = torch.stack([p.batch_l2 for p in dp.parameters()]).sum(0).sqrt()
        scale = (0.22 / norms).clamp(max=1.0)
        for p in dp.parameters():
            clipped = (p.grad_batch * scale.view(-1, *([1] * (p.dim())))).sum(0)
            p.grad = clipped + 0.01 * torch.randn_like(p)
        opt.step()
        print("dp step", step, r(loss), r(norms.max()), r(scale.min()))

    # use_converter: a residual network (functional add, view) rewritten through torch.fx
    class Res(nn.Module):
        def __init__(self):
            super().__init__()
            self.l1 = nn.Linear(5, 5)
            self.act = nn.ReLU()
            self.l2 = nn.Linear(5, 5)
            self.head = nn.Linear(5, 3)

        def forward(self, x):
            h = self.l2(self.act(self.l1(x)))
            return self.head(h + x)

    torch.manual_seed(2)
    res = Res()
    grads_ref = torch.autograd.grad(nn.CrossEntropyLoss()(res(Xr), Y % 3), list(res.parameters()))
    conv = extend(res, use_converter=True)
    print("converted", type(conv).__name__, sorted({type(m).__name__ for m in conv.modules()}))
    loss = lossfunc(conv(Xr), Y % 3)
    with backpack(BatchGrad(), DiagGGNExact()):
        loss.backward()
    same = all(torch.allclose(p.grad_batch.sum(0), g, atol=1e-6) for p, g in zip(conv.parameters(), grads_ref))
    print("converter grads", same, r(loss), [a(p.diag_ggn_exact) for p in conv.parameters()])


if __name__ == "__main__":
    main()
