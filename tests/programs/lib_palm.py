"""PaLM-pytorch (lucidrains): PaLM's parallel attention + SwiGLU blocks (multi-query attention, rotary embeddings,
a bias-free LayerNorm, weight-tied logits) as a language model trained with Adam through its
AutoregressiveWrapper, the causal mask and rotary tables cached as non-persistent buffers that are re-registered
for longer sequences, top-k sampling that stops at an end token and pads after it, the ALiBi "lite" variant with
RMSNorm trained with SGD, and a state_dict round trip (the cached buffers are not saved)."""
import io

import torch
from palm_pytorch import PaLM
from palm_pytorch.autoregressive_wrapper import AutoregressiveWrapper
from palm_pytorch.palm_lite import PaLM as PaLMLite


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
seq = torch.randint(1, 24, (4, 13))

torch.manual_seed(1)
net = PaLM(num_tokens=24, dim=32, depth=2, dim_head=8, heads=4, ff_mult=2)
model = AutoregressiveWrapper(net, max_seq_len=32)
print("params", sum(p.numel() for p in model.parameters()), net[-1].weight is net[0].weight)
opt = torch.optim.Adam(model.parameters(), lr=3e-3)
for step in range(6):
    opt.zero_grad()
    loss = model(seq)
    loss.backward()
    opt.step()
    if step % 2 == 1:
        print("lm", step, r(loss))
print("tied grad", r(net[0].weight.grad.norm()), r(net[1].fn.fused_attn_ff_proj.weight.grad.norm()))
block = net[1].fn
print("cached", tuple(block.mask.shape), tuple(block.pos_emb.shape), sorted(dict(block.named_buffers())))

net.eval()
with torch.no_grad():
    logits = net(seq[:, :12])
    longer = net(torch.cat([seq, seq], dim=1))
print("logits", tuple(logits.shape), r(logits[0, -1, :4]), tuple(block.mask.shape))
print("prefix same", r((longer[:, :12] - logits).abs().max() < 1e-5))

torch.manual_seed(2)
sample = model.generate(seq[:3, :4], 8, eos_token=23, filter_thres=0.5)
print("generate", sample.tolist(), model.training)

torch.manual_seed(3)
lite = PaLMLite(num_tokens=24, dim=16, depth=2, dim_head=8, heads=2)
lite_model = AutoregressiveWrapper(lite)
opt = torch.optim.SGD(lite_model.parameters(), lr=0.5, momentum=0.9)
for step in range(4):
    opt.zero_grad()
    loss = lite_model(seq)
    loss.backward()
    opt.step()
print("lite", r(loss), r(lite[0].weight.grad.norm()))
with torch.no_grad():
    print("lite logits", r(lite(seq[:1, :6])[0, -1, :4]))

buf = io.BytesIO()
torch.save(net.state_dict(), buf)
print("saved keys", len(net.state_dict()), any(k.endswith(("mask", "pos_emb")) for k in net.state_dict()))
buf.seek(0)
torch.manual_seed(9)
clone = PaLM(num_tokens=24, dim=32, depth=2, dim_head=8, heads=4, ff_mult=2)
clone.load_state_dict(torch.load(buf))
clone.eval()
with torch.no_grad():
    print("reloaded", torch.allclose(clone(seq[:, :12]), logits, atol=1e-6))
