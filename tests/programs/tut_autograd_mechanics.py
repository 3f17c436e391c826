"""Autograd tutorials: "A Gentle Introduction to torch.autograd", autograd mechanics (grad_fn graph, hooks,
retain_grad, leaf rules, in-place checks), torch.autograd.grad with create_graph for higher-order
derivatives (Hessian-vector products, gradient penalty), torch.autograd.functional, and
torch.utils.checkpoint (non-reentrant and reentrant) giving the same gradients as the plain model."""
import torch
import torch.nn as nn
from torch.autograd.functional import hessian, jacobian, hvp, vjp, jvp
from torch.utils.checkpoint import checkpoint, checkpoint_sequential

torch.manual_seed(0)

a = torch.tensor([2., 3.], requires_grad=True)
b = torch.tensor([6., 4.], requires_grad=True)
Q = 3 * a ** 3 - b ** 2
external_grad = torch.tensor([1., 1.])
Q.backward(gradient=external_grad)
print(9 * a ** 2 == a.grad)
print(-2 * b == b.grad)
print(a.grad, b.grad)
print(Q)

x = torch.rand(5, 5)
y = torch.rand(5, 5)
z = torch.rand((5, 5), requires_grad=True)
a = x + y
print(f"Does `a` require gradients?: {a.requires_grad}")
b = x + z
print(f"Does `b` require gradients?: {b.requires_grad}")
print(type(b.grad_fn).__name__, b.is_leaf, z.is_leaf, a.is_leaf, a.grad_fn)

# grad_fn graph walk
x = torch.ones(2, 2, requires_grad=True)
y = x + 2
z = y * y * 3
out = z.mean()
print(z, out)
print(y.grad_fn.__class__.__name__, z.grad_fn.__class__.__name__, out.grad_fn.__class__.__name__)
print([type(f).__name__ if f is not None else None for f, _ in out.grad_fn.next_functions])
nf = out.grad_fn.next_functions[0][0].next_functions[0][0].next_functions
print([type(f).__name__ for f, _ in nf], nf[0][0] is nf[1][0], [type(f).__name__ if f is not None else None for f, _ in nf[0][0].next_functions])
out.backward()
print(x.grad)

# retain_grad and hooks
x = torch.randn(3, requires_grad=True)
y = x * 2
y.retain_grad()
seen = []
h = y.register_hook(lambda g: seen.append(g.clone()) or g * 10)
z = (y ** 2).sum()
z.backward()
print(y.grad, x.grad, len(seen))
print(y.retains_grad, x.retains_grad, y.is_leaf)
h.remove()
x.grad = None
(x * 2).pow(2).sum().backward()
print(x.grad)

# leaf / in-place rules
w = torch.randn(3, requires_grad=True)
try:
    w.add_(1)
except RuntimeError as e:
    print("RuntimeError:", str(e).split("\n")[0])
v = w.exp()
u = v * 1
v.add_(1)
try:
    (v * u).sum().backward()
    print("backward ok", w.grad)
except RuntimeError as e:
    print("RuntimeError:", "modified by an inplace operation" in str(e))
s = w.sigmoid()
s.mul_(2)
try:
    s.sum().backward()
    print("backward ok")
except RuntimeError as e:
    print("RuntimeError:", "modified by an inplace operation" in str(e))
with torch.no_grad():
    nz = w * 2
print(nz.requires_grad, nz.grad_fn)
d = w.detach()
print(d.requires_grad, d.is_leaf)
with torch.enable_grad():
    print((w * 2).requires_grad)
torch.set_grad_enabled(False)
print((w * 2).requires_grad)
torch.set_grad_enabled(True)
with torch.inference_mode():
    inf = w * 2
print(inf.requires_grad, inf.is_inference(), (w * 2).is_inference(), torch.is_inference_mode_enabled())

# higher order
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = (x ** 3).sum()
g, = torch.autograd.grad(y, x, create_graph=True)
print(g.detach(), g.requires_grad, g.grad_fn is not None)
g2, = torch.autograd.grad(g.sum(), x, create_graph=True)
print(g2.detach())
g3, = torch.autograd.grad(g2.sum(), x)
print(g3)
v = torch.tensor([1.0, 0.5, -1.0])
gv = (g * v).sum()
hv, = torch.autograd.grad(gv, x, retain_graph=True)
print(hv)
x = torch.randn(4, requires_grad=True)
yy = torch.tanh(x) * x.sin()
grads = torch.autograd.grad(yy, x, grad_outputs=torch.ones_like(yy), create_graph=True)[0]
second = torch.autograd.grad(grads.sum(), x)[0]
print(grads.detach(), second)
try:
    torch.autograd.grad((x * 2).sum(), [x, torch.randn(2, requires_grad=True)])
except RuntimeError as e:
    print("RuntimeError:", str(e).split("\n")[0][:60])
print(torch.autograd.grad((x * 2).sum(), [x, torch.randn(2, requires_grad=True)], allow_unused=True)[1])

# gradient penalty (WGAN-GP style)
D = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 1))
real = torch.randn(8, 4)
fake = torch.randn(8, 4)
alpha = torch.rand(8, 1)
interp = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
d_interp = D(interp)
gradients = torch.autograd.grad(outputs=d_interp, inputs=interp, grad_outputs=torch.ones_like(d_interp),
                                create_graph=True, retain_graph=True)[0]
gp = ((gradients.norm(2, dim=1) - 1) ** 2).mean()
gp.backward()
print(f"{gp.item():.5f}", [None if p.grad is None else f"{p.grad.norm().item():.5f}" for p in D.parameters()])

# autograd.functional


def f(x):
    return (x ** 2 * x.sin()).sum()


def g(x, y):
    return x * y.exp(), x.sum() + y


inp = torch.tensor([0.5, 1.0, 1.5])
print(jacobian(lambda t: t ** 2 * t.sin(), inp))
print(hessian(f, inp))
print(hvp(f, inp, torch.ones(3)))
print(vjp(lambda t: t.exp(), inp, torch.ones(3)))
print(jvp(lambda t: t.exp(), inp, torch.ones(3)))
print(jacobian(g, (inp, inp + 1)))

# checkpoint
torch.manual_seed(1)
model = nn.Sequential(*[nn.Sequential(nn.Linear(16, 16), nn.ReLU(), nn.Dropout(0.2)) for _ in range(4)],
                      nn.Linear(16, 2))
x = torch.randn(5, 16)
torch.manual_seed(2)
plain = model(x).pow(2).sum()
plain.backward()
ref = [p.grad.clone() for p in model.parameters()]
model.zero_grad()


def run_blocks(inp):
    for blk in list(model)[:4]:
        inp = blk(inp)
    return inp


torch.manual_seed(2)
h = checkpoint(run_blocks, x, use_reentrant=False)
ck = model[4](h).pow(2).sum()
ck.backward()
print(f"{plain.item():.5f} {ck.item():.5f}", all(torch.allclose(r, p.grad, atol=1e-6) for r, p in zip(ref, model.parameters())))
model.zero_grad()
torch.manual_seed(2)
xr = x.clone().requires_grad_(True)
h = checkpoint(run_blocks, xr, use_reentrant=True)
ck = model[4](h).pow(2).sum()
ck.backward()
print(f"{ck.item():.5f}", all(torch.allclose(r, p.grad, atol=1e-6) for r, p in zip(ref, model.parameters())),
      xr.grad.shape)
model.zero_grad()
model.eval()
out = checkpoint_sequential(model, 2, x, use_reentrant=False)
out.sum().backward()
print(out.detach(), model[4].weight.grad)
