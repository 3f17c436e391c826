"""word_language_model Transformer + generate.py, imagenet top-k accuracy, fast_neural_style gram matrix,
mnist_forward_forward normalisation: the idioms of those scripts on tiny synthetic data."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class PositionalEncoding(nn.Module):
    def __init__(self, d_model, dropout=0.0, max_len=64):
        super(PositionalEncoding, self).__init__()
        self.dropout = nn.Dropout(p=dropout)
        pe = torch.zeros(max_len, d_model)
        position = torch.arange(0, max_len, dtype=torch.float).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2).float() * (-math.log(10000.0) / d_model))
        pe[:, 0::2] = torch.sin(position * div_term)
        pe[:, 1::2] = torch.cos(position * div_term)
        pe = pe.unsqueeze(0).transpose(0, 1)
        self.register_buffer('pe', pe)

    def forward(self, x):
        x = x + self.pe[:x.size(0), :]
        return self.dropout(x)


class TransformerModel(nn.Transformer):
    def __init__(self, ntoken, ninp, nhead, nhid, nlayers, dropout=0.0):
        super(TransformerModel, self).__init__(d_model=ninp, nhead=nhead, dim_feedforward=nhid,
                                               num_encoder_layers=nlayers)
        self.model_type = 'Transformer'
        self.src_mask = None
        self.pos_encoder = PositionalEncoding(ninp, dropout)
        self.input_emb = nn.Embedding(ntoken, ninp)
        self.ninp = ninp
        self.decoder = nn.Linear(ninp, ntoken)
        self.init_weights()

    def _generate_square_subsequent_mask(self, sz):
        return torch.log(torch.tril(torch.ones(sz, sz)))

    def init_weights(self):
        initrange = 0.1
        nn.init.uniform_(self.input_emb.weight, -initrange, initrange)
        nn.init.zeros_(self.decoder.bias)
        nn.init.uniform_(self.decoder.weight, -initrange, initrange)

    def forward(self, src, has_mask=True):
        if has_mask:
            device = src.device
            if self.src_mask is None or self.src_mask.size(0) != len(src):
                mask = self._generate_square_subsequent_mask(len(src)).to(device)
                self.src_mask = mask
        else:
            self.src_mask = None
        src = self.input_emb(src) * math.sqrt(self.ninp)
        src = self.pos_encoder(src)
        output = self.encoder(src, mask=self.src_mask)
        output = self.decoder(output)
        return F.log_softmax(output, dim=-1)


def accuracy(output, target, topk=(1,)):
    with torch.no_grad():
        maxk = max(topk)
        batch_size = target.size(0)
        _, pred = output.topk(maxk, 1, True, True)
        pred = pred.t()
        correct = pred.eq(target.view(1, -1).expand_as(pred))
        res = []
        for k in topk:
            correct_k = correct[:k].reshape(-1).float().sum(0, keepdim=True)
            res.append(correct_k.mul_(100.0 / batch_size))
        return res


def gram_matrix(y):
    (b, ch, h, w) = y.size()
    features = y.view(b, ch, w * h)
    features_t = features.transpose(1, 2)
    return features.bmm(features_t) / (ch * h * w)


torch.manual_seed(42)
ntokens = 20
model = TransformerModel(ntokens, 16, 2, 32, 1)
model.eval()  # dropout off: compare numbers exactly
criterion = nn.NLLLoss()
data = torch.randint(0, ntokens, (9, 3))
opt = torch.optim.SGD(model.parameters(), lr=0.5)
for step in range(3):
    model.zero_grad()
    output = model(data[:-1])
    loss = criterion(output.view(-1, ntokens), data[1:].reshape(-1))
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 0.25)
    opt.step()
    print(f"transformer step {step} loss {loss.item():.5f} ppl {math.exp(loss.item()):.3f}")
mask = nn.Transformer.generate_square_subsequent_mask(4)
print("mask", mask.tolist())
input = torch.randint(ntokens, (1, 1), dtype=torch.long)
words = []
with torch.no_grad():
    for i in range(5):
        output = model(input, False)
        word_weights = output[-1].squeeze().div(1.0).exp().cpu()
        word_idx = torch.multinomial(word_weights, 1)[0]
        word_tensor = torch.Tensor([[word_idx]]).long()
        input = torch.cat([input, word_tensor], 0)
        words.append(int(word_idx))
print("generated", words)
logits = torch.randn(8, 10)
target = torch.randint(0, 10, (8,))
acc1, acc5 = accuracy(logits, target, topk=(1, 5))
print(f"acc1 {acc1[0]:.3f} acc5 {acc5.item():.3f}")
feat = torch.rand(2, 3, 4, 4)
style = nn.Sequential(nn.ReflectionPad2d(1), nn.Conv2d(3, 3, 3), nn.InstanceNorm2d(3, affine=True))
g = gram_matrix(style(feat))
mse = torch.nn.MSELoss()
print(f"gram {tuple(g.shape)} {g.sum().item():.5f} mse {mse(g, gram_matrix(feat)).item():.6f}")
x = torch.rand(4, 6)
x_direction = x / (x.norm(2, 1, keepdim=True) + 1e-4)
print(f"ff {x_direction.pow(2).mean(1).sum().item():.5f} "
      f"{torch.log(1 + torch.exp(torch.cat([-x[:2], x[2:]]))).mean().item():.5f}")
