"""Tensor subclasses and the __torch_function__ protocol, as tv_tensors, linear_operator, bitsandbytes-style
parameters and logging subclasses use them; run under torch and under the runner, printed lines compared.

A tensor-like that is not a Tensor comes first (before any Tensor subclass exists), so the protocol is switched
on by an op rejecting it, as in a program that only uses linear_operator."""
import torch
from torch import nn
from torch.overrides import get_default_nowrap_functions, handle_torch_function, has_torch_function
from torch.utils._pytree import tree_map


class Diag:  # a tensor-like that is not a Tensor (linear_operator style)
    def __init__(self, d):
        self.d = d

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        print("  tf", func.__name__, func is torch.matmul, func is torch.add, [t.__name__ for t in types])
        kwargs = kwargs or {}
        if func is torch.matmul or func is torch.mm:
            a, b = args
            return a.d.unsqueeze(-1) * b
        if func is torch.add:
            return "add-handled"
        return NotImplemented
d = Diag(torch.tensor([1.0, 2.0]))
for label, f in [("matmul", lambda: torch.matmul(d, torch.ones(2, 3))), ("add", lambda: torch.add(d, torch.ones(2))),
                 ("exp", lambda: torch.exp(d)), ("matmul2", lambda: torch.matmul(d, torch.ones(2, 3))),
                 ("stack", lambda: torch.stack([d, d]))]:
    try:
        print(label, f())
    except Exception as e:
        print(label, "ERR", type(e).__name__, str(e)[:300])

def show(label, f):
    try:
        r = f()
        if isinstance(r, torch.Tensor):
            r = (type(r).__name__, r.tolist() if r.numel() < 10 else r.shape)
        elif isinstance(r, (tuple, list)):
            r = [(type(x).__name__) for x in r]
        print(label, r)
    except Exception as e:
        print(label, "ERR", type(e).__name__, str(e)[:80])

class Plain(torch.Tensor):
    pass

class Image(torch.Tensor):  # tv_tensors style
    @staticmethod
    def _wrap(t):
        return t.as_subclass(Image)
    def __new__(cls, data):
        t = torch.as_tensor(data, dtype=torch.float32)
        return t.as_subclass(cls)
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        with torch._C.DisableTorchFunctionSubclass():
            out = func(*args, **(kwargs or {}))
        if func in (torch.Tensor.clone, torch.Tensor.to, torch.Tensor.detach, torch.Tensor.requires_grad_):
            return tree_map(lambda x: x.as_subclass(cls) if isinstance(x, torch.Tensor) and not isinstance(x, cls) else x, out)
        return out
    def __repr__(self, *, tensor_contents=None):
        return "Image(" + str(self.tolist()) + ")"

calls = []
class Logged(torch.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        calls.append(getattr(func, "__name__", str(func)))
        return super().__torch_function__(func, types, args, kwargs)

class NoTF(torch.Tensor):
    __torch_function__ = torch._C._disabled_torch_function_impl

x = torch.arange(4.0)
p = x.as_subclass(Plain)
show("plain type", lambda: type(p).__name__)
show("plain add", lambda: p + 1)
show("plain radd", lambda: 1 + p)
show("plain torch.add", lambda: torch.add(p, x))
show("plain x+p", lambda: x + p)
show("plain getitem", lambda: p[1:3])
show("plain sum", lambda: p.sum())
show("plain clone", lambda: p.clone())
show("plain view", lambda: p.view(2, 2))
show("plain split", lambda: p.split(2))
show("plain unbind", lambda: torch.unbind(p.view(2, 2)))
show("plain cat", lambda: torch.cat([x, p]))
show("plain relu", lambda: torch.nn.functional.relu(p))
show("plain linear", lambda: torch.nn.functional.linear(p, torch.ones(2, 4)))
show("plain shape", lambda: p.shape)
show("plain tolist", lambda: p.tolist())
show("plain item", lambda: p[0].item())
show("plain grad None", lambda: p.grad)
show("plain detach", lambda: p.detach())
show("plain exp_", lambda: p.clone().exp_())
show("plain max", lambda: p.max(0))
show("plain repr", lambda: repr(p))
show("plain eq", lambda: p == x)
show("plain isinstance", lambda: isinstance(p, torch.Tensor))
show("plain from ctor", lambda: Plain(torch.ones(2)) if False else type(torch.Tensor._make_subclass(Plain, torch.ones(2))).__name__)
show("make_subclass rg", lambda: torch.Tensor._make_subclass(Plain, torch.ones(2), True).requires_grad)
with torch._C.DisableTorchFunctionSubclass():
    show("disabled add", lambda: p + 1)
    show("disabled torch.mul", lambda: torch.mul(p, 2))
show("after disabled add", lambda: p + 1)

img = Image([[1, 2], [3, 4]])
show("img type", lambda: type(img).__name__)
show("img clone", lambda: img.clone())
show("img to", lambda: img.to(torch.float64))
show("img detach", lambda: img.detach())
show("img add", lambda: img + 1)
show("img flip", lambda: img.flip(0))
show("img repr", lambda: repr(img))
show("img sum", lambda: img.sum())

lg = torch.ones(3).as_subclass(Logged)
calls.clear(); r = lg * 2; print("logged mul", type(r).__name__, calls)
calls.clear(); r = torch.exp(lg); print("logged exp", type(r).__name__, calls)
calls.clear(); r = lg.sum(); print("logged sum", type(r).__name__, calls)
calls.clear(); r = lg[0]; print("logged getitem", type(r).__name__, calls)
calls.clear(); r = lg.shape; print("logged shape", r, calls)
calls.clear(); r = torch.stack([lg, lg]); print("logged stack", type(r).__name__, calls)
calls.clear(); r = torch.nn.functional.softmax(lg, 0); print("logged softmax", type(r).__name__, calls)

n = torch.ones(3).as_subclass(NoTF)
show("notf add", lambda: n + 1)
show("notf has_tf", lambda: has_torch_function((n,)))
show("plain has_tf", lambda: has_torch_function((p,)))
show("tensor has_tf", lambda: has_torch_function((x,)))
show("diag has_tf", lambda: has_torch_function((Diag(x),)))

show("diag matmul", lambda: torch.matmul(d, torch.ones(2, 3)))
show("diag add", lambda: torch.add(d, torch.ones(2)))
show("diag exp", lambda: torch.exp(d))

class MyParam(nn.Parameter):
    def __new__(cls, data, quant=None):
        self = super().__new__(cls, data, requires_grad=False)
        self.quant = quant
        return self
mp = MyParam(torch.ones(2), quant="nf4")
show("myparam type", lambda: type(mp).__name__)
show("myparam quant", lambda: mp.quant)
show("myparam rg", lambda: mp.requires_grad)
show("myparam add", lambda: mp + 1)
lin = nn.Linear(2, 2)
lin.weight = MyParam(torch.ones(2, 2), quant="q")
show("module param type", lambda: type(lin.weight).__name__)
show("module params", lambda: [type(q).__name__ for q in lin.parameters()])
show("param add", lambda: nn.Parameter(torch.ones(2)) + 1)
show("param detach", lambda: nn.Parameter(torch.ones(2)).detach())
show("param clone", lambda: nn.Parameter(torch.ones(2)).clone())

class WithAttr(torch.Tensor):
    @staticmethod
    def __new__(cls, t, meta):
        r = torch.Tensor._make_subclass(cls, t)
        r.meta = meta
        return r
w = WithAttr(torch.ones(2), "m")
show("withattr meta", lambda: w.meta)
show("withattr add type", lambda: type(w + 1).__name__)
show("withattr add meta", lambda: getattr(w + 1, "meta", "none"))

def my_func(a):
    if has_torch_function((a,)):
        return handle_torch_function(my_func, (a,), a)
    return a * 10
show("my_func plain", lambda: my_func(x))
show("my_func diag", lambda: my_func(d))
show("nowrap", lambda: len(get_default_nowrap_functions()) > 0)
show("overridable", lambda: torch.add in torch.overrides.get_overridable_functions()[torch])
show("is_tensor_like", lambda: (torch.overrides.is_tensor_like(p), torch.overrides.is_tensor_like(d), torch.overrides.is_tensor_like(3)))
pr = nn.Parameter(torch.ones(2))
lp = torch.ones(2, requires_grad=True).as_subclass(Plain)
show("subclass grad", lambda: (lp * 3).sum().backward() or type(lp).__name__)
show("subclass grad val", lambda: torch.ones(2, requires_grad=True).as_subclass(Plain).requires_grad)

# a few training steps with subclass inputs and a Parameter subclass among the weights
torch.manual_seed(0)
net = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(), nn.Flatten(), nn.Linear(4 * 4 * 4, 2))
net[3].weight = MyParam(net[3].weight.detach().clone(), quant="q")
net[3].weight.requires_grad_(True)
opt = torch.optim.SGD(net.parameters(), lr=0.1)
data = Image(torch.randn(3, 1, 4, 4))
target = torch.tensor([0, 1, 1])
for step in range(3):
    opt.zero_grad()
    out = net(data)
    loss = nn.functional.cross_entropy(out, target)
    loss.backward()
    opt.step()
    print("step", step, type(out).__name__, type(loss).__name__, f"{loss.item():.5f}",
          type(net[3].weight).__name__, net[3].weight.quant)
lg2 = torch.Tensor._make_subclass(Logged, torch.randn(4), True)
calls.clear()
y = (lg2 * lg2).sum()
y.backward()
print("logged backward", type(y).__name__, calls, type(lg2.grad).__name__)
a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
b = a.as_subclass(Plain)
print("as_subclass alias", type(b).__name__, b.is_leaf, b.grad_fn.name(), (b * 2).grad_fn.name())
(b * b).sum().backward()
print("as_subclass grad reaches the source", a.grad.tolist())
with torch.no_grad():
    c = a.as_subclass(Plain)
print("as_subclass under no_grad", c.requires_grad, c.is_leaf)

# TorchFunctionMode: every torch function, method and property read goes through the innermost mode
from torch.overrides import TorchFunctionMode  # noqa: E402


class Count(TorchFunctionMode):
    def __init__(self):
        super().__init__()
        self.names = []
    def __torch_function__(self, func, types, args=(), kwargs=None):
        self.names.append(func.__name__)
        return func(*args, **(kwargs or {}))


lin = torch.nn.Linear(3, 2)
x = torch.ones(4, 3)
with Count() as m:
    y = torch.nn.functional.relu(lin(x)).sum()
    z = x + 1
    w = x[0] * 2
    s = x.shape
print(m.names)


class Skip(TorchFunctionMode):
    def __torch_function__(self, func, types, args=(), kwargs=None):
        if func is torch.add:
            return "intercepted"
        return func(*args, **(kwargs or {}))


with Skip():
    print(torch.add(x, 1), torch.mul(x, 2).sum().item())
with Count() as outer:
    with Count() as inner:
        torch.exp(x)
print(outer.names, inner.names)

# iteration, pickling and torch.save/load keep a user's subclass (and its attributes), as torch's __reduce_ex__
import io  # noqa: E402
import pickle  # noqa: E402

sx = torch.arange(6.0).reshape(2, 3).as_subclass(Plain)
sx.meta = "m"
print("iter", [type(v).__name__ for v in sx], "pickle", type(pickle.loads(pickle.dumps(sx))).__name__)
buf = io.BytesIO()
torch.save({"w": sx, "plain": torch.ones(2)}, buf)
buf.seek(0)
loaded = torch.load(buf, weights_only=False)
print("save/load", type(loaded["w"]).__name__, loaded["w"].meta, loaded["w"].tolist(), type(loaded["plain"]).__name__)
print("where", type(torch.where(sx > 2, sx, torch.zeros(1))).__name__, "pad", type(torch.nn.functional.pad(sx, (1, 1))).__name__)
