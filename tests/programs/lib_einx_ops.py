"""einx 0.4 on torch tensors: reductions, elementwise with broadcasting, dot, get_at/set_at/add_at, softmax,
sort/flip/roll/argmax, the three torch backends (numpylike, einsum, vmap), the adapters, and einx inside an
nn.Module trained with backward + Adam."""
import einx
import einx.torch
import torch
import torch.nn as nn


def show(name, t):
    t = t.detach()
    flat = " ".join(f"{v:.4f}" for v in t.double().flatten()[:8].tolist())
    print(name, tuple(t.shape), str(t.dtype).split(".")[-1], flat)


torch.manual_seed(0)
x = torch.randn(2, 3, 4)
y = torch.randn(4, 5)
show("id", einx.id("a b c -> c (a b)", x))
show("id_split", einx.id("a b (c d) -> d a b c", x, d=2))
for red in ("sum", "mean", "var", "std", "prod", "max", "min", "logsumexp"):
    show(red, getattr(einx, red)("a [b] c", x))
show("sum_keep", einx.sum("a [b] c", x, keepdims=True))
show("sum_out", einx.sum("a b c -> c", x))
show("count_nonzero", einx.count_nonzero("a [b c]", (x > 0)))
show("any", einx.any("[a] b c", x > 1))
show("all", einx.all("[a] b c", x > -2))
show("add", einx.add("a b c, c", x, torch.arange(4.0)))
show("subtract", einx.subtract("a b c, a", x, torch.tensor([1.0, 2.0])))
show("multiply", einx.multiply("a b c, b c -> c b a", x, x[0]))
show("divide", einx.divide("a b c, c", x, torch.tensor([1.0, 2.0, 4.0, 8.0])))
show("floor_divide", einx.floor_divide("a, b -> a b", torch.arange(6), torch.tensor([2, 3])))
show("maximum", einx.maximum("a b c, ", x, 0.0))
show("where", einx.where("a b c, a b c, ", x > 0, x, 0.0))
show("less", einx.less("a b c, c", x, torch.zeros(4)))
show("logaddexp", einx.logaddexp("a b c, c", x, torch.ones(4)))
show("logical_and", einx.logical_and("a b c, a b c", x > 0, x < 1))
show("dot", einx.dot("a b [c], [c] d -> a b d", x, y))
show("dot2", einx.dot("a [b c], [b c] -> a", x, x[1]))
show("dot_batched", einx.dot("[a] b c, [a] b d -> b c d", x, torch.randn(2, 3, 6)))
idx = torch.tensor([[0, 3], [2, 1]])
show("get_at", einx.get_at("a b [c], a i -> a b i", x, idx))
show("get_at_flat", einx.get_at("[n] d, i -> i d", torch.randn(7, 3), torch.tensor([6, 0, 2])))
emb = torch.randn(10, 4)
tok = torch.tensor([[1, 5, 9], [0, 0, 3]])
show("get_at_emb", einx.get_at("[v] d, b t -> b t d", emb, tok))
show("set_at", einx.set_at("[n] d, i, i d", torch.zeros(5, 2), torch.tensor([1, 3]), torch.ones(2, 2)))
show("add_at", einx.add_at("[n], i, i", torch.zeros(4), torch.tensor([0, 0, 2]), torch.tensor([1.0, 2.0, 3.0])))
show("subtract_at", einx.subtract_at("b [n], b i, b i", torch.ones(2, 4), torch.tensor([[0, 1], [3, 3]]), torch.ones(2, 2)))
show("softmax", einx.softmax("a [b] c", x))
show("log_softmax", einx.log_softmax("a b [c]", x))
show("sort", einx.sort("a [b] c", x))
show("argsort", einx.argsort("a b [c]", x))
show("flip", einx.flip("a [b] c", x))
show("roll", einx.roll("a b [c]", x, shift=1))
show("argmax", einx.argmax("a [b c]", x))
show("argmin", einx.argmin("a b [c]", x))
for backend in ("torch.numpylike", "torch.einsum", "torch.vmap"):
    show(f"{backend}_sum", einx.sum("a [b] c", x, backend=backend))
    show(f"{backend}_multiply", einx.multiply("a b c, c", x, torch.arange(4.0), backend=backend))
    show(f"{backend}_dot", einx.dot("a b [c], [c] d -> a b d", x, y, backend=backend))
show("matches", torch.tensor([einx.matches("a b c", x), einx.matches("a b", x)]))

my_norm = einx.torch.adapt_numpylike_reduce(lambda t, axis: torch.linalg.vector_norm(t, dim=axis))
show("adapt_reduce", my_norm("a [b] c", x))
my_clip = einx.torch.adapt_numpylike_elementwise(lambda a, b: torch.clamp(a, max=b))
show("adapt_elementwise", my_clip("a b c, c", x, torch.full((4,), 0.5)))
my_top = einx.torch.adapt_with_vmap(lambda t: torch.topk(t, 2).values)
show("adapt_vmap", my_top("a b [c] -> a b [k]", x, k=2))


class Block(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Parameter(torch.randn(d, 3 * d) * d**-0.5)
        self.out = nn.Parameter(torch.randn(d, d) * d**-0.5)
        self.scale = nn.Parameter(torch.ones(d))

    def forward(self, t):
        mean = einx.mean("b t [d]", t, keepdims=True)
        var = einx.var("b t [d]", t, keepdims=True)
        h = einx.multiply("b t d, d", (t - mean) / torch.sqrt(var + 1e-5), self.scale)
        q, k, v = einx.id("b t (three h c) -> three b h t c", einx.dot("b t [d], [d] e -> b t e", h, self.qkv),
                          three=3, h=self.heads)
        att = einx.softmax("b h q [k]", einx.dot("b h q [c], b h k [c] -> b h q k", q, k) * q.shape[-1] ** -0.5)
        o = einx.dot("b h q [k], b h [k] c -> b q (h c)", att, v)
        return t + einx.dot("b q [d], [d] e -> b q e", o, self.out)


torch.manual_seed(1)
model = Block(8, 2)
opt = torch.optim.Adam(model.parameters(), lr=0.01)
data = torch.randn(3, 5, 8)
target = torch.randn(3, 5, 8)
for step in range(4):
    opt.zero_grad()
    loss = einx.mean("[b t d]", (model(data) - target) ** 2)
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.5f} gnorm {model.qkv.grad.norm().item():.5f}")
xg = x.clone().requires_grad_()
einx.sum("[a b c]", einx.get_at("a b [c], a i -> a b i", xg, idx) ** 2).backward()
show("get_at_grad", xg.grad)
