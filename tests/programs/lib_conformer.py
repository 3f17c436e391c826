"""conformer (lucidrains): a Conformer encoder (half-step feed-forwards, multi-head attention with Shaw's relative
position embeddings, the depthwise-convolution module with GLU and BatchNorm) classifying seeded sequences with
SGD with momentum (an adaptive optimizer would turn
the depthwise convolution's bias gradient, zero up to rounding because BatchNorm follows it, into lr-sized steps of
rounding noise and the running means with them, in torch as here), a causal block, the attention module with padding masks and with a context, train/eval BatchNorm
statistics, and a state_dict round trip."""
import io

import torch
import torch.nn.functional as F
from conformer import Conformer, ConformerBlock, ConformerConvModule
from conformer.conformer import Attention


def r(x, n=4):
    if isinstance(x, torch.Tensor):
        x = x.detach().double()
        if x.numel() == 1:
            return round(float(x), n)
        return [round(float(v), n) for v in x.flatten()]
    if isinstance(x, (list, tuple)):
        return [r(v, n) for v in x]
    return round(float(x), n)


torch.manual_seed(0)
B, N, D = 4, 12, 16
x = torch.randn(B, N, D)
y = torch.tensor([0, 1, 2, 1])

torch.manual_seed(1)
enc = Conformer(D, depth=2, dim_head=8, heads=2, ff_mult=2, conv_expansion_factor=2, conv_kernel_size=7)
head = torch.nn.Linear(D, 3)
print("params", sum(p.numel() for p in enc.parameters()), sum(1 for _ in enc.modules()))
opt = torch.optim.SGD([*enc.parameters(), *head.parameters()], lr=0.05, momentum=0.9, weight_decay=0.01)
for step in range(6):
    opt.zero_grad()
    logits = head(enc(x).mean(dim=1))
    loss = F.cross_entropy(logits, y)
    loss.backward()
    opt.step()
    if step % 2 == 1:
        print("train", step, r(loss))
bn = enc.layers[0].conv.net[5]
print("bn stats", int(bn.num_batches_tracked), r(bn.running_mean[:4]), r(bn.running_var[:4]))
enc.eval()
with torch.no_grad():
    out = enc(x)
print("eval", tuple(out.shape), r(out.mean()), r(out.std()), r(out[0, 0, :4]))

# a causal block: the output at step t does not depend on later steps
torch.manual_seed(2)
conv = ConformerConvModule(dim=D, causal=True, kernel_size=5)
a = conv(x)
x2 = x.clone()
x2[:, 8:] += 1.0
b = conv(x2)
print("causal conv", r((a[:, :8] - b[:, :8]).abs().max()), r((a[:, 8:] - b[:, 8:]).abs().max() > 0))

torch.manual_seed(3)
block = ConformerBlock(dim=D, dim_head=4, heads=4, conv_kernel_size=4, conv_causal=True,
                       attn_dropout=0.0, ff_dropout=0.0)
xb = x.clone().requires_grad_()
outb = block(xb)
(outb * torch.linspace(-1, 1, D)).pow(2).mean().backward()
print("block", r(outb[0, :2, :3]), r(xb.grad.norm()), r(block.attn.fn.rel_pos_emb.weight.grad.norm()))

# attention with masks and with a context
torch.manual_seed(4)
attn = Attention(D, heads=2, dim_head=8, max_pos_emb=4)
mask = torch.ones(B, N, dtype=torch.bool)
mask[:, 9:] = False
o1 = attn(x, mask=mask)
print("masked attn", r(o1.mean()), r(o1[0, 0, :3]))
ctx = torch.randn(B, N, D)  # the relative positions make the context as long as the queries
cmask = torch.rand(B, N) > 0.3
cmask[:, 0] = True
o2 = attn(x, context=ctx, mask=mask, context_mask=cmask)
print("context attn", tuple(o2.shape), r(o2.mean()), r(o2[1, 2, :3]))

buf = io.BytesIO()
torch.save(enc.state_dict(), buf)
buf.seek(0)
torch.manual_seed(9)
clone = Conformer(D, depth=2, dim_head=8, heads=2, ff_mult=2, conv_expansion_factor=2, conv_kernel_size=7)
clone.load_state_dict(torch.load(buf))
clone.eval()
with torch.no_grad():
    print("reloaded", torch.allclose(clone(x), out, atol=1e-6))
