"""minGRU-pytorch (lucidrains): "Were RNNs All We Needed?" minGRU/minLSTM, computed in parallel in log space
(Heinsen's associative scan: cumsum + logcumsumexp) and step by step. A minLM language model (RMSNorm,
feed-forward, causal depthwise conv) trained with AdamW, a minLSTM LM, parallel versus recurrent decoding with
cached hidden states (the same logits), greedy generation, the gradient through logcumsumexp, the
minGRU/attention hybrid (scaled_dot_product_attention, learned mixing), and a state_dict round trip."""
import io

import torch
from minGRU_pytorch import minGRU
from minGRU_pytorch.hybrid import minGRUAttnHybrid
from minGRU_pytorch.minLM import minLM
from minGRU_pytorch.minLSTM import minLSTM


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
seq = torch.randint(0, 16, (4, 21))

torch.manual_seed(1)
lm = minLM(num_tokens=16, dim=24, depth=2, ff_mult=2, expansion=1.5, enable_conv=True, dropout=0.1)
print("params", sum(p.numel() for p in lm.parameters()), lm.can_cache)
opt = torch.optim.AdamW(lm.parameters(), lr=3e-3)
for step in range(6):
    opt.zero_grad()
    loss = lm(seq, return_loss=True)
    loss.backward()
    opt.step()
    if step % 2 == 1:
        print("gru lm", step, r(loss))

torch.manual_seed(2)
lstm_lm = minLM(num_tokens=16, dim=16, depth=2, use_lstm=True)
opt = torch.optim.Adam(lstm_lm.parameters(), lr=3e-3)
for step in range(4):
    opt.zero_grad()
    loss = lstm_lm(seq, return_loss=True)
    loss.backward()
    opt.step()
print("lstm lm", r(loss), r(lstm_lm.layers[0][2].to_hidden_and_f_i_gate.weight.grad.norm()))

# parallel and recurrent decoding agree (minLM without conv caches its hidden states)
torch.manual_seed(3)
cached = minLM(num_tokens=16, dim=16, depth=2)
cached.eval()
with torch.no_grad():
    full = cached(seq[:, :8])
    hiddens = None
    steps = []
    for t in range(8):
        logits, hiddens = cached(seq[:, :t + 1], return_prev_hiddens=True, prev_hiddens=hiddens)
        steps.append(logits[:, -1])
    steps = torch.stack(steps, dim=1)
print("parallel vs recurrent", r((full - steps).abs().max() < 1e-4), tuple(hiddens[0].shape), r(full[0, -1, :4]))

with torch.no_grad():
    out = seq[:1, :3]
    logits, hiddens = cached(out, return_prev_hiddens=True)
    for _ in range(6):
        nxt = logits[:, -1].argmax(-1, keepdim=True)
        out = torch.cat([out, nxt], dim=-1)
        logits, hiddens = cached(out, return_prev_hiddens=True, prev_hiddens=hiddens)
print("greedy", out.tolist())

# single layers: gradients through the log-space scan, continuing from a previous hidden state
torch.manual_seed(4)
gru = minGRU(8, expansion_factor=2.0)
x = torch.randn(2, 12, 8, requires_grad=True)
y, h = gru(x, return_next_prev_hidden=True)
y2 = gru(torch.randn(2, 5, 8), prev_hidden=h)
(y.pow(2).mean() + y2.mean()).backward()
print("mingru", tuple(y.shape), tuple(h.shape), r(y[0, -1, :3]), r(y2[1, 0, :3]), r(x.grad.norm()))
lstm = minLSTM(8)
xs = torch.randn(2, 6, 8)
ys, hs = lstm(xs, return_next_prev_hidden=True)
step = lstm(torch.randn(2, 1, 8), prev_hidden=hs)
print("minlstm", r(ys[0, :, 0]), r(step[0, 0, :3]), r(hs.min() > 0))

torch.manual_seed(5)
hybrid = minGRUAttnHybrid(16, dim_head=8, heads=2)
xh = torch.randn(2, 7, 16, requires_grad=True)
oh = hybrid(xh)
oh.sum().backward()
print("hybrid", tuple(oh.shape), r(oh[0, 0, :3]), r(hybrid.to_mix[1].weight.grad.norm()), r(xh.grad.norm()))

buf = io.BytesIO()
torch.save(lm.state_dict(), buf)
buf.seek(0)
torch.manual_seed(9)
clone = minLM(num_tokens=16, dim=24, depth=2, ff_mult=2, expansion=1.5, enable_conv=True, dropout=0.1)
clone.load_state_dict(torch.load(buf))
lm.eval()
clone.eval()
with torch.no_grad():
    print("reloaded", torch.equal(clone(seq), lm(seq)), r(clone(seq, return_loss=True)))
