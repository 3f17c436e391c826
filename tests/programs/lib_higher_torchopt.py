"""Meta-learning libraries: ``higher`` (MAML on sine regression with its differentiable SGD and Adam inner loops,
``fmodel(x, params=...)``, second-order meta-gradients, ``higher.monkeypatch``, a Conv/BatchNorm/LSTM/Dropout
network) and ``torchopt`` (the functional
``torchopt.adam`` with ``apply_updates``, ``MetaSGD``/``MetaAdam`` differentiable inner loops,
``extract_state_dict``/``recover_state_dict``, ``FuncOptimizer`` over ``torch.func.functional_call``, the
``Optimizer`` over a ``chain`` with clipping and a schedule, ``AdamW``, implicit differentiation (``custom_root``
with a conjugate-gradient solve), zero-order gradients, and its
accelerated Adam op, whose pure-Python fallback is used when the compiled extension cannot load). Short seeded runs
printing rounded losses and gradient norms."""
import math

import higher
import torch
import torch.nn as nn
import torch.nn.functional as F
import torchopt


def r(x, n=5):
    return round(float(x.detach() if torch.is_tensor(x) else x), n)


def gnorm(params):
    return r(sum(float(p.grad.pow(2).sum()) for p in params if p.grad is not None) ** 0.5)


def sine_tasks(gen, n_tasks, k=10):
    """Sine-regression tasks (amplitude, phase), each with a support and a query set of k points."""
    tasks = []
    for _ in range(n_tasks):
        amp = 0.1 + 4.9 * torch.rand((), generator=gen)
        phase = math.pi * torch.rand((), generator=gen)
        xs = 10 * torch.rand(2 * k, 1, generator=gen) - 5
        ys = amp * torch.sin(xs + phase)
        tasks.append((xs[:k], ys[:k], xs[k:], ys[k:]))
    return tasks


def make_net():
    return nn.Sequential(nn.Linear(1, 32), nn.ReLU(), nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, 1))


torch.manual_seed(0)
gen = torch.Generator().manual_seed(1)
tasks = sine_tasks(gen, 12)

# --- higher: MAML with a differentiable SGD inner loop (second order) ---
net = make_net()
meta_opt = torch.optim.Adam(net.parameters(), lr=1e-3)
inner_opt = torch.optim.SGD(net.parameters(), lr=0.01)
for it in range(3):
    meta_opt.zero_grad()
    qlosses = []
    for xs, ys, xq, yq in tasks[4 * it: 4 * it + 4]:
        with higher.innerloop_ctx(net, inner_opt, copy_initial_weights=False) as (fnet, diffopt):
            for _ in range(2):
                diffopt.step(F.mse_loss(fnet(xs), ys))
            qloss = F.mse_loss(fnet(xq), yq)
            qloss.backward()
            qlosses.append(float(qloss.detach()))
    print("higher sgd iter", it, "query", r(sum(qlosses) / 4), "meta-grad norm", gnorm(net.parameters()))
    meta_opt.step()

# fmodel with explicit params, the fast-weights history, and a first-order variant
with higher.innerloop_ctx(net, inner_opt, copy_initial_weights=False, track_higher_grads=True) as (fnet, diffopt):
    xs, ys, xq, yq = tasks[0]
    diffopt.step(F.mse_loss(fnet(xs), ys))
    diffopt.step(F.mse_loss(fnet(xs), ys))
    print("higher fast weights", len(fnet.fast_params), "history", len(fnet._fast_params),
          type(fnet).__name__, len(fnet.init_fast_params))
    now = F.mse_loss(fnet(xq), yq)
    g = torch.autograd.grad(now, list(net.parameters()))
    print("higher grad wrt initial", r(sum(float(t.pow(2).sum()) for t in g) ** 0.5))
    out0 = fnet(xq, params=list(fnet.parameters(time=0)))  # params= also becomes the fast weights
    print("higher params=time0", r(F.mse_loss(out0, yq).detach()), "now", r(now.detach()),
          "after", r(F.mse_loss(fnet(xq), yq).detach()))
with higher.innerloop_ctx(net, inner_opt, track_higher_grads=False) as (fnet, diffopt):
    diffopt.step(F.mse_loss(fnet(xs), ys))
    print("higher first-order requires_grad", fnet.fast_params[0].requires_grad,
          fnet.fast_params[0].grad_fn is None, r(F.mse_loss(fnet(xq), yq).detach()))

# --- higher: Adam inner loop, copy_initial_weights=True, override of the inner learning rate ---
net2 = make_net()
adam_inner = torch.optim.Adam(net2.parameters(), lr=0.01)
meta_lr = torch.tensor(0.01, requires_grad=True)
with higher.innerloop_ctx(net2, adam_inner, copy_initial_weights=True,
                          override={"lr": [meta_lr]}) as (fnet, diffopt):
    xs, ys, xq, yq = tasks[1]
    ls = []
    for _ in range(3):
        loss = F.mse_loss(fnet(xs), ys)
        ls.append(r(loss))
        diffopt.step(loss)
    qloss = F.mse_loss(fnet(xq), yq)
    (dlr,) = torch.autograd.grad(qloss, meta_lr)
    print("higher adam inner", ls, "query", r(qloss), "d/dlr", r(dlr, 4))
    print("higher adam copy leaves", all(p.grad is None for p in net2.parameters()))

# --- higher.monkeypatch directly, and get_diff_optim ---
fmodel = higher.monkeypatch(net2, copy_initial_weights=True)
params = [p.clone().requires_grad_() for p in net2.parameters()]
out = fmodel(tasks[2][0], params=params)
gp = torch.autograd.grad(F.mse_loss(out, tasks[2][1]), params)
print("higher monkeypatch", tuple(out.shape), r(gp[0].norm()), r(gp[-1].norm()))
dopt = higher.get_diff_optim(torch.optim.SGD(net2.parameters(), lr=0.1, momentum=0.9), net2.parameters(),
                             fmodel=fmodel, track_higher_grads=True)
for _ in range(2):
    dopt.step(F.mse_loss(fmodel(tasks[2][0]), tasks[2][1]))
print("higher diffopt momentum", r(F.mse_loss(fmodel(tasks[2][0]), tasks[2][1])))

# --- higher on a network with BatchNorm buffers, an LSTM (higher patches its flat weights) and Dropout ---
class SeqNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv, self.bn = nn.Conv2d(1, 4, 3), nn.BatchNorm2d(4)
        self.lstm, self.fc, self.drop = nn.LSTM(4, 5, batch_first=True), nn.Linear(5, 2), nn.Dropout(0.2)

    def forward(self, x):
        h = F.relu(self.bn(self.conv(x)))
        out, _ = self.lstm(h.flatten(2).transpose(1, 2))
        return self.fc(self.drop(out[:, -1]))


torch.manual_seed(7)
seq = SeqNet()
img, cls = torch.randn(3, 1, 6, 6), torch.tensor([0, 1, 1])
with higher.innerloop_ctx(seq, torch.optim.SGD(seq.parameters(), lr=0.1), copy_initial_weights=False) as (fnet, dopt):
    for _ in range(2):
        dopt.step(F.cross_entropy(fnet(img), cls))
    q = F.cross_entropy(fnet(img), cls)
    q.backward()
print("higher bn/lstm query", r(q), "meta-grad norm", gnorm(seq.parameters()),
      "lstm grads", all(p.grad is not None for p in seq.lstm.parameters()))

# --- torchopt: functional Adam with apply_updates ---
torch.manual_seed(2)
model = make_net()
params = tuple(model.parameters())
opt = torchopt.adam(lr=1e-2)
state = opt.init(params)
xs, ys = tasks[3][0], tasks[3][1]
for step in range(4):
    loss = F.mse_loss(torch.func.functional_call(model, dict(zip(dict(model.named_parameters()), params)), (xs,)), ys)
    grads = torch.autograd.grad(loss, params)
    updates, state = opt.update(grads, state, params=params, inplace=False)
    params = torchopt.apply_updates(params, updates, inplace=False)
    print("torchopt adam step", step, r(loss))
print("torchopt adam state", type(state[0]).__name__, int(state[0].count[0]) if hasattr(state[0], "count") else "")

# --- torchopt: MetaSGD / MetaAdam inner loops, state extraction and recovery ---
torch.manual_seed(3)
net3 = make_net()
outer = torch.optim.Adam(net3.parameters(), lr=1e-3)
for name, Meta, lr in (("metasgd", torchopt.MetaSGD, 0.01), ("metaadam", torchopt.MetaAdam, 0.005)):
    # eps_root keeps Adam's sqrt differentiable where a (dead ReLU) gradient is exactly 0
    inner = Meta(net3, lr=lr) if name == "metasgd" else Meta(net3, lr=lr, eps_root=1e-8)
    net_state = torchopt.extract_state_dict(net3, by="reference", detach_buffers=True)
    opt_state = torchopt.extract_state_dict(inner)
    outer.zero_grad()
    qs = []
    for xs, ys, xq, yq in tasks[:3]:
        for _ in range(2):
            inner.step(F.mse_loss(net3(xs), ys))
        q = F.mse_loss(net3(xq), yq)
        q.backward()
        qs.append(r(q))
        torchopt.recover_state_dict(net3, net_state)
        torchopt.recover_state_dict(inner, opt_state)
    print("torchopt", name, "query", qs, "meta-grad norm", gnorm(net3.parameters()))
    outer.step()
    torchopt.stop_gradient(net3)
    torchopt.stop_gradient(inner)

# extract_state_dict of a module by copy: its tensors are detached clones
sd = torchopt.extract_state_dict(net3, by="copy")
first = sd.params[0]
print("torchopt extract copy", len(sd.params), sorted(first), first["weight"].requires_grad,
      first["weight"] is not net3[0].weight, bool(torch.equal(first["weight"], net3[0].weight)))

# --- torchopt.FuncOptimizer with functional_call ---
torch.manual_seed(4)
net4 = make_net()
fparams = dict(net4.named_parameters())
fopt = torchopt.FuncOptimizer(torchopt.adam(lr=0.01))
xs, ys = tasks[5][0], tasks[5][1]
for step in range(3):
    loss = F.mse_loss(torch.func.functional_call(net4, fparams, (xs,)), ys)
    fparams = fopt.step(loss, fparams)
    print("torchopt funcoptimizer step", step, r(loss))
print("torchopt funcoptimizer grad path", all(p.requires_grad for p in fparams.values()))

# --- torchopt: the object-oriented Optimizer over a chain (clipping, a schedule), AdamW and its state_dict ---
torch.manual_seed(5)
net5 = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 1))
x5, y5 = torch.randn(16, 3), torch.randn(16, 1)
sched = torchopt.schedule.linear_schedule(init_value=0.05, end_value=0.01, transition_steps=4)
chained = torchopt.Optimizer(net5.parameters(), torchopt.chain(torchopt.clip_grad_norm(max_norm=1.0),
                                                                torchopt.adam(lr=sched)))
for step in range(4):
    loss = F.mse_loss(net5(x5), y5)
    chained.zero_grad()
    loss.backward()
    chained.step()
    print("torchopt chain step", step, r(loss))
adamw = torchopt.AdamW(net5.parameters(), lr=0.01, weight_decay=0.1)
for step in range(2):
    loss = F.mse_loss(net5(x5), y5)
    adamw.zero_grad()
    loss.backward()
    adamw.step()
    print("torchopt adamw step", step, r(loss))
print("torchopt adamw state_dict", type(adamw.state_dict()).__name__, len(adamw.state_dict()))


# --- torchopt: implicit differentiation through a solver (custom_root) and zero-order gradients ---
def stationary(w, lam, X, Y):
    return X.T @ (X @ w - Y) + lam * w


@torchopt.diff.implicit.custom_root(stationary, argnums=1,
                                    solve=torchopt.linear_solve.solve_normal_cg(maxiter=50, atol=0))
def ridge(w0, lam, X, Y):
    return torch.linalg.solve(X.T @ X + lam * torch.eye(X.shape[1]), X.T @ Y)


lam = torch.tensor(0.5, requires_grad=True)
w = ridge(torch.zeros(3, 1), lam, x5, y5)
(dlam,) = torch.autograd.grad(w.sum(), lam)
print("torchopt implicit ridge", [r(v) for v in w.flatten()], "d/dlam", r(dlam))


@torchopt.diff.zero_order.zero_order(distribution=torch.distributions.Normal(torch.tensor(0.0), torch.tensor(1.0)),
                                     method="naive", argnums=0, num_samples=20, sigma=0.1)
def quadratic(p, X):
    return ((X @ p) ** 2).mean()


torch.manual_seed(6)
p = torch.ones(3, requires_grad=True)
value = quadratic(p, x5)
value.backward()
print("torchopt zero-order", r(value), [r(v, 4) for v in p.grad])

# torchopt's accelerated Adam op (its fallback when the extension is unavailable) matches plain adam
upd = torch.tensor([0.5, -1.0, 2.0])
op = torchopt.accelerated_op.AdamOp(b1=0.9, b2=0.999, eps=1e-8, eps_root=0.0, inplace=False)
mu, nu, out = op(torch.zeros(3), torch.zeros(3), upd, 1)
print("torchopt adam op", [r(v) for v in out], [r(v) for v in mu], [r(v, 7) for v in nu])
print("torchopt accelerated available", torchopt.accelerated_op.is_available(devices="cpu"))
