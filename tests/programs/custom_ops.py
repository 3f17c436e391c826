"""The "custom Python operators" tutorial: torch.library.custom_op with register_fake/register_autograd, a numpy
implementation, ops under compile(fullgraph) and vmap, infer_schema (types, defaults, errors), opcheck results,
the generated grad_fn and the error of a backward without a formula."""
import numpy as np
import torch
from torch import Tensor
torch.manual_seed(0)

@torch.library.custom_op("mylib::numpy_sin", mutates_args=())
def numpy_sin(x: Tensor) -> Tensor:
    x_np = x.cpu().numpy()
    y_np = np.sin(x_np)
    return torch.from_numpy(y_np).to(device=x.device)

@numpy_sin.register_fake
def _(x):
    return torch.empty_like(x)

def setup_context(ctx, inputs, output):
    (x,) = inputs
    ctx.save_for_backward(x)

def backward(ctx, grad):
    (x,) = ctx.saved_tensors
    return grad * x.cos()

numpy_sin.register_autograd(backward, setup_context=setup_context)
x = torch.randn(3, requires_grad=True)
y = numpy_sin(x)
print(y, y.grad_fn is not None)
y.sum().backward(); print(torch.allclose(x.grad, x.cos()))
print(torch.ops.mylib.numpy_sin(x.detach()))
print(torch.library.opcheck(numpy_sin, (torch.randn(3, requires_grad=True),)))

@torch.library.custom_op("mylib::numpy_sin_out", mutates_args={"out"})
def numpy_sin_out(x: Tensor, out: Tensor) -> None:
    assert x.device == out.device
    x_np = x.numpy(); out_np = out.numpy()
    np.sin(x_np, out=out_np)
print(numpy_sin_out._schema if hasattr(numpy_sin_out, '_schema') else None)

@torch.library.custom_op("mylib::mymuladd", mutates_args=())
def mymuladd(a: Tensor, b: Tensor, c: float) -> Tensor:
    return a * b + c
@mymuladd.register_fake
def _(a, b, c):
    torch._check(a.shape == b.shape)
    return torch.empty_like(a)
def _backward(ctx, grad):
    a, b = ctx.saved_tensors
    return grad * b, grad * a, None
def _setup_context(ctx, inputs, output):
    a, b, c = inputs
    saved_a, saved_b = None, None
    if ctx.needs_input_grad[0]:
        saved_b = b
    if ctx.needs_input_grad[1]:
        saved_a = a
    ctx.save_for_backward(saved_a, saved_b)
torch.library.register_autograd("mylib::mymuladd", _backward, setup_context=_setup_context)
a = torch.randn(3, requires_grad=True); b = torch.randn(3, requires_grad=True)
r = mymuladd(a, b, 2.0); r.sum().backward(); print(r, a.grad, b.grad)
@torch.compile(fullgraph=True)
def f(x):
    return numpy_sin(x) + 1
print(f(torch.zeros(2)))
print(mymuladd)
print(type(numpy_sin).__name__)
try:
    @torch.library.custom_op("bad name", mutates_args=())
    def g(x: Tensor) -> Tensor:
        return x
except Exception as e:
    print(type(e).__name__, str(e)[:150])
try:
    @torch.library.custom_op("mylib::noann", mutates_args=())
    def h(x):
        return x
except Exception as e:
    print(type(e).__name__, str(e)[:150])
@torch.library.custom_op("mylib::vm", mutates_args=())
def vm(x: Tensor) -> Tensor:
    return x * 2
@vm.register_vmap
def _(info, in_dims, x):
    return x * 2, in_dims[0]
print(torch.vmap(vm)(torch.ones(2, 3)))
lib = torch.library.Library("mylib2", "DEF")
lib.define("twice(Tensor x) -> Tensor")
lib.impl("twice", lambda x: x * 2, "CPU")
print(torch.ops.mylib2.twice(torch.ones(2)))
print(torch.vmap(numpy_sin)(torch.zeros(2, 3)))
print(torch.compile(lambda x: numpy_sin(x) * 2)(torch.ones(3)))
r = torch.library.opcheck(numpy_sin, (torch.randn(3),), raise_exception=False); print(r)
@torch.library.custom_op("mylib::nofake", mutates_args=())
def nofake(x: Tensor) -> Tensor:
    return x * 2
r = torch.library.opcheck(nofake, (torch.randn(3),), raise_exception=False)
print({k: (v if v == "SUCCESS" else type(v).__name__ + ": " + str(v)[:200]) for k, v in r.items()})
@torch.library.custom_op("mylib::mut", mutates_args=())
def mut(x: Tensor) -> Tensor:
    x.add_(1)
    return x.clone()
@mut.register_fake
def _(x): return torch.empty_like(x)
r = torch.library.opcheck(mut, (torch.randn(3),), raise_exception=False)
print({k: (v if v == "SUCCESS" else type(v).__name__ + ": " + str(v)[:200]) for k, v in r.items()})
@torch.library.custom_op("mylib::noag", mutates_args=())
def noag(x: Tensor) -> Tensor:
    return x.sin()
@noag.register_fake
def _(x): return torch.empty_like(x)
r = torch.library.opcheck(noag, (torch.randn(3, requires_grad=True),), raise_exception=False)
print({k: (v if v == "SUCCESS" else type(v).__name__ + ": " + str(v)[:300]) for k, v in r.items()})
try:
    torch.library.opcheck(nofake, (torch.randn(3),))
except Exception as e:
    print(type(e).__name__, str(e)[:300])
try:
    torch.library.opcheck(nofake, (torch.randn(3),), test_utils="bogus")
except Exception as e:
    print(type(e).__name__, str(e)[:300])
print(torch.library.opcheck(nofake, (torch.randn(3),), test_utils=("test_schema",)))
y = noag(torch.randn(3, requires_grad=True))
print(y.requires_grad, type(y.grad_fn).__name__)
try:
    y.sum().backward()
except Exception as e:
    print(type(e).__name__, str(e)[:300])
import typing
def f(x: torch.Tensor, y: typing.Optional[torch.Tensor], n: int, l: list[int], s: typing.Sequence[torch.Tensor], d: torch.dtype = torch.float32, dev: torch.device = torch.device('cpu'), *, k: float = 1.0, b: bool = False, st: str = 'a', o: typing.Optional[list[float]] = None) -> tuple[torch.Tensor, torch.Tensor]: pass
print(torch.library.infer_schema(f, mutates_args=('x',)))
print(torch.library.infer_schema(f, mutates_args='unknown', op_name='foo'))
def g(x: torch.Tensor) -> None: pass
print(torch.library.infer_schema(g, mutates_args=()))
def h(x: torch.Tensor) -> tuple[torch.Tensor]: pass
print(torch.library.infer_schema(h, mutates_args=()))
def v(x: torch.Tensor, *args) -> torch.Tensor: pass
def w(x: torch.Tensor) -> torch.Tensor: pass
for fn, ma in [(v, ()), (w, ('y',)), (w, 'all')]:
    try:
        torch.library.infer_schema(fn, mutates_args=ma)
    except Exception as e:
        print(type(e).__name__, e)
def n(x: torch.Tensor, s: float | None = None, t: int | None = 3) -> list[torch.Tensor]: pass
print(torch.library.infer_schema(n, mutates_args=()))
