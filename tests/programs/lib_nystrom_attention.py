"""nystrom-attention: Nystromformer's landmark attention (segment-mean landmarks, iterative Moore-Penrose
pseudo-inverse, depthwise-conv value residual) on seeded sequences: a lone NystromAttention with padding to a
multiple of the landmarks, a key-padding mask (masked_fill_ with -finfo.max), the attention matrices it can
return, and a small Nystromformer sequence classifier with dropout trained with AdamW for a few steps."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from nystrom_attention import NystromAttention, Nystromformer
from nystrom_attention.nystrom_attention import moore_penrose_iter_pinv


def r(x, n=4):
    if isinstance(x, torch.Tensor):
        x = x.detach().double()
        if x.numel() == 1:
            return round(float(x), n) + 0.0
        return [round(float(v), n) + 0.0 for v in x.flatten()]
    return round(float(x), n) + 0.0


torch.manual_seed(0)
attn = NystromAttention(dim=16, dim_head=8, heads=2, num_landmarks=4, pinv_iterations=6, residual=True,
                        residual_conv_kernel=5)
x = torch.randn(2, 14, 16)   # 14 tokens: padded to 16 (four landmarks of four tokens)
out = attn(x)
print("out", tuple(out.shape), r(out.mean()), r(out.std()), r(out[0, 0, :4]))

mask = torch.ones(2, 14, dtype=torch.bool)
mask[1, 10:] = False
out_m, attn_full = attn(x, mask=mask, return_attn=True)
print("masked", tuple(out_m.shape), r(out_m[1, :10].mean()), tuple(attn_full.shape), r(attn_full[0, 0].sum(-1)[:4]))
out_mats, (a1, a2_inv, a3) = attn(x, return_attn_matrices=True)
print("matrices", tuple(a1.shape), tuple(a2_inv.shape), tuple(a3.shape), r(a1.sum(-1).mean()))

# the iterative pseudo-inverse against the exact one
torch.manual_seed(1)
m = torch.softmax(torch.randn(3, 5, 5) * 2, dim=-1)
pinv = moore_penrose_iter_pinv(m, iters=10)
print("pinv", r((m @ pinv - torch.eye(5)).abs().max(), 3), r((pinv - torch.linalg.inv(m)).abs().max(), 3))


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(10, 16)
        self.encoder = Nystromformer(dim=16, depth=2, dim_head=8, heads=2, num_landmarks=4,
                                     attn_values_residual_conv_kernel=3, attn_dropout=0.1, ff_dropout=0.1)
        self.head = nn.Linear(16, 2)

    def forward(self, tokens, mask=None):
        h = self.encoder(self.embed(tokens), mask=mask)
        if mask is not None:
            h = (h * mask[..., None]).sum(1) / mask.sum(1, keepdim=True)
        else:
            h = h.mean(1)
        return self.head(h)


torch.manual_seed(2)
tokens = torch.randint(0, 10, (8, 12))
labels = (tokens == 3).any(1).long()
lengths = torch.tensor([12, 12, 10, 9, 12, 8, 11, 12])
pad_mask = torch.arange(12)[None] < lengths[:, None]
model = Classifier()
print("params", sum(p.numel() for p in model.parameters()))
opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.01)
for step in range(6):
    model.train()
    opt.zero_grad()
    loss = F.cross_entropy(model(tokens, pad_mask), labels)
    loss.backward()
    gnorm = nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    if step % 2 == 1:
        print("train", step, r(loss), r(gnorm))
model.eval()
with torch.no_grad():
    logits = model(tokens, pad_mask)
    print("eval", r(logits[:3]), (logits.argmax(1) == labels).float().mean().item())
    print("nomask", r(model(tokens).softmax(-1)[:2, 1]))
