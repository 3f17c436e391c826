"""Idioms of training scripts that the other programs leave out (own code, synthetic data): torch.utils.data with
dict/namedtuple samples, IterableDataset, ChainDataset, ConcatDataset, Subset, fractional random_split,
WeightedRandomSampler, BatchSampler and default_collate; forward, pre-forward, full-backward, tensor and state-dict
hooks; nn.utils.prune (l1, ln, global, remove); chained schedulers (SequentialLR, ChainedScheduler, PolynomialLR,
CyclicLR); checkpoint round trips and load_state_dict's errors; torch.func over dict parameters (the order of
their keys, MAML-style zips of parameters and gradients, dict in_dims); eager torch.cond's graph node and
torch._higher_order_ops' scan/associative_scan/map.  Prints one line per check; run with real torch and under
``python -m torchlike run``, the lines must match."""
import io
from collections import namedtuple, OrderedDict

import torch
import torch.nn as nn
import torch.nn.utils.prune as prune
import torch.utils._pytree as pytree
from torch.func import grad, vmap, jacrev, jacfwd, vjp, jvp, grad_and_value, hessian, functional_call
from torch.utils.data import (Dataset, IterableDataset, ConcatDataset, Subset, random_split, DataLoader,
                              TensorDataset, ChainDataset, WeightedRandomSampler, SequentialSampler, BatchSampler)
from torch.utils.data.dataloader import default_collate
from torch._higher_order_ops import scan, associative_scan, map as hmap

torch.manual_seed(0)
Pair = namedtuple("Pair", ["x", "y"])

class DictDS(Dataset):
    def __init__(self, n):
        self.x = torch.randn(n, 4)
        self.y = torch.randint(0, 3, (n,))
    def __len__(self):
        return len(self.x)
    def __getitem__(self, i):
        return {"x": self.x[i], "y": self.y[i], "meta": {"idx": i, "name": f"s{i}"}}

class Stream(IterableDataset):
    def __init__(self, n):
        self.n = n
    def __iter__(self):
        g = torch.Generator().manual_seed(1)
        for i in range(self.n):
            yield Pair(torch.randn(4, generator=g), torch.tensor(i % 3))

ds = DictDS(20)
b = next(iter(DataLoader(ds, batch_size=4)))
print("dict batch", sorted(b.keys()), b["x"].shape, b["y"].tolist(), b["meta"]["idx"].tolist(), b["meta"]["name"])
sb = next(iter(DataLoader(Stream(10), batch_size=3)))
print("namedtuple batch", type(sb).__name__, sb.x.shape, sb.y.tolist(), round(sb.x.sum().item(), 4))
print("stream batches", [len(t.y) for t in DataLoader(Stream(10), batch_size=3)])
print("stream drop_last", [len(t.y) for t in DataLoader(Stream(10), batch_size=3, drop_last=True)])
cat = ConcatDataset([TensorDataset(torch.arange(5.)), TensorDataset(torch.arange(10., 13.))])
print("concat", len(cat), cat[6], cat.cumulative_sizes)
sub = Subset(cat, [0, 7, 3])
print("subset", [s[0].item() for s in sub])
a, bb, c = random_split(range(10), [0.5, 0.3, 0.2], generator=torch.Generator().manual_seed(42))
print("random_split frac", list(a), list(bb), list(c))
chain = ChainDataset([Stream(2), Stream(3)])
print("chain", [p.y.item() for p in chain])
w = WeightedRandomSampler([0.1, 0.9, 0.5, 0.0], 8, generator=torch.Generator().manual_seed(3))
print("weighted", list(w))
print("batchsampler", list(BatchSampler(SequentialSampler(range(7)), 3, False)))
print("default_collate", default_collate([(1, 2.0, "a"), (3, 4.0, "b")]))
print("collate np", default_collate([{"a": [1, 2]}, {"a": [3, 4]}]))
dl = DataLoader(TensorDataset(torch.arange(12.).view(6, 2)), batch_size=4, shuffle=True,
                generator=torch.Generator().manual_seed(5))
print("shuffle", [t[0][:, 0].tolist() for t in dl])

# hooks
net = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
acts = {}
def fwd_hook(name):
    def hook(m, inp, out):
        acts[name] = out.detach().abs().mean().item()
    return hook
hs = [m.register_forward_hook(fwd_hook(n)) for n, m in net.named_modules() if isinstance(m, nn.Linear)]
pre = net[0].register_forward_pre_hook(lambda m, inp: (inp[0] * 2,))
grads = []
bh = net[2].register_full_backward_hook(lambda m, gi, go: grads.append((gi[0].shape, go[0].shape)))
th = net[0].weight.register_hook(lambda g: g * 0.5)
x = torch.randn(5, 4, requires_grad=True)
out = net(x)
out.sum().backward()
print("hooks", {k: round(v, 4) for k, v in acts.items()}, grads, round(net[0].weight.grad.sum().item(), 4))
for h in hs + [pre, bh, th]:
    h.remove()
print("after remove", len(net[0]._forward_hooks), len(net[0]._forward_pre_hooks))
sd_hook_calls = []
net.register_state_dict_pre_hook(lambda m, prefix, keep_vars: sd_hook_calls.append(prefix))
net.state_dict()
print("sd pre hook", sd_hook_calls)
print("module repr", net)

# prune
lin = nn.Linear(6, 4)
prune.l1_unstructured(lin, name="weight", amount=0.5)
print("prune keys", sorted(k for k, _ in lin.named_buffers()), sorted(k for k, _ in lin.named_parameters()))
print("pruned zeros", int((lin.weight == 0).sum()), prune.is_pruned(lin))
prune.random_structured(lin, name="bias", amount=1, dim=0) if False else None
prune.ln_structured(lin, name="weight", amount=0.25, n=2, dim=0)
print("ln zeros", int((lin.weight == 0).sum()))
prune.remove(lin, "weight")
print("after remove", sorted(k for k, _ in lin.named_parameters()), int((lin.weight == 0).sum()))
m2 = nn.Sequential(nn.Linear(4, 4), nn.Linear(4, 4))
prune.global_unstructured([(m2[0], "weight"), (m2[1], "weight")], pruning_method=prune.L1Unstructured, amount=10)
print("global zeros", int((m2[0].weight == 0).sum() + (m2[1].weight == 0).sum()))

# schedulers chained
model = nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
s1 = torch.optim.lr_scheduler.LinearLR(opt, start_factor=0.1, total_iters=3)
s2 = torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=3, T_mult=2)
seq = torch.optim.lr_scheduler.SequentialLR(opt, [s1, s2], milestones=[3])
lrs = []
for i in range(10):
    opt.zero_grad()
    model(torch.ones(2, 3)).sum().backward()
    opt.step()
    seq.step()
    lrs.append(round(opt.param_groups[0]["lr"], 5))
print("seq lrs", lrs, seq.get_last_lr())
opt2 = torch.optim.Adam(model.parameters(), lr=1.0)
ch = torch.optim.lr_scheduler.ChainedScheduler([torch.optim.lr_scheduler.ExponentialLR(opt2, 0.9),
                                               torch.optim.lr_scheduler.MultiStepLR(opt2, [2, 4], 0.5)])
l2 = []
for i in range(6):
    opt2.step(); ch.step(); l2.append(round(opt2.param_groups[0]["lr"], 5))
print("chained", l2)
lam = torch.optim.lr_scheduler.LambdaLR(opt2, lambda e: 1 / (e + 1))
print("lambda sd keys", sorted(lam.state_dict().keys()))
poly = torch.optim.lr_scheduler.PolynomialLR(torch.optim.SGD(model.parameters(), lr=1.0), total_iters=4, power=2)
pl = []
for i in range(5):
    poly.optimizer.step(); poly.step(); pl.append(round(poly.get_last_lr()[0], 5))
print("poly", pl)
cyc = torch.optim.lr_scheduler.CyclicLR(torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9), 0.01, 0.1, step_size_up=2)
cl = []
for i in range(6):
    cyc.optimizer.step(); cyc.step(); cl.append(round(cyc.get_last_lr()[0], 5))
print("cyclic", cl)

# state dict round trips
buf = io.BytesIO()
torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "sched": seq.state_dict(), "epoch": 3}, buf)
buf.seek(0)
ck = torch.load(buf)
print("ckpt keys", sorted(ck), sorted(ck["opt"].keys()), list(ck["opt"]["state"].keys()), sorted(ck["opt"]["state"][0].keys()))
model2 = nn.Linear(3, 1)
print("load_state_dict", model2.load_state_dict(ck["model"]))
res = model2.load_state_dict({"weight": torch.zeros(1, 3)}, strict=False)
print("missing", res.missing_keys, res.unexpected_keys, res)
opt3 = torch.optim.SGD(model2.parameters(), lr=0.5, momentum=0.9)
opt3.load_state_dict(ck["opt"])
print("opt loaded lr", opt3.param_groups[0]["lr"], round(opt3.state[model2.weight]["momentum_buffer"].sum().item(), 5))
try:
    model2.load_state_dict({"weight": torch.zeros(2, 3), "bias": torch.zeros(1)})
except RuntimeError as e:
    print("size mismatch", str(e).splitlines()[0])
try:
    model2.load_state_dict({"weight": torch.zeros(1, 3), "bias": torch.zeros(1), "extra": torch.zeros(1)})
except RuntimeError as e:
    print("unexpected", str(e).splitlines()[0])

# torch.func over dicts
d = {"z": torch.tensor(1.0), "a": torch.tensor(2.0), "m": torch.tensor(3.0)}
f = lambda p: p["z"] * 2 + p["a"] ** 2 + p["m"] ** 3
print("grad", list(grad(f)(d).keys()))
print("grad_and_value", list(grad_and_value(f)(d)[0].keys()))
print("jacrev", list(jacrev(f)(d).keys()), list(jacfwd(f)(d).keys()))
print("hessian", list(hessian(f)(d).keys()))
print("vmap out", list(vmap(lambda x: {"z": x, "a": x * 2})(torch.ones(3)).keys()))
print("vmap in", list(vmap(lambda p: p, in_dims=({"z": 0, "a": 0, "m": 0},))(
    {"z": torch.ones(2), "a": torch.ones(2), "m": torch.ones(2)}).keys()))
out, fn = vjp(lambda p: {"y": p["z"], "b": p["a"]}, d)
print("vjp", list(out.keys()), list(fn({"y": torch.tensor(1.), "b": torch.tensor(1.)})[0].keys()))
print("jvp", list(jvp(lambda p: {"y": p["z"], "b": p["a"]}, (d,), (d,))[1].keys()))
print("pytree", list(pytree.tree_map(lambda x: x, d).keys()), pytree.tree_flatten(d)[1])
c = torch.compile(lambda p: {"q": p["z"] + 1, "b": p["a"]})
print("compile", list(c(d).keys()))
r = vmap(lambda p: p["z"] * p["a"], in_dims=({"z": 0, "a": None},))({"z": torch.arange(3.), "a": torch.ones(2, 1)})
print("vmap dict in_dims", r.shape)
print("nested", list(grad(lambda p: p["q"]["y"].sum() + p["b"])({"q": {"y": torch.ones(2), "c": torch.ones(1)}, "b": torch.tensor(1.)})["q"].keys()))
print("odict", type(grad(lambda p: p["z"] * 2)(OrderedDict(z=torch.tensor(1.), a=torch.tensor(2.)))).__name__)
params = dict(torch.nn.Linear(2, 2).named_parameters())
g = grad(lambda p: functional_call(torch.nn.Linear(2, 2), p, (torch.ones(1, 2),)).sum())(params)
print("maml zip", [tuple(p.shape) == tuple(q.shape) for p, q in zip(params.values(), g.values())])

# eager cond and scans
def f(x):
    return torch.cond(x.sum() > 0, lambda x: x.sin(), lambda x: x.cos(), (x,))
x = torch.ones(3, requires_grad=True)
y = f(x)
print("cond grad_fn", type(y.grad_fn).__name__, y.grad_fn.name())
print("cond next", [type(n[0]).__name__ for n in y.grad_fn.next_functions])
cf = torch.compile(lambda x: (x * 2).sin().sum())
z = cf(x)
print("compiled grad_fn", type(z.grad_fn).__name__, z.grad_fn.name())
print("compiled next", [type(n[0]).__name__ if n[0] is not None else None for n in z.grad_fn.next_functions])
m = torch.compile(torch.nn.Linear(3, 2))
o = m(x)
print("compiled module grad_fn", type(o.grad_fn).__name__, o.grad_fn.name())
print("compiled module next", [type(n[0]).__name__ if n[0] is not None else None for n in o.grad_fn.next_functions])
z.backward()
print(x.grad.tolist())
print("while_loop", torch._higher_order_ops.while_loop(lambda i, s: i < 3, lambda i, s: (i + 1, s * 2), (torch.tensor(0), torch.ones(2))))
x2 = torch.tensor([0.5, -1.0], requires_grad=True)
y2 = torch.cond(x2.sum() > 0, lambda a: a * a, lambda a: (a.exp(), )[0] * 3, (x2,))
g, = torch.autograd.grad(y2.sum(), x2, create_graph=True)
print("cond grad", y2.tolist(), g.tolist(), type(y2.grad_fn).__name__)
try:
    g.sum().backward()
except RuntimeError as e:
    print("double", e)
torch.manual_seed(0)
lin = torch.nn.Linear(2, 2)
y3 = torch.cond(x2.sum() > 0, lambda a: lin(a), lambda a: lin(a * 2), (x2,))
y3.sum().backward()
print("closure grads", type(y3.grad_fn).__name__, lin.weight.grad is not None, x2.grad.tolist())
y4 = torch.cond(torch.tensor(True), lambda a, b: (a + b, a * b), lambda a, b: (a - b, a / b), (x2, torch.ones(2)))
print("multi", [type(t.grad_fn).__name__ for t in y4], [t.tolist() for t in y4])
with torch.no_grad():
    print("no_grad", torch.cond(torch.tensor(False), lambda a: a + 1, lambda a: a - 1, (x2,)).grad_fn)
h = lin(x2)
y5 = torch.cond(torch.tensor(True), lambda a: a * h, lambda a: a + h, (x2,))
print("nonleaf closure", [round(v, 4) for v in y5.tolist()])
y5.sum().backward()
print("nonleaf grads", [round(v, 4) for v in x2.grad.tolist()])
y6 = torch.cond(torch.tensor(True), lambda a: lin(a).relu(), lambda a: a * 1, (torch.ones(2),))
print("closure only", type(y6.grad_fn).__name__, [type(n[0]).__name__ for n in y6.grad_fn.next_functions])
lin.zero_grad(); y6.sum().backward(); print("closure only grads", lin.weight.grad.tolist())
x = torch.arange(1., 7.).view(2, 3)
print(scan(lambda c, x: (c + x, c * x), torch.zeros(2), x, dim=1, reverse=True))
print(scan(lambda c, x: (c + x, c * x), torch.zeros(2), x, dim=1))
print(scan(lambda c, x: ({'s': c['s'] + x[0]}, [x[1] * 2]), {'s': torch.zeros(())}, (torch.arange(3.), torch.ones(3))))
print(associative_scan(lambda a, b: a * b, torch.arange(1., 7.).view(2, 3), 1, reverse=True, combine_mode='generic'))
print(associative_scan(lambda a, b: (a[0] + b[0], a[1] * b[1]), (torch.arange(4.), torch.arange(1., 5.)), 0, combine_mode='generic'))
try:
    associative_scan(lambda a, b: a + b, x, 0)
except ValueError as e:
    print("pointwise", e)
print(hmap(lambda a, b: a * b, torch.ones(3, 2), torch.tensor(2.)))
print(hmap(lambda a: (a * 1, {'k': a * 2}), {"p": torch.ones(3, 2)}["p"]))
w = torch.ones(3, requires_grad=True)
c, ys = scan(lambda c, x: (c * x, c + x), torch.ones(()), w * 2)
(c + ys.sum()).backward()
print("grad", c.item(), ys.tolist(), w.grad.tolist())
