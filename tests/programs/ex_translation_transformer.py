"""pytorch/tutorials ``beginner_source/translation_transformer.py``-style (own code; a synthetic "reverse and
shift" language pair in place of Multi30k/spacy): ``PositionalEncoding`` (``register_buffer('pos_embedding')``,
``torch.exp(- torch.arange(0, emb_size, 2) * math.log(10000) / emb_size)``), ``TokenEmbedding`` scaled by
``math.sqrt(emb_size)``, ``Seq2SeqTransformer`` over ``nn.Transformer`` (sequence-first), ``create_mask`` with
``generate_square_subsequent_mask`` written as the tutorial does (``torch.triu(torch.ones(sz, sz)) == 1`` then
``masked_fill`` with ``float('-inf')``), boolean ``src_mask`` of zeros and ``*_padding_mask`` from ``== PAD_IDX``;
``collate_fn`` with ``pad_sequence(padding_value=PAD_IDX)``, ``CrossEntropyLoss(ignore_index=PAD_IDX)``, Adam
with ``betas=(0.9, 0.98), eps=1e-9``, ``xavier_uniform_`` over ``p.dim() > 1``, ``evaluate`` and the tutorial's
``greedy_decode`` (``model.encode``/``decode``, ``torch.max(prob, dim=1)``, ``torch.cat`` of ``torch.ones(1, 1)
.type_as(src.data).fill_(next_word)``); then an ``nn.TransformerEncoder`` with ``batch_first=True`` and
``norm_first`` in eval mode with a key padding mask (torch's fast path, nested tensors) and
``nn.MultiheadAttention`` weights averaged over heads or not."""
import math

import torch
import torch.nn as nn
from torch import Tensor
from torch.nn import Transformer
from torch.nn.utils.rnn import pad_sequence
from torch.utils.data import DataLoader

torch.manual_seed(0)
DEVICE = torch.device('cpu')
UNK_IDX, PAD_IDX, BOS_IDX, EOS_IDX = 0, 1, 2, 3
SRC_VOCAB_SIZE = TGT_VOCAB_SIZE = 14


class PositionalEncoding(nn.Module):
    def __init__(self, emb_size: int, dropout: float, maxlen: int = 50):
        super(PositionalEncoding, self).__init__()
        den = torch.exp(- torch.arange(0, emb_size, 2) * math.log(10000) / emb_size)
        pos = torch.arange(0, maxlen).reshape(maxlen, 1)
        pos_embedding = torch.zeros((maxlen, emb_size))
        pos_embedding[:, 0::2] = torch.sin(pos * den)
        pos_embedding[:, 1::2] = torch.cos(pos * den)
        pos_embedding = pos_embedding.unsqueeze(-2)
        self.dropout = nn.Dropout(dropout)
        self.register_buffer('pos_embedding', pos_embedding)

    def forward(self, token_embedding: Tensor):
        return self.dropout(token_embedding + self.pos_embedding[:token_embedding.size(0), :])


class TokenEmbedding(nn.Module):
    def __init__(self, vocab_size: int, emb_size):
        super(TokenEmbedding, self).__init__()
        self.embedding = nn.Embedding(vocab_size, emb_size)
        self.emb_size = emb_size

    def forward(self, tokens: Tensor):
        return self.embedding(tokens.long()) * math.sqrt(self.emb_size)


class Seq2SeqTransformer(nn.Module):
    def __init__(self, num_encoder_layers, num_decoder_layers, emb_size, nhead, src_vocab_size, tgt_vocab_size,
                 dim_feedforward=512, dropout=0.1):
        super(Seq2SeqTransformer, self).__init__()
        self.transformer = Transformer(d_model=emb_size, nhead=nhead, num_encoder_layers=num_encoder_layers,
                                       num_decoder_layers=num_decoder_layers, dim_feedforward=dim_feedforward,
                                       dropout=dropout)
        self.generator = nn.Linear(emb_size, tgt_vocab_size)
        self.src_tok_emb = TokenEmbedding(src_vocab_size, emb_size)
        self.tgt_tok_emb = TokenEmbedding(tgt_vocab_size, emb_size)
        self.positional_encoding = PositionalEncoding(emb_size, dropout=dropout)

    def forward(self, src, trg, src_mask, tgt_mask, src_padding_mask, tgt_padding_mask, memory_key_padding_mask):
        src_emb = self.positional_encoding(self.src_tok_emb(src))
        tgt_emb = self.positional_encoding(self.tgt_tok_emb(trg))
        outs = self.transformer(src_emb, tgt_emb, src_mask, tgt_mask, None,
                                src_padding_mask, tgt_padding_mask, memory_key_padding_mask)
        return self.generator(outs)

    def encode(self, src: Tensor, src_mask: Tensor):
        return self.transformer.encoder(self.positional_encoding(self.src_tok_emb(src)), src_mask)

    def decode(self, tgt: Tensor, memory: Tensor, tgt_mask: Tensor):
        return self.transformer.decoder(self.positional_encoding(self.tgt_tok_emb(tgt)), memory, tgt_mask)


def generate_square_subsequent_mask(sz):
    mask = (torch.triu(torch.ones((sz, sz), device=DEVICE)) == 1).transpose(0, 1)
    mask = mask.float().masked_fill(mask == 0, float('-inf')).masked_fill(mask == 1, float(0.0))
    return mask


def create_mask(src, tgt):
    src_seq_len = src.shape[0]
    tgt_seq_len = tgt.shape[0]
    tgt_mask = generate_square_subsequent_mask(tgt_seq_len)
    src_mask = torch.zeros((src_seq_len, src_seq_len), device=DEVICE).type(torch.bool)
    src_padding_mask = (src == PAD_IDX).transpose(0, 1)
    tgt_padding_mask = (tgt == PAD_IDX).transpose(0, 1)
    return src_mask, tgt_mask, src_padding_mask, tgt_padding_mask


def make_pairs(n, g):
    pairs = []
    for _ in range(n):
        L = int(torch.randint(2, 7, (1,), generator=g))
        s = torch.randint(4, SRC_VOCAB_SIZE, (L,), generator=g).tolist()
        t = [4 + (w - 4 + 1) % (SRC_VOCAB_SIZE - 4) for w in reversed(s)]
        pairs.append((s, t))
    return pairs


def tensor_transform(token_ids):
    return torch.cat((torch.tensor([BOS_IDX]), torch.tensor(token_ids), torch.tensor([EOS_IDX])))


def collate_fn(batch):
    src_batch, tgt_batch = [], []
    for src_sample, tgt_sample in batch:
        src_batch.append(tensor_transform(src_sample))
        tgt_batch.append(tensor_transform(tgt_sample))
    src_batch = pad_sequence(src_batch, padding_value=PAD_IDX)
    tgt_batch = pad_sequence(tgt_batch, padding_value=PAD_IDX)
    return src_batch, tgt_batch


g = torch.Generator().manual_seed(1)
train_iter, val_iter = make_pairs(24, g), make_pairs(8, g)
transformer = Seq2SeqTransformer(2, 2, 32, 4, SRC_VOCAB_SIZE, TGT_VOCAB_SIZE, 64)
for p in transformer.parameters():
    if p.dim() > 1:
        nn.init.xavier_uniform_(p)
transformer = transformer.to(DEVICE)
loss_fn = torch.nn.CrossEntropyLoss(ignore_index=PAD_IDX)
optimizer = torch.optim.Adam(transformer.parameters(), lr=0.001, betas=(0.9, 0.98), eps=1e-9)
print("params", sum(p.numel() for p in transformer.parameters()),
      type(transformer.transformer.encoder.layers[0].self_attn).__name__)
src0, tgt0 = collate_fn(train_iter[:3])
print("batch", tuple(src0.shape), src0[:, 0].tolist(), tgt0[:, 0].tolist())
m = create_mask(src0, tgt0[:-1, :])
print("masks", [(tuple(x.shape), str(x.dtype)) for x in m], m[1][0].tolist()[:3], m[2].sum().item())


def train_epoch(model, optimizer):
    model.train()
    losses = 0
    train_dataloader = DataLoader(train_iter, batch_size=8, collate_fn=collate_fn)
    for src, tgt in train_dataloader:
        src = src.to(DEVICE)
        tgt = tgt.to(DEVICE)
        tgt_input = tgt[:-1, :]
        src_mask, tgt_mask, src_padding_mask, tgt_padding_mask = create_mask(src, tgt_input)
        logits = model(src, tgt_input, src_mask, tgt_mask, src_padding_mask, tgt_padding_mask, src_padding_mask)
        optimizer.zero_grad()
        tgt_out = tgt[1:, :]
        loss = loss_fn(logits.reshape(-1, logits.shape[-1]), tgt_out.reshape(-1))
        loss.backward()
        optimizer.step()
        losses += loss.item()
    return losses / len(list(train_dataloader))


def evaluate(model):
    model.eval()
    losses = 0
    val_dataloader = DataLoader(val_iter, batch_size=8, collate_fn=collate_fn)
    for src, tgt in val_dataloader:
        tgt_input = tgt[:-1, :]
        src_mask, tgt_mask, src_padding_mask, tgt_padding_mask = create_mask(src, tgt_input)
        logits = model(src, tgt_input, src_mask, tgt_mask, src_padding_mask, tgt_padding_mask, src_padding_mask)
        tgt_out = tgt[1:, :]
        loss = loss_fn(logits.reshape(-1, logits.shape[-1]), tgt_out.reshape(-1))
        losses += loss.item()
    return losses / len(list(val_dataloader))


for epoch in range(1, 3):
    train_loss = train_epoch(transformer, optimizer)
    val_loss = evaluate(transformer)
    print((f"Epoch: {epoch}, Train loss: {train_loss:.3f}, Val loss: {val_loss:.3f}"))


def greedy_decode(model, src, src_mask, max_len, start_symbol):
    src = src.to(DEVICE)
    src_mask = src_mask.to(DEVICE)
    memory = model.encode(src, src_mask)
    ys = torch.ones(1, 1).fill_(start_symbol).type(torch.long).to(DEVICE)
    for i in range(max_len - 1):
        memory = memory.to(DEVICE)
        tgt_mask = (generate_square_subsequent_mask(ys.size(0)).type(torch.bool)).to(DEVICE)
        out = model.decode(ys, memory, tgt_mask)
        out = out.transpose(0, 1)
        prob = model.generator(out[:, -1])
        _, next_word = torch.max(prob, dim=1)
        next_word = next_word.item()
        ys = torch.cat([ys, torch.ones(1, 1).type_as(src.data).fill_(next_word)], dim=0)
        if next_word == EOS_IDX:
            break
    return ys


def translate(model, src_tokens):
    model.eval()
    src = tensor_transform(src_tokens).view(-1, 1)
    num_tokens = src.shape[0]
    src_mask = (torch.zeros(num_tokens, num_tokens)).type(torch.bool)
    tgt_tokens = greedy_decode(model, src, src_mask, max_len=num_tokens + 5, start_symbol=BOS_IDX).flatten()
    return tgt_tokens.tolist()


print("translate", translate(transformer, [5, 6, 7]))
with torch.no_grad():
    mem = transformer.encode(tensor_transform([4, 9]).view(-1, 1), torch.zeros(4, 4, dtype=torch.bool))
print("memory", tuple(mem.shape), round(mem.abs().sum().item(), 3))
print("tgt mask (Transformer)", Transformer.generate_square_subsequent_mask(3).tolist())

# ---- batch_first encoder, eval fast path with a padding mask ----
torch.manual_seed(3)
layer = nn.TransformerEncoderLayer(d_model=16, nhead=2, dim_feedforward=32, dropout=0.0, batch_first=True)
enc = nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=True)
pre = nn.TransformerEncoder(nn.TransformerEncoderLayer(16, 2, 32, 0.0, batch_first=True, norm_first=True,
                                                       activation="gelu"), 2, norm=nn.LayerNorm(16),
                            enable_nested_tensor=False)
x = torch.randn(3, 5, 16)
kpm = torch.tensor([[False] * 5, [False] * 3 + [True] * 2, [False] * 4 + [True]])
enc.eval()
pre.eval()
with torch.no_grad():
    y = enc(x, src_key_padding_mask=kpm)
    y2 = pre(x, src_key_padding_mask=kpm, mask=nn.Transformer.generate_square_subsequent_mask(5), is_causal=True)
wsum = torch.linspace(-1, 1, 16)
print("fast path", tuple(y.shape), round((y[0] * wsum).sum().item(), 3), y[1, 3:].abs().sum().item(), y.is_nested)
print("norm_first causal", round((y2 * wsum).sum().item(), 3), round(y2[2, :4].abs().mean().item(), 4))
enc.train()
y3 = enc(x, src_key_padding_mask=kpm)
(y3 * wsum).pow(2).sum().backward()
print("train path", round(y3[1, 3:].abs().sum().item(), 3), layer.self_attn.in_proj_weight.grad is None,
      round(enc.layers[0].self_attn.in_proj_weight.grad.abs().sum().item(), 3))

mha = nn.MultiheadAttention(8, 2, batch_first=True, kdim=6, vdim=4)
q, k, v = torch.randn(2, 3, 8), torch.randn(2, 4, 6), torch.randn(2, 4, 4)
o, w = mha(q, k, v, key_padding_mask=torch.tensor([[False, False, True, True], [False] * 4]))
o2, w2 = mha(q, k, v, average_attn_weights=False, attn_mask=torch.zeros(3, 4).bool())
print("mha", tuple(o.shape), tuple(w.shape), [round(t, 4) for t in w[0, 0].tolist()], tuple(w2.shape),
      round(o2.sum().item(), 4), mha.in_proj_weight is None, tuple(mha.k_proj_weight.shape))
