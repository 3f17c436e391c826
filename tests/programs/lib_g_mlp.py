"""g-mlp-pytorch (lucidrains): gMLP ("Pay Attention to MLPs") as a causal language model through its
AutoregressiveWrapper (spatial gating unit with a causal mask, tiny attention, token shifting, several heads)
trained with Adam and sampled with top-k + multinomial, a circulant-matrix variant, gMLPVision with stochastic
depth (layer survival), and a state_dict round trip."""
import io
import random

import torch
from g_mlp_pytorch import gMLP, gMLPVision
from g_mlp_pytorch.autoregressive_wrapper import AutoregressiveWrapper


def r(x, n=4):
    if isinstance(x, torch.Tensor):
        x = x.detach().double()
        if x.numel() == 1:
            return round(float(x), n)
        return [round(float(v), n) for v in x.flatten()]
    if isinstance(x, (list, tuple)):
        return [r(v, n) for v in x]
    return round(float(x), n)


random.seed(0)
torch.manual_seed(0)
seq = torch.randint(0, 20, (4, 17))

torch.manual_seed(1)
lm = gMLP(num_tokens=20, dim=32, depth=2, seq_len=16, heads=2, ff_mult=2, attn_dim=8, causal=True,
          shift_tokens=1, act=torch.nn.Tanh())
model = AutoregressiveWrapper(lm)
print("params", sum(p.numel() for p in model.parameters()), model.max_seq_len)
opt = torch.optim.Adam(model.parameters(), lr=3e-3)
for step in range(6):
    opt.zero_grad()
    loss = model(seq)
    loss.backward()
    opt.step()
    if step % 2 == 1:
        print("lm", step, r(loss))
sgu = lm.layers[0].fn.fn.fn.sgu
print("sgu", tuple(sgu.weight.shape), r(sgu.weight.grad.norm()), r(sgu.weight.grad[0, 0, :3]))

# causality: logits at position t do not change when later tokens change
lm.eval()
with torch.no_grad():
    a = lm(seq[:, :16])
    changed = seq[:, :16].clone()
    changed[:, 10:] = (changed[:, 10:] + 1) % 20
    b = lm(changed)
print("causal", r((a[:, :10] - b[:, :10]).abs().max()), r((a[:, 10:] - b[:, 10:]).abs().max() > 0))

torch.manual_seed(2)
sample = model.generate(seq[0, :4], 6, filter_thres=0.8)
print("generate", tuple(sample.shape), sample.tolist())
print("training restored", model.training, lm.training)

torch.manual_seed(3)
circ = gMLP(num_tokens=10, dim=16, depth=1, seq_len=8, circulant_matrix=True, causal=True)
tokens = torch.randint(0, 10, (2, 8))
logits = circ(tokens)
logits.logsumexp(-1).mean().backward()
print("circulant", tuple(logits.shape), r(logits[0, -1, :4]), r(circ.layers[0].fn.fn.fn.sgu.circulant_pos_x.grad.norm() * 1e4))

torch.manual_seed(4)
random.seed(4)
vis = gMLPVision(image_size=16, patch_size=4, num_classes=3, dim=16, depth=4, ff_mult=2, prob_survival=0.5)
imgs = torch.randn(4, 3, 16, 16)
labels = torch.tensor([0, 1, 2, 0])
opt = torch.optim.SGD(vis.parameters(), lr=0.1, momentum=0.9)
for step in range(4):
    opt.zero_grad()
    loss = torch.nn.functional.cross_entropy(vis(imgs), labels)
    loss.backward()
    opt.step()
    used = [i for i, layer in enumerate(vis.layers) if layer.fn.fn.proj_out.weight.grad is not None
            and layer.fn.fn.proj_out.weight.grad.abs().sum() > 0]
    print("vision", step, r(loss), used)
    opt.zero_grad(set_to_none=True)
vis.eval()
with torch.no_grad():
    out = vis(imgs)
print("vision eval", r(out[0]))

buf = io.BytesIO()
torch.save(model.state_dict(), buf)
buf.seek(0)
torch.manual_seed(9)
clone = AutoregressiveWrapper(gMLP(num_tokens=20, dim=32, depth=2, seq_len=16, heads=2, ff_mult=2, attn_dim=8,
                                   causal=True, shift_tokens=1, act=torch.nn.Tanh()))
clone.load_state_dict(torch.load(buf))
clone.eval()
with torch.no_grad():
    print("reloaded", torch.allclose(clone.net(seq[:, :16]), a, atol=1e-6))
