"""A CRNN text recognizer (meijieru/crnn.pytorch, clovaai/deep-text-recognition-benchmark idioms) and Tacotron 2's
location-sensitive attention (NVIDIA/tacotron2 model.py idioms); own code, synthetic data.

CRNN: a VGG-ish ``Conv2d``/``BatchNorm2d``/``MaxPool2d((2, 1))`` stack collapsing the height to 1, ``squeeze(2)``
and ``permute(2, 0, 1)`` into (T, N, C), a bidirectional ``LSTM`` with a ``Linear`` embedding, ``log_softmax``
into ``nn.CTCLoss(blank=0, zero_infinity=True)`` with concatenated 1-D targets and per-sample target lengths,
an ``strLabelConverter`` (encode / decode with blank and repeat collapsing), greedy decoding by ``argmax`` and
``unique_consecutive``, a prefix beam search over probabilities, Adam, ``clip_grad_norm_``, a
``CosineAnnealingWarmRestarts`` schedule, ``torch.no_grad`` accuracy and a ``state_dict`` round trip.

Tacotron 2: ``LocationLayer`` (``Conv1d`` over the stacked previous/cumulative attention weights, ``transpose``,
``LinearNorm`` with ``xavier_uniform_`` and ``calculate_gain('tanh')``), ``get_alignment_energies`` with
``masked_fill_`` over padding from ``get_mask_from_lengths``, ``bmm`` context, a prenet with always-on dropout,
an ``LSTMCell`` decoder loop over teacher-forced frames with a gate ``BCEWithLogitsLoss``, and the guided
(diagonal) attention loss."""
import io

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
ALPHABET = "0123456789"


class StrLabelConverter:
    def __init__(self, alphabet):
        self.alphabet = alphabet
        self.dict = {c: i + 1 for i, c in enumerate(alphabet)}  # 0 is the CTC blank

    def encode(self, texts):
        length = [len(s) for s in texts]
        text = [self.dict[c] for s in texts for c in s]
        return torch.IntTensor(text), torch.IntTensor(length)

    def decode(self, t, length, raw=False):
        if length.numel() == 1:
            length = length[0]
            assert t.numel() == length
            if raw:
                return "".join(self.alphabet[i - 1] if i else "-" for i in t.tolist())
            chars = []
            for i in range(length):
                if t[i] != 0 and (not (i > 0 and t[i - 1] == t[i])):
                    chars.append(self.alphabet[t[i] - 1])
            return "".join(chars)
        texts, index = [], 0
        for i in range(length.numel()):
            n = length[i]
            texts.append(self.decode(t[index:index + n], torch.IntTensor([n]), raw=raw))
            index += n
        return texts


class BidirectionalLSTM(nn.Module):
    def __init__(self, n_in, n_hidden, n_out):
        super().__init__()
        self.rnn = nn.LSTM(n_in, n_hidden, bidirectional=True)
        self.embedding = nn.Linear(n_hidden * 2, n_out)

    def forward(self, x):
        recurrent, _ = self.rnn(x)
        T, b, h = recurrent.size()
        out = self.embedding(recurrent.view(T * b, h))
        return out.view(T, b, -1)


class CRNN(nn.Module):
    def __init__(self, nclass, nh=16):
        super().__init__()
        cnn = nn.Sequential()

        def conv_relu(i, n_in, n_out, bn=False):
            cnn.add_module(f"conv{i}", nn.Conv2d(n_in, n_out, 3, 1, 1))
            if bn:
                cnn.add_module(f"batchnorm{i}", nn.BatchNorm2d(n_out))
            cnn.add_module(f"relu{i}", nn.ReLU(True))

        conv_relu(0, 1, 8)
        cnn.add_module("pooling0", nn.MaxPool2d(2, 2))  # 8x32 -> 4x16
        conv_relu(1, 8, 16, True)
        cnn.add_module("pooling1", nn.MaxPool2d((2, 1), (2, 1)))  # -> 2x16
        conv_relu(2, 16, 16, True)
        cnn.add_module("pooling2", nn.MaxPool2d((2, 1), (2, 1)))  # -> 1x16
        self.cnn = cnn
        self.rnn = nn.Sequential(BidirectionalLSTM(16, nh, nh), BidirectionalLSTM(nh, nh, nclass))

    def forward(self, x):
        conv = self.cnn(x)
        b, c, h, w = conv.size()
        assert h == 1, "the height of conv must be 1"
        conv = conv.squeeze(2).permute(2, 0, 1)  # [w, b, c]
        return F.log_softmax(self.rnn(conv), dim=2)


def render(texts):
    """Digits drawn as fixed random glyph patches, placed left to right with gaps (8x32 images)."""
    g = torch.Generator().manual_seed(7)
    glyphs = torch.rand(10, 6, 3, generator=g)
    imgs = torch.zeros(len(texts), 1, 8, 32)
    for n, s in enumerate(texts):
        for k, c in enumerate(s):
            imgs[n, 0, 1:7, 1 + 4 * k:4 + 4 * k] = glyphs[int(c)]
    return imgs + 0.05 * torch.randn(imgs.shape)


def beam_search(probs, beam=3):
    """CTC prefix beam search over a (T, C) probability matrix."""
    beams = {(): (1.0, 0.0)}  # prefix -> (p_blank, p_nonblank)
    for t in range(probs.size(0)):
        nxt = {}
        for prefix, (pb, pnb) in beams.items():
            for c in range(probs.size(1)):
                p = probs[t, c].item()
                if c == 0:
                    b_, nb_ = nxt.get(prefix, (0.0, 0.0))
                    nxt[prefix] = (b_ + (pb + pnb) * p, nb_)
                    continue
                new = prefix + (c,)
                b_, nb_ = nxt.get(new, (0.0, 0.0))
                if prefix and prefix[-1] == c:
                    nxt[new] = (b_, nb_ + pb * p)
                    b2, nb2 = nxt.get(prefix, (0.0, 0.0))
                    nxt[prefix] = (b2, nb2 + pnb * p)
                else:
                    nxt[new] = (b_, nb_ + (pb + pnb) * p)
        beams = dict(sorted(nxt.items(), key=lambda kv: -(kv[1][0] + kv[1][1]))[:beam])
    best = max(beams.items(), key=lambda kv: kv[1][0] + kv[1][1])
    return best[0], best[1][0] + best[1][1]


conv = StrLabelConverter(ALPHABET)
text, length = conv.encode(["12", "345", "6"])
print("encode", text.tolist(), length.tolist(), text.dtype)
print("decode raw", conv.decode(torch.IntTensor([0, 2, 2, 0, 3, 3, 0]), torch.IntTensor([7]), raw=True),
      conv.decode(torch.IntTensor([0, 2, 2, 0, 3, 3, 0, 1, 1]), torch.IntTensor([7, 2])))

g = torch.Generator().manual_seed(3)
words = ["".join(str(d) for d in torch.randint(0, 10, (int(n),), generator=g).tolist())
         for n in torch.randint(2, 6, (48,), generator=g)]
images = render(words)
print("data", tuple(images.shape), words[:4])

model = CRNN(len(ALPHABET) + 1)
print("crnn params", sum(p.numel() for p in model.parameters()), [n for n, _ in model.cnn.named_children()][:4])
criterion = nn.CTCLoss(blank=0, reduction="mean", zero_infinity=True)
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
sched = torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(optimizer, T_0=3, T_mult=2, eta_min=1e-4)
for epoch in range(6):
    total = 0.0
    for i in range(0, 48, 16):
        imgs, batch_words = images[i:i + 16], words[i:i + 16]
        t, l = conv.encode(batch_words)
        preds = model(imgs)
        preds_size = torch.IntTensor([preds.size(0)] * imgs.size(0))
        cost = criterion(preds, t, preds_size, l)
        optimizer.zero_grad()
        cost.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 5)
        optimizer.step()
        sched.step(epoch + i / 48)
        total += cost.item()
    print(f"crnn epoch {epoch} ctc {total / 3:.4f} lr {optimizer.param_groups[0]['lr']:.6f}")

model.eval()
with torch.no_grad():
    preds = model(images[:8])
    _, best = preds.max(2)
    best = best.transpose(1, 0).contiguous().view(-1)
    sim = conv.decode(best, torch.IntTensor([preds.size(0)] * 8))
    print("greedy", sim[:4], "acc", sum(a == b for a, b in zip(sim, words[:8])) / 8)
    raw = conv.decode(best[:preds.size(0)], torch.IntTensor([preds.size(0)]), raw=True)
    print("raw", raw)
    seq = preds[:, 0].argmax(-1)
    uniq = torch.unique_consecutive(seq)
    print("unique_consecutive", uniq[uniq != 0].tolist())
    beam, p = beam_search(preds[:, 0].exp())
    print("beam", "".join(ALPHABET[c - 1] for c in beam), f"{p:.4f}")
    per_sample = F.ctc_loss(preds, *conv.encode(words[:8])[:1], torch.full((8,), preds.size(0), dtype=torch.long),
                            conv.encode(words[:8])[1], reduction="none")
    print("ctc none", [round(v, 4) for v in per_sample[:4].tolist()])
buf = io.BytesIO()
torch.save(model.state_dict(), buf)
buf.seek(0)
clone = CRNN(len(ALPHABET) + 1)
print("load", clone.load_state_dict(torch.load(buf)), torch.equal(clone.eval()(images[:2]), model(images[:2])))


# ---------------------------------------------------------------- Tacotron 2 location-sensitive attention
class LinearNorm(nn.Module):
    def __init__(self, in_dim, out_dim, bias=True, w_init_gain="linear"):
        super().__init__()
        self.linear_layer = nn.Linear(in_dim, out_dim, bias=bias)
        nn.init.xavier_uniform_(self.linear_layer.weight, gain=nn.init.calculate_gain(w_init_gain))

    def forward(self, x):
        return self.linear_layer(x)


class ConvNorm(nn.Module):
    def __init__(self, in_ch, out_ch, kernel_size=1, padding=None, bias=True, w_init_gain="linear"):
        super().__init__()
        if padding is None:
            padding = int((kernel_size - 1) / 2)
        self.conv = nn.Conv1d(in_ch, out_ch, kernel_size, padding=padding, bias=bias)
        nn.init.xavier_uniform_(self.conv.weight, gain=nn.init.calculate_gain(w_init_gain))

    def forward(self, x):
        return self.conv(x)


class LocationLayer(nn.Module):
    def __init__(self, n_filters, kernel_size, attention_dim):
        super().__init__()
        self.location_conv = ConvNorm(2, n_filters, kernel_size, padding=(kernel_size - 1) // 2, bias=False)
        self.location_dense = LinearNorm(n_filters, attention_dim, bias=False, w_init_gain="tanh")

    def forward(self, attention_weights_cat):
        return self.location_dense(self.location_conv(attention_weights_cat).transpose(1, 2))


class Attention(nn.Module):
    def __init__(self, rnn_dim, emb_dim, attention_dim, n_filters, kernel_size):
        super().__init__()
        self.query_layer = LinearNorm(rnn_dim, attention_dim, bias=False, w_init_gain="tanh")
        self.memory_layer = LinearNorm(emb_dim, attention_dim, bias=False, w_init_gain="tanh")
        self.v = LinearNorm(attention_dim, 1, bias=False)
        self.location_layer = LocationLayer(n_filters, kernel_size, attention_dim)
        self.score_mask_value = -float("inf")

    def get_alignment_energies(self, query, processed_memory, attention_weights_cat):
        processed_query = self.query_layer(query.unsqueeze(1))
        processed_attention = self.location_layer(attention_weights_cat)
        energies = self.v(torch.tanh(processed_query + processed_attention + processed_memory))
        return energies.squeeze(-1)

    def forward(self, query, memory, processed_memory, attention_weights_cat, mask):
        alignment = self.get_alignment_energies(query, processed_memory, attention_weights_cat)
        if mask is not None:
            alignment.data.masked_fill_(mask, self.score_mask_value)
        attention_weights = F.softmax(alignment, dim=1)
        attention_context = torch.bmm(attention_weights.unsqueeze(1), memory).squeeze(1)
        return attention_context, attention_weights


def get_mask_from_lengths(lengths):
    max_len = torch.max(lengths).item()
    ids = torch.arange(0, max_len, out=torch.LongTensor(max_len))
    return ids < lengths.unsqueeze(1)


class Prenet(nn.Module):
    def __init__(self, in_dim, sizes):
        super().__init__()
        in_sizes = [in_dim] + sizes[:-1]
        self.layers = nn.ModuleList([LinearNorm(i, o, bias=False) for i, o in zip(in_sizes, sizes)])

    def forward(self, x):
        for linear in self.layers:
            x = F.dropout(F.relu(linear(x)), p=0.5, training=True)
        return x


class Decoder(nn.Module):
    def __init__(self, n_mel=6, emb=12, rnn=16, att=8):
        super().__init__()
        self.n_mel, self.rnn_dim, self.emb = n_mel, rnn, emb
        self.prenet = Prenet(n_mel, [8, 8])
        self.attention_rnn = nn.LSTMCell(8 + emb, rnn)
        self.attention_layer = Attention(rnn, emb, att, 4, 5)
        self.proj = LinearNorm(rnn + emb, n_mel)
        self.gate = LinearNorm(rnn + emb, 1, w_init_gain="sigmoid")

    def forward(self, memory, mels, memory_lengths):
        B, T_in, _ = memory.shape
        mask = ~get_mask_from_lengths(memory_lengths)
        processed = self.attention_layer.memory_layer(memory)
        h = memory.new_zeros(B, self.rnn_dim)
        c = memory.new_zeros(B, self.rnn_dim)
        weights = memory.new_zeros(B, T_in)
        cum = memory.new_zeros(B, T_in)
        context = memory.new_zeros(B, self.emb)
        go = memory.new_zeros(1, B, self.n_mel)
        inputs = self.prenet(torch.cat((go, mels.transpose(0, 1)[:-1]), dim=0))
        outs, gates, aligns = [], [], []
        for t in range(inputs.size(0)):
            h, c = self.attention_rnn(torch.cat((inputs[t], context), -1), (h, c))
            h = F.dropout(h, 0.1, self.training)
            cat = torch.cat((weights.unsqueeze(1), cum.unsqueeze(1)), dim=1)
            context, weights = self.attention_layer(h, memory, processed, cat, mask)
            cum = cum + weights
            hc = torch.cat((h, context), dim=1)
            outs.append(self.proj(hc))
            gates.append(self.gate(hc).squeeze(1))
            aligns.append(weights)
        return torch.stack(outs, 1), torch.stack(gates, 1), torch.stack(aligns, 1)


def guided_attention_loss(aligns, in_lens, out_len, g=0.2):
    n = torch.arange(out_len).float().unsqueeze(1)
    t = torch.arange(aligns.size(2)).float().unsqueeze(0)
    loss = 0.0
    for b in range(aligns.size(0)):
        w = 1.0 - torch.exp(-((t / in_lens[b] - n / out_len) ** 2) / (2 * g * g))
        loss = loss + (aligns[b, :, :in_lens[b]] * w[:, :in_lens[b]]).mean()
    return loss / aligns.size(0)


lengths = torch.tensor([7, 5, 6])
print("mask", get_mask_from_lengths(lengths).int().tolist()[1], get_mask_from_lengths(lengths).dtype)
print("gains", [round(nn.init.calculate_gain(k), 4) for k in ("linear", "tanh", "sigmoid", "relu")])
emb = nn.Embedding(12, 12)
tokens = torch.randint(1, 12, (3, 7))
mels = torch.randn(3, 9, 6).cumsum(1) * 0.1
gate_target = torch.zeros(3, 9)
gate_target[:, -2:] = 1.0
dec = Decoder()
opt = torch.optim.Adam(list(dec.parameters()) + list(emb.parameters()), lr=3e-3, weight_decay=1e-6)
gate_loss_fn = nn.BCEWithLogitsLoss()
for step in range(5):
    torch.manual_seed(100 + step)  # the prenet's always-on dropout
    mel_out, gate_out, aligns = dec(emb(tokens), mels, lengths)
    loss_mel = F.mse_loss(mel_out, mels)
    loss_gate = gate_loss_fn(gate_out, gate_target)
    loss_att = guided_attention_loss(aligns, lengths.tolist(), mels.size(1))
    loss = loss_mel + loss_gate + loss_att
    opt.zero_grad()
    loss.backward()
    gn = torch.nn.utils.clip_grad_norm_(dec.parameters(), 1.0)
    opt.step()
    print(f"taco step {step} mel {loss_mel.item():.4f} gate {loss_gate.item():.4f} att {loss_att.item():.4f}"
          f" gn {gn:.4f}")
print("alignments", tuple(aligns.shape), f"{aligns.sum(-1).mean():.4f}", aligns[1, :, 5:].abs().max().item())
print("location conv", tuple(dec.attention_layer.location_layer.location_conv.conv.weight.shape),
      dec.attention_layer.location_layer.location_conv.conv.bias)
