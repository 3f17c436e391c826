"""The "Accelerating PyTorch Transformers by replacing nn.Transformer with Nested Tensors" pattern (own code
after the tutorial's, synthetic data): sentences of different lengths as one jagged nested tensor, a
multi-head attention built from nn.Linear and F.scaled_dot_product_attention on the jagged heads, padded output,
a few training steps. Prints what torch prints; tests/test_nested.py compares the lines with torch."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class MultiHeadAttention(nn.Module):
    def __init__(self, e_model, nheads, bias=True):
        super().__init__()
        self.nheads, self.e_head = nheads, e_model // nheads
        # (three projections, the tutorial's path for distinct q/k/v: on CPU torch's jagged attention needs
        # inputs contiguous once transposed back, which chunks of one packed projection are not)
        self.q_proj, self.k_proj, self.v_proj = (nn.Linear(e_model, e_model, bias=bias) for _ in range(3))
        self.out_proj = nn.Linear(e_model, e_model, bias=bias)

    def forward(self, x):
        q, k, v = self.q_proj(x), self.k_proj(x), self.v_proj(x)
        # (B, j, E) -> (B, j, H, D) -> (B, H, j, D)
        q, k, v = (t.unflatten(-1, [self.nheads, self.e_head]).transpose(1, 2) for t in (q, k, v))
        out = F.scaled_dot_product_attention(q, k, v)
        return self.out_proj(out.transpose(1, 2).flatten(-2))


class Block(nn.Module):
    def __init__(self, e_model, nheads):
        super().__init__()
        self.attn = MultiHeadAttention(e_model, nheads)
        self.norm1, self.norm2 = nn.LayerNorm(e_model), nn.LayerNorm(e_model)
        self.ff = nn.Sequential(nn.Linear(e_model, 2 * e_model), nn.GELU(), nn.Linear(2 * e_model, e_model))

    def forward(self, x):
        x = self.norm1(x + self.attn(x))
        return self.norm2(x + self.ff(x))


E, H = 8, 2
lengths = [3, 5, 2, 4]
sentences = [torch.randn(n, E) for n in lengths]
targets = [torch.randn(n, E) for n in lengths]
x = torch.nested.nested_tensor(sentences, layout=torch.jagged)
y = torch.nested.nested_tensor(targets, layout=torch.jagged)
print("input", x.dim(), x.size(0), x.size(-1), x.layout, x.is_nested)
print("values", tuple(x.values().shape), "offsets", x.offsets().tolist())

model = Block(E, H)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
with torch.no_grad():
    out = model(x)
print("out", out.dim(), out.size(0), out.size(-1), out.layout, out.requires_grad)
padded = out.to_padded_tensor(0.0)
print("padded", tuple(padded.shape))
print("padded[2]", padded[2, :, :3])
print("unbind", [tuple(t.shape) for t in out.unbind()])

ty = y.to_padded_tensor(0.0)
mask = torch.nested.nested_tensor([torch.ones(n, E) for n in lengths], layout=torch.jagged).to_padded_tensor(0.0)
for step in range(4):
    opt.zero_grad()
    pred = model(x).to_padded_tensor(0.0)
    loss = (((pred - ty) ** 2) * mask).sum() / mask.sum()
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.6f} grad-norm {model.attn.q_proj.weight.grad.norm().item():.6f}")

# gradients reach the component tensors through as_nested_tensor
parts = [s.clone().requires_grad_() for s in sentences]
z = model(torch.nested.as_nested_tensor(parts, layout=torch.jagged))
z.to_padded_tensor(0.0).pow(2).sum().backward()
print("component grads", [round(p.grad.abs().sum().item(), 4) for p in parts])
print("mean over features", z.mean(-1).to_padded_tensor(-1.0)[:, :2])
