"""torch.autograd.graph.saved_tensors_hooks as the "Hooks for saved tensors" tutorial uses it: which tensors
are packed and unpacked (and when), a compressing pack/unpack pair, no version check under hooks, the
unpack hook's type check, custom Functions' saved tensors, disable_saved_tensors_hooks, and saving to disk."""
import os
import tempfile
import uuid

import torch
calls = []
def pack(t):
    calls.append(("pack", tuple(t.shape), t.requires_grad))
    return t * 1
def unpack(t):
    calls.append(("unpack", tuple(t.shape)))
    return t
x = torch.randn(3, requires_grad=True)
y = torch.randn(3)
with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
    z = (x * y).sum()
    w = x.exp()
print(calls); calls.clear()
z.backward()
print(calls, x.grad.shape); calls.clear()
w.sum().backward()
print(calls); calls.clear()
# offload to cpu/compress idiom
with torch.autograd.graph.saved_tensors_hooks(lambda t: t.detach().half(), lambda t: t.float()):
    a = torch.randn(4, requires_grad=True)
    b = (a * a).sum()
b.backward()
print(torch.allclose(a.grad, 2 * a, atol=1e-2))
# version check with hooks
with torch.autograd.graph.saved_tensors_hooks(lambda t: t.clone(), lambda t: t):
    c = torch.randn(3, requires_grad=True)
    d = c * 2
    e = d * d
d.add_(1)
try:
    e.sum().backward(); print("no error")
except RuntimeError as err:
    print("RuntimeError", str(err)[:80])
# unpack returns non tensor
with torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: 3):
    f = (x * x).sum()
try:
    f.backward()
except Exception as err:
    print(type(err).__name__, err)
class Double(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return a * 2
    @staticmethod
    def backward(ctx, g):
        (a,) = ctx.saved_tensors
        return g * 2
with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
    out = Double.apply(x)
print(calls); calls.clear()
out.sum().backward()
print(calls); calls.clear()
with torch.autograd.graph.disable_saved_tensors_hooks("no hooks here"):
    try:
        with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
            pass
    except RuntimeError as err:
        print("RuntimeError", err)
with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
    with torch.no_grad():
        (x * 2).sum()
    g = x.sin()
print(calls)
torch.manual_seed(0)
x = torch.randn(4, 3, requires_grad=True)
w = torch.randn(5, 3, requires_grad=True)
b = torch.randn(5, requires_grad=True)
y = torch.randn(4, 3)
for name, fn in [("pow", lambda: x.pow(2)), ("sin", lambda: x.sin()), ("relu", lambda: x.relu()), ("sigmoid", lambda: x.sigmoid()),
                 ("mul_const", lambda: x * 3),
                 ("add", lambda: x + y), ("div", lambda: x / (y.abs() + 1)), ("sum", lambda: x.sum()), ("mean", lambda: x.mean(0)),
                 ("softmax", lambda: x.softmax(-1)), ("log_softmax", lambda: x.log_softmax(-1)), ("exp", lambda: x.exp()),
                 ("tanh", lambda: x.tanh()), ("view", lambda: x.view(-1))]:
    shapes = []
    with torch.autograd.graph.saved_tensors_hooks(lambda t: shapes.append(tuple(t.shape)) or t, lambda t: t):
        fn()
    print(name, shapes)
tmp = tempfile.mkdtemp()
def pack_to_disk(t):
    path = os.path.join(tmp, str(uuid.uuid4()))
    torch.save(t, path)
    return path
def unpack_from_disk(path):
    return torch.load(path, weights_only=True)
model = torch.nn.Sequential(torch.nn.Linear(3, 8), torch.nn.ReLU(), torch.nn.Linear(8, 1))
with torch.autograd.graph.saved_tensors_hooks(pack_to_disk, unpack_from_disk):
    out = model(x).pow(2).sum()
out.backward()
ref = [p.grad.clone() for p in model.parameters()]
model.zero_grad()
model(x).pow(2).sum().backward()
print(all(torch.allclose(a, p.grad) for a, p in zip(ref, model.parameters())), len(os.listdir(tmp)) > 0)
