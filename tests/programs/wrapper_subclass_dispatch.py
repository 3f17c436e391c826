"""Tensor subclasses with their own __torch_dispatch__ (wrapper subclasses made by
torch.Tensor._make_wrapper_subclass): a LoggingTensor recording every aten call of an MLP's forward and
backward, an int8 weight-only quantized wrapper (torchao style) used as nn.Linear's weight, a tensor counting
ops, subclasses returning NotImplemented for some ops, a TorchDispatchMode seeing ops before the subclass,
views and indexing of wrappers, and __tensor_flatten__/__tensor_unflatten__. Run under torch and under
``python -m torchlike run``; the printed lines agree (tests/test_dispatch_subclass.py)."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils._pytree import tree_map
from torch.utils._python_dispatch import TorchDispatchMode, is_traceable_wrapper_subclass


class LoggingTensor(torch.Tensor):
    log = []

    @staticmethod
    def __new__(cls, elem, requires_grad=False):
        r = torch.Tensor._make_wrapper_subclass(cls, elem.size(), strides=elem.stride(), dtype=elem.dtype,
                                                device=elem.device, requires_grad=requires_grad)
        r.elem = elem
        return r

    __torch_function__ = torch._C._disabled_torch_function_impl

    def __repr__(self):
        return f"LoggingTensor({self.elem})"

    @classmethod
    def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
        cls.log.append(str(func))
        un = lambda t: t.elem if isinstance(t, LoggingTensor) else t  # noqa: E731
        out = func(*tree_map(un, args), **tree_map(un, kwargs or {}))
        return tree_map(lambda t: LoggingTensor(t) if isinstance(t, torch.Tensor) else t, out)


def logged(label, fn):
    LoggingTensor.log.clear()
    out = fn()
    print(label, LoggingTensor.log)
    return out


torch.manual_seed(0)
print("== logging tensor: metadata, views, indexing")
a = LoggingTensor(torch.randn(3, 4), requires_grad=True)
print(type(a).__name__, a.shape, a.dtype, a.stride(), a.requires_grad, a.is_leaf, a.device)
logged("views", lambda: (a.t(), a.view(2, 6), a.reshape(12), a.flatten(), a.transpose(0, 1), a.permute(1, 0),
                         a.T, a.mT, a.unsqueeze(0), a.squeeze(), a.expand(2, 3, 4), a.detach()))
logged("index", lambda: (a[1], a[1:3], a[:, 1:], a[1:3, 0], a[..., None], a[0, 1:3]))
logged("item", lambda: a[0, 1].item())

print("== logging tensor: autograd above the subclass")
y = logged("forward", lambda: (a * 2).relu().t().sum())
logged("backward", lambda: y.backward())
print(type(a.grad).__name__, a.grad.elem)
b = LoggingTensor(torch.randn(3, 4), requires_grad=True)
logged("index backward", lambda: (b[1:3, 0] * 3).sum().backward())
print(b.grad.elem)
c = LoggingTensor(torch.randn(2, 3), requires_grad=True)
logged("unary backward", lambda: (c.tanh() + c.sigmoid() * c.exp()).mean().backward())
print(c.grad.elem)

print("== logging tensor through an MLP with cross entropy")
mlp = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
x = LoggingTensor(torch.randn(5, 4), requires_grad=True)
target = torch.tensor([0, 2, 1, 1, 0])
loss = logged("forward", lambda: F.cross_entropy(mlp(x), target))
logged("backward", lambda: loss.backward())
print(type(loss).__name__, type(x.grad).__name__, type(mlp[0].weight.grad).__name__)
print(loss.elem, x.grad.elem.sum(), mlp[0].weight.grad.elem)
z = LoggingTensor(torch.arange(6.).reshape(2, 3))
logged("misc", lambda: (z.clone().add_(1).mul_(2), z.sum(0), z.mean(), torch.zeros_like(z), z.to(torch.float64),
                        z.float(), z.sigmoid(), z.softmax(-1), torch.cat([z, z]), torch.stack([z, z]), z.max(),
                        z.abs(), z + 1, 2 * z, z > 1, torch.where(z > 1, z, 0.0)))


print("== int8 weight-only quantized Linear")


class Int8Weight(torch.Tensor):
    """int8 values and a per-row scale; t/detach keep the wrapper, other ops dequantize."""

    @staticmethod
    def __new__(cls, q, scale, requires_grad=False):
        r = torch.Tensor._make_wrapper_subclass(cls, q.shape, strides=q.stride(), dtype=scale.dtype,
                                                device=q.device, requires_grad=requires_grad)
        r.q, r.scale = q, scale
        return r

    def __init__(self, q, scale, requires_grad=False):
        pass

    @classmethod
    def quantize(cls, w):
        scale = w.abs().amax(dim=1, keepdim=True) / 127
        return cls(torch.round(w / scale).to(torch.int8), scale)

    def dequantize(self):
        return self.q.to(self.scale.dtype) * self.scale

    __torch_function__ = torch._C._disabled_torch_function_impl

    def __tensor_flatten__(self):
        return ["q", "scale"], None

    @staticmethod
    def __tensor_unflatten__(inner, meta, outer_size, outer_stride):
        return Int8Weight(inner["q"], inner["scale"])

    def __repr__(self):
        return f"Int8Weight(shape={tuple(self.shape)})"

    @classmethod
    def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
        print("  int8:", func)
        if func is torch.ops.aten.t.default:
            return Int8Weight(args[0].q.t(), args[0].scale.t())
        if func is torch.ops.aten.detach.default:
            return Int8Weight(args[0].q, args[0].scale)
        un = lambda t: t.dequantize() if isinstance(t, Int8Weight) else t  # noqa: E731
        return func(*tree_map(un, args), **tree_map(un, kwargs or {}))


lin = nn.Linear(3, 4)
ref_w = lin.weight.detach().clone()
qw = Int8Weight.quantize(ref_w)
print(qw, qw.shape, qw.dtype, qw.stride(), qw.requires_grad, is_traceable_wrapper_subclass(qw),
      is_traceable_wrapper_subclass(ref_w))
names, ctx = qw.__tensor_flatten__()
back = Int8Weight.__tensor_unflatten__({n: getattr(qw, n) for n in names}, ctx, qw.shape, qw.stride())
print("flatten", names, type(back).__name__, torch.equal(back.q, qw.q))
lin.weight = nn.Parameter(qw, requires_grad=False)
print("parameter", type(lin.weight).__name__, isinstance(lin.weight, nn.Parameter), lin.weight.requires_grad)
inp = torch.randn(2, 3, requires_grad=True)
print("forward")
out = lin(inp)
print(type(out).__name__, out.grad_fn.name(), torch.allclose(out, F.linear(inp, qw.dequantize(), lin.bias)))
print("backward")
out.relu().sum().backward()
print(inp.grad, lin.bias.grad)
inp3 = torch.randn(2, 5, 3, requires_grad=True)
print("forward 3-d")
out3 = lin(inp3)
print("backward 3-d")
(out3 * out3).mean().backward()
print(inp3.grad.shape, round(float(inp3.grad.abs().sum()), 4))


print("== a tensor that counts ops")


class CountingTensor(torch.Tensor):
    counts = {}

    @staticmethod
    def __new__(cls, elem):
        r = torch.Tensor._make_wrapper_subclass(cls, elem.shape, dtype=elem.dtype, device=elem.device)
        r.elem = elem
        return r

    __torch_function__ = torch._C._disabled_torch_function_impl

    @classmethod
    def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
        n = func.overloadpacket.__name__
        cls.counts[n] = cls.counts.get(n, 0) + 1
        un = lambda t: t.elem if isinstance(t, CountingTensor) else t  # noqa: E731
        out = func(*tree_map(un, args), **tree_map(un, kwargs or {}))
        return tree_map(lambda t: CountingTensor(t) if isinstance(t, torch.Tensor) else t, out)


net = nn.Sequential(nn.Linear(3, 6), nn.GELU(), nn.LayerNorm(6), nn.Linear(6, 2))
with torch.no_grad():
    res = net(CountingTensor(torch.randn(4, 3))).softmax(-1)
print(sorted(CountingTensor.counts.items()), type(res).__name__, [round(v, 4) for v in res.elem.sum(-1).tolist()])


print("== NotImplemented falls through to the next subclass")


class Picky(torch.Tensor):
    @staticmethod
    def __new__(cls, elem):
        r = torch.Tensor._make_wrapper_subclass(cls, elem.shape, dtype=elem.dtype)
        r.elem = elem
        return r

    __torch_function__ = torch._C._disabled_torch_function_impl

    @classmethod
    def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
        if func.overloadpacket.__name__ not in ("add", "mul"):
            return NotImplemented
        un = lambda t: t.elem if isinstance(t, (Picky, Other)) else t  # noqa: E731
        return Picky(func(*tree_map(un, args), **tree_map(un, kwargs or {})))


class Other(torch.Tensor):
    @staticmethod
    def __new__(cls, elem):
        r = torch.Tensor._make_wrapper_subclass(cls, elem.shape, dtype=elem.dtype)
        r.elem = elem
        return r

    __torch_function__ = torch._C._disabled_torch_function_impl

    @classmethod
    def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
        print("  other:", func, [t.__name__ for t in types])
        un = lambda t: t.elem if isinstance(t, (Picky, Other)) else t  # noqa: E731
        return Other(func(*tree_map(un, args), **tree_map(un, kwargs or {})))


p = Picky(torch.ones(2))
print("picky", type(torch.add(p, 1)).__name__, (p * 3).elem)
try:
    torch.sub(p, 1)
except TypeError as e:
    print(type(e).__name__, str(e).replace(__name__, "MAIN"))
o = Other(torch.ones(2) * 2)
r = torch.sub(p, o)
print("falls through", type(r).__name__, r.elem)
r = torch.add(p, o)
print("first handles", type(r).__name__, r.elem)


class Log(TorchDispatchMode):
    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        print("  mode:", func, [t.__name__ for t in types])
        return func(*args, **(kwargs or {}))


print("== a mode sees the op before the subclass")
with Log():
    r = o * 2
    s = o.t() if o.ndim == 2 else o.view(2, 1)
print(type(r).__name__, r.elem, type(s).__name__)
