"""A deep-equilibrium layer (locuslab/deq and the implicit-layers tutorial idioms) and hypernetworks
(g1910/HyperNetworks, torch.func model-ensembling idioms); own code, synthetic data.

DEQ: ``f(z, x) = tanh(GroupNorm(W z + U x))`` solved for its fixed point by forward iteration and by Anderson
acceleration (a batched ``torch.linalg.solve`` of the bordered Gram system, ``bmm`` over the history), the
forward solve under ``torch.no_grad``, one differentiable re-application of ``f``, and the implicit backward:
``z0.register_hook`` solving ``g = J^T g + grad`` by fixed-point iteration of ``autograd.grad(f0, z0, g,
retain_graph=True)`` (the hook's handle removed inside itself), checked against an explicit
``torch.autograd.functional.jacobian`` solve; Jacobian spectral-radius estimate by power iteration; training with
AdamW, ``clip_grad_norm_`` and ``OneCycleLR``.

Hypernetwork: an MLP emitting a target network's flat weights per task embedding, unflattened into a parameter
dict by ``split`` / ``view`` and run through ``torch.func.functional_call`` (gradients flowing to the
hypernetwork), ``torch.func.vmap`` over tasks with ``functional_call`` on stacked weights
(``torch.func.stack_module_state``), a ``torch.compile``'d target forward, bfloat16 ``autocast`` on CPU for
evaluation and a ``state_dict`` round trip."""
import copy
import io

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.func import functional_call, stack_module_state, vmap

torch.manual_seed(0)


def forward_iteration(f, x0, max_iter=50, tol=1e-5):
    f0 = f(x0)
    res = []
    for k in range(max_iter):
        x = f0
        f0 = f(x)
        res.append((f0 - x).norm().item() / (1e-5 + f0.norm().item()))
        if res[-1] < tol:
            break
    return f0, res


def anderson(f, x0, m=5, lam=1e-4, max_iter=50, tol=1e-5, beta=1.0):
    """Anderson acceleration for a fixed point of f over batched (bsz, d, ...) tensors."""
    bsz, d = x0.shape[0], x0[0].numel()
    X = torch.zeros(bsz, m, d, dtype=x0.dtype)
    Fv = torch.zeros(bsz, m, d, dtype=x0.dtype)
    X[:, 0], Fv[:, 0] = x0.reshape(bsz, -1), f(x0).reshape(bsz, -1)
    X[:, 1], Fv[:, 1] = Fv[:, 0], f(Fv[:, 0].reshape_as(x0)).reshape(bsz, -1)
    H = torch.zeros(bsz, m + 1, m + 1, dtype=x0.dtype)
    H[:, 0, 1:] = H[:, 1:, 0] = 1
    y = torch.zeros(bsz, m + 1, 1, dtype=x0.dtype)
    y[:, 0] = 1
    res = []
    for k in range(2, max_iter):
        n = min(k, m)
        G = Fv[:, :n] - X[:, :n]
        H[:, 1:n + 1, 1:n + 1] = torch.bmm(G, G.transpose(1, 2)) + lam * torch.eye(n, dtype=x0.dtype)[None]
        alpha = torch.linalg.solve(H[:, :n + 1, :n + 1], y[:, :n + 1])[:, 1:n + 1, 0]
        X[:, k % m] = beta * (alpha[:, None] @ Fv[:, :n])[:, 0] + (1 - beta) * (alpha[:, None] @ X[:, :n])[:, 0]
        Fv[:, k % m] = f(X[:, k % m].reshape_as(x0)).reshape(bsz, -1)
        res.append((Fv[:, k % m] - X[:, k % m]).norm().item() / (1e-5 + Fv[:, k % m].norm().item()))
        if res[-1] < tol:
            break
    return X[:, k % m].view_as(x0), res


class ResNetLayer(nn.Module):
    def __init__(self, n, d_in):
        super().__init__()
        self.W = nn.Linear(n, n, bias=False)
        self.U = nn.Linear(d_in, n)
        self.norm = nn.GroupNorm(4, n)
        nn.init.normal_(self.W.weight, 0, 0.3 / n ** 0.5)

    def forward(self, z, x):
        return torch.tanh(self.norm(self.W(z) + self.U(x)))


class DEQFixedPoint(nn.Module):
    def __init__(self, f, solver, **kwargs):
        super().__init__()
        self.f, self.solver, self.kwargs = f, solver, kwargs
        self.hook = None

    def forward(self, x):
        with torch.no_grad():
            z, self.forward_res = self.solver(lambda z: self.f(z, x), torch.zeros(x.size(0), self.f.W.in_features),
                                              **self.kwargs)
        z = self.f(z, x)
        z0 = z.clone().detach().requires_grad_()
        f0 = self.f(z0, x)

        def backward_hook(grad):
            if self.hook is not None:
                self.hook.remove()
            g, self.backward_res = self.solver(
                lambda y: torch.autograd.grad(f0, z0, y, retain_graph=True)[0] + grad, grad, **self.kwargs)
            return g

        if z.requires_grad:
            self.hook = z.register_hook(backward_hook)
        return z


x = torch.randn(16, 6)
y = (x[:, :3].sum(1) > 0).long() + (x[:, 3:].sum(1) > 1).long()
layer = ResNetLayer(12, 6)
zf, res_f = forward_iteration(lambda z: layer(z, x), torch.zeros(16, 12), max_iter=30, tol=1e-6)
za, res_a = anderson(lambda z: layer(z, x), torch.zeros(16, 12), tol=1e-6)
fixed = (layer(za, x) - za).abs().max().item() < 1e-4
print(f"forward iters {len(res_f)} anderson iters {len(res_a)} fixed point {fixed}")
print("anderson residuals", [f"{r:.2e}" for r in res_a[:3]])

deq = DEQFixedPoint(layer, anderson, tol=1e-6, max_iter=40)
z = deq(x)
loss = z.pow(2).sum()
loss.backward()
print("deq z", tuple(z.shape), z.requires_grad, z.grad_fn is not None, f"{loss.item():.4f}")
print("implicit grad W", f"{layer.W.weight.grad.norm():.4f}", "backward iters", len(deq.backward_res) + 2)

# the implicit gradient checked by an explicit (I - J^T)^{-1} solve on one sample
x1 = x[:1]
with torch.no_grad():
    z1, _ = anderson(lambda z: layer(z, x1), torch.zeros(1, 12), tol=1e-8, max_iter=60)
J = torch.autograd.functional.jacobian(lambda zz: layer(zz, x1), z1)[0, :, 0, :]
v = 2 * layer(z1, x1)[0]
g_explicit = torch.linalg.solve(torch.eye(12) - J.T, v)
layer.zero_grad()
z1b = z1.clone().requires_grad_()
f1 = layer(z1b, x1)
g = v.clone()[None]
for _ in range(60):
    g = torch.autograd.grad(f1, z1b, g, retain_graph=True)[0] + v[None]
print("implicit vs explicit", (g[0] - g_explicit).abs().max().item() < 1e-4, f"{g_explicit.norm():.4f}")
u = torch.randn(1, 12)
for _ in range(20):
    u = torch.autograd.grad(f1, z1b, u, retain_graph=True)[0]
    u = u / u.norm()
rho = torch.autograd.grad(f1, z1b, u, retain_graph=True)[0].norm()
print(f"spectral radius {rho.item():.4f} eig {torch.linalg.eigvals(J).abs().max().item():.4f}")

# training a DEQ classifier
head = nn.Linear(12, 3)
model = nn.ModuleDict({"f": layer, "head": head})
opt = torch.optim.AdamW(model.parameters(), lr=1e-2, weight_decay=1e-4)
sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=2e-2, total_steps=6)
deq = DEQFixedPoint(layer, anderson, tol=1e-4, max_iter=25)
for step in range(6):
    out = head(deq(x))
    loss = F.cross_entropy(out, y)
    opt.zero_grad()
    loss.backward()
    gn = nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    sched.step()
    print(f"deq step {step} loss {loss.item():.4f} gn {gn:.4f} lr {sched.get_last_lr()[0]:.5f}")
with torch.no_grad():
    acc = (head(deq(x)).argmax(1) == y).float().mean()
print("deq acc", f"{acc:.4f}", "hook removed", deq.hook is not None)


# ---------------------------------------------------------------- hypernetwork
class Target(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(2, 8)
        self.fc2 = nn.Linear(8, 1)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


target = Target()
shapes = {n: p.shape for n, p in target.named_parameters()}
sizes = [p.numel() for p in target.parameters()]
print("target shapes", {k: tuple(v) for k, v in shapes.items()}, sum(sizes))


class HyperNet(nn.Module):
    def __init__(self, n_tasks, emb=4):
        super().__init__()
        self.task = nn.Embedding(n_tasks, emb)
        self.net = nn.Sequential(nn.Linear(emb, 32), nn.ReLU(), nn.Linear(32, sum(sizes)))
        with torch.no_grad():
            self.net[-1].weight.mul_(0.1)

    def forward(self, task_id):
        flat = self.net(self.task(task_id))
        return {n: chunk.view(*chunk.shape[:-1], *shapes[n]) for n, chunk in zip(shapes, flat.split(sizes, dim=-1))}


tasks = torch.tensor([0.5, -1.0, 2.0])  # y = a * x0 + sin(x1)
xs = torch.randn(3, 20, 2)
ys = tasks[:, None] * xs[..., 0] + torch.sin(xs[..., 1])
hyper = HyperNet(3)
opt = torch.optim.Adam(hyper.parameters(), lr=5e-3)
for step in range(8):
    loss = 0.0
    for t in range(3):
        params = hyper(torch.tensor(t))
        pred = functional_call(target, params, (xs[t],))
        loss = loss + F.mse_loss(pred.squeeze(-1), ys[t])
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 2 == 1:
        print(f"hyper step {step} loss {loss.item():.4f}")
print("target untouched", target.fc1.weight.grad is None, hyper.net[0].weight.grad is not None)

with torch.no_grad():
    batch_params = hyper(torch.arange(3))
    print("batched weights", {k: tuple(v.shape) for k, v in batch_params.items()} == {
        "fc1.weight": (3, 8, 2), "fc1.bias": (3, 8), "fc2.weight": (3, 1, 8), "fc2.bias": (3, 1)})

    def per_task(p, xx):
        return functional_call(target, p, (xx,))

    out_v = vmap(per_task)(batch_params, xs)
    out_l = torch.stack([per_task({k: v[t] for k, v in batch_params.items()}, xs[t]) for t in range(3)])
    print("vmap functional_call", tuple(out_v.shape), torch.allclose(out_v, out_l, atol=1e-6))

ensemble = [Target() for _ in range(3)]
params, buffers = stack_module_state(ensemble)
base = copy.deepcopy(ensemble[0]).to("meta")
print("stacked", {k: tuple(v.shape) for k, v in params.items()}["fc1.weight"], base.fc1.weight.device)
ens_out = vmap(lambda p, b, xx: functional_call(base, (p, b), (xx,)), in_dims=(0, 0, None))(params, buffers, xs[0])
print("ensemble", tuple(ens_out.shape), torch.allclose(ens_out[1], ensemble[1](xs[0]), atol=1e-6))

compiled = torch.compile(target)
with torch.no_grad():
    p0 = {k: v[0] for k, v in batch_params.items()}
    target.load_state_dict(p0)
    print("compiled", torch.allclose(compiled(xs[0]), out_v[0], atol=1e-6))
    with torch.autocast("cpu", dtype=torch.bfloat16):
        lo = target(xs[0])
    print("autocast", lo.dtype, (lo.float() - out_v[0]).abs().max().item() < 0.1)
buf = io.BytesIO()
torch.save(hyper.state_dict(), buf)
buf.seek(0)
h2 = HyperNet(3)
print("load", h2.load_state_dict(torch.load(buf, weights_only=True)),
      torch.equal(h2(torch.tensor(1))["fc2.bias"], hyper(torch.tensor(1))["fc2.bias"]))
