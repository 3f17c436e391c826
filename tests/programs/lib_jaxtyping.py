"""jaxtyping's array annotations on torch tensors, checked at run time by beartype through ``@jaxtyped``: dtype
kinds (``Float``, ``Int``, ``Bool``, ``Shaped``, ``Num``, ``Inexact``, ``Integer``), symbolic dims shared across
arguments and the return value, fixed, variadic (``*batch``), broadcastable (``#``), anonymous (``_``) and
expression dims, ``Float[Tensor, ""]`` scalars, a checked ``nn.Module.forward`` and a dataclass, ``PyTree``,
``Complex``/``Real``/``UInt``, ``print_bindings``, the ``jaxtyped("context")`` block, and a module checked through
``install_import_hook`` (an import hook next to the runner's own). Each call prints
its result or the exception type and the first line of its message, which must be the same as under torch."""
# ruff: noqa: F722, F821  (jaxtyping's dimension strings are not forward references)
import dataclasses
import os
import sys
import tempfile
import textwrap

import torch
import torch.nn as nn
from beartype import beartype
from jaxtyping import (Bool, Complex, Float, Inexact, Int, Integer, Num, PyTree, Real, Shaped, install_import_hook,
                       jaxtyped, print_bindings)
from torch import Tensor


def attempt(label, fn, *args, **kwargs):
    try:
        out = fn(*args, **kwargs)
    except Exception as e:  # noqa: BLE001 - the point is which exception the checker raises
        print(label, "raised", type(e).__module__ + "." + type(e).__qualname__)
        for line in str(e).strip().splitlines():
            print("  |", line.rstrip())
        return None
    if isinstance(out, Tensor):
        print(label, "ok", str(out.dtype), tuple(out.shape), round(float(out.detach().real.float().sum()), 4))
    else:
        print(label, "ok", out)
    return out


@jaxtyped(typechecker=beartype)
def matmul(x: Float[Tensor, "batch dim"], w: Float[Tensor, "dim out"]) -> Float[Tensor, "batch out"]:
    return x @ w


@jaxtyped(typechecker=beartype)
def bad_return(x: Float[Tensor, "batch dim"]) -> Float[Tensor, "dim batch"]:
    return x  # wrong unless batch == dim


@jaxtyped(typechecker=beartype)
def count(labels: Int[Tensor, " n"], mask: Bool[Tensor, " n"]) -> Int[Tensor, ""]:
    return labels[mask].sum()


@jaxtyped(typechecker=beartype)
def any_dtype(x: Shaped[Tensor, "a b"]) -> Shaped[Tensor, "b a"]:
    return x.t()


@jaxtyped(typechecker=beartype)
def batched(x: Float[Tensor, "*batch c"], scale: Float[Tensor, "#c"]) -> Float[Tensor, "*batch c"]:
    return x * scale


@jaxtyped(typechecker=beartype)
def fixed(x: Num[Tensor, "3 _"], y: Integer[Tensor, "n"]) -> Inexact[Tensor, "n"]:
    return x.float().sum(0)[: y.shape[0]] + y


@jaxtyped(typechecker=beartype)
def concat(a: Float[Tensor, "n"], b: Float[Tensor, "m"]) -> Float[Tensor, "n+m"]:
    return torch.cat([a, b])


@jaxtyped(typechecker=beartype)
def scalar_loss(pred: Float[Tensor, "b"], target: Float[Tensor, "b"]) -> Float[Tensor, ""]:
    return ((pred - target) ** 2).mean()


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 2)

    @jaxtyped(typechecker=beartype)
    def forward(self, x: Float[Tensor, "batch 4"]) -> Float[Tensor, "batch 2"]:
        return self.lin(x)


@jaxtyped(typechecker=beartype)
@dataclasses.dataclass
class Batch:
    images: Float[Tensor, "b c h w"]
    labels: Int[Tensor, " b"]


torch.manual_seed(0)
x = torch.randn(5, 3)
w = torch.randn(3, 2)
attempt("matmul", matmul, x, w)
attempt("matmul dim mismatch", matmul, x, torch.randn(4, 2))
attempt("matmul rank mismatch", matmul, torch.randn(5), w)
attempt("matmul dtype int", matmul, x.long(), w)
attempt("matmul float64", matmul, x.double(), w.double())
attempt("matmul float16", matmul, x.half(), w.half())
attempt("matmul bfloat16", matmul, x.bfloat16(), w.bfloat16())
attempt("matmul not tensor", matmul, [[1.0]], w)
attempt("bad return", bad_return, x)
attempt("good return square", bad_return, torch.randn(3, 3))
labels = torch.tensor([1, 2, 3, 4])
mask = torch.tensor([True, False, True, True])
attempt("count", count, labels, mask)
attempt("count int32", count, labels.int(), mask)
attempt("count uint8", count, labels.to(torch.uint8), mask)
attempt("count mask not bool", count, labels, mask.long())
attempt("count labels float", count, labels.float(), mask)
attempt("count n mismatch", count, labels, mask[:3])
attempt("shaped bool", any_dtype, torch.ones(2, 3, dtype=torch.bool))
attempt("shaped complex", any_dtype, torch.ones(2, 3, dtype=torch.complex64))
attempt("shaped rank", any_dtype, torch.ones(2, 3, 4))
attempt("batched", batched, torch.randn(2, 3, 4), torch.randn(4))
attempt("batched broadcast 1", batched, torch.randn(2, 3, 4), torch.randn(1))
attempt("batched no batch", batched, torch.randn(4), torch.randn(4))
attempt("batched scale mismatch", batched, torch.randn(2, 3, 4), torch.randn(3))
attempt("fixed", fixed, torch.arange(12).reshape(3, 4), torch.tensor([1, 2]))
attempt("fixed wrong first", fixed, torch.arange(8).reshape(2, 4), torch.tensor([1, 2]))
attempt("fixed float y", fixed, torch.arange(12).reshape(3, 4), torch.tensor([1.0, 2.0]))
attempt("concat", concat, torch.ones(2), torch.ones(3))
attempt("scalar loss", scalar_loss, torch.randn(6), torch.randn(6))
attempt("scalar loss mismatch", scalar_loss, torch.randn(6), torch.randn(5))
torch.manual_seed(1)
head = Head()
attempt("module forward", head, torch.randn(3, 4))
attempt("module forward wrong", head, torch.randn(3, 5))
attempt("dataclass", lambda: Batch(torch.zeros(2, 3, 4, 4), torch.tensor([0, 1])).images.shape[0])
attempt("dataclass mismatch", lambda: Batch(torch.zeros(2, 3, 4, 4), torch.tensor([0, 1, 2])))
attempt("dataclass labels float", lambda: Batch(torch.zeros(2, 3, 4, 4), torch.zeros(2)))

# the annotations themselves: isinstance checks and their reprs
print("isinstance float", isinstance(torch.zeros(2, 3), Float[Tensor, "2 3"]),
      isinstance(torch.zeros(2, 3), Float[Tensor, "3 2"]), isinstance(torch.zeros(2, 3, dtype=torch.int64),
                                                                       Float[Tensor, "2 3"]))
print("isinstance int", isinstance(torch.zeros(4, dtype=torch.int16), Int[Tensor, "4"]),
      isinstance(torch.zeros(4, dtype=torch.bool), Int[Tensor, "4"]),
      isinstance(torch.zeros(4, dtype=torch.bool), Bool[Tensor, "4"]))
print("isinstance shaped", isinstance(torch.zeros((), dtype=torch.float64), Shaped[Tensor, ""]),
      isinstance(torch.zeros(1), Shaped[Tensor, ""]), isinstance(torch.zeros(2, 2), Shaped[Tensor, "..."]))
print("annotation", Float[Tensor, "batch dim"].__name__, Int[Tensor, " n"].dim_str, Float[Tensor, "*b c"].dims)


# a module whose annotations the import hook checks (the hook's finder sits next to the runner's)
src = tempfile.mkdtemp()
with open(os.path.join(src, "jt_hooked_mod.py"), "w") as f:
    f.write(textwrap.dedent('''
        import torch
        from jaxtyping import Float, UInt
        from torch import Tensor


        def scale(x: Float[Tensor, "n m"], k: Float[Tensor, "m"]) -> Float[Tensor, "n m"]:
            return x * k


        def to_bytes(x: Float[Tensor, "n"]) -> UInt[Tensor, "n"]:
            return (x * 10).to(torch.uint8)


        class Model(torch.nn.Module):
            def forward(self, x: Float[Tensor, "b 2"]) -> Float[Tensor, "b"]:
                return x.sum(-1)
    '''))
sys.path.insert(0, src)
with install_import_hook("jt_hooked_mod", "beartype.beartype"):
    import jt_hooked_mod
attempt("hooked scale", jt_hooked_mod.scale, torch.ones(2, 3), torch.full((3,), 2.0))
attempt("hooked scale mismatch", jt_hooked_mod.scale, torch.ones(2, 3), torch.ones(2))
attempt("hooked to_bytes", jt_hooked_mod.to_bytes, torch.tensor([0.1, 0.25, 0.9]))
attempt("hooked module", jt_hooked_mod.Model(), torch.ones(4, 2))
attempt("hooked module mismatch", jt_hooked_mod.Model(), torch.ones(4, 3))


@jaxtyped(typechecker=beartype)
def tree(x: PyTree[Float[Tensor, "b"]], z: Complex[Tensor, "b"], u: Real[Tensor, "b"]) -> int:
    print_bindings()
    return len(x)


attempt("pytree", tree, {"a": torch.ones(2), "c": [torch.zeros(2)]}, torch.ones(2, dtype=torch.complex64),
        torch.ones(2, dtype=torch.int8))
attempt("pytree leaf mismatch", tree, {"a": torch.ones(2), "c": [torch.zeros(3)]},
        torch.ones(2, dtype=torch.complex64), torch.ones(2))
attempt("complex given float", tree, {"a": torch.ones(2)}, torch.ones(2), torch.ones(2))
attempt("real given bool", tree, {"a": torch.ones(2)}, torch.ones(2, dtype=torch.complex128),
        torch.ones(2, dtype=torch.bool))


def in_context(x, y):
    with jaxtyped("context"):
        assert isinstance(x, Float[Tensor, "k"]), "x mismatch"
        assert isinstance(y, Float[Tensor, "k"]), "y mismatch"
    return "context ok"


attempt("context", in_context, torch.ones(2), torch.ones(2))
attempt("context mismatch", in_context, torch.ones(2), torch.ones(3))
