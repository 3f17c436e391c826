"""pytorch/examples-style: mnist_rnn (LSTM over image rows, Adadelta + StepLR), snli (bidirectional LSTM
encoder over packed, unsorted variable-length sequences, [u, v, |u-v|, u*v] features), fast_neural_style
(TransformerNet: ReflectionPad2d, InstanceNorm2d, residual blocks, nearest upsampling; gram-matrix style
loss through a small frozen feature net). Tiny sizes, fake data, a few steps; prints losses."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

torch.manual_seed(0)


# ---- mnist_rnn ---------------------------------------------------------------------------------
class RowLSTM(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.LSTM(input_size=12, hidden_size=16, batch_first=True)
        self.bn = nn.BatchNorm1d(16)
        self.fc = nn.Linear(16, 10)

    def forward(self, x):
        x = x.reshape(-1, 12, 12)
        out, (h, c) = self.rnn(x)
        return F.log_softmax(self.fc(self.bn(out[:, -1, :])), dim=1)


images, labels = torch.rand(16, 1, 12, 12), torch.randint(0, 10, (16,))
rnn = RowLSTM()
opt = torch.optim.Adadelta(rnn.parameters(), lr=1.0)
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.7)
for epoch in range(3):
    rnn.train()
    for i in range(0, 16, 8):
        opt.zero_grad()
        loss = F.nll_loss(rnn(images[i:i + 8]), labels[i:i + 8])
        loss.backward()
        opt.step()
    sched.step()
    rnn.eval()
    with torch.no_grad():
        out = rnn(images)
        test_loss = F.nll_loss(out, labels, reduction="sum").item()
        correct = out.argmax(dim=1).eq(labels).sum().item()
    print(f"mnist_rnn epoch {epoch} loss {loss.item():.6f} test_loss {test_loss:.5f} correct {correct} "
          f"lr {sched.get_last_lr()[0]:.4f}")


# ---- snli --------------------------------------------------------------------------------------
class Encoder(nn.Module):
    def __init__(self, vocab, d=12, h=10):
        super().__init__()
        self.embed = nn.Embedding(vocab, d, padding_idx=0)
        self.rnn = nn.LSTM(d, h, num_layers=2, dropout=0.0, bidirectional=True)

    def forward(self, tokens, lengths):          # tokens: (T, B)
        packed = pack_padded_sequence(self.embed(tokens), lengths, enforce_sorted=False)
        out, (ht, ct) = self.rnn(packed)
        padded, lens = pad_packed_sequence(out, padding_value=0.0)
        mean = padded.sum(0) / lens.unsqueeze(1).to(padded.dtype)
        return torch.cat([ht[-2], ht[-1], mean], dim=1)


class SNLIClassifier(nn.Module):
    def __init__(self, vocab):
        super().__init__()
        self.encoder = Encoder(vocab)
        self.out = nn.Sequential(nn.Linear(4 * 40, 24), nn.ReLU(), nn.Dropout(0.0), nn.Linear(24, 3))

    def forward(self, p, pl, h, hl):
        u, v = self.encoder(p, pl), self.encoder(h, hl)
        return self.out(torch.cat([u, v, (u - v).abs(), u * v], 1))


vocab = 30
plen, hlen = torch.tensor([7, 3, 5, 6, 2, 4]), torch.tensor([4, 6, 2, 3, 5, 1])
prem = torch.randint(1, vocab, (7, 6)) * (torch.arange(7).unsqueeze(1) < plen)
hyp = torch.randint(1, vocab, (6, 6)) * (torch.arange(6).unsqueeze(1) < hlen)
gold = torch.randint(0, 3, (6,))
snli = SNLIClassifier(vocab)
opt = torch.optim.Adam(snli.parameters(), lr=0.01)
for it in range(4):
    opt.zero_grad()
    answer = snli(prem, plen, hyp, hlen)
    loss = F.cross_entropy(answer, gold)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(snli.parameters(), 1.0)
    opt.step()
    acc = (answer.argmax(1) == gold).float().mean().item()
    print(f"snli iter {it} loss {loss.item():.6f} acc {acc:.4f}")


# ---- fast_neural_style -------------------------------------------------------------------------
class ConvLayer(nn.Module):
    def __init__(self, cin, cout, k, stride):
        super().__init__()
        self.pad = nn.ReflectionPad2d(k // 2)
        self.conv = nn.Conv2d(cin, cout, k, stride)

    def forward(self, x):
        return self.conv(self.pad(x))


class ResidualBlock(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.c1, self.n1 = ConvLayer(c, c, 3, 1), nn.InstanceNorm2d(c, affine=True)
        self.c2, self.n2 = ConvLayer(c, c, 3, 1), nn.InstanceNorm2d(c, affine=True)

    def forward(self, x):
        return x + self.n2(self.c2(F.relu(self.n1(self.c1(x)))))


class UpsampleConv(nn.Module):
    def __init__(self, cin, cout, k, up):
        super().__init__()
        self.up = up
        self.conv = ConvLayer(cin, cout, k, 1)

    def forward(self, x):
        return self.conv(F.interpolate(x, mode="nearest", scale_factor=self.up))


class TransformerNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(ConvLayer(3, 4, 5, 1), nn.InstanceNorm2d(4, affine=True), nn.ReLU(),
                                 ConvLayer(4, 8, 3, 2), nn.InstanceNorm2d(8, affine=True), nn.ReLU(),
                                 ResidualBlock(8), ResidualBlock(8),
                                 UpsampleConv(8, 4, 3, 2), nn.InstanceNorm2d(4, affine=True), nn.ReLU(),
                                 ConvLayer(4, 3, 5, 1))

    def forward(self, x):
        return self.net(x)


def gram_matrix(y):
    b, ch, h, w = y.size()
    features = y.view(b, ch, w * h)
    return features.bmm(features.transpose(1, 2)) / (ch * h * w)


features = nn.Sequential(nn.Conv2d(3, 6, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(6, 8, 3, padding=1),
                         nn.ReLU())
for p in features.parameters():
    p.requires_grad_(False)
mean = torch.tensor([0.485, 0.456, 0.406]).view(-1, 1, 1)
std = torch.tensor([0.229, 0.224, 0.225]).view(-1, 1, 1)
style = torch.rand(1, 3, 12, 12) * 255
gram_style = gram_matrix(features((style / 255 - mean) / std))
content = torch.rand(2, 3, 12, 12) * 255
tnet = TransformerNet()
opt = torch.optim.Adam(tnet.parameters(), lr=1e-2)
for it in range(4):
    opt.zero_grad()
    y = tnet(content)
    fy = features((y / 255 - mean) / std)
    fx = features((content / 255 - mean) / std)
    content_loss = 1e2 * F.mse_loss(fy, fx)
    style_loss = 1e6 * F.mse_loss(gram_matrix(fy), gram_style.expand(2, -1, -1))
    total = content_loss + style_loss
    total.backward()
    opt.step()
    print(f"style iter {it} content {content_loss.item():.5f} style {style_loss.item():.5f} "
          f"total {total.item():.5f}")
with torch.no_grad():
    out = tnet(content).clamp(0, 255)
print(f"stylized {tuple(out.shape)} mean {out.mean().item():.4f}")
