"""The seq2seq translation tutorial's structure (own code, a synthetic "reverse the sequence" task): a
bidirectional GRU encoder over ``pack_padded_sequence(enforce_sorted=False)`` / ``pad_packed_sequence``, a GRU
decoder with Bahdanau (additive) attention masked by ``masked_fill`` on padding, teacher forcing chosen by a
seeded ``random``, NLLLoss with ``ignore_index``, ``clip_grad_norm_``, Adam with ReduceLROnPlateau, then
greedy decoding with ``topk`` and beam-free evaluation accuracy; also ``torch.lstm``-free LSTMCell
decoding of one batch with ``pad_sequence``/``pack_sequence`` round trips."""
import random

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils.rnn import pack_padded_sequence, pack_sequence, pad_packed_sequence, pad_sequence

torch.manual_seed(0)
random.seed(0)
PAD, SOS, EOS, VOCAB, HID = 0, 1, 2, 12, 24


def make_batch(n):
    lengths = torch.randint(3, 8, (n,))
    srcs = [torch.randint(3, VOCAB, (int(L),)) for L in lengths]
    tgts = [torch.cat([s.flip(0), torch.tensor([EOS])]) for s in srcs]
    return (pad_sequence(srcs, batch_first=True, padding_value=PAD), lengths,
            pad_sequence(tgts, batch_first=True, padding_value=PAD))


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, HID, padding_idx=PAD)
        self.rnn = nn.GRU(HID, HID, batch_first=True, bidirectional=True)
        self.fc = nn.Linear(2 * HID, HID)

    def forward(self, src, lengths):
        packed = pack_padded_sequence(self.emb(src), lengths, batch_first=True, enforce_sorted=False)
        out, h = self.rnn(packed)
        out, out_lengths = pad_packed_sequence(out, batch_first=True, total_length=src.size(1))
        h = torch.tanh(self.fc(torch.cat([h[-2], h[-1]], dim=1)))
        return out, h, out_lengths


class BahdanauAttention(nn.Module):
    def __init__(self):
        super().__init__()
        self.Wa = nn.Linear(HID, HID)
        self.Ua = nn.Linear(2 * HID, HID)
        self.Va = nn.Linear(HID, 1)

    def forward(self, query, keys, mask):
        scores = self.Va(torch.tanh(self.Wa(query).unsqueeze(1) + self.Ua(keys))).squeeze(2)
        scores = scores.masked_fill(~mask, float("-inf"))
        weights = F.softmax(scores, dim=-1)
        return torch.bmm(weights.unsqueeze(1), keys).squeeze(1), weights


class Decoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, HID)
        self.attn = BahdanauAttention()
        self.rnn = nn.GRU(3 * HID, HID, batch_first=True)
        self.out = nn.Linear(HID, VOCAB)
        self.dropout = nn.Dropout(0.1)

    def step(self, tok, h, keys, mask):
        e = self.dropout(self.emb(tok))
        ctx, w = self.attn(h, keys, mask)
        out, h = self.rnn(torch.cat([e, ctx], dim=1).unsqueeze(1), h.unsqueeze(0))
        return F.log_softmax(self.out(out.squeeze(1)), dim=-1), h.squeeze(0), w


enc, dec = Encoder(), Decoder()
params = list(enc.parameters()) + list(dec.parameters())
opt = torch.optim.Adam(params, lr=0.01)
plateau = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, mode="min", factor=0.5, patience=1)
crit = nn.NLLLoss(ignore_index=PAD)


def run(src, lengths, tgt, teacher_forcing):
    keys, h, _ = enc(src, lengths)
    mask = torch.arange(src.size(1)).unsqueeze(0) < lengths.unsqueeze(1)
    tok = torch.full((src.size(0),), SOS, dtype=torch.long)
    logps = []
    for t in range(tgt.size(1)):
        logp, h, _ = dec.step(tok, h, keys, mask)
        logps.append(logp)
        if teacher_forcing:
            tok = tgt[:, t]
        else:
            tok = logp.topk(1, dim=-1).indices.squeeze(1).detach()
    return torch.stack(logps, dim=1)


for it in range(12):
    enc.train()
    dec.train()
    src, lengths, tgt = make_batch(16)
    use_tf = random.random() < 0.5
    opt.zero_grad()
    logps = run(src, lengths, tgt, use_tf)
    loss = crit(logps.reshape(-1, VOCAB), tgt.reshape(-1))
    loss.backward()
    norm = torch.nn.utils.clip_grad_norm_(params, max_norm=1.0)
    opt.step()
    plateau.step(loss.item())
    print(f"iter {it} tf {int(use_tf)} loss {loss.item():.5f} gradnorm {norm.item():.5f} "
          f"lr {opt.param_groups[0]['lr']:.5f}")

enc.eval()
dec.eval()
with torch.no_grad():
    src, lengths, tgt = make_batch(8)
    pred = run(src, lengths, tgt, False).argmax(-1)
    valid = tgt != PAD
    acc = ((pred == tgt) & valid).sum().item() / valid.sum().item()
    keys, h, out_lengths = enc(src, lengths)
    mask = torch.arange(src.size(1)).unsqueeze(0) < lengths.unsqueeze(1)
    _, _, w = dec.step(torch.full((8,), SOS, dtype=torch.long), h, keys, mask)
print(f"eval token accuracy {acc:.5f} lengths {out_lengths.tolist()}")
print("attention row", [f"{v:.5f}" for v in w[0].tolist()], f"sum {w.sum(1).mean().item():.5f}")

# pack_sequence round trip through an LSTM and a step-by-step LSTMCell agree
seqs = [torch.randn(L, 5) for L in (4, 3, 1)]
lstm = nn.LSTM(5, 6)
cell = nn.LSTMCell(5, 6)
cell.load_state_dict({k.replace("_l0", ""): v for k, v in lstm.state_dict().items()})
out, (hn, cn) = lstm(pack_sequence(seqs))
padded, lens = pad_packed_sequence(out)
h, c = torch.zeros(1, 6), torch.zeros(1, 6)
for t in range(4):
    h, c = cell(seqs[0][t:t + 1], (h, c))
print(f"lstm vs cell {(h[0] - hn[0, 0]).abs().max().item():.6f} lens {lens.tolist()} "
      f"last {padded[lens[1] - 1, 1, :3].tolist()[0]:.5f}")
