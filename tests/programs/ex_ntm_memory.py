"""A Neural Turing Machine (loudinthecloud/pytorch-ntm idioms) and DNC-style temporal memory links
(deepmind/dnc, ixaxaar/pytorch-dnc idioms); own code, the copy task on synthetic bit sequences.

NTM: an ``LSTMCell`` controller, read/write heads emitting key, strength (``softplus``), gate (``sigmoid``), shift
(``softmax`` over 3) and sharpening (``1 + softplus``); content addressing by ``F.cosine_similarity`` over the
memory with broadcast keys, interpolation with the previous weighting, circular convolution by ``torch.cat``
wrap-around and ``F.conv1d`` (checked against ``torch.roll``), sharpening ``w ** gamma / sum``; erase/add writes by
outer products (``torch.ger``-style ``unsqueeze`` products); the memory as a buffer reset with ``register_buffer``
+ ``repeat``; the copy task with ``binary_cross_entropy_with_logits``, RMSprop (momentum, alpha=0.95),
``clip_grad_value_`` and per-sequence bit error; DNC usage-based allocation (``sort``/``cumprod`` with
``torch.gather``/``scatter``) and the temporal link matrix with precedence weighting and forward/backward reads.
``torch.no_grad`` evaluation, ``state_dict`` save/load and a ``torch.compile``'d controller output layer."""
import io

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
N, M = 12, 6  # memory slots, slot width


class NTMMemory(nn.Module):
    def __init__(self, N, M):
        super().__init__()
        self.N, self.M = N, M
        self.register_buffer("mem_bias", torch.Tensor(N, M))
        stdev = 1 / (N + M) ** 0.5
        nn.init.uniform_(self.mem_bias, -stdev, stdev)

    def reset(self, batch_size):
        self.batch_size = batch_size
        self.memory = self.mem_bias.clone().repeat(batch_size, 1, 1)

    def read(self, w):
        return torch.matmul(w.unsqueeze(1), self.memory).squeeze(1)

    def write(self, w, e, a):
        erase = torch.matmul(w.unsqueeze(-1), e.unsqueeze(1))
        add = torch.matmul(w.unsqueeze(-1), a.unsqueeze(1))
        self.memory = self.memory * (1 - erase) + add

    def address(self, k, beta, g, s, gamma, w_prev):
        wc = F.softmax(beta * F.cosine_similarity(self.memory + 1e-16, k.unsqueeze(1) + 1e-16, dim=-1), dim=1)
        wg = g * wc + (1 - g) * w_prev
        w_hat = self._shift(wg, s)
        w = w_hat ** gamma
        return torch.div(w, torch.sum(w, dim=1).view(-1, 1) + 1e-16)

    def _shift(self, wg, s):
        out = torch.zeros(wg.size())
        for b in range(self.batch_size):
            t = torch.cat([wg[b, -1:], wg[b], wg[b, :1]])
            out[b] = F.conv1d(t.view(1, 1, -1), s[b].flip(0).view(1, 1, -1)).view(-1)
        return out


class Head(nn.Module):
    def __init__(self, memory, ctrl, is_write):
        super().__init__()
        self.memory, self.is_write = memory, is_write
        self.lengths = [M, 1, 1, 3, 1] + ([M, M] if is_write else [])
        self.fc = nn.Linear(ctrl, sum(self.lengths))
        nn.init.xavier_uniform_(self.fc.weight, gain=1.4)
        nn.init.normal_(self.fc.bias, std=0.01)

    def forward(self, h, w_prev):
        o = self.fc(h)
        parts = torch.split(o, self.lengths, dim=1)
        k, beta, g, s, gamma = parts[:5]
        w = self.memory.address(k, F.softplus(beta), torch.sigmoid(g), F.softmax(s, dim=1),
                                1 + F.softplus(gamma), w_prev)
        if self.is_write:
            self.memory.write(w, torch.sigmoid(parts[5]), parts[6])
            return None, w
        return self.memory.read(w), w


class NTM(nn.Module):
    def __init__(self, n_in, n_out, ctrl=32):
        super().__init__()
        self.memory = NTMMemory(N, M)
        self.controller = nn.LSTMCell(n_in + M, ctrl)
        self.read_head = Head(self.memory, ctrl, False)
        self.write_head = Head(self.memory, ctrl, True)
        self.fc_out = nn.Linear(ctrl + M, n_out)
        self.ctrl = ctrl

    def init_sequence(self, batch_size):
        self.memory.reset(batch_size)
        self.state = (torch.zeros(batch_size, self.ctrl), torch.zeros(batch_size, self.ctrl))
        self.r = torch.zeros(batch_size, M)
        self.w_r = torch.zeros(batch_size, N)
        self.w_w = torch.zeros(batch_size, N)

    def forward(self, x):
        h, c = self.controller(torch.cat([x, self.r], 1), self.state)
        self.state = (h, c)
        self.r, self.w_r = self.read_head(h, self.w_r)
        _, self.w_w = self.write_head(h, self.w_w)
        return self.fc_out(torch.cat([h, self.r], 1))


def copy_batch(batch, seq_len, width=4, gen=None):
    seq = torch.bernoulli(torch.full((seq_len, batch, width), 0.5), generator=gen)
    inp = torch.zeros(seq_len + 1, batch, width + 1)
    inp[:seq_len, :, :width] = seq
    inp[seq_len, :, width] = 1.0  # delimiter
    return inp, seq


mem = NTMMemory(N, M)
mem.reset(2)
w = F.softmax(torch.randn(2, N), 1)
s = torch.tensor([[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]])
print("shift", torch.allclose(mem._shift(w, s), torch.stack([torch.roll(w[0], 1), torch.roll(w[1], -1)]), atol=1e-6),
      "buffers", [n for n, _ in mem.named_buffers()])
k = torch.randn(2, M)
wa = mem.address(k, torch.full((2, 1), 5.0), torch.ones(2, 1), torch.tensor([[0.0, 1.0, 0.0]] * 2),
                 torch.ones(2, 1), torch.zeros(2, N))
print("content addressing", tuple(wa.shape), [round(v, 4) for v in wa.sum(1).tolist()],
      wa.argmax(1).tolist() == F.cosine_similarity(mem.memory, k.unsqueeze(1), dim=-1).argmax(1).tolist())

gen = torch.Generator().manual_seed(2)
model = NTM(5, 4)
print("ntm params", sum(p.numel() for p in model.parameters()), [n for n, _ in model.named_children()])
opt = torch.optim.RMSprop(model.parameters(), lr=3e-3, momentum=0.9, alpha=0.95)
for step in range(6):
    seq_len = 2 + step % 3
    inp, target = copy_batch(4, seq_len, gen=gen)
    model.init_sequence(4)
    for t in range(inp.size(0)):
        model(inp[t])
    outs = [model(torch.zeros(4, 5)) for _ in range(seq_len)]
    logits = torch.stack(outs)
    loss = F.binary_cross_entropy_with_logits(logits, target)
    opt.zero_grad()
    loss.backward()
    nn.utils.clip_grad_value_(model.parameters(), 10)
    opt.step()
    cost = (logits.detach() > 0).float().sub(target).abs().sum() / 4
    print(f"copy step {step} len {seq_len} loss {loss.item():.4f} bit errors {cost.item():.2f}")
print("read weights", tuple(model.w_r.shape), f"{model.w_r.sum(1).mean().item():.4f}",
      "memory", tuple(model.memory.memory.shape))

with torch.no_grad():
    inp, target = copy_batch(2, 3, gen=gen)
    model.init_sequence(2)
    for t in range(inp.size(0)):
        model(inp[t])
    pred = torch.stack([torch.sigmoid(model(torch.zeros(2, 5))) for _ in range(3)])
print("eval", tuple(pred.shape), f"{pred.mean():.4f}", pred.requires_grad)
compiled_out = torch.compile(model.fc_out)
h = torch.randn(2, model.ctrl + M)
print("compiled out", torch.allclose(compiled_out(h), model.fc_out(h), atol=1e-6))


# ---------------------------------------------------------------- DNC allocation and temporal links
def allocation_weighting(usage):
    """a[phi[j]] = (1 - u[phi[j]]) * prod_{i<j} u[phi[i]], phi the ascending-usage order."""
    usage = 1e-6 + (1 - 1e-6) * usage
    sorted_usage, phi = torch.sort(usage, dim=1)
    prod = torch.cumprod(torch.cat([torch.ones_like(sorted_usage[:, :1]), sorted_usage[:, :-1]], 1), 1)
    sorted_alloc = (1 - sorted_usage) * prod
    return torch.zeros_like(usage).scatter(1, phi, sorted_alloc)


def update_usage(usage, w_write, w_read, free_gates):
    psi = torch.prod(1 - free_gates.unsqueeze(-1) * w_read, dim=1)
    return (usage + w_write - usage * w_write) * psi


def update_links(link, precedence, w_write):
    ww_i = w_write.unsqueeze(2)
    ww_j = w_write.unsqueeze(1)
    link = (1 - ww_i - ww_j) * link + ww_i * precedence.unsqueeze(1)
    link = link * (1 - torch.eye(link.size(-1)).unsqueeze(0))
    precedence = (1 - w_write.sum(1, keepdim=True)) * precedence + w_write
    return link, precedence


usage = torch.tensor([[0.9, 0.1, 0.5, 0.2, 0.7]])
alloc = allocation_weighting(usage)
print("allocation", [round(v, 4) for v in alloc[0].tolist()], f"{alloc.sum():.4f}")
B, S = 2, 5
link = torch.zeros(B, S, S)
prec = torch.zeros(B, S)
usage = torch.zeros(B, S)
w_read = torch.zeros(B, 1, S)
for t in range(4):
    a = allocation_weighting(usage)
    w_write = 0.9 * a
    link, prec = update_links(link, prec, w_write)
    usage = update_usage(usage, w_write, w_read, torch.zeros(B, 1))
print("usage", [round(v, 4) for v in usage[0].tolist()])
print("link rows", [round(v, 4) for v in link[0].sum(1).tolist()], "diag",
      link.diagonal(dim1=1, dim2=2).abs().max().item())
w_read = F.one_hot(torch.tensor([[3], [0]]), S).float()
fwd = torch.bmm(w_read, link.transpose(1, 2))
bwd = torch.bmm(w_read, link)
print("forward read", fwd.argmax(-1).flatten().tolist(), "backward read", bwd.argmax(-1).flatten().tolist())
gathered = torch.gather(usage, 1, usage.argsort(1)[:, :2])
print("least used", [round(v, 4) for v in gathered.flatten().tolist()])

buf = io.BytesIO()
torch.save(model.state_dict(), buf)
buf.seek(0)
state = torch.load(buf)
again = NTM(5, 4)
print("load", again.load_state_dict(state), "mem_bias" in "".join(state), torch.equal(again.memory.mem_bias,
                                                                                       model.memory.mem_bias))
