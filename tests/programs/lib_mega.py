"""Mega-pytorch (lucidrains): Mega ("Moving Average Equipped Gated Attention"): multi-headed damped EMA computed as
an FFT convolution (torch.fft.rfft/irfft with a conjugated kernel, roll, index_select), single-headed attention
with T5 relative position buckets (softmax or the erf-based Laplacian attention function), and GRU-style gating.
A causal Mega language model trained with Adam, causality of its logits, a bidirectional pre-norm model, a causal
layer with Laplacian attention and GroupNorm over EMA heads, the EMA's gradients with respect to its decay
parameters, the EMA checked against a plain recurrence, top-k sampling through its AutoregressiveWrapper, and a
state_dict round trip."""
import io

import torch
import torch.nn.functional as F
from mega_pytorch import Mega, MegaLayer, MultiHeadedEMA
from mega_pytorch.autoregressive_wrapper import AutoregressiveWrapper
from mega_pytorch.mega_pytorch import T5RelativePositionBias


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
seq = torch.randint(0, 12, (3, 17))

torch.manual_seed(1)
model = Mega(num_tokens=12, dim=16, depth=2, ema_heads=4, attn_dim_qk=8, attn_dim_value=24)
print("params", sum(p.numel() for p in model.parameters()))
opt = torch.optim.Adam(model.parameters(), lr=3e-3)
for step in range(6):
    opt.zero_grad()
    logits = model(seq[:, :-1])
    loss = F.cross_entropy(logits.transpose(1, 2), seq[:, 1:])
    loss.backward()
    opt.step()
    if step % 2 == 1:
        print("causal lm", step, r(loss))
ema = model.layers[0][0].multi_headed_ema
print("ema grads", r(ema.alphas.grad), r(ema.dampen_factors.grad))

model.eval()
with torch.no_grad():
    a = model(seq[:, :16])
    changed = seq[:, :16].clone()
    changed[:, 11:] = (changed[:, 11:] + 3) % 12
    b = model(changed)
print("causal", r((a[:, :11] - b[:, :11]).abs().max() < 1e-5), r((a[:, 11:] - b[:, 11:]).abs().max() > 0))

torch.manual_seed(2)
bi = Mega(num_tokens=12, dim=16, depth=1, ema_heads=2, attn_dim_qk=8, attn_dim_value=16, causal=False,
          laplacian_attn_fn=True, pre_norm=True)
opt = torch.optim.SGD(bi.parameters(), lr=0.05, momentum=0.9)
for step in range(4):
    opt.zero_grad()
    loss = F.cross_entropy(bi(seq).transpose(1, 2), seq)
    loss.backward()
    opt.step()
print("bidirectional", r(loss), r(bi.layers[0][0].multi_headed_ema.reverse_alphas.grad))

# the FFT convolution equals the damped EMA recurrence h_t = a x_t + (1 - a) d h_{t-1}
torch.manual_seed(3)
single = MultiHeadedEMA(dim=4, heads=1)
x = torch.randn(2, 9, 4)
fft_out = single(x)
alpha, damp = single.alphas.sigmoid(), single.dampen_factors.sigmoid()
u = x * single.expansion[0]
h = torch.zeros(2, 4)
outs = []
for t in range(9):
    h = alpha * u[:, t] + (1 - alpha) * damp * h
    outs.append(h * single.reduction[0])
rec = torch.stack(outs, dim=1)
print("ema vs recurrence", r((fft_out - rec).abs().max() < 1e-4), r(fft_out[0, -1]))

layer = MegaLayer(dim=8, ema_heads=2, attn_dim_qk=4, attn_dim_value=8, laplacian_attn_fn=True, causal=True,
                  norm_mhesa_heads=True)
xl = torch.randn(2, 6, 8, requires_grad=True)
ol = layer(xl)
ol.square().mean().backward()
print("laplacian layer", r(ol[0, 0, :3]), r(xl.grad.norm()), r(layer.Uh.grad.norm()))

bias = T5RelativePositionBias(scale=2.0, causal=False, num_buckets=8, max_distance=20)
print("t5 buckets", T5RelativePositionBias._relative_position_bucket(torch.tensor([-30, -9, -3, 0, 2, 7, 40]),
                                                                      causal=False, num_buckets=8,
                                                                      max_distance=20).tolist(),
      tuple(bias(torch.zeros(5, 7)).shape))

torch.manual_seed(4)
sample = AutoregressiveWrapper(model).generate(seq[:2, :4], 5, filter_thres=0.7)
print("generate", sample.tolist(), model.training)

buf = io.BytesIO()
torch.save(model.state_dict(), buf)
buf.seek(0)
torch.manual_seed(9)
clone = Mega(num_tokens=12, dim=16, depth=2, ema_heads=4, attn_dim_qk=8, attn_dim_value=24)
clone.load_state_dict(torch.load(buf))
clone.eval()
with torch.no_grad():
    print("reloaded", torch.allclose(clone(seq[:, :16]), a, atol=1e-6))
