"""opt_einsum_fx: trace einsum chains with torch.fx, fuse and reorder them with opt_einsum (whose torch backend calls
``torch.einsum(eq, [operands])``: torch's Python flattens the list before fx records the call), check the
optimized module against the original function."""
import torch
import torch.fx
from opt_einsum_fx import fuse_einsums, fuse_scalars, optimize_einsums_full


def f(a, b, c, d):
    x = torch.einsum("ij,jk->ik", a, b)
    y = torch.einsum("ik,kl,lm->im", x, c, d)
    return torch.einsum("im,im->i", y, y) * 2.0


g = torch.Generator().manual_seed(0)
args = (torch.randn(4, 6, generator=g), torch.randn(6, 8, generator=g), torch.randn(8, 2, generator=g),
        torch.randn(2, 5, generator=g))
opt = optimize_einsums_full(torch.fx.symbolic_trace(f), args)
calls = [n for n in opt.graph.nodes if n.op == "call_function"]
print("calls", [getattr(n.target, "__name__", str(n.target)) for n in calls])
print("einsum args", [len(n.args) for n in calls if getattr(n.target, "__name__", "") == "einsum"])
print("optimized", [round(v, 3) for v in opt(*args).tolist()])
print("original", [round(v, 3) for v in f(*args).tolist()])
fused = fuse_scalars(fuse_einsums(torch.fx.symbolic_trace(f).graph))
print("fused einsums", sum(1 for n in fused.nodes if getattr(n.target, "__name__", "") == "einsum"))
