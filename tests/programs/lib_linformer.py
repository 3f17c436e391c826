"""linformer and axial-attention: Linformer's low-rank self-attention (sequence projected to k with learned E/F,
shared kv, one kv head, context for cross attention), the Linformer encoder and LinformerLM with dropout, trained
with Adam both plainly and as a reversible network (its custom autograd.Function recomputes each block in backward,
restoring the CPU RNG state so dropout masks repeat); axial-attention's AxialAttention over the rows and columns
of a seeded feature map and its AxialImageTransformer, with gradients."""
import torch
import torch.nn.functional as F
from axial_attention import AxialAttention, AxialImageTransformer, AxialPositionalEmbedding
from linformer import Linformer, LinformerLM, LinformerSelfAttention


def r(x, n=4):
    if isinstance(x, torch.Tensor):
        x = x.detach().double()
        if x.numel() == 1:
            return round(float(x), n) + 0.0
        return [round(float(v), n) + 0.0 for v in x.flatten()]
    return round(float(x), n) + 0.0


torch.manual_seed(0)
x = torch.randn(2, 16, 12)
for kw in (dict(), dict(share_kv=True), dict(one_kv_head=True)):
    torch.manual_seed(1)
    attn = LinformerSelfAttention(dim=12, seq_len=16, k=4, heads=3, **kw)
    out = attn(x)
    print("selfattn", sorted(kw), tuple(out.shape), sum(p.numel() for p in attn.parameters()), r(out.mean()),
          r(out.std()))
ctx = torch.randn(2, 16, 12)
print("context", r(attn(x, context=ctx)[0, 0, :4]))

torch.manual_seed(2)
enc = Linformer(dim=12, seq_len=16, depth=2, k=4, heads=2, dropout=0.0)
print("encoder", r(enc(x).std()))

tokens = torch.randint(0, 20, (4, 16))
for reversible in (False, True):
    torch.manual_seed(3)
    lm = LinformerLM(num_tokens=20, dim=16, seq_len=16, depth=2, k=4, heads=2, dropout=0.1, reversible=reversible)
    opt = torch.optim.Adam(lm.parameters(), lr=3e-3)
    torch.manual_seed(4)
    for step in range(3):
        lm.train()
        opt.zero_grad()
        logits = lm(tokens)
        loss = F.cross_entropy(logits[:, :-1].reshape(-1, 20), tokens[:, 1:].reshape(-1))
        loss.backward()
        opt.step()
        print("lm", reversible, step, r(loss), r(lm.token_emb.weight.grad.norm()))
    lm.eval()
    with torch.no_grad():
        print("lm eval", reversible, r(lm(tokens)[0, 0, :4]))

# axial attention over a (batch, channels, height, width) map
torch.manual_seed(5)
img = torch.randn(2, 8, 6, 5, requires_grad=True)
axial = AxialAttention(dim=8, dim_index=1, heads=2, num_dimensions=2, sum_axial_out=True)
out = axial(img)
out.pow(2).mean().backward()
print("axial", tuple(out.shape), r(out.mean()), r(out.std()), r(img.grad.abs().sum(), 3))

torch.manual_seed(6)
pos = AxialPositionalEmbedding(dim=8, shape=(6, 5), emb_dim_index=1)
transformer = AxialImageTransformer(dim=8, depth=2, heads=2, reversible=True)
opt = torch.optim.SGD([*pos.parameters(), *transformer.parameters()], lr=0.05)
target = torch.randn(2, 8, 6, 5)
for step in range(3):
    opt.zero_grad()
    loss = F.mse_loss(transformer(pos(img.detach())), target)
    loss.backward()
    opt.step()
print("axial transformer", r(loss), sum(p.numel() for p in transformer.parameters()))
